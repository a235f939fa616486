"""`sentinel openwebui warm` when it cannot warm: one line that says why, and exit 0 (make up must never fail on
it). Real loopback endpoints: a port nothing listens on, a server that refuses the key."""

from __future__ import annotations

import time
from pathlib import Path

from typer.testing import CliRunner

from sentinel import prompts
from sentinel.cli import app
from tests.support.http_stub import HttpStub
from tests.support.servers import free_port

REPO = Path(__file__).resolve().parents[2]


def _warm(tmp_path: Path, *args: str, **env: str) -> tuple[int, list[str]]:
    settings = {
        "SENTINEL_INDEX_PATH": str(tmp_path / "index.db"),
        "SENTINEL_OPENWEBUI__SYSTEM_PROMPT_FILE": str(prompts.SYSTEM_PROMPT),
        "SENTINEL_OPENWEBUI__CHAT_PREFIX_FILE": str(REPO / "tool" / "chat_prefix.json"),
        "SENTINEL_OPENWEBUI__WARM_KEY": "the-key",
        **env,
    }
    result = CliRunner().invoke(app, ["openwebui", "warm", *args], env=settings)
    return result.exit_code, result.output.splitlines()


def test_a_model_server_that_does_not_answer_is_one_line_and_exit_0(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    started = time.monotonic()
    code, lines = _warm(tmp_path, "--url", url, "--timeout", "3")
    assert code == 0 and len(lines) == 1, lines
    assert lines[0].startswith(f"warm-up skipped: {url} did not answer within 3 s (ConnectError"), lines
    assert lines[0].endswith("the first chat prefills the prefix itself")
    assert 3 <= time.monotonic() - started < 30  # it kept asking until the deadline (the server may be starting)


def test_a_refused_key_is_named_at_once_with_the_setting_to_fix(tmp_path: Path) -> None:
    with HttpStub(lambda _: (401, {"detail": "invalid API key"})) as stub:
        code, lines = _warm(tmp_path, "--url", f"{stub.url}/v1", "--timeout", "60")
    assert code == 0 and len(lines) == 1, lines
    assert "answered 401" in lines[0] and "SENTINEL_OPENWEBUI__WARM_KEY" in lines[0], lines
    (request,) = stub.requests  # no retries: a wrong key does not fix itself
    assert request.path == "/v1/chat/completions" and request.headers["authorization"] == "Bearer the-key"
    assert request.headers["x-sentinel-background"] == "true"  # a pass must not take it for a chat
    assert request.body["max_tokens"] == 1 and request.body["messages"][-1] == {"role": "user", "content": "hi"}


def test_off_and_no_endpoint_are_said_and_send_nothing(tmp_path: Path) -> None:
    with HttpStub(lambda _: (200, {})) as stub:
        off = _warm(tmp_path, "--url", f"{stub.url}/v1", SENTINEL_OPENWEBUI__WARM="0")
        unset = _warm(tmp_path, SENTINEL_OPENWEBUI__WARM_URL="")
    assert off == (0, ["warm-up off (SENTINEL_OPENWEBUI__WARM=false; in the stack STACK_WARM=0)"])
    assert unset[0] == 0 and unset[1] == [
        "warm-up skipped: no endpoint to warm; set SENTINEL_OPENWEBUI__WARM_URL to Open WebUI's connection"
    ]
    assert stub.requests == []
