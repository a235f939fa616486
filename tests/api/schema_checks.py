"""Schemathesis checks of our own (loaded through SCHEMATHESIS_HOOKS): a client error says what was wrong."""

from __future__ import annotations

import json
from typing import Any

import schemathesis

# statuses that are about the caller or the route, not about one field of the request
NOT_ABOUT_A_FIELD = {401, 403, 404, 405, 406, 415}


@schemathesis.check
def client_error_names_the_field(ctx: Any, response: Any, case: Any) -> None:
    """Every 4xx carries a specific ``detail``; a 422 names the location of each bad field."""
    status = response.status_code
    if not 400 <= status < 500 or status in NOT_ABOUT_A_FIELD:
        return
    try:
        detail = json.loads(response.content).get("detail")
    except (ValueError, AttributeError):
        raise AssertionError(f"{status} without a JSON detail: {response.content[:200]!r}") from None
    if status == 422:
        assert isinstance(detail, list) and detail, f"422 without details: {detail!r}"
        for item in detail:
            where = [str(p) for p in item.get("loc", []) if p != "body"]
            assert where or item.get("type") in ("missing", "json_invalid", "model_attributes_type"), item
            assert item.get("msg"), item
    else:
        assert isinstance(detail, str) and len(detail) > 10, f"{status} with a vague detail: {detail!r}"
