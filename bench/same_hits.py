"""Every hit of a set of searches, written to a file and compared with another version's file, field for field.

    PYTHONHASHSEED=0 python bench/same_hits.py --index DB --vault DIR (--synth N | --tsv FILE...) --out OUT.json
        [--compare OTHER.json]

For a change that must leave results as they are (a speed-up): run it with each version of the code (another
version's src/ first on PYTHONPATH) on the same index, then ``--compare``. Each query is searched six ways (both
rungs; the body rung and the summary rung with the second stage; the body rung with every language; the summary
rung with the PageRank walk), 30 hits each, with a time budget of 120 s so a loaded machine does not turn a search
into a wording-only one. ``--synth N``: bench/search_latency.py's query generator over a synthetic index; ``--tsv``:
question files with a ``query`` column (the eval vault's). PYTHONHASHSEED fixed: without it two runs of the same
code may differ in the order of ties (docs/scale.md, "Per-query overheads").
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.search import search
from sentinel.search import view as search_view
from sentinel.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from built_index import built_index
from search_latency import _queries

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=built_index, required=True)
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--synth", type=int, default=0, help="this many generated queries")
    parser.add_argument("--tsv", type=Path, nargs="*", default=[], help="question files (a 'query' column)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path, help="another version's --out file")
    args = parser.parse_args(argv)
    settings = Settings(vault=args.vault, index_path=args.index, _env_file=None)
    settings = settings.model_copy(update={"search": settings.search.model_copy(update={"timeout_s": 120.0})})
    staged = settings.model_copy(update={"search": settings.search.model_copy(update={"rerank": True})})
    texts = _queries(settings, args.synth) if args.synth else []
    for path in args.tsv:
        with path.open(encoding="utf-8") as rows:
            texts += [row["query"] for row in csv.DictReader(rows, delimiter="\t")]
    db = open_index(settings, readonly=True)
    embedder = OnnxEmbedder(ROOT / "models" / "multilingual-e5-small", threads=1)
    search_view.current_view(db)  # loaded first: a search while it loads answers from wording alone
    ways: list[tuple[str, Settings, dict[str, object]]] = [
        ("summary", settings, {"rung": "summary"}),
        ("body", settings, {"rung": "body"}),
        ("body, second stage", staged, {"rung": "body"}),
        ("summary, second stage", staged, {"rung": "summary"}),
        ("body, all languages", settings, {"rung": "body", "all_languages": True}),
        ("summary, PageRank", settings, {"rung": "summary", "pagerank": True}),
    ]
    started = time.perf_counter()
    found = [
        {"query": text, "way": way, "result": search(db, s, embedder, text, limit=30, **kw).as_dict()}  # type: ignore[arg-type]
        for text in texts
        for way, s, kw in ways
    ]
    written = json.dumps(found, ensure_ascii=False)
    args.out.write_text(written, encoding="utf-8")
    found = json.loads(written)  # as the other file reads back: tuples become lists
    print(f"{len(texts)} queries, {len(found)} results in {time.perf_counter() - started:.0f} s")
    if args.compare:
        other = json.loads(args.compare.read_text(encoding="utf-8"))
        if len(other) != len(found):
            raise SystemExit(f"{args.compare} holds {len(other)} results, this run {len(found)}")
        differ = [(a["query"], a["way"]) for a, b in zip(found, other, strict=True) if a != b]
        print(f"identical: {len(found) - len(differ)} of {len(found)}")
        for query, way in differ[:10]:
            print(f"  differs: {query!r} ({way})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
