"""How often the small Qwen's first call is research: when the user asks for the web, and when they do not.

    .venv/bin/python -m bench.research --first-calls      # needs `make llm` and .venv-owui (`make openwebui`)

Each phrasing is sent as Open WebUI sends a turn's first round with both Sentinel tools attached: the setup's
system prompt with the research paragraph, the tool specs Open WebUI's own loader builds from the two tool files,
then through the gateway's first-call constraint (``pool.repair.constrain_call``) to the real small Qwen on
llama.cpp, at temperature 0 as the end-to-end test asks. Printed per phrasing: its language, whether it asks for
the web, the tools the constraint left, and the call the model made; then the shares.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from sentinel.openwebui import system_prompt_of
from sentinel.research import TOOL_NAME
from sentinel.settings import OpenWebUISettings
from sentinel.tools.first_call import opening
from sentinel_pool.repair import CALL_SCHEMA, constrain_call
from tests.openwebui.servers import OWUI_PYTHON, REPO, owui_environment
from tests.support.llama import MODEL_ALIAS, llama_server

# (language, asks for the web, the user's words)
PHRASINGS = [
    ("en", True, "Research on the web: how do I restore a previous version of a note from a File recovery snapshot?"),
    ("en", True, "Look this up online: where does Obsidian keep File recovery snapshots?"),
    ("de", True, "Recherchiere im Web: Wie stelle ich eine frühere Version einer Notiz aus einem Snapshot wieder her?"),
    ("de", True, "Such im Internet nach: Wo speichert Obsidian die Snapshots der Dateiwiederherstellung?"),
    ("es", True, "Investiga en la web: ¿cómo restauro una versión anterior de una nota desde una instantánea?"),
    ("es", True, "Busca en internet: ¿dónde guarda Obsidian las instantáneas de recuperación de archivos?"),
    ("tr", True, "Web'de araştır: Bir notun önceki sürümünü dosya kurtarma anlık görüntüsünden nasıl geri yüklerim?"),
    ("tr", True, "İnternette ara: Obsidian dosya kurtarma anlık görüntülerini nerede saklıyor?"),
    ("en", False, "When is my vault backed up, and where to?"),
    ("de", False, "Was steht in meinen Notizen über die Sicherung?"),
    ("es", False, "¿Qué dicen mis notas sobre las copias de seguridad?"),
    ("tr", False, "Notlarım yedekleme hakkında ne diyor?"),
]
CHAT_PARAMS = {"temperature": 0, "seed": 1, "max_tokens": 300}  # as tests/openwebui/test_research_end_to_end.py


def open_webui_tools() -> list[dict[str, Any]]:
    """The two tool files' specs as Open WebUI's loader builds them, in the shape it sends them."""
    specs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-research-calls-") as work:
        for tool in ("openwebui_tool.py", "openwebui_research_tool.py"):
            data, out = Path(work) / tool, Path(work) / f"{tool}.json"
            data.mkdir()
            check = REPO / "tests" / "openwebui" / "owui_loader_check.py"
            subprocess.run(
                [str(OWUI_PYTHON), str(check), str(REPO / "tool" / tool), str(out)],
                env=owui_environment(data),
                capture_output=True,
                check=True,
                timeout=600,
            )
            specs += json.loads(out.read_text())["specs"]
    return [{"type": "function", "function": spec} for spec in specs]


def first_call(base_url: str, body: dict[str, Any]) -> str:
    """The name of the call the model answered with ("" when the answer is no call)."""
    answer = httpx.post(f"{base_url}/chat/completions", json=body, timeout=1800).json()
    try:
        return str(json.loads(answer["choices"][0]["message"]["content"])["name"])
    except (ValueError, KeyError, TypeError):
        return ""


def offered_first(body: dict[str, Any]) -> list[str]:
    schema = (body.get("response_format") or {}).get("json_schema") or {}
    if schema.get("name") != CALL_SCHEMA:
        return []
    calls = schema["schema"].get("oneOf", [schema["schema"]])
    return [call["properties"]["name"]["const"] for call in calls]


def main() -> None:
    tools = open_webui_tools()
    system = system_prompt_of(OpenWebUISettings(searcher_url="http://searcher:8002"))
    rows: list[tuple[str, bool, str]] = []
    with llama_server(ctx=8192) as base_url:
        print("\n| language | asks for the web | first call may be | model's first call | s | words |")
        print("|---|---|---|---|---|---|")
        for language, web, words in PHRASINGS:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": words}]
            body = constrain_call({"model": MODEL_ALIAS, "messages": messages, "tools": tools, **CHAT_PARAMS}, opening)
            started = time.perf_counter()
            called = first_call(base_url, body)
            seconds = time.perf_counter() - started
            rows.append((language, web, called))
            allowed = ", ".join(offered_first(body))
            print(f"| {language} | {web} | {allowed} | {called or '(no call)'} | {seconds:.0f} | {words} |", flush=True)
    asked = [called for _, web, called in rows if web]
    not_asked = [called for _, web, called in rows if not web]
    print(f"\nasked for the web: first call research in {asked.count(TOOL_NAME)} of {len(asked)}")
    print(f"vault questions: first call research in {not_asked.count(TOOL_NAME)} of {len(not_asked)}")
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
