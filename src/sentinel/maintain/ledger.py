"""The review ledger: every page and alias one maintenance pass wrote, with the evidence that let it through.

One pass, one ledger, kept beside the index (``paths.ledger_dir``): ``<pass>.jsonl`` is the record (each
write with the text it replaced and the hash of what it wrote, so it can be undone), ``<pass>.md`` the same
for a person to read in the morning. ``revert`` undoes one pass's writes as a unit, newest first, and only
where the file is still exactly what the pass wrote: a page a person (or the chat) edited since is left as it
is and named.

Writers call ``record`` at their write point; it is a no-op outside a pass (``start`` .. ``finish``), so a write made by
another entry point is never attributed to a pass.
"""

from __future__ import annotations

import json
import time
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sentinel.errors import NotFound
from sentinel.paths import ledger_dir
from sentinel.settings import Settings
from sentinel.vault.hashes import written_hash
from sentinel.vault.write import atomic_write, read_text


@dataclass
class PassLedger:
    settings: Settings
    pass_id: str
    writes: int = 0
    token: Token[PassLedger | None] | None = None

    @property
    def record_path(self) -> Path:
        return ledger_dir(self.settings) / f"{self.pass_id}.jsonl"


_CURRENT: ContextVar[PassLedger | None] = ContextVar("sentinel_pass_ledger", default=None)


def _new_id(folder: Path) -> str:
    base = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    candidate, n = base, 1
    while (folder / f"{candidate}.jsonl").exists():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def start(settings: Settings) -> PassLedger:
    """Open the ledger of a pass: writes recorded until ``finish`` land in it."""
    folder = ledger_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    book = PassLedger(settings, _new_id(folder))
    book.token = _CURRENT.set(book)
    return book


def finish(book: PassLedger, work: dict[str, Any] | None = None) -> str:
    """Close the pass's ledger and write the page a person reads; the pass id, or "" when it wrote nothing.
    ``work`` (the pass's yield: names taken up, pages written, merges, deferrals per gate) is kept beside it as
    ``<pass>.yield.json`` whether or not the pass wrote, and heads the page."""
    if book.token is not None:
        _CURRENT.reset(book.token)
    if work is not None:
        (ledger_dir(book.settings) / f"{book.pass_id}.yield.json").write_text(
            json.dumps(work, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    if not book.writes:
        return ""
    (ledger_dir(book.settings) / f"{book.pass_id}.md").write_text(render(book.settings, book.pass_id), encoding="utf-8")
    return book.pass_id


def record(path: Path, before: str | None, after: str, evidence: dict[str, Any]) -> None:
    """Note one write of the current pass to ``path`` (in the vault): ``before`` is the replaced text (None:
    the file was created), ``after`` what was written."""
    book = _CURRENT.get()
    if book is None:
        return
    relpath = path.relative_to(book.settings.vault).as_posix()
    entry = {"path": relpath, "before": before, "after_sha256": written_hash(after), "evidence": evidence}
    with book.record_path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")
    book.writes += 1


class UnknownPass(NotFound, LookupError):
    """No ledger of that pass exists; the message lists the passes that do."""


def passes(settings: Settings) -> list[str]:
    """The passes that wrote something, oldest first."""
    folder = ledger_dir(settings)
    return sorted(p.stem for p in folder.glob("*.jsonl")) if folder.is_dir() else []


def entries(settings: Settings, pass_id: str) -> list[dict[str, Any]]:
    path = ledger_dir(settings) / f"{pass_id}.jsonl"
    if not path.is_file():
        known = ", ".join(passes(settings)[-5:]) or "none yet"
        raise UnknownPass(f"no ledger for pass {pass_id!r} (latest passes: {known}); see `sentinel maintain log`")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _evidence_lines(evidence: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in evidence.items():
        if isinstance(value, list):
            lines.append(f"  - {key}:")
            for item in value:
                shown = "; ".join(f"{k}: {v}" for k, v in item.items()) if isinstance(item, dict) else str(item)
                lines.append(f"    - {shown}")
        else:
            lines.append(f"  - {key}: {value}")
    return lines


def render(settings: Settings, pass_id: str) -> str:
    """The pass's ledger as a page a person reads: each write, what kind, and the evidence."""
    lines = [f"# Maintenance pass {pass_id}", ""]
    work = ledger_dir(settings) / f"{pass_id}.yield.json"
    if work.is_file():
        lines += ["## What the pass did", "", *_evidence_lines(json.loads(work.read_text(encoding="utf-8"))), ""]
        lines += ["## Writes", ""]
    for entry in entries(settings, pass_id):
        kind = "created" if entry["before"] is None else "changed"
        lines.append(f"- {kind} `{entry['path']}`")
        lines += _evidence_lines(entry["evidence"])
    lines += ["", f"Undo this pass's writes: `sentinel maintain revert {pass_id}`", ""]
    return "\n".join(lines)


@dataclass
class Reverted:
    undone: list[str] = field(default_factory=list)
    left: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was left as it is)


def revert(settings: Settings, pass_id: str) -> Reverted:
    """Undo one pass's writes, newest first, where the file is still what the pass wrote."""
    result = Reverted()
    for entry in reversed(entries(settings, pass_id)):
        path = settings.vault / entry["path"]
        if not path.is_file():
            result.left.append((entry["path"], "it is gone already"))
            continue
        if written_hash(read_text(path)) != entry["after_sha256"]:
            result.left.append((entry["path"], "it was edited after the pass; left as it is"))
            continue
        if entry["before"] is None:
            path.unlink()
        else:
            atomic_write(path, entry["before"])
        result.undone.append(entry["path"])
    return result
