"""The definition-shape rule on the hand-labelled definitions set (tests/maintain/data/definitions_set.tsv).

The rule's shapes were chosen by reading the eval vault's sentences (docs/maintain.md), so this set, drawn from the
same vault, is not held out from it: the figures say the rule still does what it was made for, in four languages,
on sentences nobody tuned it on one by one. The floors are what it measured when the set was made (precision 1.00,
recall 0.98), less a margin. The out-of-page rows (sentences on other pages than the name's own, which decide
alone when the name's page is missing and one sentence writes a page) were all found and read: none may pass wrongly.
"""

from __future__ import annotations

from bench.definitions import asked, load, scores


def test_the_set_is_large_labelled_and_in_four_languages() -> None:
    items = load()
    assert len(items) >= 200 and {i.language for i in items} == {"de", "en", "es", "tr"}
    assert sum(i.defines for i in items) >= 40


def test_the_shape_rule_keeps_definitions_and_refuses_mentions_in_every_language() -> None:
    items = asked(load())
    for language in ("de", "en", "es", "tr"):
        true, false, missed = scores([i for i in items if i.language == language])
        assert true / (true + false) >= 0.9, (language, true, false)
        assert true / (true + missed) >= 0.85, (language, true, missed)


def test_no_sentence_on_another_page_passes_unless_it_defines_the_name() -> None:
    out_of_page = [i for i in asked(load()) if i.out_of_page]
    true, false, _ = scores(out_of_page)
    assert len(out_of_page) >= 15 and true >= 15
    assert false == 0, [i.sentence for i in out_of_page if not i.defines]
