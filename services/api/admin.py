"""Routes beside the tools: health, queueing a maintenance pass, and saving a conversation."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from fastapi import APIRouter, Response
from redis.exceptions import RedisError

from sentinel import __version__
from sentinel.index.queries import stats
from sentinel.paths import index_path
from sentinel.redis_client import redis_bytes_client
from sentinel.search import filling
from sentinel.tools.capture import capture
from services.api.deps import AppSettings, CallerScope, Context
from services.api.request_log import log_tool_call
from services.api.schemas import CaptureRequest, ToolText
from services.common.auth import require_write

router = APIRouter()


def _redis_state(url: str) -> str:
    """``ok``, or why Redis (the pool's registry, the queue of maintenance passes) cannot be used."""
    client = redis_bytes_client(url, timeout_s=1, connect_timeout_s=1)
    try:
        client.ping()
    except RedisError as error:
        return f"unreachable: {error}"
    finally:
        client.close()
    return "ok"


def _filling(db: sqlite3.Connection) -> dict[str, object] | None:
    held = filling.as_loaded(db)
    return None if held is None else held.as_dict()


@router.get("/health")
def health(ctx: Context, settings: AppSettings, response: Response) -> dict[str, Any]:
    """503 while Redis is down: chat through the pool and queued passes cannot work then, and saying 200 while
    every chat failed hid that."""
    redis = _redis_state(settings.redis_url)
    if redis != "ok":
        response.status_code = 503
    return {
        "status": "ok" if redis == "ok" else "degraded",
        "version": __version__,
        "index": str(index_path(settings)),
        "pages": stats(ctx.reader())["pages"],
        "embedder": ctx.embedder.identity.name if ctx.embedder else None,
        "redis": redis,
        # which search legs are still filling and how far, from the view already held (never loaded here)
        "search": _filling(ctx.reader()),
    }


@router.post("/v1/maintain", status_code=202)
def maintain_route(scope: CallerScope, settings: AppSettings, minutes: float | None = None) -> dict[str, object]:
    """Queue a maintenance pass now. 202 means queued, not done: a worker takes it when one is free."""
    require_write(scope, "maintain")
    from services.common.tasks import trigger_maintenance  # the one Celery app, on the API's settings

    return trigger_maintenance(settings, minutes)


@router.post("/v1/capture", response_model=ToolText)
def capture_route(body: CaptureRequest, ctx: Context, scope: CallerScope) -> ToolText:
    require_write(scope, "capture")
    messages, started = [m.model_dump() for m in body.messages], time.perf_counter()
    text = capture(ctx, body.chat_id, messages, body.subject, body.content).render()
    log_tool_call("save", {"subject": body.subject}, text, time.perf_counter() - started)
    return ToolText(text=text)
