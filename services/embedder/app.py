"""The embedder service: multilingual-e5 on the CPU (sentinel.embed.onnx) behind HTTP.

    uvicorn services.embedder.app:app --host 0.0.0.0 --port 8001 --no-access-log

Settings from the environment: SENTINEL_EMBED_MODEL_DIR (required), SENTINEL_EMBED_MODEL_FILE,
SENTINEL_EMBED_THREADS, SENTINEL_EMBED_BATCH, SENTINEL_EMBED_MAX_REQUEST_TEXTS.

At start the model must pass its self-check on this CPU (sentinel.embed.selfcheck), else the service exits
naming the figure and the fix.

POST /embed {"texts": [...], "kind": "query"|"passage"} -> vectors, truncated flags, token counts, model.
GET /health -> the model's identity (name, dims, file hash). One JSON log line per request, with its id
(the caller's X-Request-ID, else a fresh one; echoed in the response header).
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Request, Response
from pydantic import BaseModel

from sentinel.embed.base import EmbedderUnavailable, EmbedKind, ModelIdentity
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.settings import Settings

log = logging.getLogger("sentinel.embedder")


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "event": record.getMessage(),
            **getattr(record, "fields", {}),
        }
        return json.dumps(line, ensure_ascii=False)


def _log_json(event: str, level: int = logging.INFO, **fields: Any) -> None:
    log.log(level, event, extra={"fields": fields})


class ModelOut(BaseModel):
    name: str
    dims: int
    file_hash: str


class EmbedIn(BaseModel):
    texts: list[str]
    kind: EmbedKind


class EmbedOut(BaseModel):
    model: ModelOut
    vectors: list[list[float]]
    truncated: list[bool]
    tokens: list[int]


class HealthOut(BaseModel):
    status: Literal["ok"]
    model: ModelOut
    model_file: str
    threads: int
    batch: int


def _model_out(identity: ModelIdentity) -> ModelOut:
    return ModelOut(name=identity.name, dims=identity.dims, file_hash=identity.file_hash)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service; settings are read when it starts (from the environment unless given)."""
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonLines())
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        config = settings or Settings()
        if config.embed_model_dir is None:
            raise EmbedderUnavailable(
                "SENTINEL_EMBED_MODEL_DIR is not set: point it at the multilingual-e5-small directory "
                "(`make models` builds models/multilingual-e5-small)"
            )
        try:
            embedder = OnnxEmbedder(
                config.embed_model_dir,
                threads=config.embed_threads,
                batch=config.embed_batch,
                model_file=config.embed_model_file,
            )
        except EmbedderUnavailable as exc:
            _log_json("startup_failed", logging.ERROR, error=str(exc))
            raise
        app.state.embedder = embedder
        app.state.threads = config.embed_threads
        app.state.max_texts = config.embed_max_request_texts
        # One batch at a time: ONNX Runtime already uses every thread it is given, and concurrent batches
        # would only multiply memory.
        app.state.lock = threading.Lock()
        check = embedder.self_check  # a model failing it never gets here: the load raised, logged above
        _log_json(
            "started",
            model=str(embedder.files.model),
            threads=config.embed_threads,
            self_check={"worst_cosine": check.worst_cosine, "floor": check.floor, "references": str(check.references)},
            **asdict(embedder.identity),
        )
        yield

    app = FastAPI(title="Sentinel embedder", lifespan=lifespan)

    @app.middleware("http")
    async def log_request(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        request_id = request.headers.get("x-request-id") or uuid.uuid4().hex
        request.state.log = {}
        started = time.perf_counter()
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            response.headers["x-request-id"] = request_id
            return response
        finally:
            _log_json(
                "request",
                logging.INFO if status < 500 else logging.ERROR,
                request_id=request_id,
                method=request.method,
                path=request.url.path,
                status=status,
                ms=round((time.perf_counter() - started) * 1000, 1),
                **request.state.log,
            )

    @app.get("/health")
    def health(request: Request) -> HealthOut:
        embedder: OnnxEmbedder = request.app.state.embedder
        return HealthOut(
            status="ok",
            model=_model_out(embedder.identity),
            model_file=embedder.files.model.name,
            threads=request.app.state.threads,
            batch=embedder.batch,
        )

    @app.post("/embed")
    def embed(body: EmbedIn, request: Request) -> EmbedOut:
        state = request.app.state
        if len(body.texts) > state.max_texts:
            raise HTTPException(
                422,
                f"{len(body.texts)} texts in one request; the limit is {state.max_texts} "
                "(send smaller batches or raise SENTINEL_EMBED_MAX_REQUEST_TEXTS)",
            )
        embedder: OnnxEmbedder = state.embedder
        with state.lock:
            result = embedder.embed(body.texts, body.kind)
        request.state.log = {
            "kind": body.kind,
            "texts": len(body.texts),
            "tokens": sum(result.tokens),
            "truncated": sum(result.truncated),
        }
        return EmbedOut(
            model=_model_out(embedder.identity),
            vectors=result.vectors.tolist(),
            truncated=result.truncated,
            tokens=result.tokens,
        )

    return app


app = create_app()
