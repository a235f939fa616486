"""Fault injection with real processes and a real full disk: kill -9 in the middle of page writes, ENOSPC during
a write and during a sync. After each: no half-written page, the index equals a rebuild, the next try works."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sentinel.embed.base import EmbedderUnavailable
from sentinel.embed.http import HttpEmbedder
from sentinel.index.consistency import differences
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending
from sentinel.search.embedding import summary_passages
from sentinel.settings import Settings
from sentinel.tools.capture import capture
from sentinel.tools.context import Origin, ToolContext
from sentinel.tools.policy import Status
from sentinel.tools.relocate import relocate
from sentinel.tools.write import write
from tests.support.embedder import E5_DIR, embedder_service

OLD = "# Concept\n" + "old definition sentence. " * 40_000 + "\n"  # ~1 MB: the write takes a while
NEW = "# Concept\n" + "new definition sentence. " * 40_000 + "\n"

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sentinel.maintain.aliases import add_alias
    from sentinel.vault.write import atomic_write
    page, note = Path(sys.argv[1]), Path(sys.argv[2])
    old, new = Path(sys.argv[3]).read_text(), Path(sys.argv[4]).read_text()
    print("ready", flush=True)
    n = 0
    while True:
        atomic_write(page, new if n % 2 else old)
        add_alias(note, f"alias {n}")
        n += 1
    """
)


def test_kill_9_mid_write_never_leaves_half_a_page(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "wiki").mkdir(parents=True)
    (vault / "notes").mkdir()
    page, note = vault / "wiki/Concept.md", vault / "notes/Note.md"
    page.write_text(OLD)
    note.write_text("---\naliases: [first]\n---\nbody\n")
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    (tmp_path / "old").write_text(OLD)
    (tmp_path / "new").write_text(NEW)
    for delay in (0.05, 0.13, 0.29, 0.41, 0.77):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(page), str(note), str(tmp_path / "old"), str(tmp_path / "new")],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert page.read_text() in (OLD, NEW)  # one version or the other, never a mixture or a prefix
        head = note.read_text()
        assert head.startswith("---\naliases:") and head.endswith("---\nbody\n")
        assert not differences(settings, db)
    leftovers = [p.name for p in vault.rglob(".sentinel-*.tmp")]
    # a killed writer leaves its temp file behind; it is hidden, so never indexed or shown
    assert db.execute("SELECT COUNT(*) FROM pages WHERE path LIKE '%.tmp'").fetchone()[0] == 0
    assert all(name.startswith(".sentinel-") for name in leftovers)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs: a real file system that really fills up (needs root and mount)."""
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
    """Fill ``disk`` to the last block; returns the filler file (delete it to free the space)."""
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


def test_a_full_disk_refuses_the_write_and_keeps_the_page(small_disk: Path, tmp_path: Path) -> None:
    vault = small_disk / "vault"
    (vault / "notes").mkdir(parents=True)
    page = vault / "notes/Page.md"
    page.write_text("keep me\n")
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    sync(settings, open_index(settings))
    filler = _fill(small_disk)
    os.truncate(filler, filler.stat().st_size - 8192)  # leave only a few KB free
    ctx = ToolContext(settings=settings, origin=Origin.USER)
    result = write(ctx, "notes/Page.md", "x" * 100_000, mode="append")
    assert result.status is Status.RETRY and "no space" in result.body.lower() and "notes/Page.md" in result.body
    assert page.read_text() == "keep me\n"
    assert not list(vault.rglob(".sentinel-*.tmp"))  # the failed temp file is cleaned up
    created = write(ctx, "notes/New.md", "y" * 100_000)
    assert created.status is Status.RETRY and not (vault / "notes/New.md").exists()
    filler.unlink()
    assert write(ctx, "notes/Page.md", "now it fits", mode="append").status is Status.OK
    assert not differences(settings, ctx.writer())


def test_a_full_disk_during_sync_keeps_the_old_index(small_disk: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    for i in range(5):
        (vault / f"notes/p{i}.md").write_text(f"page {i} " * 50 + "\n")
    settings = Settings(vault=vault, index_path=small_disk / "index.db", _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    for i in range(300):
        (vault / f"notes/big{i}.md").write_text(" ".join(f"word{i}x{j}" for j in range(2000)) + "\n")
    filler = _fill(small_disk)
    with pytest.raises(Exception, match="full"):
        sync(settings, db)
    assert db.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 5  # the transaction rolled back whole
    filler.unlink()
    for i in range(300):
        (vault / f"notes/big{i}.md").unlink()
    assert not differences(settings, db)


def test_a_full_disk_during_relocate_and_capture_says_what_is_left(small_disk: Path, tmp_path: Path) -> None:
    vault = small_disk / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes/Target.md").write_text("target\n")
    for name in ("A", "B"):
        (vault / f"notes/{name}.md").write_text(f"{name} links [[Target]]\n")
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    sync(settings, open_index(settings))
    ctx = ToolContext(settings=settings)
    filler = _fill(small_disk)
    moved = relocate(ctx, "notes/Target.md", "notes/Moved.md")  # the rename needs no space; the rewrites do
    assert moved.status is Status.RETRY and "could not rewrite the links in 'notes/A.md'" in moved.body
    assert (vault / "notes/A.md").read_text() == "A links [[Target]]\n"  # untouched, not half-written
    saved = capture(ctx, "chat", [{"role": "user", "content": "hello " * 2000}], "Kept", "keep this")
    assert saved.status is Status.RETRY and "No space left" in saved.body
    assert not (vault / "notes/Kept.md").exists()
    filler.unlink()
    assert not differences(settings, ctx.writer())


@pytest.mark.timeout(600)
def test_stopping_the_embedder_mid_embed_keeps_finished_batches_and_the_next_run_finishes(tmp_path: Path) -> None:
    if not (E5_DIR / "model.onnx").exists() and not list(E5_DIR.glob("**/*.onnx")):
        pytest.skip(f"the e5 ONNX model is not built at {E5_DIR}")
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    for i in range(40):
        (vault / f"notes/p{i}.md").write_text(
            "\n\n".join(f"## Part {j}\nparagraph {i}.{j} about topic {i * j}" for j in range(4)) + "\n"
        )
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    chunks = db.execute("SELECT COUNT(*) FROM (SELECT DISTINCT text_hash, trail FROM chunks)").fetchone()[0]
    with embedder_service(E5_DIR, tmp_path / "embedder.log", batch=8) as service:
        embedder = HttpEmbedder(service.url, batch=8, timeout_s=30)

        def stop_after_first_batch(done: int, total: int) -> None:
            if done > 0:
                os.kill(service.pid, signal.SIGKILL)

        with pytest.raises(EmbedderUnavailable):
            embed_pending(db, embedder, progress=stop_after_first_batch)
    passages = chunks + len(summary_passages(db))
    kept = db.execute(
        "SELECT (SELECT COUNT(*) FROM chunk_vectors) + (SELECT COUNT(*) FROM summary_vectors)"
    ).fetchone()[0]
    assert 0 < kept < passages  # the finished batches (summaries go first) were committed, the rest not half-stored
    with embedder_service(E5_DIR, tmp_path / "embedder.log", batch=8) as service:
        embed_pending(db, HttpEmbedder(service.url, batch=8))
    assert db.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0] == chunks
    orphans = (
        "SELECT COUNT(*) FROM chunk_vectors v WHERE NOT EXISTS "
        "(SELECT 1 FROM chunks c WHERE c.text_hash = v.text_hash AND c.trail = v.trail)"
    )
    assert db.execute(orphans).fetchone()[0] == 0
