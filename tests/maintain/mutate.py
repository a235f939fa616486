"""A pytest plugin that removes one gate check: ``SENTINEL_MUTATE_GATE=<module.function> pytest -p <this>``.

The harness finds the checks itself, so a new gate is covered without editing this file: every module of
``sentinel.gates`` is one gate, and every public function defined there whose return annotation is
``Verdict`` is one check. Removing a check means replacing the module attribute (callers call
``module.function``, so every call site sees the replacement) by "everything passes": the real check runs, and
whatever it kept or dropped is returned as kept, with ``passed`` true. ``test_mutations.py`` runs the pass's
tests once per removed check: at least one must fail.

Gates that predate the ``Verdict`` convention are listed in ``LEGACY`` with what the pass would do without
them; a gate module that neither follows the convention nor is listed fails ``test_mutations.py``.

Guards outside ``gates/``, excluded on purpose:
- ``paths.jail`` (the vault boundary for every path a model or a user gives) is where-things-are, which the
  house keeps in ``paths.py``; it refuses by raising ``PathRefused`` at the edge and is tested in tests/core.
- ``index.sync._withheld`` (the mass-disappearance guard) protects the index from an unmounted drive, not the
  vault from a model's output, which is what ``gates/`` holds; tested in tests/core with the sync.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import sentinel.gates
from sentinel.gates import Verdict

LEGACY: dict[str, tuple[str, Callable[..., Any]]] = {
    "reversal": ("confirmed_by_reversal", lambda first, swapped: first),
    "shape": ("defers_by_shape", lambda a, b: False),
    "stale_write": ("stale_write_refusal", lambda *args: ""),
    "transcripts": ("transcript_refusal", lambda *args: ""),
    "wiki_creation": ("wiki_creation_refusal", lambda *args: ""),
    "numbers": ("numbered_apart", lambda a, b: False),
    "qualifiers": ("qualified_apart", lambda a, b: False),
    "opposites": ("opposed", lambda a, b: False),
    "sibling": ("replaces_a_word", lambda a, b: False),
    "contexts": ("named_apart", lambda a, b, sentences: False),
    "contrary": ("denies_difference", lambda answer: True),
    "consistent": ("contexts_agree", lambda name_sentences, title_sentences, answer: True),
    "two_pages": ("both_exist", lambda name_page, target_page: False),
}


def gate_modules() -> list[ModuleType]:
    return [
        importlib.import_module(f"sentinel.gates.{info.name}")
        for info in pkgutil.iter_modules(sentinel.gates.__path__)
        if not info.name.startswith("_")
    ]


def checks(module: ModuleType) -> list[str]:
    """The module's checks: public functions defined in it that return a ``Verdict``."""
    return sorted(
        name
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if not name.startswith("_")
        and function.__module__ == module.__name__
        and str(inspect.signature(function).return_annotation).startswith("Verdict")
    )


def short(module: ModuleType) -> str:
    return module.__name__.rsplit(".", 1)[1]


def mutants() -> list[str]:
    """Every removable check, as ``module.function``."""
    found = [f"{short(m)}.{name}" for m in gate_modules() for name in checks(m)]
    found += [f"{gate}.{function}" for gate, (function, _) in LEGACY.items()]
    return sorted(found)


def _everything_passes(real: Callable[..., Verdict[Any]]) -> Callable[..., Verdict[Any]]:
    def without_the_check(*args: Any, **kwargs: Any) -> Verdict[Any]:
        verdict = real(*args, **kwargs)
        return Verdict(True, kept=[*verdict.kept, *verdict.dropped])

    return without_the_check


def pytest_configure(config: pytest.Config) -> None:
    target = os.environ.get("SENTINEL_MUTATE_GATE", "")
    if not target:
        return
    gate, function = target.split(".", 1)
    module = importlib.import_module(f"sentinel.gates.{gate}")
    if gate in LEGACY:
        setattr(module, function, LEGACY[gate][1])
    else:
        setattr(module, function, _everything_passes(getattr(module, function)))
