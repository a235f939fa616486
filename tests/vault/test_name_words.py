"""The name fold drops diacritics by the lexical fold's rules: an accent goes, a mark that makes another letter
stays (``が`` is not ``か``)."""

from __future__ import annotations

import pytest

from sentinel.index.fold import fold
from sentinel.vault.name_words import variant_key

PAIRS = [
    ("がっこう", "かっこう", False),  # gakkō (school) and kakkō (appearance): the voicing mark makes another word
    ("ハンバーガー", "ハンバーカー", False),
    ("Jürgen", "Jurgen", True),
    ("Año", "Ano", True),
    ("Çalışma", "calisma", True),
    ("한국", "한국", True),
]


@pytest.mark.parametrize(("a", "b", "same"), PAIRS)
def test_the_name_fold_keeps_apart_what_the_lexical_fold_keeps_apart(a: str, b: str, same: bool) -> None:
    assert (variant_key(a) == variant_key(b)) is same
    assert (fold(a) == fold(b)) is same


def test_a_kana_name_keeps_its_voicing_mark_composed() -> None:
    assert variant_key("ガイド") == "ガイド" and variant_key("Ñandú") == "nandu"
