"""Request and response bodies shared by the API's routes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ToolText(BaseModel):
    text: str = Field(description="Status-marked text, as the model should see it.")


class Message(BaseModel):
    role: str
    content: Any = ""


class CaptureRequest(BaseModel):
    chat_id: str
    messages: list[Message]
    subject: str
    content: str = ""
