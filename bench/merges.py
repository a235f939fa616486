"""Wrong merges (goal 0) and right merges of name resolution with the real small model, on the labelled pairs.

    .venv/bin/python -m bench.merges [--threads 1] [--only-code]

Starts the llama.cpp server the tests use (tests/support/llama.py, Qwen2.5-Coder-0.5B; needs `make llm`), indexes
the eval vault into a temporary database (the vault is only read), and puts every pair of
tests/maintain/data/merge_set.tsv (or ``--pairs``) through ``names._decide``: the vault's own statements first
(code merges), then the name gates and the sentences of the vault, then, only where code evidence points at the
pair, the model ("same?" both ways, the contrary question, and for spellings the contexts question). Prints, per
label, how many pairs were merged and what decided the rest, then every wrong merge and every right merge with the
answers that let it through. A wrong merge is a pair labelled different or defer that came out "same"; a missed
merge (same or translation not merged) is cheap. Each name is taken as an unresolved link, as the pass meets it:
the two-pages gate (the name has a page of its own) is not applied, so the bench is the harder case. Interrupted
(Ctrl-C), it reports the pairs decided so far and says so; the pairs are taken round-robin across the labels, so a
run cut short on a busy machine has sampled every label. ``--only-code`` replaces the model by one that agrees with
everything ("same", "no" to the contrary, "yes" to the contexts): what the code alone leaves to the model, and
since every merge needs exactly those answers, the most any model could merge.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from itertools import zip_longest
from pathlib import Path

from sentinel.maintain.names import Decision
from sentinel.providers import ChatProvider, provider_for
from sentinel.settings import ProviderSettings
from tests.support.llama import MODEL_ALIAS, llama_server
from tests.support.name_pairs import (
    MERGE_IS_RIGHT,
    MERGE_IS_WRONG,
    MERGE_SET,
    LabelledPair,
    decide_all,
    eval_index,
    load_pairs,
)

CTX = 4096


def _agreeable() -> ChatProvider:
    from tests.support.maintain_pass import ScriptedModel

    return ScriptedModel(same=lambda a, b: "same", contrary=lambda a, b: "no", one_thing=lambda a, b: "yes").provider()


def _decided_by(decision: Decision) -> str:
    if decision.verdict == "same":
        return "merged"
    if decision.gate:
        return decision.gate
    return f"model: {decision.verdict}"


def _answers(decision: Decision) -> str:
    return (
        f"by {decision.gate or 'model'}: asked={decision.asked} swapped={decision.swapped} "
        f"contrary={decision.contrary} contexts={decision.contexts}"
    )


def _progress(pair: LabelledPair, decision: Decision) -> None:
    print(f"  {pair.label}: {pair.name} / {pair.title} -> {_decided_by(decision)}", file=sys.stderr, flush=True)


def report(results: list[tuple[LabelledPair, Decision]], seconds: float, what: str) -> None:
    labels = [*MERGE_IS_RIGHT, *MERGE_IS_WRONG]
    columns = sorted({_decided_by(d) for _, d in results} - {"merged"})
    print(f"\n{what}; {len(results)} pairs in {seconds:.0f} s\n")
    print("| label | pairs | merged | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    for label in labels:
        rows = [d for p, d in results if p.label == label]
        counts = Counter(_decided_by(d) for d in rows)
        print(f"| {label} | {len(rows)} | {counts['merged']} | " + " | ".join(str(counts[c]) for c in columns) + " |")
    wrong = [(p, d) for p, d in results if p.label in MERGE_IS_WRONG and d.verdict == "same"]
    right = [(p, d) for p, d in results if p.label in MERGE_IS_RIGHT and d.verdict == "same"]
    true_pairs = sum(p.label in MERGE_IS_RIGHT for p, _ in results)
    print(f"\nwrong merges: {len(wrong)} of {len(results) - true_pairs} (goal 0)")
    for pair, decision in wrong:
        print(f"  {pair.label}: {pair.name} / {pair.title}  ({_answers(decision)})")
    print(f"right merges: {len(right)} of {true_pairs} ({100 * len(right) / max(true_pairs, 1):.0f}%)")
    print("merged by: " + ", ".join(f"{g} {n}" for g, n in Counter(d.gate or "model" for _, d in right).most_common()))
    for pair, decision in right:
        print(f"  {pair.label}: {pair.name} / {pair.title}  ({_answers(decision)})")


def _round_robin(pairs: list[LabelledPair]) -> list[LabelledPair]:
    """The pairs in turn by label (same, translation, different, defer, same, ...), each label in file order."""
    by_label = [[p for p in pairs if p.label == label] for label in (*MERGE_IS_RIGHT, *MERGE_IS_WRONG)]
    return [p for turn in zip_longest(*by_label) for p in turn if p is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp CPU threads (1 beats 2 on a busy machine)")
    parser.add_argument("--only-code", action="store_true", help="a model that agrees with everything, no server")
    parser.add_argument("--pairs", type=Path, default=MERGE_SET, help="the labelled pairs (default: the merge set)")
    args = parser.parse_args()
    pairs = _round_robin(load_pairs(args.pairs))
    with eval_index() as (settings, db):
        started = time.monotonic()
        if args.only_code:
            report(decide_all(settings, db, _agreeable(), pairs), time.monotonic() - started, "code alone")
            return
        what = f"Qwen2.5-Coder-0.5B Q4_K_M, llama.cpp, {args.threads} threads"
        results: list[tuple[LabelledPair, Decision]] = []

        def progress(pair: LabelledPair, decision: Decision) -> None:
            results.append((pair, decision))
            _progress(pair, decision)

        try:
            with llama_server(ctx=CTX, threads=args.threads) as base_url:
                model = provider_for(ProviderSettings(kind="openai", base_url=base_url, model=MODEL_ALIAS, num_ctx=CTX))
                started = time.monotonic()
                decide_all(settings, db, model, pairs, progress)
        except KeyboardInterrupt:  # a busy machine: what was decided so far, said to be partial
            what += f"; INTERRUPTED after {len(results)} of {len(pairs)} pairs"
        report(results, time.monotonic() - started, what)


if __name__ == "__main__":
    main()
