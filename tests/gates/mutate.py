"""A pytest plugin that removes one gate check: ``SENTINEL_MUTATE_GATE=<module.function> pytest -p <this>``.

The harness finds the checks itself, so a new gate is covered without editing this file: every module of
``sentinel.gates`` is one gate, and every public function defined there whose return annotation is
``Verdict`` is one check. Removing a check means replacing the module attribute (callers call
``module.function``, so every call site sees the replacement) by "everything passes": the real check runs, and
whatever it kept or dropped is returned as kept, with ``passed`` true. ``test_mutations.py`` runs the pass's
tests once per removed check: at least one must fail.

A gate module without such a check fails ``test_mutations.py``: there is no list of exceptions to keep.

Guards outside ``gates/``, excluded on purpose:
- ``paths.jail`` (the vault boundary for every path a model or a user gives) is where-things-are, which the
  house keeps in ``paths.py``; it refuses by raising ``PathRefused`` at the edge (tests/tools, tests/safety).
- ``index.sync._withheld`` (the mass-disappearance guard) protects the index from an unmounted drive, not the
  vault from a model's output, which is what ``gates/`` holds; tested in tests/index with the sync.
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
    return sorted(f"{short(m)}.{name}" for m in gate_modules() for name in checks(m))


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
    setattr(module, function, _everything_passes(getattr(module, function)))
