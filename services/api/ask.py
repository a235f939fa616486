"""``POST /v1/ask``: one user turn answered by the answer pipeline (``sentinel.answer``), as data.

Open WebUI's Sentinel model (tool/openwebui_pipe.py) calls it with the whole conversation and the chat's id;
any other client may send just a question. A read key may ask; a save needs a write key (with a read key the
answer says it was not saved).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field, ValidationInfo, field_validator

from sentinel.answer import Turn, answer_turn
from sentinel.answer.pipeline import working_line
from sentinel.keys import Scope
from sentinel.providers import ProviderNotConfigured, provider_for
from sentinel.providers.base import ChatProvider
from sentinel.search.scope import limited_to
from sentinel.settings import Settings
from services.api.deps import CallerScope, Context
from services.api.request_log import log_tool_call
from services.api.schemas import Message
from services.common.auth import limits_of

router = APIRouter(tags=["answers"])
_provider_lock = threading.Lock()


class AskRequest(BaseModel):
    messages: list[Message] = Field(default_factory=list, description="The conversation so far, OpenAI shape.")
    chat_id: str = Field("", description="The chat's id: a save records the transcript under it.")
    question: str = Field(
        "", validate_default=True, description="The user's turn (or give messages, the user's turn last)."
    )

    @field_validator("question")
    @classmethod
    def _has_a_turn(cls, question: str, info: ValidationInfo) -> str:
        messages = info.data.get("messages") or []
        if not question.strip() and not any(m.role == "user" for m in messages):
            raise ValueError("give question, or messages holding the user's turn")
        return question


class CitationOut(BaseModel):
    path: str
    heading: str
    quote: str
    title: str
    url: str


class AskResponse(BaseModel):
    answer: str
    citations: list[CitationOut]
    intent: str
    answered: bool = Field(description="False when the answer only quotes the vault or says it does not hold it.")
    dropped: int = Field(description="Sentences the support gate dropped.")
    model: str
    notes: list[str]
    saved: str = Field(description="The note a save wrote or updated ('' otherwise).")
    call_shaped: int = Field(description="Pieces of the model's reply shaped like a tool call, never shown.")
    status: str = Field(description="The short line a door shows beside the answer (a save's, in its language).")


def _provider(request: Request, settings: Settings) -> ChatProvider | None:
    """The conversation model, made once per app; None when none is configured (answers are then extractive)."""
    with _provider_lock:
        if not hasattr(request.app.state, "answer_provider"):
            try:
                request.app.state.answer_provider = provider_for(settings.conversation, "conversation")
            except ProviderNotConfigured:
                request.app.state.answer_provider = None
        provider: ChatProvider | None = request.app.state.answer_provider
        return provider


class WorkingResponse(BaseModel):
    status: str = Field(description="The line a door shows while the turn is answered, in the turn's language.")


def _turn(body: AskRequest, scope: Scope) -> Turn:
    messages = [m.model_dump() for m in body.messages]
    if body.question.strip():
        messages.append({"role": "user", "content": body.question})
    return Turn(messages, chat_id=body.chat_id, can_write=scope is Scope.WRITE)


@router.post(
    "/v1/ask/status",
    response_model=WorkingResponse,
    summary="The line to show while this turn is answered ('Kasanda aranıyor…'), by code, no model asked.",
)
def ask_status(body: AskRequest, scope: CallerScope) -> dict[str, str]:
    # A door cannot know a turn's language before asking; the core decides it, as it will for the answer.
    return {"status": working_line(_turn(body, scope))}


@router.post("/v1/ask", response_model=AskResponse, summary="Answer one user turn from the vault, with citations.")
def ask(body: AskRequest, request: Request, ctx: Context, scope: CallerScope) -> dict[str, Any]:
    settings = ctx.settings
    turn = _turn(body, scope)
    started = time.perf_counter()
    with limited_to(limits_of(request)):  # scopes the key never reaches (sentinel.search.scope)
        answer = answer_turn(ctx, _provider(request, settings), turn, settings.conversation.model)
    pages = tuple(c.path for c in answer.citations)
    log_tool_call("ask", {"intent": answer.intent}, answer.answer, time.perf_counter() - started, pages)
    return answer.as_dict()
