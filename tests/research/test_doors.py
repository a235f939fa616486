"""The doors to research: ``sentinel research``, the Searcher service (and Open WebUI's research tool calling it
over real HTTP), the second backend, and the system prompt that mentions research only when it exists."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import frontmatter
import httpx
import pytest
from typer.testing import CliRunner

from sentinel import prompts
from sentinel.cli import app as cli
from sentinel.openwebui import system_prompt_of, tool_ids
from sentinel.research.backends import BackendFailed, BraveBackend, backend_from_settings
from sentinel.research.record import recorded_passages
from sentinel.settings import OpenWebUISettings, ResearchSettings, Settings
from services.searcher.app import create_app
from tests.support.embedder import E5_DIR
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.research import QUESTION, MakeVault
from tests.support.servers import free_port, serve
from tests.support.web_site import LoopbackSite, searxng_standin

REPO = Path(__file__).resolve().parents[2]
KEY = "research-test-key"


def _tool_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("research_tool", REPO / "tool" / "openwebui_research_tool.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_writes_the_record_and_says_where(
    research_vault: MakeVault, site: LoopbackSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = research_vault()
    with searxng_standin([(site.page_url(0), "File recovery"), (site.url + "/missing", "gone")]) as search:
        for name, value in {
            "SENTINEL_RESEARCH__SEARXNG_URL": search.url,
            "SENTINEL_RESEARCH__MIN_SIMILARITY": "0.82",
            "SENTINEL_RESEARCH__ALLOW_PRIVATE_ADDRESSES": "true",
            "SENTINEL_INDEX_PATH": str(settings.index_path),
        }.items():
            monkeypatch.setenv(name, value)
        result = CliRunner().invoke(
            cli, ["research", QUESTION, "--vault", str(settings.vault), "--embed-model", str(E5_DIR), "--json"]
        )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["record"].startswith("sources/") and data["added"] > 0 and data["used"] == 1
    assert data["not_used"] == [{"url": site.url + "/missing", "reason": "HTTP 404"}]
    assert (settings.vault / data["record"]).is_file()


def test_the_cli_refuses_a_vault_sentinel_does_not_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SENTINEL_INDEX_PATH", raising=False)
    result = CliRunner().invoke(cli, ["research", "what is a vault?", "--vault", str(tmp_path)])
    assert result.exit_code == 2
    assert "is not a Sentinel vault" in result.output and "sentinel index" in result.output


def test_the_service_refuses_to_start_where_sentinel_does_not_read(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "SENTINEL_VAULT": str(tmp_path),
        "SENTINEL_EMBED_MODEL_DIR": str(E5_DIR),
        "SENTINEL_API_KEYS": f"write:{KEY}",
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("SENTINEL_INDEX_PATH", None)
    command = [sys.executable, "-m", "uvicorn", "services.searcher.app:app", "--port", str(free_port())]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "the Searcher will not start" in done.stderr and "is not a Sentinel vault" in done.stderr
    assert not (tmp_path / "sources").exists()


def test_open_webuis_research_tool_calls_the_service_which_writes_the_record(
    research_vault: MakeVault, site: LoopbackSite
) -> None:
    settings = research_vault()
    settings.embed_model_dir = E5_DIR
    settings.api_keys = f"write:{KEY},read:read-key"
    with searxng_standin([(site.page_url(0), "File recovery")]) as search:
        settings.research.searxng_url = search.url
        with serve(create_app(settings)) as url:
            health = httpx.get(url + "/health").json()
            assert health["sources"] == str(settings.vault.resolve() / "sources") and health["backend"] == "searxng"
            assert httpx.post(url + "/v1/research", json={"question": QUESTION}).status_code == 401
            read_only = {"Authorization": "Bearer read-key"}
            assert httpx.post(url + "/v1/research", json={"question": QUESTION}, headers=read_only).status_code == 403
            tool = _tool_module().Tools()
            tool.valves.api_url, tool.valves.api_key = url, KEY
            text = asyncio.run(tool.research(QUESTION))
            assert asyncio.run(tool.research("")).startswith("[RETRY]")
    assert text.startswith("[OK → next] Research recorded in sources/"), text
    relpath = text.split("recorded in ", 1)[1].split(":", 1)[0]
    record = frontmatter.loads((settings.vault / relpath).read_text(encoding="utf-8"))
    assert recorded_passages(record.content) and record.metadata["urls"] == [site.page_url(0)]
    tool.valves.api_key = ""
    assert asyncio.run(tool.research(QUESTION)).startswith("[STOP] The research tool has no API key")


def test_the_brave_backend_speaks_its_format_and_needs_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    def brave(request: RecordedRequest) -> tuple[int, object]:
        if request.headers.get("x-subscription-token") != "brave-key":
            return 401, {"error": "unauthorized"}
        rows = [{"url": "https://a.example/1", "title": "One"}, {"url": "ftp://no", "title": "x"}]
        return 200, {"web": {"results": [*rows, {"url": "https://a.example/1", "title": "again"}]}}

    with HttpStub(brave) as stub:
        config = ResearchSettings(backend="brave", brave_url=stub.url + "/res/v1/web/search", brave_key_env="T_KEY")
        with pytest.raises(BackendFailed, match="T_KEY"):
            backend_from_settings(config)
        monkeypatch.setenv("T_KEY", "brave-key")
        backend = backend_from_settings(config)
        assert isinstance(backend, BraveBackend)
        hits = backend.search("what is obsidian", 5)
        assert [(h.url, h.title) for h in hits] == [("https://a.example/1", "One")]
        assert "q=what+is+obsidian" in stub.requests[0].path
        monkeypatch.setenv("T_KEY", "wrong")
        with pytest.raises(BackendFailed, match="HTTP 401"):
            backend_from_settings(config).search("x", 5)


def test_a_searxng_without_the_json_format_is_named() -> None:
    with HttpStub(lambda request: (403, {"error": "forbidden"})) as stub:
        backend = backend_from_settings(ResearchSettings(searxng_url=stub.url))
        with pytest.raises(BackendFailed, match="enable the json format"):
            backend.search("x", 5)


def test_the_system_prompt_mentions_research_only_with_a_searcher() -> None:
    files = {
        "system_prompt_file": prompts.SYSTEM_PROMPT,
        "research_prompt_file": prompts.RESEARCH_PROMPT,
    }
    without = Settings(openwebui=OpenWebUISettings(**files))
    with_searcher = Settings(openwebui=OpenWebUISettings(**files, searcher_url="http://searcher:8002"))
    assert "research" not in system_prompt_of(without).lower()
    assert tool_ids(without.openwebui) == ["sentinel"]
    prompt = system_prompt_of(with_searcher)
    assert prompt.startswith(system_prompt_of(without).strip())
    assert "research tool" in prompt and "empty vault" in prompt and "only when the user asks" in prompt
    assert tool_ids(with_searcher.openwebui) == ["sentinel", "sentinel_research"]
