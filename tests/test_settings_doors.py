"""Settings are built once per process, at its door, and passed down: an ast walk over ``src/`` and ``services/``
lists every expression that builds a ``sentinel.settings.Settings`` and fails on any outside the doors below.

Deriving settings from ones passed in (``settings.model_copy(update=...)``, as the CLI's flags do) is not
building them: it reads nothing from the environment. The benches (``bench/``) are scripts, each its own process
and door, and build the settings they measure on; they are not walked.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WALKED = ("src", "services")

# (file, enclosing function) -> why it may read the environment into Settings
DOORS: dict[tuple[str, str], str] = {
    ("src/sentinel/cli/__init__.py", "_configure"): "the CLI root's callback: once per run, into the typer context",
    ("services/api/__main__.py", "main"): "`python -m services.api`: the tool API's own entry",
    ("services/api/app.py", "_from_environment"): "`uvicorn services.api.app:app`, cached: once per process",
    ("services/embedder/app.py", "_from_environment"): "`uvicorn services.embedder.app:app`, cached",
    ("services/searcher/app.py", "_from_environment"): "`uvicorn services.searcher.app:app`, cached",
    ("services/worker/celery_app.py", "_from_environment"): "`celery -A services.worker.celery_app`, cached",
}

SETTINGS_MODULE = "sentinel.settings"
# the class methods that build an instance from values (BaseSettings' __init__ is the call itself)
BUILDERS = {"model_validate", "model_validate_json", "model_validate_strings", "model_construct"}
NOT_BUILDING = {"isinstance", "issubclass", "cast"}  # calls that name the class without building one


class _Builds(ast.NodeVisitor):
    """Where a module builds Settings: (enclosing function's qualified name, line) for each call of the class,
    of one of its builder methods, or hand-off of the class itself as a factory (``default_factory=Settings``)."""

    def __init__(self) -> None:
        self.names: set[str] = set()  # what the class is called in this module
        self.modules: set[str] = set()  # what sentinel.settings is called in this module
        self.scope: list[str] = []
        self.found: list[tuple[str, int]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == SETTINGS_MODULE and alias.asname:
                self.modules.add(alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if node.module == SETTINGS_MODULE and alias.name == "Settings":
                self.names.add(alias.asname or alias.name)
            elif node.module == "sentinel" and alias.name == "settings":
                self.modules.add(alias.asname or alias.name)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._within(node.name, node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._within(node.name, node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._within(node.name, node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._within("<lambda>", node)

    def _within(self, name: str, node: ast.AST) -> None:
        self.scope.append(name)
        self.generic_visit(node)
        self.scope.pop()

    def _is_class(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute) and node.attr == "Settings":
            dotted = ast.unparse(node.value)
            return dotted in self.modules or dotted == SETTINGS_MODULE
        return False

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        builds = self._is_class(func) or (
            isinstance(func, ast.Attribute) and func.attr in BUILDERS and self._is_class(func.value)
        )
        handed = not (isinstance(func, ast.Name) and func.id in NOT_BUILDING) and any(
            self._is_class(arg) for arg in [*node.args, *(k.value for k in node.keywords)]
        )
        if builds or handed:
            self.found.append((".".join(self.scope) or "<module>", node.lineno))
        self.generic_visit(node)


def builds_in(source: str) -> list[tuple[str, int]]:
    """(enclosing function, line) of each place ``source`` builds Settings."""
    walker = _Builds()
    walker.visit(ast.parse(source))
    return walker.found


def all_builds() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for top in WALKED:
        for path in sorted((REPO / top).rglob("*.py")):
            relpath = path.relative_to(REPO).as_posix()
            for where, line in builds_in(path.read_text(encoding="utf-8")):
                found.setdefault((relpath, where), []).append(line)
    return found


def test_settings_are_built_only_at_the_doors() -> None:
    outside = [
        f"{path}:{line} (in {where})"
        for (path, where), lines in all_builds().items()
        if (path, where) not in DOORS
        for line in lines
    ]
    assert not outside, (
        "Settings built below a door; take `settings` as a parameter from the caller instead "
        f"(the doors: {sorted(DOORS)}): {outside}"
    )


def test_each_door_builds_them_once() -> None:
    found = all_builds()
    wrong = {door: lines for door in DOORS if len(lines := found.get(door, [])) != 1}
    assert not wrong, f"each door builds Settings exactly once (remove a door that no longer does): {wrong}"


def test_the_walk_sees_every_spelling_of_building_them() -> None:
    source = textwrap.dedent(
        """
        import sentinel.settings as conf
        from functools import cache
        from pydantic import Field
        from sentinel import settings as sentinel_settings
        from sentinel.settings import Settings
        from sentinel.settings import Settings as Config

        AT_IMPORT = Settings()

        def plain(): return Settings(vault="v")
        def aliased(): return Config()
        def through_the_module(): return conf.Settings()
        def through_the_package(): return sentinel_settings.Settings()
        def validated(raw): return Settings.model_validate(raw)
        def constructed(): return Settings.model_construct()
        def handed_as_factory(): return Field(default_factory=Settings)
        def cached(): return cache(Settings)()

        class Holder:
            def method(self):
                return (lambda: Settings())()

        def derived(settings: Settings) -> Settings:
            assert isinstance(settings, Settings)
            return settings.model_copy(update={"vault": "elsewhere"})
        """
    )
    assert builds_in(source) == [
        ("<module>", 9),
        ("plain", 11),
        ("aliased", 12),
        ("through_the_module", 13),
        ("through_the_package", 14),
        ("validated", 15),
        ("constructed", 16),
        ("handed_as_factory", 17),
        ("cached", 18),
        ("Holder.method.<lambda>", 22),
    ]


def test_a_settings_class_of_another_module_is_not_the_one() -> None:
    source = "from mcp.server.transport_security import TransportSecuritySettings as Settings\nSettings()\n"
    assert builds_in(source) == []
