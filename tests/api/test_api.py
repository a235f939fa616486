"""The tool API over real HTTP on loopback: scopes, statuses, capture, startup refusals, schema fuzzing."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from sentinel.cli import app as cli_app
from sentinel.keys import Scope, create_key, revoke_key
from sentinel.paths import keys_path
from sentinel.settings import Folders, Settings
from services.api.app import create_app
from services.common.auth import StartupRefused
from tests.support.servers import serve
from tests.support.vault import WriteVault

FILES = {
    "notes/Growth queue.md": "# Growth queue\nThe growth queue lists names that no page answers to.\n",
    "conversations/2026-01-01-1.md": "---\nchat_id: old\n---\n## user\nhello\n",
}


class Api:
    def __init__(self, url: str, settings: Settings, write_key: str, read_key: str) -> None:
        self.url, self.settings, self.write_key, self.read_key = url, settings, write_key, read_key

    def call(self, tool: str, key: str, **args: object) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.post(f"{self.url}/v1/tools/{tool}", json=args, headers=headers, timeout=30)


@pytest.fixture
def api(vault_settings: WriteVault) -> Iterator[Api]:
    settings = vault_settings(FILES)
    settings.sync_interval_s = 0.2
    _, write_key = create_key(keys_path(settings), Scope.WRITE, "test")
    _, read_key = create_key(keys_path(settings), Scope.READ, "test")
    with serve(create_app(settings)) as url:
        yield Api(url, settings, write_key, read_key)


def test_health_and_openapi(api: Api) -> None:
    health = httpx.get(f"{api.url}/health").json()
    assert health["status"] == "ok" and health["pages"] == 2
    paths = httpx.get(f"{api.url}/openapi.json").json()["paths"]
    assert {f"/v1/tools/{t}" for t in ("read", "search", "listing", "graph", "write", "relocate", "remove")} <= set(
        paths
    )
    assert "/v1/capture" in paths


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def test_openapi_names_the_folders_the_settings_name(vault_settings: WriteVault) -> None:
    """Folder names are settings: the routes' summaries say the configured ones, and no default name is left."""
    settings = vault_settings({"Notizen/A.md": "# A\n"})
    settings.folders = Folders(notes="Notizen", wiki="Begriffe", conversations="Gespräche", sources="Quellen")
    settings.local_only = True
    with serve(create_app(settings)) as url:
        schema = httpx.get(f"{url}/openapi.json").json()
    summaries = {
        path.rsplit("/", 1)[-1]: ops["post"]["summary"] for path, ops in schema["paths"].items() if "/tools/" in path
    }
    assert "Transcripts under Gespräche/ cannot be moved" in summaries["relocate"]
    assert "use Notizen/." in summaries["write"]
    defaults = re.compile(r"(?<![\w/.-])(notes|wiki|conversations|sources)/")
    assert [text for text in _strings(schema) if defaults.search(text)] == []


def test_keys_and_scopes(api: Api) -> None:
    assert api.call("listing", "").status_code == 401
    assert api.call("listing", "snt_wrong").status_code == 401
    assert api.call("listing", api.read_key).json()["text"].startswith("[OK] 2 pages")
    refused = api.call("write", api.read_key, path="notes/x.md", content="x")
    assert refused.status_code == 403 and "write-scoped" in refused.json()["detail"]
    assert not (api.settings.vault / "notes/x.md").exists()  # refused before anything ran
    capture = httpx.post(
        f"{api.url}/v1/capture",
        headers={"Authorization": f"Bearer {api.read_key}"},
        json={"chat_id": "c", "messages": [{"role": "user", "content": "x"}], "subject": "s"},
    )
    assert capture.status_code == 403
    ok = api.call("write", api.write_key, path="notes/x.md", content="x")
    assert ok.status_code == 200 and ok.json()["text"].startswith("[OK] created notes/x.md")


def test_statuses_travel_as_text(api: Api) -> None:
    stop = api.call("write", api.write_key, path="conversations/2026-01-01-1.md", content="x", mode="append")
    assert stop.json()["text"].startswith("[STOP]")
    retry = api.call("read", api.read_key, path="../etc/passwd.md")
    assert retry.json()["text"].startswith("[RETRY]")
    bad = api.call("read", api.read_key, path="notes/Growth queue.md", depth="everything")
    assert bad.status_code == 422


def test_edits_made_in_obsidian_reach_the_index(api: Api) -> None:
    (api.settings.vault / "notes/Made in Obsidian.md").write_text("typed by hand\n")
    for _ in range(50):
        text = api.call("listing", api.read_key, folder="notes").json()["text"]
        if "Made in Obsidian" in text:
            break
        httpx.get(f"{api.url}/health")
    assert "notes/Made in Obsidian.md" in text


def test_capture_through_http(api: Api) -> None:
    body = {
        "chat_id": "chat-1",
        "subject": "Growth queue",
        "content": "Kept from chat.",
        "messages": [
            {"role": "user", "content": "save this"},
            {"role": "assistant", "content": [{"type": "text", "text": "saved"}]},
        ],
    }
    response = httpx.post(f"{api.url}/v1/capture", json=body, headers={"Authorization": f"Bearer {api.write_key}"})
    assert response.json()["text"].startswith("[OK] appended to notes/Growth queue.md")
    note = (api.settings.vault / "notes/Growth queue.md").read_text()
    assert "Kept from chat." in note and "Record: [[" in note


