"""A query is folded only in the stemmed languages the index holds chunks of (``fold.held_languages``), so a vault
without a Turkish page never loads simplemma's Turkish dictionary (about 100 MB and 2 s CPU a process), at sync,
at search or in an answer's word checks, and a Turkish vault still meets a word's lemma (issue 32, stop 55).
Real SQLite FTS5 and simplemma's own dictionaries; the factory only records which language it loads."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from simplemma.strategies import DictionaryLookupStrategy
from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

from sentinel.answer.unheld import AUTO, near_held
from sentinel.index import fold
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import search
from tests.support.vault import WriteVault, top_hit

ENGLISH = {
    "en/Rename.md": "# Files\n\nRenaming a file updates every link to it.",
    "Garden.md": "# Garden\n\nA page outside any language folder, about the garden and the weather in spring.",
}
TURKISH = {**ENGLISH, "tr-CY/Bulut.md": "# Bulut\n\nDosyayı buluta yükledi ve sonra bilgisayarı kapattı."}


class _Loads(DefaultDictionaryFactory):
    """simplemma's shipped dictionaries, each language recorded as it is loaded."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []

    def _get_dictionary_uncached(self, lang: str) -> Mapping[str, str]:
        self.loaded.append(lang)
        return super()._get_dictionary_uncached(lang)


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> _Loads:
    factory = _Loads()
    monkeypatch.setattr(fold, "_LEMMAS", DictionaryLookupStrategy(factory))
    fold._stems.cache_clear()  # a word an earlier test folded is looked up again
    return factory


def test_an_english_vault_never_loads_the_turkish_dictionary(vault_settings: WriteVault, loads: _Loads) -> None:
    settings = vault_settings(ENGLISH)
    db = open_index(settings)
    sync(settings, db)
    # no vector yet: every query's language is unsure, so its words are asked in each held language's form
    for query in ("renaming a file", "yüklenir", "dosyayı buluta yükledi", "Sicherungskopien"):
        search(db, settings, None, query, limit=3)
    assert near_held(db, "yükledi", AUTO) is False  # an answer's check of a word the vault never names
    assert loads.loaded == []
    assert fold.held_languages(db) == ()


def test_a_turkish_vault_loads_it_and_meets_the_lemma(vault_settings: WriteVault, loads: _Loads) -> None:
    settings = vault_settings(TURKISH)
    db = open_index(settings)
    sync(settings, db)
    assert fold.held_languages(db) == ("tr",)  # a region's folder (tr-cy) is its language's
    assert top_hit(settings, db, "yuklenir") == "tr-CY/Bulut.md"  # the lemma "yukle", typed without marks
    assert loads.loaded == ["tr"]
