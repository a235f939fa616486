"""A learned linear order of the fused top k, judged out of fold (issue 32, round thirteen; docs/retrieval.md).

    python bench/learned_order.py capture --index EVAL.db --convo-index CONVO.db --out CAPTURE.npz
    python bench/learned_order.py fit --captures CAPTURE.npz

``capture`` runs the legs once for every question of the choosing sets (``retrieval.CHOOSING``) and keeps, for
each, the shipped ranking's top ``MAX_DEPTH`` pages, whether each is relevant, and their features
(``candidate_features``). ``fit`` then judges the learned order by the round's rule: each choosing set ranked by a
model fitted on the other sets only, its settings chosen by a leave-one-set-out inside those (nested), pooled
MRR@10 / hit@5 against the shipped ranking's, with a paired bootstrap; and, for the record, every setting's
plain leave-one-set-out figure and the setting and weights that all the sets choose.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.retrieval import CHOOSING, ROOT, load_sets, shipped_order
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.search import fusion
from sentinel.search import results as r
from sentinel.search.families import page_languages
from sentinel.search.ladder import Ranking, rank_legs
from sentinel.search.lexical import windows_per_page
from sentinel.search.rerank import best_units
from sentinel.search.view import current_view
from sentinel.settings import Settings
from tests.support.eval_data import eval_vault_path

MAX_DEPTH = 30
FEATURES = (
    "lexical_rr",
    "units_rr",
    "summaries_rr",
    "passages_rr",
    "fused_rr",
    "fused_weight",
    "agreed",
    "unit_cosine",
    "unit_cosine_gap",
    "other_language",
    "log_windows",
)
SUBSETS = {"ranks": FEATURES[:7], "all": FEATURES}
DEPTHS = (10, 30)
LAMBDAS = (1.0, 0.1, 0.01)  # the strongest penalty first: ties go to the simpler model
SETTINGS = list(itertools.product(SUBSETS, DEPTHS, LAMBDAS))


def candidate_features(db, settings: Settings, ranking: Ranking, shipped: list[str], depth: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    """One row of ``FEATURES`` for each of the shipped ranking's first ``depth`` pages."""
    top = shipped[:depth]

    def reciprocal(pages: list[str]) -> dict[str, float]:
        return {p: 1.0 / (i + 1) for i, p in enumerate(pages)}

    legs = {name: reciprocal(ranking.legs.get(name, [])) for name in (r.LEG_LEXICAL, r.LEG_CHUNKS, r.LEG_SUMMARIES)}
    passages = reciprocal(ranking.passages or [])
    weights = fusion.fuse_legs(
        settings.search, ranking.legs, ranking.excerpts or (), ranking.windows or {}, ranking.passages or ()
    )
    best_weight = max((weights.get(p, 0.0) for p in top), default=0.0) or 1.0
    cosine = best_units(db, current_view(db), ranking.vector, top) if ranking.vector is not None else {}
    floor = min(cosine.values(), default=0.0)
    best_cosine = max(cosine.values(), default=0.0)
    language = page_languages(db, top)
    windows = windows_per_page(db, top)
    rows = []
    for rank, page in enumerate(top, start=1):
        unit = cosine.get(page, floor)
        other = bool(ranking.language and language.get(page) and language[page] != ranking.language)
        rows.append(
            [
                legs[r.LEG_LEXICAL].get(page, 0.0),
                legs[r.LEG_CHUNKS].get(page, 0.0),
                legs[r.LEG_SUMMARIES].get(page, 0.0),
                passages.get(page, 0.0),
                1.0 / rank,
                weights.get(page, 0.0) / best_weight,
                float(page in ranking.agreed),
                unit,
                unit - best_cosine,
                float(other),
                math.log1p(windows.get(page, 0)),
            ]
        )
    return np.array(rows, dtype=np.float64).reshape(len(top), len(FEATURES))


def capture(args: argparse.Namespace) -> int:
    embedder = OnnxEmbedder(args.embed_model, threads=int(os.environ.get("EMBED_THREADS", "2")))
    sets = load_sets(args.sets.split(","), args.vault, args.index, args.convo_index, embedder)
    names, ids, langs, features, relevant = [], [], [], [], []
    started, cpu = time.perf_counter(), time.process_time()
    for each in sets:
        for q in each.queries:
            ranking = rank_legs(each.db, each.settings, embedder, q.text, "body", time.monotonic() + 60)
            shipped = shipped_order(each.db, each.settings, ranking, q.text)
            x = candidate_features(each.db, each.settings, ranking, shipped, MAX_DEPTH)
            padded = np.zeros((MAX_DEPTH, len(FEATURES)))
            padded[: len(x)] = x
            rel = np.full(MAX_DEPTH, -1, dtype=np.int8)  # -1: no page at this rank
            rel[: len(x)] = [p in q.relevant for p in shipped[:MAX_DEPTH]]
            names.append(each.name), ids.append(q.id), langs.append(q.lang)
            features.append(padded), relevant.append(rel)
    took = time.perf_counter() - started, time.process_time() - cpu
    print(f"captured {len(ids)} questions in {took[0]:.1f} s wall, {took[1]:.1f} s CPU")
    np.savez(args.out, sets=names, ids=ids, langs=langs, features=np.stack(features), relevant=np.stack(relevant))
    return 0


