"""Gate: a write based on a stale read is refused."""

from __future__ import annotations


def stale_write_refusal(expected_hash: str, current_hash: str, relpath: str) -> str:
    """Why a replace of ``relpath`` may not go ahead, or "" when the caller has seen the current text.

    Protects edits made since the caller read the page (by the person in Obsidian, or another writer): the
    content hash ignores link markup, so adding links does not make a read stale but any real edit does.
    """
    if not expected_hash:
        return (
            f"replacing '{relpath}' needs the hash of the text you are replacing: read it first "
            f"(its current hash is {current_hash}) and pass expected_hash"
        )
    if expected_hash != current_hash:
        return (
            f"'{relpath}' changed since it was read (expected hash {expected_hash}, now {current_hash}); "
            "read it again, then write with the new hash"
        )
    return ""
