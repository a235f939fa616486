"""Gate: a write based on a stale read is refused."""

from __future__ import annotations

from sentinel.gates import Verdict


def read_current(expected_hash: str, current_hash: str, relpath: str) -> Verdict[str]:
    """Passed when the caller has seen the current text of ``relpath``; else the reason says what to do.

    Protects edits made since the caller read the page (by the person in Obsidian, or another writer). The hash
    compared here is the *edit hash*, of the page's exact bytes, not the content hash the index keeps: that one
    ignores link markup on purpose (so a link-only edit does not requeue analysis), but a replace swaps every
    byte, so a guard blind to links would silently discard a person's ``[[A|the page]]`` -> ``[[B|the page]]``.
    The price is that a link-only edit after a read costs the model one more read, never the person an edit.
    """
    if not expected_hash:
        return Verdict(
            False,
            f"replacing '{relpath}' needs the hash of the text you are replacing: read it first "
            f"(its current hash is {current_hash}) and pass expected_hash",
        )
    if not current_hash.startswith(expected_hash.strip().lower()) or len(expected_hash.strip()) < 8:
        return Verdict(
            False,
            f"'{relpath}' changed since it was read (expected hash {expected_hash}, now {current_hash}); "
            "read it again, then write with the new hash",
        )
    return Verdict(True)
