"""Issue 31, defects 1, 2 and 7: a YAML alias bomb, FIFOs and sockets named *.md, and role folders spelt as a
case-insensitive file system would take them. Each test hangs, blows up or lets the write through without the fix."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.index.watch import freshen
from sentinel.keys import Scope, create_key
from sentinel.paths import Role, folder_key, keys_path, role_of
from sentinel.tools.context import Origin
from sentinel.tools.policy import Status
from sentinel.tools.read import read
from sentinel.tools.relocate import relocate
from sentinel.tools.remove import remove
from sentinel.tools.write import write
from sentinel.vault.parse import parse_page
from services.api.app import create_app
from tests.support.servers import serve
from tests.support.tool_context import MakeContext


def _bomb(levels: int = 9, fan: int = 9) -> str:
    """The issue's page: nine anchors, each a list of nine aliases to the one before (9^9 values expanded)."""
    lines = ["---", "a0: &a0 [lol]"]
    lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * fan)}]" for i in range(1, levels + 1)]
    return "\n".join([*lines, "---", "The body still counts: lollipop.", ""])


BOMB = _bomb()

SYNC_UNDER_A_CAP = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB: the bomb took 1.7 GB in 25 s
    from sentinel.settings import Settings
    from sentinel.index.db import open_index
    from sentinel.index.sync import sync
    settings = Settings(vault=Path(sys.argv[1]), index_path=Path(sys.argv[2]), _env_file=None)
    print(json.dumps(sync(settings, open_index(settings)).as_dict()))
    """
)


@pytest.mark.timeout(30)
def test_a_yaml_alias_bomb_is_refused_with_its_reason_not_expanded() -> None:
    parsed = parse_page("notes/bomb.md", BOMB)
    assert parsed.frontmatter == {}
    assert len(parsed.problems) == 1 and "alias" in parsed.problems[0] and "not expanded" in parsed.problems[0]
    assert "lollipop" in parsed.chunks[0].text  # the body is indexed all the same
    cycle = parse_page("notes/cycle.md", "---\na: &a [*a]\n---\nbody\n")
    assert cycle.frontmatter == {} and "cycle" in cycle.problems[0]
    # ordinary anchors and merge keys still work: the budget is on the expanded tree, not on aliases as such
    fine = parse_page("notes/fine.md", "---\nbase: &b {type: concept}\nother: *b\n<<: *b\ntags: [x]\n---\nbody\n")
    assert fine.problems == [] and fine.frontmatter["type"] == "concept" and fine.tags == ["x"]


def test_frontmatter_past_the_size_budget_is_refused() -> None:
    huge = "---\n" + "".join(f"k{i}: {'v' * 200}\n" for i in range(2000)) + "---\nbody\n"
    parsed = parse_page("notes/huge.md", huge)
    assert parsed.frontmatter == {} and "KB" in parsed.problems[0]


def test_sync_of_a_vault_holding_the_bomb_finishes_under_a_memory_cap(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes/bomb.md").write_text(BOMB)
    (vault / "notes/ok.md").write_text("an ordinary page\n")
    done = subprocess.run(
        [sys.executable, "-c", SYNC_UNDER_A_CAP, str(vault), str(tmp_path / "index.db")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["added"] == 2
    assert [p["path"] for p in report["problems"]] == ["notes/bomb.md"]
    assert "alias" in report["problems"][0]["problem"]


@pytest.mark.timeout(30)
def test_a_bomb_written_through_the_write_tool_is_stored_and_refused_not_expanded(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "a\n"}, origin=Origin.USER)
    result = write(ctx, "notes/bomb.md", BOMB)
    assert result.status is Status.OK, result.body
    problem = ctx.reader().execute("SELECT problem FROM pages WHERE path = 'notes/bomb.md'").fetchone()[0]
    assert "alias" in problem
    assert write(ctx, "notes/a.md", "still writable", mode="append").status is Status.OK


def _plant(vault: Path) -> list[str]:
    """A FIFO and a socket, each named like a page."""
    os.mkfifo(vault / "notes/pipe.md")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(vault / "notes/sock.md"))
    server.close()
    return ["notes/pipe.md", "notes/sock.md"]


@pytest.mark.timeout(30)
def test_sync_records_fifos_and_sockets_as_problems_and_skips_them(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "a page\n"})
    planted = _plant(ctx.settings.vault)
    report = sync(ctx.settings, ctx.writer())
    problems = dict(report.problems)
    assert sorted(problems) == planted
    assert "FIFO" in problems["notes/pipe.md"] and "socket" in problems["notes/sock.md"]
    assert ctx.reader().execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 1


@pytest.mark.timeout(30)
def test_the_watcher_round_skips_a_fifo_named_like_a_page(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "a page\n"})
    _plant(ctx.settings.vault)
    done = freshen(ctx, {"notes/pipe.md", "notes/sock.md"}, embed=False)
    assert {path for path, _ in done.report.problems} == {"notes/pipe.md", "notes/sock.md"}
    assert write(ctx, "notes/a.md", "more", mode="append").status is Status.OK  # the write lock was released


@pytest.mark.timeout(30)
def test_every_primitive_refuses_a_fifo_and_leaves_it_there(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "a page\n"}, origin=Origin.USER)
    vault = ctx.settings.vault
    _plant(vault)
    for path in ("notes/pipe.md", "notes/sock.md"):
        for result in (
            read(ctx, path),
            read(ctx, path, depth="page"),
            write(ctx, path, "x"),
            write(ctx, path, "x", mode="append"),
            write(ctx, path, "x", mode="replace", expected_hash="0"),
            relocate(ctx, path, "notes/moved.md"),
            relocate(ctx, "notes/a.md", path),
            remove(ctx, path),
        ):
            assert result.status is Status.RETRY and "not a page" in result.body and path in result.body, result
    assert (vault / "notes/pipe.md").is_fifo() and (vault / "notes/sock.md").is_socket()
    assert (vault / "notes/a.md").read_text() == "a page\n"


def test_a_write_over_a_symlink_loop_is_refused_and_keeps_the_link(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "a page\n"}, origin=Origin.USER)
    vault = ctx.settings.vault
    os.symlink("loop2.md", vault / "notes/loop1.md")
    os.symlink("loop1.md", vault / "notes/loop2.md")
    for result in (write(ctx, "notes/loop1.md", "x"), write(ctx, "notes/loop1.md", "x", mode="append")):
        assert result.status is Status.RETRY and "loops" in result.body, result.body
    assert os.readlink(vault / "notes/loop1.md") == "loop2.md"


SPELLINGS = ["Conversations", "CONVERSATIONS", "conversations.", "conversations ", "Conversations. "]


@pytest.mark.parametrize("top", SPELLINGS)
def test_role_rules_under_a_case_insensitive_view(make_ctx: MakeContext, top: str) -> None:
    """On macOS or Windows every one of these names is the transcripts folder: the role must say so, and a
    write through any of them is refused (on Linux, where they would be other folders, as well)."""
    ctx = make_ctx({"conversations/t.md": "## user\nhi\n", "notes/a.md": "a\n"}, origin=Origin.USER)
    settings = ctx.settings
    assert folder_key(top) == folder_key("conversations")
    assert role_of(f"{top}/t.md", settings) is Role.CONVERSATION
    for result in (
        write(ctx, f"{top}/t.md", "forged", mode="append"),
        write(ctx, f"{top}/new.md", "forged"),
        relocate(ctx, "notes/a.md", f"{top}/a.md"),
    ):
        assert result.status in (Status.RETRY, Status.STOP), result.body
        assert "conversations" in result.body
    # the case-insensitive view: the folder as such a file system would show it, holding a transcript
    view = settings.vault / top
    if not view.exists():
        view.mkdir()
        (view / "seen.md").write_text("## user\nhello\n")
        sync(settings, ctx.writer())
        role = ctx.reader().execute("SELECT role FROM pages WHERE path = ?", (f"{top}/seen.md",)).fetchone()
        assert role is not None and role[0] == Role.CONVERSATION.value
        assert write(ctx, f"{top}/seen.md", "forged", mode="append").status in (Status.RETRY, Status.STOP)
        assert remove(ctx, f"{top}/seen.md").status in (Status.RETRY, Status.STOP)
        assert (view / "seen.md").read_text() == "## user\nhello\n"


def test_other_folders_keep_their_names(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "a\n"}, origin=Origin.USER)
    assert role_of("Projects/x.md", ctx.settings) is Role.OTHER
    assert role_of("Notes/x.md", ctx.settings) is Role.NOTE
    assert write(ctx, "Projects/x.md", "fine").status is Status.OK
    row = open_index(ctx.settings).execute("SELECT role FROM pages WHERE path = 'Projects/x.md'").fetchone()
    assert row[0] == "other"


@pytest.mark.timeout(120)
def test_the_api_starts_and_writes_with_a_fifo_and_the_bomb_in_the_vault(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "a page\n", "notes/bomb.md": BOMB})
    settings = ctx.settings
    _plant(settings.vault)
    settings.sync_interval_s = 0
    settings.api_keys_file = settings.index_path.parent / "keys.json"
    _, key = create_key(keys_path(settings), Scope.WRITE, "test")
    with serve(create_app(settings)) as url:  # start-up syncs the vault: the FIFO once hung it for ever
        os.mkfifo(settings.vault / "notes/later.md")  # one planted while it runs, seen by the watcher
        body = {"path": "notes/a.md", "content": "still writable", "mode": "append"}
        answer = httpx.post(f"{url}/v1/tools/write", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=60)
        assert answer.status_code == 200 and answer.json()["text"].startswith("[OK]"), answer.text
