"""py3langid's language identifiers, read from its model file once a process and sharing one automaton.

Every language check of the core asks here: a page's language when its chunks are written (``fold.page_language``:
every language), the language centres' sample labels (``centres.from_sample``: every language) and a query's
language among the vault's languages (``centres.words_language``: a few columns). Each used to read the model
itself, so a process that synced, refreshed centres and searched held the model's byte automaton (9.8M uint32
transitions, 39 MB, and its per-state output list) three times or more, one more for every language set
(docs/scale.md, "Stop 48: one language model a process"). Here the first read's automaton is kept and every
identifier shares it; the whole class table (100k features x 142 languages, float16: 28 MB) is held only once a
caller has asked for every language, so a process that only searches keeps only its languages' columns.

The read itself (``py3langid.modelio.load_model``) holds the automaton twice for a moment (the npz's array and
the stdlib ``array`` py3langid walks): that transient is the library's and is left to it.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

import numpy as np

# One read at a time: two threads asking at once (the API's thread pool) would each read and hold the model.
_READ = threading.Lock()
# The first read's automaton (transitions, state rows, per-state outputs), shared by every identifier.
_automaton: tuple[Any, Any, Any] | None = None


def every_language() -> Any:
    """The identifier over all of the model's languages, with normalised probabilities (0-1)."""
    with _READ:
        return _every_language()


def among(languages: tuple[str, ...]) -> Any:
    """The identifier among ``languages`` only: py3langid's ``set_languages`` answers, holding just their
    columns of the class table. A language the model does not know raises ``ValueError``."""
    with _READ:
        return _among(tuple(sorted(set(languages))))


@functools.lru_cache(maxsize=1)
def _every_language() -> Any:
    return _identifier(*_read())


@functools.lru_cache(maxsize=8)
def _among(languages: tuple[str, ...]) -> Any:
    # Sliced from the whole table when a caller already holds it, else from a read of the file.
    if _every_language.cache_info().currsize:
        whole = _every_language()
        table, priors, classes = whole.nb_ptc, whole.nb_pc, whole.nb_classes
    else:
        table, priors, classes = _read()
    unknown = set(languages) - set(classes)
    if unknown:
        raise ValueError(f"unknown language code(s): {sorted(unknown)}")  # as ``set_languages`` says
    columns = [i for i, label in enumerate(classes) if label in set(languages)]
    # fancy indexing copies: the whole table read for this slice is let go on return
    return _identifier(table[:, columns], priors[columns], [classes[i] for i in columns])


def _read() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The model's class table, class priors and labels; the automaton is kept from the first read only."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE
    from py3langid.modelio import load_model

    global _automaton
    table, priors, classes, nextmove, rows, outputs = load_model(MODEL_DIR / MODEL_FILE)
    if _automaton is None:
        _automaton = (nextmove, rows, outputs)
    return np.asarray(table), np.asarray(priors), list(classes)


def _identifier(table: np.ndarray, priors: np.ndarray, classes: list[str]) -> Any:
    from py3langid.langid import LanguageIdentifier

    assert _automaton is not None, "an identifier is made after a read"
    nextmove, rows, outputs = _automaton
    return LanguageIdentifier(table, priors, classes, nextmove, outputs, norm_probs=True, tk_row=rows)


def forget() -> None:
    """Let every identifier and the automaton go (a test that measures a first read starts from here)."""
    global _automaton
    with _READ:
        _every_language.cache_clear()
        _among.cache_clear()
        _automaton = None
