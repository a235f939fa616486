"""Issue 31, defect 8: what a killed process leaves (temporary files, parse workers), names with line breaks, and
an index file deleted under a running process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sentinel.index.consistency import differences
from sentinel.index.db import open_index
from sentinel.index.sync import LEFTOVER_AGE_S, PARALLEL_FROM, sync
from sentinel.settings import Settings
from sentinel.tools.context import Origin, ToolContext
from sentinel.tools.listing import listing
from sentinel.tools.policy import Status
from sentinel.tools.read import read
from sentinel.tools.write import write
from tests.support.tool_context import MakeContext


def test_temporary_files_of_killed_writes_are_cleaned_at_the_next_sync(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "a\n"})
    vault = ctx.settings.vault
    old, fresh = vault / "notes/.sentinel-abc123.tmp", vault / "notes/.sentinel-def456.tmp"
    old.write_text("half a page")
    fresh.write_text("a write still running")
    past = time.time() - LEFTOVER_AGE_S - 5
    os.utime(old, (past, past))
    sync(ctx.settings, ctx.writer())
    assert not old.exists()  # left by a killed write
    assert fresh.exists()  # may belong to a write in progress: kept
    assert (vault / "notes/a.md").read_text() == "a\n"


SYNC = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from sentinel.settings import Settings
    from sentinel.index.db import open_index
    from sentinel.index.sync import sync
    settings = Settings(vault=Path(sys.argv[1]), index_path=Path(sys.argv[2]), _env_file=None)
    print(os.getpid(), flush=True)
    sync(settings, open_index(settings))
    """
)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2, reason="needs Linux, 2 cores")
@pytest.mark.timeout(300)
def test_parse_workers_die_with_a_killed_sync_and_a_rerun_recovers(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    body = " ".join(f"word{j}" for j in range(800))
    for i in range(PARALLEL_FROM + 100):
        (vault / f"notes/p{i}.md").write_text(f"# Page {i}\n{body}\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", SYNC, str(vault), str(tmp_path / "index.db")],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert proc.stdout is not None
    parent = int(proc.stdout.readline())
    deadline = time.monotonic() + 120
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 2:  # the pool's workers (and its resource tracker)
        workers = [pid for pid in _children(parent) if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]
        time.sleep(0.05)
    assert workers, "the sync never started its parse workers"
    time.sleep(0.5)  # mid-parse
    os.kill(parent, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.1)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"parse workers {left} outlived their killed parent"
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    db = open_index(settings)  # the killed sync's transaction never committed: a plain rerun recovers
    assert db.execute("SELECT COUNT(*) FROM pages").fetchone()[0] in (0, PARALLEL_FROM + 100)
    sync(settings, db)
    assert not differences(settings, db)


def test_listing_shows_a_name_with_a_line_break_as_one_quoted_path(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/plain.md": "p\n", "notes/two\nlines.md": "q\n"})
    result = listing(ctx, folder="notes")
    lines = result.body.splitlines()
    assert lines[0].startswith("2 pages") and len(lines) == 3, result.body
    assert '"notes/two\\nlines.md"' in lines and "notes/plain.md" in lines
    assert read(ctx, "notes/two\nlines.md").status is Status.NEXT  # the quoted form is the path, as JSON says


def test_a_deleted_index_file_is_noticed_and_the_file_there_now_used(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes/a.md").write_text("alpha\n")
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    sync(settings, open_index(settings))
    ctx = ToolContext(settings=settings, origin=Origin.USER)
    assert "notes/a.md" in listing(ctx).body
    for suffix in ("", "-wal", "-shm"):
        Path(f"{settings.index_path}{suffix}").unlink(missing_ok=True)
    cli = open_index(settings)  # what `sentinel index sync` does next: a new file, filled from the vault
    (vault / "notes/b.md").write_text("beta\n")
    sync(settings, cli)
    assert "notes/b.md" in listing(ctx).body  # the running process reads the new file, not the deleted one
    assert write(ctx, "notes/c.md", "gamma").status is Status.OK
    assert cli.execute("SELECT COUNT(*) FROM pages WHERE path = 'notes/c.md'").fetchone()[0] == 1
