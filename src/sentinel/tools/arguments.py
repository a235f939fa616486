"""Arguments no primitive can use, found before any of them runs: text that is not encodable as UTF-8."""

from __future__ import annotations

from typing import Any


def _first_surrogate(value: Any, where: str) -> tuple[str, int] | None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            return where, err.start
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if found := _first_surrogate(item, f"{where}.{key}" if where else str(key)):
            return found
    return None


def unencodable_argument(arguments: dict[str, Any]) -> str:
    """Why these arguments cannot be used, or "": a lone surrogate (``"\\ud800"``) names no file, matches no text
    and cannot be written to a page, so it is refused by name instead of failing deep inside a primitive."""
    found = _first_surrogate(arguments, "")
    if found is None:
        return ""
    where, at = found
    return (
        f"{where} holds a lone surrogate at character {at} (a half of a UTF-16 pair, such as \\ud800), which is not "
        "text: send it again as proper UTF-8"
    )
