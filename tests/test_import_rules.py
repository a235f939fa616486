"""The layer rules of docs/architecture.md, read from the code's imports (every ``import``, also those inside a
function or under ``TYPE_CHECKING``: a lazy import is still a dependency).

- The model pool (``sentinel_pool``) imports only the core's small public interfaces, never an app module.
- No core module (``sentinel`` but its CLI, a door) imports the pool or a service.
- The storage layer (``sentinel.vault``, ``sentinel.index``) imports nothing above it.
- No service imports another service; what two share lives in ``services.common``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# what the pool may know of the core: its settings, the key ring, the providers' wire types and the interfaces the
# core defines for whoever serves its models
POOL_MAY_NAME = ("sentinel", "sentinel.__version__")  # the package itself, for its version
POOL_MAY_IMPORT = (
    "sentinel.settings",
    "sentinel.keys",
    "sentinel.providers",
    "sentinel.serving",
    "sentinel.errors",
    "sentinel.redis_client",
)
STORAGE = ("sentinel.vault", "sentinel.index")
STORAGE_MAY_IMPORT = (*STORAGE, "sentinel.paths", "sentinel.settings", "sentinel.errors")
DOORS = ("sentinel.cli",)  # the command line is a door, like the services: it may start the pool's daemon
SERVICES = ("api", "embedder", "searcher", "worker")


def _module(path: Path) -> str:
    parts = list(path.relative_to(REPO / "src" if path.is_relative_to(REPO / "src") else REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    package = _module(path).rsplit(".", 0 if path.name == "__init__.py" else 1)[0]
    return _imports_of(path.read_text(encoding="utf-8"), package)


def _imports_of(source: str, package: str) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in ``source``, relative ones made absolute from ``package``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], *filter(None, [base])]
                )
            yield node.lineno, base
            for alias in node.names:  # ``from sentinel import pool`` names a module, too
                yield node.lineno, f"{base}.{alias.name}"


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _files(*roots: str) -> list[Path]:
    return sorted(p for root in roots for p in (REPO / root).rglob("*.py"))


def _broken(files: list[Path], wrong: object) -> list[str]:
    found = []
    for path in files:
        module = _module(path)
        for line, name in _imports(path):
            if wrong(module, name):  # type: ignore[operator]
                found.append(f"{path.relative_to(REPO)}:{line} {module} imports {name}")
    return sorted(set(found))


def _is_app(name: str) -> bool:
    allowed = name in POOL_MAY_NAME or _within(name, POOL_MAY_IMPORT)
    return _within(name, ("sentinel", "services", "tool", "bench")) and not allowed


def test_the_pool_imports_no_app_module() -> None:
    assert (REPO / "src" / "sentinel_pool" / "__init__.py").is_file(), "the pool is its own package"
    assert _broken(_files("src/sentinel_pool"), lambda _m, name: _is_app(name)) == []


def test_no_core_module_imports_the_pool_or_a_service() -> None:
    def wrong(module: str, name: str) -> bool:
        return not _within(module, DOORS) and _within(name, ("sentinel_pool", "services"))

    assert _broken(_files("src/sentinel"), wrong) == []


def test_the_storage_layer_imports_nothing_above_it() -> None:
    def wrong(_module: str, name: str) -> bool:
        return _within(name, ("sentinel", "sentinel_pool", "services")) and not _within(name, STORAGE_MAY_IMPORT)

    assert _broken(_files("src/sentinel/vault", "src/sentinel/index"), wrong) == []


@pytest.mark.parametrize("service", SERVICES)
def test_no_service_imports_another_service(service: str) -> None:
    others = tuple(f"services.{other}" for other in SERVICES if other != service)
    assert _broken(_files(f"services/{service}"), lambda _m, name: _within(name, others)) == []


def test_the_rules_see_a_breach() -> None:
    """The walk itself: an import inside a function, a relative import and ``from x import module`` are seen."""
    source = "def f():\n    from ..search import ladder\n    from sentinel import tools\n"
    names = {name for _, name in _imports_of(source, "sentinel.index")}
    assert {"sentinel.search", "sentinel.search.ladder", "sentinel.tools"} <= names
