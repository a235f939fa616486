"""What each answer in a chat rested on, recorded when it is given, so a later "save this" can keep it.

The record is exact where the alternatives are not: running the same retrieval again for the previous question
gives the same passages only while the index is unchanged, and which of them a written answer cited was the
model's choice, gone once the turn ended. Open WebUI hands back the assistant's text, not its sources. So the
answer's own text (as the door showed it, whitespace aside) is the key, and the chat's id the file: the record
names the passages exactly as the answer cited them, or nothing (an answer given before this record existed,
an edited message), and then a save keeps the user's words alone.

Both dimensions are bounded here: ``KEPT_ANSWERS`` per chat, and the files of the ``KEPT_CHATS`` chats answered
most recently (a chat not answered in that long loses its record: a save there keeps the user's words alone).
Only a door that can write records anything (``pipeline.Turn.can_write``): a read-only door cannot save, so
what its answers rested on is never asked for.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from sentinel.answer.result import Citation
from sentinel.paths import answer_record_dir
from sentinel.settings import Settings
from sentinel.vault.write import WriteFailed, atomic_write

KEPT_ANSWERS = 50  # per chat; a save reaches for the answer just before it
KEPT_CHATS = 1000  # chat files, the most recently answered kept; each at most KEPT_ANSWERS answers' quotes


def _digest(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()


def _file(settings: Settings, chat_id: str) -> Path:
    return answer_record_dir(settings) / f"{_digest(chat_id)[:32]}.json"


def _load(path: Path) -> dict[str, list[dict[str, str]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def remember(settings: Settings, chat_id: str, answer: str, rests_on: list[Citation]) -> None:
    """Record that ``answer``, given in chat ``chat_id``, rested on ``rests_on`` (nothing without a chat id)."""
    if not chat_id or not rests_on:
        return
    path = _file(settings, chat_id)
    kept = _load(path)
    kept.pop(_digest(answer), None)
    kept[_digest(answer)] = [c.as_dict() for c in rests_on]
    kept = dict(list(kept.items())[-KEPT_ANSWERS:])
    with contextlib.suppress(WriteFailed):  # a full disk costs a later save its quotes, never the answer
        atomic_write(path, json.dumps(kept, ensure_ascii=False, indent=1))
    _prune(path.parent, keep=path)


def _prune(directory: Path, keep: Path) -> None:
    """Remove the files of all but the ``KEPT_CHATS`` most recently answered chats (``keep``, just written, stays)."""
    files = []
    for found in directory.glob("*.json"):
        with contextlib.suppress(OSError):  # removed by a concurrent prune
            files.append((found.stat().st_mtime_ns, found))
    if len(files) <= KEPT_CHATS:
        return
    files.sort(reverse=True)
    for _, old in files[KEPT_CHATS:]:
        if old != keep:
            old.unlink(missing_ok=True)


def rested_on(settings: Settings, chat_id: str, answer: str) -> list[Citation]:
    """What ``answer`` in chat ``chat_id`` rested on, as recorded when it was given ([] when not recorded)."""
    if not chat_id:
        return []
    found = _load(_file(settings, chat_id)).get(_digest(answer)) or []
    fields = ("path", "heading", "quote", "title", "url")
    return [Citation(*(str(c.get(f, "")) for f in fields)) for c in found if isinstance(c, dict) and c.get("path")]
