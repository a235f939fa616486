"""The Compose stack end to end, on a real engine, from a plain `docker compose up` on a fresh clone (conftest.py):
every service healthy, the vault created and owned by the clone's owner (a non-root uid), every service running
as that user, a chat answer through Open WebUI, a page saved into the bind-mounted vault found through the API, a
maintenance pass run by the worker with the real small model, the tool registered in Open WebUI, the pass visible
in the worker's logs, no health-check line in any log, and `down` leaving the vault as it was. The tests run in
file order against one stack; the last one takes it down.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

from tests.support.compose_stack import Stack

# One stack for the whole module; a cold build, and the real model on a busy 2-core machine, take minutes.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

LONG_RUNNING = {"redis", "embedder", "api", "worker", "beat", "open-webui", "llm"}
# The services that write into the vault or the data folder; redis and llm write nothing and run as nobody.
AS_THE_VAULT_OWNER = LONG_RUNNING - {"redis", "llm"}
# The main process of a container: the child of its init (`init: true`), after the entrypoint dropped privileges.
MAIN_PROCESS_UID = "awk '/^Uid:/ {print $2}' /proc/$(cut -d' ' -f1 /proc/1/task/1/children)/status"
T = TypeVar("T")


def _eventually(what: str, probe: Callable[[], T | None], timeout: float, stack: Stack, every: float = 2.0) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s\n{stack.diagnosis()}")
        time.sleep(every)


def _vault_digest(vault: Path) -> dict[str, str]:
    return {
        str(path.relative_to(vault)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(vault.rglob("*"))
        if path.is_file() and ".sentinel" not in path.relative_to(vault).parts
    }


def test_every_service_is_healthy_and_setup_finished(stack: Stack) -> None:
    services = stack.services()
    assert set(services) >= LONG_RUNNING, f"missing services: {LONG_RUNNING - set(services)}"
    for name in LONG_RUNNING:
        row = services[name]
        assert (row["State"], row["Health"]) == ("running", "healthy"), f"{name}: {row}\n{stack.diagnosis()}"
    for one_shot in ("init", "openwebui-setup"):
        row = services[one_shot]
        assert (row["State"], row["ExitCode"]) == ("exited", 0), stack.logs(one_shot)
    assert len([n for n in services if n == "beat"]) == 1
    print(f"stack up and healthy in {stack.up_seconds:.0f} s")  # shown with -s; the bench measures properly


def test_the_warm_up_prefilled_the_chat_prefix_and_stays_idle(stack: Stack) -> None:
    """llm-warm ran beside Open WebUI's start (nothing waits for it) and filled llama.cpp's prompt cache with the
    shipped prefix: the data folder is fresh, so no chat has recorded one yet. Done, it sleeps (still running)."""

    def said() -> list[str] | None:
        lines = stack.logs("llm-warm").strip().splitlines()
        return lines if lines and "warm-up: " in lines[-1] else None

    lines = _eventually("the warm-up's line", said, timeout=900, stack=stack, every=5)
    assert "prompt tokens of the Sentinel chat's prefix (shipped" in lines[-1], lines
    assert stack.services()["llm-warm"]["State"] == "running", lines


def test_init_created_the_vault_owned_by_the_clones_owner_without_app_uid(stack: Stack) -> None:
    """Nothing set APP_UID: the vault folder Docker created for the bind mount was root's, so init gave it to the
    clone's owner, with the four folders and the welcome page."""
    assert stack.uid != 0
    assert (stack.vault.stat().st_uid, stack.vault.stat().st_gid) == (stack.uid, stack.gid)
    assert sorted(p.name for p in stack.vault.iterdir() if p.is_dir() and p.name != ".sentinel") == [
        "conversations",
        "notes",
        "sources",
        "wiki",
    ]
    welcome = stack.vault / "notes" / "Welcome to Sentinel.md"
    assert welcome.is_file() and welcome.stat().st_uid == stack.uid
    said = stack.logs("init")
    assert f"the stack runs as uid:gid {stack.uid}:{stack.gid}" in said, said
    assert "generated WEBUI_ADMIN_PASSWORD" in said and stack.admin_password not in said


def test_every_container_runs_as_the_vault_owner(stack: Stack) -> None:
    for name in AS_THE_VAULT_OWNER:
        ids = stack.compose("exec", "-T", name, "sh", "-c", MAIN_PROCESS_UID).stdout.strip()
        assert ids == str(stack.uid), f"{name} runs as uid {ids}, not the vault owner's {stack.uid}"
    for name in LONG_RUNNING - AS_THE_VAULT_OWNER:
        ids = stack.compose("exec", "-T", name, "id", "-u").stdout.strip()
        assert ids != "0", f"{name} runs as root"


