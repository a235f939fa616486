"""The Open WebUI tool files import nothing of Sentinel's (docs/openwebui.md says so): Open WebUI loads them from
their uploaded text, with only what it ships itself. Plain Python: no Open WebUI needed."""

from __future__ import annotations

import ast
import sys

import pytest

from tests.openwebui.servers import REPO

SHIPPED_BY_OPEN_WEBUI = {"httpx", "pydantic"}


@pytest.mark.parametrize("name", ["openwebui_tool.py", "openwebui_research_tool.py", "openwebui_pipe.py"])
def test_a_tool_file_imports_only_the_standard_library_pydantic_and_httpx(name: str) -> None:
    tree = ast.parse((REPO / "tool" / name).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    foreign = sorted(m for m in imported - {"__future__"} if m not in sys.stdlib_module_names | SHIPPED_BY_OPEN_WEBUI)
    assert not foreign, f"{name} imports {foreign}: Open WebUI has none of them"
    source = (REPO / "tool" / name).read_text(encoding="utf-8")
    assert "sys.modules" not in source and "importlib" not in source  # no module cache is cleared or reloaded
