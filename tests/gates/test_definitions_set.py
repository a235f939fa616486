"""The definition-shape rule on the hand-labelled definitions set (tests/maintain/data/definitions_set.tsv).

The rule's shapes were chosen by reading the eval vault's sentences (docs/maintain.md), so this set, drawn from the
same vault, is not held out from it: the figures say the rule still does what it was made for, in four languages,
on sentences nobody tuned it on one by one. The floors are what it measured when the set was made (precision 1.00,
recall 0.98), less a margin.
"""

from __future__ import annotations

from bench.definitions import load, scores


def test_the_set_is_large_labelled_and_in_four_languages() -> None:
    items = load()
    assert len(items) >= 200 and {i.language for i in items} == {"de", "en", "es", "tr"}
    assert sum(i.defines for i in items) >= 40


def test_the_shape_rule_keeps_definitions_and_refuses_mentions_in_every_language() -> None:
    items = load()
    for language in ("de", "en", "es", "tr"):
        true, false, missed = scores([i for i in items if i.language == language])
        assert true / (true + false) >= 0.9, (language, true, false)
        assert true / (true + missed) >= 0.85, (language, true, missed)
