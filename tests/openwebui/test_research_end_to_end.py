"""Research through a real Open WebUI: setup registers the research tool only with a Searcher, a chat's model calls
``research``, the real Searcher service (over a loopback site and a stand-in SearXNG) writes a record into the
vault's sources folder, and ``search`` through the real tool API finds it at the body rung, not the summary rung.

Twice: with a scripted chat model (it must call research on cue: what Open WebUI and Sentinel do with the call),
and with the stack's own path, nothing scripted: Open WebUI -> the API's gateway -> llama.cpp with the small Qwen,
which chooses research itself because the user asked for the web (bench/research_calls.py measures how often).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import frontmatter
import httpx
import pytest

from sentinel import prompts
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.keys import Scope, create_key
from sentinel.research import TOOL_NAME
from sentinel.research.record import recorded_passages
from sentinel.settings import Settings
from tests.openwebui.chat_backends import ChatBackend, ToolCall, scripted
from tests.openwebui.servers import REPO, Server, open_webui, owui_environment, running, sentinel_api_serving
from tests.openwebui.session import admin, chat, setup_sentinel
from tests.support.embedder import E5_DIR
from tests.support.eval_data import require_eval_vault
from tests.support.llama import MODEL_ALIAS, llama_server
from tests.support.research import PAGES, QUESTION
from tests.support.servers import free_port
from tests.support.web_site import LoopbackSite, page_from_markdown, searxng_standin

pytestmark = pytest.mark.slow

MODEL = "scripted-research"
ANSWER = "I looked it up and recorded what I found."
RESEARCH_PROMPT = prompts.RESEARCH_PROMPT.read_text().strip()
# The real model's question: another than the scripted one's, so its record is a new file.
ASKED = "Where are File recovery snapshots stored?"
# One model run, repeatable and bounded, as tests/openwebui/test_end_to_end.py runs the small Qwen.
CHAT_PARAMS = {"temperature": 0, "seed": 1, "max_tokens": 300}


@dataclass
class Stack:
    owui: Server
    api: Server
    searcher: Server
    vault: Path
    key: str
    backend: ChatBackend
    site: LoopbackSite


@pytest.fixture(scope="module")
def stack(owui_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("owui-research")
    vault = work / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "Start.md").write_text("# Start\n\nMy notes on writing.\n")
    index = work / "index.db"
    db = open_index(Settings(vault=vault, index_path=index, _env_file=None))
    sync(Settings(vault=vault, index_path=index, _env_file=None), db)
    db.close()
    _, key = create_key(work / "keys.json", Scope.WRITE, label="open-webui research test")
    eval_vault = require_eval_vault()
    pages = [page_from_markdown(eval_vault / rel, lang) for rel, lang in PAGES]
    backend = scripted(MODEL, [ToolCall("research", {"question": QUESTION})], ANSWER)
    with ExitStack() as up:
        llama = up.enter_context(llama_server(ctx=8192))
        site = up.enter_context(LoopbackSite(pages))
        search = up.enter_context(searxng_standin([(site.page_url(n), p.title) for n, p in enumerate(pages)]))
        port = free_port()
        env = {
            **os.environ,
            "SENTINEL_VAULT": str(vault),
            "SENTINEL_INDEX_PATH": str(index),
            "SENTINEL_API_KEYS_FILE": str(work / "keys.json"),
            "SENTINEL_EMBED_MODEL_DIR": str(E5_DIR),
            "SENTINEL_RESEARCH__SEARXNG_URL": search.url,
            "SENTINEL_RESEARCH__ALLOW_PRIVATE_ADDRESSES": "true",
            "SENTINEL_RESEARCH__MIN_SIMILARITY": "0.82",
        }
        command = [sys.executable, "-m", "uvicorn", "services.searcher.app:app", "--port", str(port)]
        searcher = up.enter_context(running(command, env, port, work / "searcher.log", timeout_s=300))
        api = up.enter_context(sentinel_api_serving(vault, index, work / "keys.json", work / "api.log", llama))
        up.enter_context(backend)
        # Two tool-call rounds at most: a 0.5B model may otherwise keep calling tools for many minutes.
        owui = up.enter_context(
            open_webui(
                work / "open-webui",
                [backend.root + "/v1", api.url + "/v1"],
                [],
                openai_keys=["none", key],
                max_tool_calls=2,
            )
        )
        yield Stack(owui, api, searcher, vault, key, backend, site)


def test_open_webui_loads_the_research_tool_as_one_described_function(owui_python: Path, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    out = tmp_path / "specs.json"
    tool = REPO / "tool" / "openwebui_research_tool.py"
    check = Path(__file__).with_name("owui_loader_check.py")
    done = subprocess.run(
        [str(owui_python), str(check), str(tool), str(out)],
        env=owui_environment(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    loaded = json.loads(out.read_text())
    (spec,) = loaded["specs"]
    # the name the gateway's first-call rule knows research by (sentinel.research.TOOL_NAME)
    assert spec["name"] == TOOL_NAME and loaded["bound_parameters"][TOOL_NAME] == ["question"]
    assert "ONLY when the user asks" in loaded["runtime_descriptions"]["research"]
    assert spec["parameters"]["properties"]["question"]["description"]
    assert loaded["valves"]["api_url"] == "http://searcher:8002"


def test_research_is_registered_only_with_a_searcher(stack: Stack) -> None:
    without = setup_sentinel(stack.owui, stack.api.url, MODEL, stack.key)
    assert "research: no Searcher configured" in without.output
    info = admin(stack.owui).get("/api/v1/models/model", params={"id": "sentinel"}).json()
    assert info["meta"]["toolIds"] == ["sentinel"] and "research" not in info["params"]["system"].lower()


def test_the_model_calls_research_and_the_record_is_found_at_the_body_rung(stack: Stack) -> None:
    result = setup_sentinel(
        stack.owui, stack.api.url, MODEL, stack.key, SENTINEL_OPENWEBUI__SEARCHER_URL=stack.searcher.url
    )
    assert "research tool 'sentinel_research' created" in result.output, result.output
    client = admin(stack.owui)
    valves = client.get("/api/v1/tools/id/sentinel_research/valves").json()
    assert valves == {**valves, "api_url": stack.searcher.url, "api_key": stack.key}
    info = client.get("/api/v1/models/model", params={"id": "sentinel"}).json()
    assert info["meta"]["toolIds"] == ["sentinel", "sentinel_research"]
    assert info["params"]["system"].rstrip().endswith(RESEARCH_PROMPT)

    seen = len(stack.backend.requests)
    _, message = chat(stack.owui, f"Research this on the web: {QUESTION}", tool_ids=("sentinel", "sentinel_research"))
    assert ANSWER in message["content"]
    turn = stack.backend.requests[seen:]
    assert "research" in {tool["function"]["name"] for tool in turn[0]["tools"]}
    (told,) = [m["content"] for m in turn[-1]["messages"] if m["role"] == "tool"]
    assert told.startswith("[OK → next] Research recorded in sources/"), told

    relpath = told.split("recorded in ", 1)[1].split(":", 1)[0]
    record = frontmatter.loads((stack.vault / relpath).read_text(encoding="utf-8"))
    assert record.metadata["type"] == "source-record" and recorded_passages(record.content)

    auth = {"Authorization": f"Bearer {stack.key}"}
    for rung, found in (("body", True), ("summary", False)):
        answer = httpx.post(
            f"{stack.api.url}/v1/tools/search",
            json={"query": "File recovery snapshot", "rung": rung},
            headers=auth,
            timeout=120,
        ).json()["text"]
        assert (relpath in answer) is found, (rung, answer)


def _search(stack: Stack, query: str, rung: str) -> str:
    auth = {"Authorization": f"Bearer {stack.key}"}
    answer = httpx.post(
        f"{stack.api.url}/v1/tools/search", json={"query": query, "rung": rung}, headers=auth, timeout=120
    )
    return str(answer.json()["text"])


# A real model on two shared cores: minutes alone, many times that on a busy machine.
@pytest.mark.timeout(2400)
def test_the_small_model_researches_when_asked_and_the_record_is_found_at_the_body_rung(stack: Stack) -> None:
    """Nothing scripted: the small Qwen behind the API's gateway gets the user's request for web research, the
    gateway's first-call constraint lets research through because the words name the web, and the model calls it
    (no retry: if it does not, this fails)."""
    setup_sentinel(
        stack.owui, stack.api.url, MODEL_ALIAS, stack.key, SENTINEL_OPENWEBUI__SEARCHER_URL=stack.searcher.url
    )
    sources = stack.vault / "sources"
    before = set(sources.glob("*.md")) if sources.is_dir() else set()
    _, message = chat(
        stack.owui,
        f"Research on the web: {ASKED}",
        timeout_s=2100,
        params=CHAT_PARAMS,
        tool_ids=("sentinel", "sentinel_research"),
    )
    created = set(sources.glob("*.md")) - before
    assert len(created) == 1, (created, message["content"])
    (new,) = created
    record = frontmatter.loads(new.read_text(encoding="utf-8"))
    assert record.metadata["type"] == "source-record" and recorded_passages(record.content), record.content
    relpath = new.relative_to(stack.vault).as_posix()
    assert relpath in _search(stack, "File recovery snapshots", "body")
    assert relpath not in _search(stack, "File recovery snapshots", "summary")