def test_a_chat_answer_through_open_webui(stack: Stack) -> None:
    """A question to the chat model through Open WebUI's API, signed in with the password init generated."""
    signin = httpx.post(
        f"{stack.openwebui_url}/api/v1/auths/signin",
        json={"email": stack.admin_email, "password": stack.admin_password},
        timeout=30,
    )
    signin.raise_for_status()
    answer = httpx.post(
        f"{stack.openwebui_url}/api/chat/completions",
        headers={"authorization": f"Bearer {signin.json()['token']}"},
        json={
            "model": "qwen2.5-coder-0.5b-instruct",
            "messages": [{"role": "user", "content": "Name one colour of the rainbow. One word."}],
            "stream": False,
            "max_tokens": 16,
        },
        timeout=300,
    )
    assert answer.status_code == 200, answer.text
    text = answer.json()["choices"][0]["message"]["content"]
    assert text.strip(), answer.json()


def test_tool_is_registered_in_openwebui(stack: Stack) -> None:
    signin = httpx.post(
        f"{stack.openwebui_url}/api/v1/auths/signin",
        json={"email": stack.admin_email, "password": stack.admin_password},
        timeout=30,
    )
    signin.raise_for_status()
    headers = {"authorization": f"Bearer {signin.json()['token']}"}
    tools = httpx.get(f"{stack.openwebui_url}/api/v1/tools/", headers=headers, timeout=30)
    tools.raise_for_status()
    ids = {tool["id"] for tool in tools.json()}
    assert "sentinel" in ids, f"tools in Open WebUI: {sorted(ids)}"


def test_maintenance_pass_through_the_worker_writes_a_summary(stack: Stack) -> None:
    probe = "notes/Solar tower.md"
    stack.write_page(
        probe,
        "# Solar tower\n\nA solar tower is a power plant in which a field of heliostats concentrates sunlight on a "
        "receiver at the top of a tower; the heat drives a steam turbine.\n",
    )
    task_id = stack.trigger_maintenance()
    stack.notes["task_id"] = task_id

    def summary() -> str | None:
        with sqlite3.connect(f"file:{stack.data / 'index.db'}?mode=ro", uri=True) as db:
            row = db.execute("SELECT status, summary FROM analysis WHERE path = ?", (probe,)).fetchone()
        return row[1] if row and row[0] == "ok" and row[1].strip() else None

    text = _eventually(f"a summary of {probe} from the real model", summary, timeout=600, stack=stack, every=5)
    assert len(text.split()) >= 3, text


def test_worker_logs_tell_what_the_pass_did(stack: Stack) -> None:
    task_id = stack.notes.get("task_id")
    assert task_id, "the maintenance test did not run first"

    def finished_line() -> str | None:
        lines = [line for line in stack.logs("worker", tail=5000).splitlines() if task_id in line]
        return next((line for line in lines if '"finished"' in line), None)

    line = _eventually(f"a 'finished' log line of task {task_id}", finished_line, timeout=300, stack=stack)
    event = json.loads(line[line.index("{") :])
    assert event["request_id"] == task_id, event
    assert event["report"]["analysed"] >= 1, event


def test_page_saved_in_the_vault_is_found_through_the_api(stack: Stack) -> None:
    stack.write_page(
        "notes/Quokka census.md",
        "# Quokka census\n\nThe zorbulant quokka census counts the small marsupials on Rottnest Island each spring.\n",
    )
    # The API re-syncs the vault on its own (SENTINEL_SYNC_INTERVAL_S); nothing is triggered here.

    def found() -> str | None:
        text = stack.tool("search", query="zorbulant quokka census", rung="body")
        return text if "Quokka census" in text else None

    text = _eventually("the new page in search results", found, timeout=120, stack=stack)
    assert "[OK" in text or "[more]" in text, text


def test_write_through_the_api_lands_in_the_vault_as_the_host_user(stack: Stack) -> None:
    text = stack.tool("write", path="notes/Written by the stack.md", content="Written through the tool API.\n")
    assert text.startswith("[OK"), text
    written = stack.vault / "notes" / "Written by the stack.md"
    assert written.read_text().strip().endswith("Written through the tool API.")
    assert (written.stat().st_uid, written.stat().st_gid) == (stack.uid, stack.gid)


def test_nothing_in_the_vault_or_data_folder_is_root_owned(stack: Stack) -> None:
    foreign = [
        f"{path} (uid {path.lstat().st_uid})"
        for root in (stack.vault, stack.data)
        for path in [root, *root.rglob("*")]
        if path.lstat().st_uid != stack.uid
    ]
    assert not foreign, "written by a container as someone else than the host user:\n" + "\n".join(foreign)


def test_no_service_logs_its_health_checks(stack: Stack) -> None:
    """Every service has been health-checked every few seconds since it started: not one line of it in the logs."""
    health = [line for line in stack.logs(tail=5000).splitlines() if "/health" in line or "GET /api/version" in line]
    assert not health, "\n".join(health[:10])


def test_down_leaves_the_vault_intact(stack: Stack) -> None:
    before = _vault_digest(stack.vault)
    assert "notes/Heliostat.md" in before and "notes/Written by the stack.md" in before
    stack.compose("down", "-t", "10")
    assert stack.services() == {}, "containers left behind after down"
    assert _vault_digest(stack.vault) == before
    assert (stack.data / "index.db").is_file(), "the index went with the containers"
