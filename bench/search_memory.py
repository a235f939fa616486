"""Peak RSS and CPU of one search process, as the tool API runs one: open an index, sync its vault (nothing to do on
an index made before), load the query embedder, then search each question of the public set (texts only: nothing
is scored, so no set is read for a figure), check their words as an answer does (``answer.unheld.near_held``), and
print which of simplemma's dictionaries the process loaded.

    PYTHONPATH=src:. python bench/search_memory.py --vault V --index COPY [--queries N] [--probes 10000]

Run it in a fresh process per code and per index (main's src on ``PYTHONPATH`` against this branch's): the peak is
the process's high-water mark (``ru_maxrss``), so two runs in one process would read as one. ``--probes`` also times
``fold.held_languages`` (the existence probes a folded question costs) where the code has it. Stop 55 (issue 32)
measured with it that a vault without a Turkish page no longer loads the Turkish dictionary (docs/retrieval.md).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import resource
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # BLAS threads fight ONNX Runtime's (ENVIRONMENT.md)

from bench.retrieval import QUERY_FILES, ROOT
from bench.rss_timeline import peak_mb
from sentinel.answer.unheld import AUTO, near_held
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index import fold
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import search
from sentinel.settings import Settings

_WORD = re.compile(r"[^\W\d_]{3,}")


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def dictionaries() -> str:
    """The languages whose simplemma dictionary this process loaded, or why none could be."""
    if "simplemma" not in sys.modules:
        return "simplemma not imported"
    from simplemma.strategies.dictionaries.dictionary_factory import DEFAULT_DICTIONARY_FACTORY

    loaded = DEFAULT_DICTIONARY_FACTORY._get_dictionary.cache_info().currsize  # type: ignore[attr-defined]
    return f"{loaded} loaded" + (" (tr)" if loaded else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=1000, help="the first N questions of the public set")
    parser.add_argument("--probes", type=int, default=0, help="time fold.held_languages this many times")
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    args = parser.parse_args(argv)
    with QUERY_FILES["public"].open(encoding="utf-8") as f:
        questions = [row["query"] for row in csv.DictReader(f, delimiter="\t")][: args.queries]
    wall, cpu = time.perf_counter(), cpu_s()
    rows = [("imports", peak_mb(), cpu_s() - cpu)]
    settings = Settings(vault=args.vault, index_path=args.index, _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    rows.append(("index opened, vault synced", peak_mb(), cpu_s() - cpu))
    embedder = OnnxEmbedder(args.embed_model, threads=1)
    rows.append(("query embedder loaded", peak_mb(), cpu_s() - cpu))
    for question in questions:
        search(db, settings, embedder, question, "body", limit=10)
    rows.append((f"{len(questions)} searches", peak_mb(), cpu_s() - cpu))
    for question in questions:  # the answer's check of each word the vault might never name (sentinel.answer)
        for word in _WORD.findall(question):
            near_held(db, word, AUTO)
    rows.append(("their words checked as an answer does", peak_mb(), cpu_s() - cpu))
    print(f"\n{args.index.name} ({args.vault.name}), code {fold.__file__}")
    print("| after | peak RSS MB | CPU s (user+sys) |\n|---|---|---|")
    for name, peak, spent in rows:
        print(f"| {name} | {peak:.0f} | {spent:.2f} |")
    print(f"wall {time.perf_counter() - wall:.1f} s; dictionaries: {dictionaries()}")
    held = getattr(fold, "held_languages", None)
    if args.probes and held is not None:
        started = time.process_time()
        for _ in range(args.probes):
            languages = held(db)
        each = (time.process_time() - started) / args.probes * 1e6
        print(f"held_languages -> {languages}: {each:.1f} us CPU a call ({args.probes} calls)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