def test_no_key_means_no_start_unless_local_only_on_loopback(vault_settings: WriteVault, tmp_path: Path) -> None:
    settings = vault_settings({})
    with pytest.raises(StartupRefused, match="sentinel keys create"):
        create_app(settings)
    settings.local_only, settings.api_host = True, "0.0.0.0"
    with pytest.raises(StartupRefused, match="only allowed on loopback"):
        create_app(settings)
    settings.api_host = "127.0.0.1"
    with serve(create_app(settings)) as url:
        assert httpx.post(f"{url}/v1/tools/listing", json={}).status_code == 200
        port = url.rpartition(":")[2]
        for host in (f"localhost:{port}", f"[::1]:{port}", "127.0.0.1"):
            assert httpx.post(f"{url}/v1/tools/listing", json={}, headers={"host": host}).status_code == 200


def test_local_only_serves_without_keys_even_when_the_key_file_has_some(vault_settings: WriteVault) -> None:
    """The setting is the person's word: keys made earlier must not turn it off silently (they did: 401)."""
    settings = vault_settings(FILES)
    create_key(keys_path(settings), Scope.WRITE, "made earlier")
    settings.local_only, settings.api_host = True, "127.0.0.1"
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("sentinel.api").addHandler(handler)
    try:
        with serve(create_app(settings)) as url:
            assert httpx.get(f"{url}/v1/search/access").json() == {"scope": "write"}
            found = httpx.post(f"{url}/v1/search", json={"query": "growth queue", "mode": "quick"})
            assert found.status_code == 200 and found.json()["hits"]
    finally:
        logging.getLogger("sentinel.api").removeHandler(handler)
    said = [r.getMessage() for r in records]
    assert any("local-only" in line and "1 configured key(s) are not asked for" in line for line in said), said
    settings.local_only = False  # and without the setting the same key file is asked for
    with serve(create_app(settings)) as url:
        assert httpx.post(f"{url}/v1/search", json={"query": "growth queue", "mode": "quick"}).status_code == 401


def test_local_only_refuses_a_request_addressed_to_another_name(vault_settings: WriteVault) -> None:
    """DNS rebinding: a page on evil.example that resolves its name to 127.0.0.1 reaches the port, but its
    requests still say ``Host: evil.example``; without keys, that is the only thing telling them apart."""
    settings = vault_settings(FILES)
    settings.local_only, settings.api_host = True, "127.0.0.1"
    with serve(create_app(settings)) as url:
        for route, body in (("/v1/tools/read", {"path": "notes/Growth queue.md"}), ("/v1/search", {"query": "x"})):
            refused = httpx.post(f"{url}{route}", json=body, headers={"host": "evil.example:8000"})
            assert refused.status_code == 403 and "127.0.0.1" in refused.json()["detail"], route
            assert "growth queue" not in refused.text.lower()


def test_every_response_carries_its_request_id(api: Api) -> None:
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("sentinel.api").addHandler(handler)
    try:
        response = httpx.get(f"{api.url}/openapi.json", headers={"x-request-id": "abc123"})
        assert response.headers["x-request-id"] == "abc123"
        assert len(httpx.get(f"{api.url}/openapi.json").headers["x-request-id"]) == 12
    finally:
        logging.getLogger("sentinel.api").removeHandler(handler)
    mine = [r for r in records if getattr(r, "request_id", "") == "abc123"]
    assert mine and mine[0].__dict__["path"] == "/openapi.json" and mine[0].__dict__["status"] == 200


def test_keys_created_or_revoked_take_effect_without_a_restart(api: Api) -> None:
    record, fresh = create_key(keys_path(api.settings), Scope.READ, "late")
    assert api.call("listing", fresh).status_code == 200
    assert revoke_key(keys_path(api.settings), record.id)
    assert api.call("listing", fresh).status_code == 401
    assert api.call("listing", api.read_key).status_code == 200


def test_a_broken_key_file_is_named_at_start_and_survived_mid_run(api: Api, vault_settings: WriteVault) -> None:
    path = keys_path(api.settings)
    good = path.read_text()
    path.write_text("{ half written")
    assert api.call("listing", api.read_key).status_code == 200  # the last good keys still hold
    with pytest.raises(StartupRefused, match="not a Sentinel key file"):
        create_app(api.settings)
    result = CliRunner().invoke(
        cli_app, ["keys", "list", "--vault", str(api.settings.vault), "--index", str(api.settings.index_path)]
    )
    assert result.exit_code == 2 and "not a Sentinel key file" in result.output
    path.write_text(good)


def test_the_first_tool_call_starts_the_nightly_schedule(api: Api) -> None:
    from sentinel.index.db import open_index
    from sentinel.maintain.schedule import schedule_started

    assert not schedule_started(open_index(api.settings))  # a new install: no unrequested pass
    assert api.call("listing", api.read_key).status_code == 200
    assert schedule_started(open_index(api.settings))
