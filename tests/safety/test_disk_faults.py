"""Issue 31, defects 3 and 4: a full disk under the index (a real 2 MB tmpfs), and an editor appending beside
the API. A vault change that happened is answered [OK] with a note, never an error a client would retry; reads
need no write; no appended line is lost."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sentinel.index.consistency import differences
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.keys import Scope, create_key
from sentinel.paths import keys_path
from sentinel.settings import Settings
from sentinel.tools.context import Origin, ToolContext
from sentinel.tools.faults import refused
from sentinel.tools.policy import Status
from sentinel.tools.registry import run_tool
from services.api.app import create_app
from tests.support.servers import serve


@pytest.fixture
def index_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs for the index alone: a real file system that really fills up (needs root and mount)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def _vault(tmp_path: Path, index: Path) -> Settings:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes/Page.md").write_text("keep me\n")
    (vault / "notes/Other.md").write_text("links to [[Page]]\n")
    settings = Settings(vault=vault, index_path=index, sync_interval_s=0, _env_file=None)
    sync(settings, open_index(settings))
    return settings


def test_a_full_index_disk_never_turns_a_done_write_into_an_error(index_disk: Path, tmp_path: Path) -> None:
    settings = _vault(tmp_path, index_disk / "index.db")
    ctx = ToolContext(settings=settings, origin=Origin.USER)
    ctx.writer()
    filler = _fill(index_disk)
    vault = settings.vault
    calls = [
        ("write", {"path": "notes/New.md", "content": "fresh " * 3000}),
        ("write", {"path": "notes/Page.md", "content": "appended once " * 3000, "mode": "append"}),
        ("relocate", {"source": "notes/New.md", "destination": "notes/Moved.md"}),
    ]
    for name, args in calls:
        output = run_tool(ctx, name, args)
        assert output.status is Status.OK, output.text
        assert "index will catch up" in output.text, output.text
    assert run_tool(ctx, "remove", {"path": "notes/Moved.md"}).status is Status.OK  # a delete may fit; never an error
    assert (vault / "notes/Page.md").read_text().count("appended once") == 3000  # once: nothing to retry
    assert not (vault / "notes/New.md").exists() and not (vault / "notes/Moved.md").exists()
    for name, args in [("read", {"path": "notes/Page.md"}), ("search", {"query": "keep"}), ("listing", {})]:
        assert run_tool(ctx, name, args).status in (Status.OK, Status.NEXT, Status.DONE, Status.MORE)
    filler.unlink()
    sync(settings, ctx.writer())  # the index catches up
    assert not differences(settings, ctx.writer())


def test_through_the_api_a_full_index_disk_is_never_a_500(index_disk: Path, tmp_path: Path) -> None:
    settings = _vault(tmp_path, index_disk / "index.db")
    settings.api_keys_file = tmp_path / "keys.json"
    _, key = create_key(keys_path(settings), Scope.WRITE, "test")
    headers = {"Authorization": f"Bearer {key}"}
    with serve(create_app(settings)) as url:
        filler = _fill(index_disk)
        for name, body in [
            ("read", {"path": "notes/Page.md"}),  # the first call records the first chat: a write
            ("search", {"query": "keep"}),
            ("write", {"path": "notes/Page.md", "content": "one more line", "mode": "append"}),
        ]:
            answer = httpx.post(f"{url}/v1/tools/{name}", json=body, headers=headers, timeout=60)
            assert answer.status_code == 200, answer.text
            assert "[RETRY]" not in answer.json()["text"] and "[STOP]" not in answer.json()["text"]
        filler.unlink()
    assert (settings.vault / "notes/Page.md").read_text().count("one more line") == 1


def test_the_cli_sync_on_a_full_index_disk_says_so_in_one_line(index_disk: Path, tmp_path: Path) -> None:
    settings = _vault(tmp_path, index_disk / "index.db")
    for i in range(200):
        (settings.vault / f"notes/big{i}.md").write_text(" ".join(f"w{i}x{j}" for j in range(2000)) + "\n")
    filler = _fill(index_disk)
    where = ["--vault", str(settings.vault), "--index", str(settings.index_path)]
    done = subprocess.run(
        [sys.executable, "-m", "sentinel.cli", "index", "sync", *where],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "300"},
    )
    filler.unlink()
    assert done.returncode == 1, done.stdout + done.stderr  # the index is unavailable (sentinel.cli.common.said)
    assert "Traceback" not in done.stderr and "free space" in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 3, done.stderr


EDITOR = textwrap.dedent(
    """
    import os, sys, time
    path, count = sys.argv[1], int(sys.argv[2])
    print("ready", flush=True)
    for n in range(count):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # as an editor or `echo >>` appends: in place
        os.write(fd, f"editor line {n}\\n".encode())
        os.close(fd)
        time.sleep(0.002)
    """
)


@pytest.mark.timeout(300)
def test_appends_beside_an_editor_appending_in_place_lose_no_line(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    page = vault / "notes/Log.md"
    page.write_text("# Log\n")
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    sync(settings, open_index(settings))
    ctx = ToolContext(settings=settings, origin=Origin.MODEL)
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(page), "300"], stdout=subprocess.PIPE, text=True)
    assert editor.stdout is not None and editor.stdout.readline() == "ready\n"
    failures: list[str] = []

    def api_appends(worker: int) -> None:
        for n in range(8):
            args = {"path": "notes/Log.md", "content": f"api {worker} line {n}", "mode": "append"}
            out = run_tool(ctx, "write", args)
            if out.status is not Status.OK:
                failures.append(out.text)

    threads = [threading.Thread(target=api_appends, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert editor.wait(timeout=120) == 0
    lines = page.read_text().splitlines()
    assert not failures, failures
    missing_editor = [n for n in range(300) if f"editor line {n}" not in lines]
    missing_api = [(w, n) for w in range(8) for n in range(8) if f"api {w} line {n}" not in lines]
    assert not missing_editor and not missing_api, (missing_editor, missing_api)
    assert len(lines) == 1 + 300 + 64  # nothing doubled, nothing glued together


def test_a_read_only_vault_mount_is_a_stop_naming_the_fix(index_disk: Path, tmp_path: Path) -> None:
    vault = index_disk / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes/Page.md").write_text("keep me\n")
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    sync(settings, open_index(settings))
    remounted = subprocess.run(["mount", "-o", "remount,ro", str(index_disk)], capture_output=True)
    if remounted.returncode != 0:
        pytest.skip(f"cannot remount read-only: {remounted.stderr.decode().strip()}")
    ctx = ToolContext(settings=settings, origin=Origin.USER)
    for name, args, path in [
        ("write", {"path": "notes/Page.md", "content": "more", "mode": "append"}, "notes/Page.md"),
        ("write", {"path": "notes/New.md", "content": "new"}, "notes/New.md"),
        ("remove", {"path": "notes/Page.md"}, "notes/Page.md"),
        ("relocate", {"source": "notes/Page.md", "destination": "notes/Moved.md"}, "notes/Moved.md"),
    ]:
        output = run_tool(ctx, name, args)
        assert output.status is Status.STOP, output.text
        assert "read-only file system" in output.text and f"'{path}'" in output.text and "read-write" in output.text
    assert (vault / "notes/Page.md").read_text() == "keep me\n"


@pytest.mark.parametrize(
    ("code", "status", "words"),
    [
        (errno.EACCES, Status.STOP, "chmod"),
        (errno.EPERM, Status.STOP, "chmod"),
        (errno.EROFS, Status.STOP, "read-write"),
        (errno.ENOSPC, Status.RETRY, "Free some space"),
        (errno.ENAMETOOLONG, Status.RETRY, "Shorten it"),
        (errno.ELOOP, Status.RETRY, "Fix or delete the link"),
        (errno.EIO, Status.RETRY, "Input/output error"),
    ],
)
def test_each_os_error_names_the_vault_path_and_its_fix(tmp_path: Path, code: int, status: Status, words: str) -> None:
    err = OSError(code, os.strerror(code), str(tmp_path / "notes/Page.md"))
    result = refused(err, tmp_path, "write")
    assert result.status is status and words in result.body and "'notes/Page.md'" in result.body, result.body
