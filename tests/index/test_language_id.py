"""A process reads py3langid's model once and holds one automaton, however many callers ask
(``language_id``: a page's language, the centres' sample, a query's language among each language set).

Why: each caller read and held its own copy (the automaton alone is 39 MB), so a process that synced, refreshed
centres and searched held three or more (docs/scale.md, "Stop 48: one language model a process").
"""

from __future__ import annotations

import threading
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from py3langid import modelio

from sentinel.index import fold, language_id
from sentinel.search import centres

GERMAN = "Wie kann ich meine Notizen mit dem Handy synchronisieren? Die Datei wird gespeichert."


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    language_id.forget()
    yield
    language_id.forget()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The model file's reads, each slowed a little so that readers racing for it overlap."""
    seen: list[float] = []
    real = modelio.load_model

    def counted(path: Any) -> Any:
        seen.append(time.monotonic())
        time.sleep(0.2)
        return real(path)

    monkeypatch.setattr(modelio, "load_model", counted)
    return seen


def test_every_caller_shares_one_automaton_and_one_read(reads: list[float]) -> None:
    assert fold.page_language("notes/sync.md", GERMAN) == "de"
    centres.from_sample(np.zeros((3, 4), dtype=np.float32), [GERMAN, "how do I sync my notes", "synchroniser"])
    assert centres.words_language(GERMAN, ("de", "en"))[0] == "de"
    assert centres.words_language(GERMAN, ("de", "en", "fr"))[0] == "de"
    identifiers = [language_id.every_language(), language_id.among(("de", "en")), language_id.among(("en", "fr"))]
    assert len(reads) == 1, "the language sets are sliced from the whole table held, not read again"
    assert all(i.tk_nextmove is identifiers[0].tk_nextmove for i in identifiers)
    assert all(i.tk_output is identifiers[0].tk_output for i in identifiers)


def test_a_language_set_asked_first_keeps_its_automaton_for_the_rest(reads: list[float]) -> None:
    first = language_id.among(("de", "en"))
    whole = language_id.every_language()
    assert len(reads) == 2, "only the columns were held, so every language reads the table again"
    assert whole.tk_nextmove is first.tk_nextmove, "the second read's automaton is let go"


def test_threads_asking_at_once_read_once(reads: list[float]) -> None:
    got: list[Any] = []
    threads = [threading.Thread(target=lambda: got.append(language_id.every_language())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(reads) == 1
    assert all(identifier is got[0] for identifier in got)


def test_every_caller_together_holds_one_model() -> None:
    tracemalloc.start()
    try:
        fold.page_language("notes/sync.md", GERMAN)
        centres.from_sample(np.zeros((1, 4), dtype=np.float32), [GERMAN])
        for languages in [("de", "en"), ("de", "en", "fr"), ("en", "ja", "zh")]:
            centres.words_language(GERMAN, languages)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the whole model (the automaton 39 MB, its lists 8 MB, the class table 28 MB) and three slices, each with its
    # state offsets (4 MB): ~88 MB; each caller reading its own copy held ~230 MB
    assert held < 110 * 2**20
