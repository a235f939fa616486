"""What one pass did: names taken up, pages written, merges made, and how many each gate deferred.

A pass that is safe by doing nothing looks exactly like a pass that works unless its yield is shown, so each
pass records it twice: in its review ledger (``<pass>.yield.json`` beside ``<pass>.jsonl``; ``ledger.finish``)
and in the index's ``meta`` table, from which the health line says it (``health.health_line``).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field

from sentinel.index.migrations import transaction

LAST_YIELD_KEY = "maintain_last_yield"


@dataclass
class PassYield:
    names_taken_up: int = 0  # growth-queue names the concept step looked at, plus name pairs decided
    pages_written: int = 0
    merges: int = 0
    merged_by: dict[str, int] = field(default_factory=dict)  # the rule (or the model's confirmation) per merge
    deferred_by: dict[str, int] = field(default_factory=dict)  # gate -> names or pairs it stopped

    def defer(self, gate: str, count: int = 1) -> None:
        if count:
            self.deferred_by[gate] = self.deferred_by.get(gate, 0) + count

    def did_something(self) -> bool:
        return bool(self.names_taken_up or self.pages_written or self.merges)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def line(self) -> str:
        """The yield in words: "last pass: 12 names taken up, 1 concept page written, 3 merges (...)..."."""
        merges = f"{self.merges} {'merge' if self.merges == 1 else 'merges'}"
        if self.merged_by:
            merges += " (" + ", ".join(f"{rule} {n}" for rule, n in sorted(self.merged_by.items())) + ")"
        pages = f"{self.pages_written} concept {'page' if self.pages_written == 1 else 'pages'} written"
        text = f"last pass: {self.names_taken_up} names taken up, {pages}, {merges}"
        if self.deferred_by:
            ranked = sorted(self.deferred_by.items(), key=lambda item: (-item[1], item[0]))
            text += "; deferred by " + ", ".join(f"{gate} {n}" for gate, n in ranked)
        return text


def remember(db: sqlite3.Connection, passed: PassYield) -> None:
    with transaction(db):
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (LAST_YIELD_KEY, json.dumps(passed.as_dict())),
        )


def last(db: sqlite3.Connection) -> PassYield | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (LAST_YIELD_KEY,)).fetchone()
    if row is None:
        return None
    try:
        return PassYield(**json.loads(row[0]))
    except (TypeError, ValueError):
        return None  # written by another version: no line rather than a wrong one
