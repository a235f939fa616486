"""The tool file as Open WebUI itself loads it: its loader, its spec builder, its reserved-argument binding."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.openwebui.servers import REPO, owui_environment

TOOL_FILE = REPO / "tool" / "openwebui_tool.py"
CHECK = Path(__file__).with_name("owui_loader_check.py")
PRIMITIVES = {"read", "search", "listing", "graph", "write", "relocate", "remove"}


@pytest.fixture(scope="module")
def loaded(owui_python: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("owui-loader")
    (work / "data").mkdir()
    out = work / "specs.json"
    done = subprocess.run(
        [str(owui_python), str(CHECK), str(TOOL_FILE), str(out)],
        env=owui_environment(work / "data"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return dict(json.loads(out.read_text()))


def test_loader_rewrites_nothing_in_the_file() -> None:
    # Open WebUI replaces these prefixes anywhere in the text, comments and strings included.
    text = TOOL_FILE.read_text()
    for prefix in ("from utils", "from config", "from apps", "from main"):
        assert prefix not in text


@pytest.mark.slow
def test_open_webui_builds_the_seven_primitives_and_save(loaded: dict[str, Any]) -> None:
    assert {spec["name"] for spec in loaded["specs"]} == PRIMITIVES | {"save"}
    assert loaded["valves"] == {"api_url": "http://api:8000", "api_key": "", "timeout_s": 120.0}


@pytest.mark.slow
def test_no_reserved_argument_reaches_the_model(loaded: dict[str, Any]) -> None:
    for spec in loaded["specs"]:
        assert not [p for p in spec["parameters"]["properties"] if p.startswith("_")], spec["name"]
    for name, parameters in loaded["bound_parameters"].items():
        assert not [p for p in parameters if p.startswith("_")], name
    assert loaded["bound_parameters"]["save"] == ["subject", "content"]
    assert loaded["bound_parameters"]["search"] == ["query", "rung", "cursor"]


@pytest.mark.slow
def test_every_tool_and_argument_is_described(loaded: dict[str, Any]) -> None:
    for spec in loaded["specs"]:
        assert len(spec["description"]) > 40, spec["name"]
        # At chat time Open WebUI sends the raw docstring up to ':param'; it must be the same sentence.
        assert loaded["runtime_descriptions"][spec["name"]].strip() == spec["description"]
        for argument, schema in spec["parameters"]["properties"].items():
            assert schema.get("description"), f"{spec['name']}.{argument}"
    enums = {s["name"]: s["parameters"]["properties"] for s in loaded["specs"]}
    assert enums["read"]["depth"]["enum"] == ["outline", "section", "page"]
    assert enums["search"]["rung"]["enum"] == ["summary", "body"]
    assert enums["write"]["mode"]["enum"] == ["create", "append", "replace"]


@pytest.mark.slow
def test_descriptions_carry_the_rules(loaded: dict[str, Any]) -> None:
    described = {spec["name"]: spec["description"] for spec in loaded["specs"]}
    assert "kaydet" in described["save"] and "only when the user asks" in described["save"].lower()
    assert "conversations/" in described["write"] and "[STOP]" in described["write"]
    assert "[DONE]" in described["search"] and "rung='body'" in described["search"]
    for verb in ("write", "relocate", "remove"):
        assert "only when the user" in described[verb], verb


@pytest.mark.slow
def test_the_model_reads_the_same_rules_as_through_the_core(loaded: dict[str, Any]) -> None:
    """One set of descriptions: the tool file carries the core's, word for word (sentinel.tools.registry)."""
    from sentinel.tools.capture import DESCRIPTION as CAPTURE_DESCRIPTION
    from sentinel.tools.registry import TOOLS

    specs = {spec["name"]: spec for spec in loaded["specs"]}
    assert specs["save"]["description"] == CAPTURE_DESCRIPTION
    for name, tool in TOOLS.items():
        spec = specs[name]["parameters"]
        assert specs[name]["description"] == tool.description, name
        assert sorted(spec.get("required", [])) == sorted(tool.parameters["required"]), name
        assert spec["properties"].keys() == tool.parameters["properties"].keys(), name
        for argument, schema in tool.parameters["properties"].items():
            ours = spec["properties"][argument]
            assert (ours["description"], ours.get("enum")) == (schema["description"], schema.get("enum")), argument
