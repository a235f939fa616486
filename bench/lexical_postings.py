"""The lexical leg's held postings against FTS5's own ranking on a real vault (the eval vault by default).

    python bench/lexical_postings.py [--vault PATH] [--common 60]

Indexes the vault into a temporary folder (no embedding), holds every word of every query (the "common"
threshold set to 0, so rare words are held too), then counts the lists that are the same, all chunks in order:
``Held.ranked`` against FTS5's ``MATCH ... ORDER BY rank, rowid LIMIT`` for each query's held words, AND and OR,
at limits 10 and 300; and the leg (``lexical_chunks``, 300) with held postings against FTS5's path. Queries: the
public, held-out and vault-question sets, and ``--common`` queries of 1-3 words each in more than 8% and at most
half of the chunks. Nothing is chosen here: it checks exactness, and times nothing.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

import numpy as np

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import lexical, postings
from sentinel.search.fts_query import COMMON_SHARE, query_terms
from sentinel.search.view import chunk_count, index_file
from sentinel.settings import Settings
from tests.support.eval_data import eval_data_file, eval_vault_path

HERE = Path(__file__).resolve().parent
QUERY_SETS = [eval_data_file("queries.tsv"), HERE / "heldout_queries.tsv", HERE / "vault_questions.tsv"]


def _queries(common: list[str], count: int) -> list[str]:
    found = []
    for path in QUERY_SETS:
        with path.open(encoding="utf-8") as handle:
            found += [row["query"] for row in csv.DictReader(handle, delimiter="\t")]
    rng = np.random.default_rng(5)
    return found + [" ".join(rng.choice(common, size=int(rng.integers(1, 4)), replace=False)) for _ in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vault", type=Path, default=eval_vault_path())
    parser.add_argument("--common", type=int, default=60)
    args = parser.parse_args()
    postings.MIN_HELD_ROWS = 0
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(vault=args.vault, index_path=Path(folder) / "index.db", _env_file=None)
        db = open_index(settings)
        sync(settings, db)
        chunks = chunk_count(db)
        common = [
            str(r[0])
            for r in db.execute(
                "SELECT term FROM chunks_vocab WHERE doc > ? AND doc <= ? ORDER BY term",
                (int(chunks * COMMON_SHARE), chunks // 2),
            )
        ]
        queries = _queries(common, args.common)
        postings.ask(index_file(db), sorted({w for q in queries for w in query_terms(q)}))
        postings.settle()
        held = postings.held_for(db, [])
        assert held is not None
        same = lists = 0
        for query in queries:
            words = [w for w in query_terms(query) if w in held.terms]
            for every in (False, True):
                for limit in (10, 300):
                    expression = lexical.match_expression(words, every=every)
                    fts5 = [r[0] for r in db.execute(lexical.ranked_query(None)[0], (expression, limit))]
                    lists += bool(words)
                    same += bool(words) and held.ranked(words, limit, every=every) == fts5
        leg_same = served = 0
        for query in queries:
            terms = lexical.lexical_terms(db, query, chunks)
            postings.SERVED.clear()
            with_held = lexical.lexical_chunks(db, terms, 300)
            served += postings.SERVED["memory"] > 0
            ask = postings.held_for
            postings.held_for = lambda db, words: None
            leg_same += with_held == lexical.lexical_chunks(db, terms, 300)
            postings.held_for = ask
        print(f"{args.vault.name}: {chunks} chunks, {len(held.terms)} words held, {len(queries)} queries")
        print(f"Held.ranked lists identical to FTS5's: {same}/{lists}")
        print(f"the leg's lists identical to FTS5's path: {leg_same}/{len(queries)} ({served} served from memory)")
        db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
