"""Issue 31, defects 5 and 6: permission errors and unreadable folders, for real. Root reads through any chmod,
so the tools and the sync run in a child process as ``nobody`` (or as this user when the tests are not root)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.settings import Settings

NOBODY = 65534

CALLS = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from sentinel.settings import Settings
    from sentinel.index.sync import sync
    from sentinel.index.db import open_index
    from sentinel.tools.context import Origin, ToolContext
    from sentinel.tools.registry import run_tool
    vault, index, calls = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
    settings = Settings(vault=vault, index_path=index, _env_file=None)
    ctx = ToolContext(settings=settings, origin=Origin.USER)
    out = []
    for name, args in calls:
        if name == "sync":
            out.append(sync(settings, ctx.writer()).as_dict())
        else:
            result = run_tool(ctx, name, args)
            out.append([result.status.value, result.text])
    print(json.dumps(out))
    """
)


@dataclass
class Locked:
    settings: Settings

    @property
    def vault(self) -> Path:
        return self.settings.vault

    def run(self, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
        """Run tool calls (or ("sync", {})) as the unprivileged user; their status and text, or sync reports."""
        drop: dict[str, Any] = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if os.geteuid() == 0 else {}
        done = subprocess.run(
            [sys.executable, "-c", CALLS, str(self.vault), str(self.settings.index_path), json.dumps(calls)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            **drop,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        result: list[Any] = json.loads(done.stdout.splitlines()[-1])
        return result


@pytest.fixture
def locked() -> Iterator[Locked]:
    """A vault and index the unprivileged user owns, in a folder every user can reach (pytest's is root's)."""
    root = Path(tempfile.mkdtemp(prefix="sentinel-perm-", dir="/tmp"))
    root.chmod(0o755)
    vault = root / "vault"
    for rel, text in {
        "notes/Page.md": "a page [[Kept]]\n",
        "notes/Locked.md": "nobody may read this\n",
        "frozen/Still.md": "in a read-only folder\n",
        "hidden/Kept.md": "in a folder that will be unreadable\n",
        "hidden/Also.md": "also kept\n",
    }.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    settings = Settings(vault=vault, index_path=root / "index" / "index.db", _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    db.close()
    if os.geteuid() == 0:
        for path in [root / "index", vault, *root.joinpath("index").rglob("*"), *vault.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
    try:
        yield Locked(settings)
    finally:
        for path in [vault, *vault.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(root, ignore_errors=True)


def test_permission_errors_are_specific_stops_naming_the_path_and_the_fix(locked: Locked) -> None:
    vault = locked.vault
    (vault / "notes/Locked.md").chmod(0o000)
    (vault / "frozen").chmod(0o555)
    (vault / "hidden").chmod(0o000)
    answers = locked.run(
        ("read", {"path": "notes/Locked.md"}),
        ("read", {"path": "notes/Locked.md", "depth": "page"}),
        ("write", {"path": "notes/Locked.md", "content": "more", "mode": "append"}),
        ("write", {"path": "notes/Locked.md", "content": "over it"}),
        ("remove", {"path": "frozen/Still.md"}),
        ("write", {"path": "hidden/New.md", "content": "into an unreadable folder"}),
        ("write", {"path": "frozen/New.md", "content": "into a read-only folder"}),
    )
    expected = ["notes/Locked.md"] * 4 + ["frozen/Still.md", "hidden/New.md", "frozen/New.md"]
    for (status, text), path in zip(answers, expected, strict=True):
        assert status == "[STOP]", text
        assert "permission denied" in text and f"'{path}'" in text and "chmod" in text, text
    (vault / "hidden").chmod(0o755)
    (vault / "frozen").chmod(0o755)
    (vault / "notes/Locked.md").chmod(0o644)
    assert (vault / "notes/Locked.md").read_text() == "nobody may read this\n"
    assert (vault / "frozen/Still.md").exists() and not (vault / "hidden/New.md").exists()


def test_relocate_says_permission_denied_not_must_be_a_folder(locked: Locked) -> None:
    (locked.vault / "frozen").chmod(0o555)
    [(status, text)] = locked.run(("relocate", {"source": "frozen/Still.md", "destination": "notes/Still.md"}))
    assert status == "[STOP]" and "permission denied" in text and "must be a folder" not in text, text
    assert (locked.vault / "frozen/Still.md").exists()


def test_an_unreadable_folder_is_a_problem_and_its_pages_stay_as_stale(locked: Locked) -> None:
    (locked.vault / "hidden").chmod(0o000)
    [report, (status, text)] = locked.run(("sync", {}), ("listing", {"folder": "hidden"}))
    assert status == "[OK]" and report["removed"] == 0 and not report["refused"]
    problems = {p["path"]: p["problem"] for p in report["problems"]}
    assert "hidden" in problems and "cannot be read" in problems["hidden"], report
    assert "hidden/Kept.md" in text and "hidden/Also.md" in text, text  # still in the index
    db = open_index(locked.settings, readonly=True)
    stale = dict(db.execute("SELECT path, problem FROM pages WHERE path LIKE 'hidden/%'").fetchall())
    assert set(stale) == {"hidden/Kept.md", "hidden/Also.md"} and all(p.startswith("stale") for p in stale.values())
    resolved = db.execute("SELECT resolved FROM links WHERE source = 'notes/Page.md'").fetchone()[0]
    assert resolved == "hidden/Kept.md"  # links to its pages still resolve
    (locked.vault / "hidden").chmod(0o755)
    [again] = locked.run(("sync", {}))
    assert again["problems"] == [] and again["updated"] == 2
    assert db.execute("SELECT COUNT(*) FROM pages WHERE problem IS NOT NULL").fetchone()[0] == 0


def test_a_folder_listed_but_not_searchable_keeps_its_pages_too(locked: Locked) -> None:
    (locked.vault / "hidden").chmod(0o444)  # names can be listed, files cannot be reached
    [report] = locked.run(("sync", {}))
    assert report["removed"] == 0, report
    problems = {p["path"]: p["problem"] for p in report["problems"]}
    assert set(problems) == {"hidden/Kept.md", "hidden/Also.md"} and "kept" in problems["hidden/Kept.md"], report
    db = open_index(locked.settings, readonly=True)
    assert db.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'hidden/%'").fetchone()[0] == 2