@dataclass
class Captures:
    sets: np.ndarray
    ids: np.ndarray
    langs: np.ndarray
    features: np.ndarray  # (questions, MAX_DEPTH, FEATURES)
    relevant: np.ndarray  # (questions, MAX_DEPTH): 1 relevant, 0 not, -1 no page


def scores_of(order: np.ndarray, relevant: np.ndarray) -> tuple[float, float]:
    """MRR@10 and hit@5 of one question's pages in ``order`` (positions into its top ``MAX_DEPTH``)."""
    hits = [i for i, at in enumerate(order[:10]) if relevant[at] == 1]
    first = hits[0] if hits else None
    return (0.0 if first is None else 1.0 / (first + 1)), float(first is not None and first < 5)


def ordered(weights: np.ndarray | None, x: np.ndarray, relevant: np.ndarray, depth: int) -> np.ndarray:
    """The shipped order with its first ``depth`` pages sorted by the linear score (ties: the shipped order)."""
    n = int((relevant >= 0).sum())
    if weights is None or n < 2:
        return np.arange(n)
    head = min(depth, n)
    score = x[:head] @ weights
    return np.concatenate([np.argsort(-score, kind="stable"), np.arange(head, n)])


def fit(x: np.ndarray, relevant: np.ndarray, depth: int, lam: float) -> np.ndarray:
    """Pairwise logistic weights (each relevant page against each other page of a question's top ``depth``, every
    question weighing the same), standardised features, L2 ``lam``; returned for the raw features."""
    pairs, weight = [], []
    for xq, rq in zip(x, relevant, strict=True):
        n = min(depth, int((rq >= 0).sum()))
        good, bad = np.flatnonzero(rq[:n] == 1), np.flatnonzero(rq[:n] == 0)
        if len(good) and len(bad):
            d = (xq[good][:, None, :] - xq[bad][None, :, :]).reshape(-1, x.shape[2])
            pairs.append(d)
            weight.append(np.full(len(d), 1.0 / len(d)))
    d, c = np.concatenate(pairs), np.concatenate(weight)
    c = c / len(pairs)
    scale = x[relevant >= 0].std(axis=0)
    scale[scale == 0] = 1.0
    d = d / scale
    w = np.zeros(d.shape[1])
    for _ in range(50):  # Newton steps on a convex loss
        margin = d @ w
        p = 1.0 / (1.0 + np.exp(margin))  # sigma(-margin)
        grad = -(d * (c * p)[:, None]).sum(axis=0) + lam * w
        hess = (d * (c * p * (1 - p))[:, None]).T @ d + lam * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w / scale


def _columns(subset: str) -> list[int]:
    return [FEATURES.index(f) for f in SUBSETS[subset]]


def predict(data: Captures, train: np.ndarray, test: np.ndarray, setting: tuple[str, int, float]) -> np.ndarray:
    """MRR@10 and hit@5 of each ``test`` question ordered by a model fitted on the ``train`` questions."""
    subset, depth, lam = setting
    cols = _columns(subset)
    w = fit(data.features[train][:, :, cols], data.relevant[train], depth, lam)
    return np.array(
        [scores_of(ordered(w, data.features[q][:, cols], data.relevant[q], depth), data.relevant[q]) for q in test]
    )


def leave_one_set_out(data: Captures, sets: list[str], setting: tuple[str, int, float]) -> np.ndarray:
    """Each of ``sets``' questions scored by a model fitted on the other ``sets``, in question order."""
    within = np.flatnonzero(np.isin(data.sets, sets))
    out = np.zeros((len(data.sets), 2))
    for name in sets:
        test = np.flatnonzero(data.sets == name)
        out[test] = predict(data, np.setdiff1d(within, test), test, setting)
    return out[within]


def choose(data: Captures, sets: list[str]) -> tuple[tuple[str, int, float], float]:
    """The setting with the highest pooled leave-one-set-out MRR@10 over ``sets`` (ties: the earlier in SETTINGS)."""
    best = max(SETTINGS, key=lambda s: (float(leave_one_set_out(data, sets, s)[:, 0].mean()), -SETTINGS.index(s)))
    return best, float(leave_one_set_out(data, sets, best)[:, 0].mean())


