"""Round seventeen (issue 32; docs/retrieval.md): the question's neighbours fed back, judged by the round's rule.

    python bench/feedback.py --index EVAL.db --convo-index CONVO.db [--sets a,b] [--per-query OUT.json]

For every question of ``--sets`` (default: ``retrieval.CHOOSING``) ranks main's shipped ranking
(``retrieval.shipped_order``) and each variant of ``VARIANTS``: round sixteen's second unit on h50b's weights
(``page_evidence.variant``, from the legs run once) and the unit leg's pseudo-relevance feedback (the real search
code, ``rank_legs`` under the variant's ``SearchSettings.feedback_*``; the query is embedded once). Judged by
round fifteen's table and rule (``score_fusion.judged``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

import numpy as np

from bench.page_evidence import evidence, variant
from bench.retrieval import scores, shipped_order
from bench.score_fusion import judged
from bench.variant_bench import variant_main
from sentinel.embed.base import Embedding, EmbedKind
from sentinel.search.ladder import rank_legs
from sentinel.settings import Settings

H50B = {"scale": 1.25, "alpha": 0.5}  # round sixteen's weights: the convex ranking's RRF weight x1.25, alpha .5

# name -> (family, parameters); committed before any is ranked (docs/retrieval.md, round seventeen)
VARIANTS: dict[str, tuple[str, dict[str, object]]] = {
    **{
        f"second on weights sem{sem} lex{lex}": ("second", {"semantic": sem, "lexical": lex})
        for sem, lex in ((0.25, 0.25), (0.25, 0.0), (0.0, 0.25))
    },
    **{
        f"feedback m{m} b{beta} {leg}": ("feedback", {"units": m, "beta": beta, "from": "units", "leg": leg})
        for leg in ("replace", "own")
        for m in (3, 5)
        for beta in (0.3, 0.6)
    },
    **{
        f"feedback agreed m{m} b0.3": ("feedback", {"units": m, "beta": 0.3, "from": "agreed", "leg": "replace"})
        for m in (3, 5)
    },
}


class OnceEmbedder:
    """The bench's embedder, embedding each query once however many variants rank it (the same vector)."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.done = inner, {}

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> Embedding:
        key = (tuple(texts), kind)
        if key not in self.done:
            self.done[key] = self.inner.embed(texts, kind)
        return self.done[key]


def _updated(settings: Settings, **search: object) -> Settings:
    return settings.model_copy(update={"search": settings.search.model_copy(update=search)})


def ranked_sets(sets, embedder) -> dict[str, dict[str, list[np.ndarray]]]:  # type: ignore[no-untyped-def]
    """set -> ranking name ("main", each variant) -> every question's scores."""
    once = OnceEmbedder(embedder)
    out: dict[str, dict[str, list[np.ndarray]]] = {}
    for each in sets:
        db, settings = each.db, each.settings
        search = settings.search
        weighted = _updated(
            settings,
            score_alpha=H50B["alpha"],
            weight_lexical=search.weight_lexical * H50B["scale"],
            weight_chunks=search.weight_chunks * H50B["scale"],
        )
        got: dict[str, list[np.ndarray]] = {"main": [], **{name: [] for name in VARIANTS}}
        for q in each.queries:
            e = evidence(db, settings, once, q)
            got["main"].append(scores(shipped_order(db, settings, e.ranking, q.text), q.relevant))
            for name, (family, p) in VARIANTS.items():
                if family == "second":
                    ranked = variant(db, weighted, e, "second", {k: float(v) for k, v in p.items()})  # type: ignore[arg-type]
                else:
                    fed = _updated(
                        settings,
                        feedback_units=p["units"],
                        feedback_beta=p["beta"],
                        feedback_from=p["from"],
                        feedback_leg=p["leg"],
                    )
                    ranking = rank_legs(db, fed, once, q.text, "body", time.monotonic() + 60)
                    ranked = shipped_order(db, fed, ranking, q.text)
                got[name].append(scores(ranked, q.relevant))
        out[each.name] = got
    return out


def main(argv: list[str] | None = None) -> int:
    return variant_main(__doc__.splitlines()[0], ranked_sets, judged, argv)


if __name__ == "__main__":
    sys.exit(main())
