"""A text's language among the vault's languages (``centres.words_language``: the query's language check) is
py3langid's among them, from an identifier that holds only those languages' columns of its model
(``language_id.among``).

Why: the whole model kept beside the restricted columns cost a search process 27 MB more (docs/scale.md,
"Stop 47: memory at 1M").
"""

from __future__ import annotations

import tracemalloc

import pytest
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from sentinel.index import language_id
from sentinel.search import centres

TEXTS = [
    "Wie kann ich meine Notizen mit dem Handy synchronisieren?",
    "how do I sync my notes to my phone",
    "Notları telefonuma nasıl eşitlerim",
    "la synchronisation des notes",
    "sync",
    "12345 !!",
    "",
]


@pytest.mark.parametrize("languages", [("de", "en"), ("de", "en", "fr", "tr"), ("en", "ja", "zh")])
def test_the_language_is_py3langids_among_the_languages(languages: tuple[str, ...]) -> None:
    reference = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    reference.set_languages(list(languages))
    for text in TEXTS:
        assert language_id.among(languages).classify(text) == reference.classify(text), text


def test_a_language_the_model_does_not_know_is_no_answer() -> None:
    assert centres.words_language("hello there my friend", ("en", "xx")) == ("", 0.0)


def test_the_identifier_holds_only_the_languages_columns() -> None:
    language_id.forget()
    tracemalloc.start()
    try:
        identifier = language_id.among(("de", "en"))
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        language_id.forget()
    assert identifier.classify("Guten Morgen, wie geht es dir?")[0] == "de"
    # the DFA (9.8M uint32 transitions: 39 MB, its row and output lists 8 MB) and two columns: 50.7 MB measured;
    # with the whole model (100k features x 142 languages, float16) kept beside them: 79.1 MB
    assert held < 60 * 2**20
