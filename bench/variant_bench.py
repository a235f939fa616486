"""The command line shared by the benches that rank main and a round's variants on the choosing sets and judge
them by that round's rule (bench/entry_stage.py, bench/score_fusion.py)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.retrieval import CHOOSING, ROOT, EvalSet, load_sets
from sentinel.embed.onnx import OnnxEmbedder
from tests.support.eval_data import eval_vault_path


def variant_main(
    description: str,
    ranked_sets: Callable[[list[EvalSet], OnnxEmbedder], dict[str, dict[str, list[np.ndarray]]]],
    judged: Callable[[dict[str, dict[str, list[np.ndarray]]]], None],
    argv: list[str] | None = None,
) -> int:
    """The command line of a bench that ranks main and its variants on the choosing sets, then judges them by its
    round's rule (bench/entry_stage.py, bench/score_fusion.py)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--vault", type=Path, default=eval_vault_path())
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--convo-index", type=Path, required=True)
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument("--sets", default=",".join(CHOOSING))
    parser.add_argument("--per-query", type=Path, help="write every question's scores under every ranking (JSON)")
    args = parser.parse_args(argv)
    embedder = OnnxEmbedder(args.embed_model, threads=int(os.environ.get("EMBED_THREADS", "2")))
    sets = load_sets(args.sets.split(","), args.vault, args.index, args.convo_index, embedder)
    per_set = ranked_sets(sets, embedder)
    judged(per_set)
    if args.per_query:
        flat = {s: {n: [v.tolist() for v in got] for n, got in by.items()} for s, by in per_set.items()}
        args.per_query.write_text(json.dumps(flat))
    return 0
