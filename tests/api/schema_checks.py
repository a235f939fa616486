"""Schemathesis checks of our own (loaded through SCHEMATHESIS_HOOKS): a client error says what was wrong."""

from __future__ import annotations

import json
from typing import Any

import schemathesis

# statuses that are about the caller or the route, not about one field of the request
NOT_ABOUT_A_FIELD = {401, 403, 404, 405, 406, 415}


@schemathesis.check
def client_error_names_the_field(ctx: Any, response: Any, case: Any) -> None:
    """Every 4xx carries a specific ``detail``; a 422 names the location of each bad field. The model pool's
    routes answer in their dialect's error shape instead (OpenAI's ``{"error": {"message"}}``, Ollama's
    ``{"error": "..."}``), held to the same rule."""
    status = response.status_code
    if not 400 <= status < 500 or status in NOT_ABOUT_A_FIELD:
        return
    try:
        body = json.loads(response.content)
        detail = body.get("detail")
    except (ValueError, AttributeError):
        raise AssertionError(f"{status} without a JSON detail: {response.content[:200]!r}") from None
    if detail is None and "error" in body:
        error = body["error"]
        detail = error.get("message") if isinstance(error, dict) else error
    if status == 422:
        assert isinstance(detail, list) and detail, f"422 without details: {detail!r}"
        for item in detail:
            where = [str(p) for p in item.get("loc", []) if p != "body"]
            assert where or item.get("type") in ("missing", "json_invalid", "model_attributes_type"), item
            assert item.get("msg"), item
    else:
        assert isinstance(detail, str) and len(detail) > 10, f"{status} with a vague detail: {detail!r}"
