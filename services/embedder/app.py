"""The embedder service: multilingual-e5 on the CPU (sentinel.embed.onnx) behind HTTP.

    uvicorn services.embedder.app:app --host 0.0.0.0 --port 8001 --no-access-log

Settings from the environment: SENTINEL_EMBED_MODEL_DIR (required), SENTINEL_EMBED_MODEL_FILE,
SENTINEL_EMBED_THREADS, SENTINEL_EMBED_BATCH, SENTINEL_EMBED_MAX_REQUEST_TEXTS.

At start the model must pass its self-check on this CPU (sentinel.embed.selfcheck), else the service exits
naming the figure and the fix.

POST /embed {"texts": [...], "kind": "query"|"passage"} -> vectors, truncated flags, token counts, model.
GET /health -> the model's identity (name, dims, file hash). Logs as the API's (``sentinel.logs``): one JSON
line per request with its id (the caller's X-Request-ID, else a fresh one; echoed in the response header), what
an embed request held (kind, texts, tokens, truncated), health checks at debug only.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from functools import cache
from typing import Literal

from fastapi import FastAPI, Request
from pydantic import BaseModel

from sentinel.embed.base import EmbedderUnavailable, EmbedKind, ModelIdentity
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.errors import Refused
from sentinel.logs import LOG_FIELDS, RequestLog, configure_logging
from sentinel.settings import Settings
from services.common import errors


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


def create_app(settings: Settings) -> FastAPI:
    """The service on ``settings``."""
    log = configure_logging("embedder")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.embed_model_dir is None:
            raise EmbedderUnavailable(
                "SENTINEL_EMBED_MODEL_DIR is not set: point it at the multilingual-e5-small directory "
                "(`make models` builds models/multilingual-e5-small)"
            )
        try:
            embedder = OnnxEmbedder(
                settings.embed_model_dir,
                threads=settings.embed_threads,
                batch=settings.embed_batch,
                model_file=settings.embed_model_file,
            )
        except EmbedderUnavailable as exc:
            log.error("the model could not be loaded", extra={"event": "startup_failed", "error": str(exc)})
            raise
        app.state.embedder = embedder
        app.state.threads = settings.embed_threads
        app.state.max_texts = settings.embed_max_request_texts
        # One batch at a time: ONNX Runtime already uses every thread it is given, and concurrent batches
        # would only multiply memory.
        app.state.lock = threading.Lock()
        check = embedder.self_check  # a model failing it never gets here: the load raised, logged above
        log.info(
            "started",
            extra={
                "event": "started",
                "model": str(embedder.files.model),
                "threads": settings.embed_threads,
                "self_check": {
                    "worst_cosine": check.worst_cosine,
                    "floor": check.floor,
                    "references": str(check.references),
                },
                "identity": asdict(embedder.identity),  # not spread: "name" belongs to the log record
            },
        )
        yield

    app = FastAPI(title="Sentinel embedder", lifespan=lifespan)
    errors.install(app)

    app.add_middleware(RequestLog, logger="sentinel.embedder")

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
            raise Refused(  # the service's own limit, a policy: 422 (services.common.errors)
                f"{len(body.texts)} texts in one request; the limit is {state.max_texts} "
                "(send smaller batches or raise SENTINEL_EMBED_MAX_REQUEST_TEXTS)",
            )
        embedder: OnnxEmbedder = state.embedder
        with state.lock:
            result = embedder.embed(body.texts, body.kind)
        setattr(  # what the request's log line adds (sentinel.logs.RequestLog)
            request.state,
            LOG_FIELDS,
            {
                "kind": body.kind,
                "texts": len(body.texts),
                "tokens": sum(result.tokens),
                "truncated": sum(result.truncated),
            },
        )
        return EmbedOut(
            model=_model_out(embedder.identity),
            vectors=result.vectors.tolist(),
            truncated=result.truncated,
            tokens=result.tokens,
        )

    return app


@cache
def _from_environment() -> FastAPI:
    # This entry's one door to configuration: the settings are read here, once, and passed down.
    return create_app(Settings())


def __getattr__(name: str) -> FastAPI:
    """``uvicorn services.embedder.app:app`` builds the app from the environment on first access, never at import."""
    if name == "app":
        return _from_environment()
    raise AttributeError(name)
