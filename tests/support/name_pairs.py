"""The labelled name pairs (tests/maintain/data/name_pairs.tsv) and an index of the eval vault to decide them in.

Used by the name-resolution tests (scripted models) and by ``bench/merges.py`` (the real small model): both
put every pair through ``names._decide`` exactly as the pass would, with the sentences of the eval vault as
the names' contexts.
"""

from __future__ import annotations

import csv
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

from sentinel.gates.verbatim import normalise
from sentinel.index.db import open_index
from sentinel.index.resolve import resolve_keys
from sentinel.index.sync import sync
from sentinel.maintain.names import Decision, NamesReport, Pair, _decide, similarity
from sentinel.maintain.sameness import VaultEvidence
from sentinel.providers import ChatProvider
from sentinel.settings import Settings
from sentinel.vault.links import link_key
from tests.support.eval_data import eval_vault_path

PAIRS_FILE = Path(__file__).resolve().parents[1] / "maintain" / "data" / "name_pairs.tsv"
# The merge set of issue 33: growth-queue names of the eval vault against pages, labelled by hand before the
# evidence rules were run on it (its header says how).
MERGE_SET = PAIRS_FILE.with_name("merge_set.tsv")
MERGE_IS_RIGHT = ("same", "translation")
MERGE_IS_WRONG = ("different", "defer")


@dataclass(frozen=True)
class LabelledPair:
    label: str
    name: str
    title: str
    note: str


def load_pairs(path: Path = PAIRS_FILE) -> list[LabelledPair]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(lines, delimiter="\t"))
    pairs = [LabelledPair(r["label"], r["name"], r["title"], r["note"]) for r in rows]
    unknown = {p.label for p in pairs} - {*MERGE_IS_RIGHT, *MERGE_IS_WRONG}
    if unknown:
        raise ValueError(f"{path}: unknown labels {sorted(unknown)}; use {MERGE_IS_RIGHT + MERGE_IS_WRONG}")
    return pairs


@contextmanager
def eval_index() -> Iterator[tuple[Settings, sqlite3.Connection]]:
    """The eval vault, read in place, indexed into a temporary database (the vault itself is never written)."""
    with TemporaryDirectory() as folder:
        settings = Settings(vault=eval_vault_path(), index_path=Path(folder) / "index.db", _env_file=None)
        db = open_index(settings)
        try:
            sync(settings, db)
            yield settings, db
        finally:
            db.close()


def as_pair(db: sqlite3.Connection, labelled: LabelledPair) -> Pair:
    path = resolve_keys(db, [link_key(labelled.title)]).get(link_key(labelled.title)) or ""
    score = similarity(labelled.name, labelled.title)
    return Pair(labelled.name, link_key(labelled.name), labelled.title, normalise(labelled.title), path, score)


def decide_all(
    settings: Settings,
    db: sqlite3.Connection,
    model: ChatProvider,
    pairs: list[LabelledPair],
    progress: Callable[[LabelledPair, Decision], None] = lambda pair, decision: None,
) -> list[tuple[LabelledPair, Decision]]:
    """Every pair through ``names._decide``, as the pass decides a candidate pair (the name's own page, if
    the index resolves it to one, is what the vault's statements compare)."""
    report = NamesReport()
    evidence = VaultEvidence.of(db)
    decided = []
    for labelled in pairs:
        name_page = resolve_keys(db, [link_key(labelled.name)]).get(link_key(labelled.name))
        decision = _decide(db, as_pair(db, labelled), lambda: model, settings, report, evidence, name_page)
        progress(labelled, decision)
        decided.append((labelled, decision))
    return decided