def bootstrap(before: np.ndarray, after: np.ndarray, resamples: int = 10_000) -> tuple[float, float, float]:
    """Mean paired difference and its 95% interval (seed 0)."""
    diff = after - before
    means = diff[np.random.default_rng(0).integers(0, len(diff), (resamples, len(diff)))].mean(axis=1)
    return float(diff.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def _pair(scored: np.ndarray) -> str:
    return f"{scored[:, 0].mean():.4f} / {scored[:, 1].mean():.4f}"


def _loaded(path: Path) -> Captures:
    raw = np.load(path)
    return Captures(raw["sets"], raw["ids"], raw["langs"], raw["features"], raw["relevant"])


def _shipped(data: Captures) -> np.ndarray:
    return np.array([scores_of(np.arange(int((rq >= 0).sum())), rq) for rq in data.relevant])


def report(data: Captures, setting: tuple[str, int, float], weights: np.ndarray, reports: Captures) -> None:
    """The report-only sets, shipped ranking -> the learned order fitted on every choosing set (not shipped)."""
    cols, depth = _columns(setting[0]), setting[1]
    bar = _shipped(reports)
    got = np.array(
        [
            scores_of(ordered(weights, reports.features[q][:, cols], reports.relevant[q], depth), reports.relevant[q])
            for q in range(len(reports.ids))
        ]
    )
    for name in dict.fromkeys(reports.sets.tolist()):
        at = reports.sets == name
        change = "{:+.4f} ({:+.4f} to {:+.4f})".format(*bootstrap(bar[at, 0], got[at, 0]))
        print(f"report {name} (n={int(at.sum())}): {_pair(bar[at])} -> {_pair(got[at])}; bootstrap {change}")
        for lang in sorted(set(reports.langs[at].tolist())):
            both = at & (reports.langs == lang)
            print(f"  {lang} (n={int(both.sum())}): {_pair(bar[both])} -> {_pair(got[both])}")


def fit_report(args: argparse.Namespace) -> int:
    data = _loaded(args.captures)
    names = [s for s in CHOOSING if s in set(data.sets.tolist())]
    bar = _shipped(data)
    print(
        f"{len(data.ids)} questions, {len(names)} sets; bar (shipped) {bar[:, 0].mean():.4f} / {bar[:, 1].mean():.4f}"
    )
    print("\nplain leave-one-set-out per setting (pooled MRR@10 / hit@5):")
    for setting in SETTINGS:
        got = leave_one_set_out(data, names, setting)
        print(f"  {setting}: {_pair(got)}")
    started = time.process_time()
    oof = np.zeros((len(data.ids), 2))
    for name in names:
        rest = [s for s in names if s != name]
        setting, inner = choose(data, rest)
        test = np.flatnonzero(data.sets == name)
        oof[test] = predict(data, np.flatnonzero(np.isin(data.sets, rest)), test, setting)
        print(f"  {name}: chosen {setting} (inner {inner:.4f}); {_pair(bar[test])} -> {_pair(oof[test])}")
    print(f"nested out of fold: {_pair(oof)} ({time.process_time() - started:.0f} s CPU)")
    print("bootstrap MRR@10 (after - bar): {:+.4f} ({:+.4f} to {:+.4f})".format(*bootstrap(bar[:, 0], oof[:, 0])))
    moved = oof[:, 0] != bar[:, 0]
    print(
        f"moved {int(moved.sum())}: up {int((oof[:, 0] > bar[:, 0]).sum())}, down {int((oof[:, 0] < bar[:, 0]).sum())}"
    )
    for lang in sorted(set(data.langs.tolist())):
        at = data.langs == lang
        print(f"  {lang} (n={int(at.sum())}): {_pair(bar[at])} -> {_pair(oof[at])}")
    passes = oof[:, 0].mean() > bar[:, 0].mean() and oof[:, 1].mean() >= bar[:, 1].mean()
    print(f"the rule: {'passes' if passes else 'fails'}")
    setting, inner = choose(data, names)
    cols = _columns(setting[0])
    w = fit(data.features[:, :, cols], data.relevant, setting[1], setting[2])
    print(f"all sets choose {setting} (leave-one-set-out {inner:.4f}); weights fitted on all:")
    for name, value in zip(SUBSETS[setting[0]], w, strict=True):
        print(f"  {name} = {value:.6g}")
    if args.report:
        report(data, setting, w, _loaded(args.report))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture")
    cap.add_argument("--vault", type=Path, default=eval_vault_path())
    cap.add_argument("--index", type=Path, required=True)
    cap.add_argument("--convo-index", type=Path, required=True)
    cap.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    cap.add_argument("--out", type=Path, required=True)
    cap.add_argument("--sets", default=",".join(CHOOSING), help="comma-separated (default: the choosing sets)")
    fitted = sub.add_parser("fit")
    fitted.add_argument("--captures", type=Path, required=True)
    fitted.add_argument("--report", type=Path, help="captures of report-only sets: the weights all sets fit, applied")
    args = parser.parse_args(argv)
    return capture(args) if args.command == "capture" else fit_report(args)


if __name__ == "__main__":
    sys.exit(main())
