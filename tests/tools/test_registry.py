"""The one way tools are called: argument checks, the repeated-search rule, the health line, the schemas."""

from __future__ import annotations

import json

from sentinel.index.sync import sync
from sentinel.tools.registry import TOOLS, call_tool, run_tool, tool_schemas
from tests.support.tool_context import MakeContext

VAULT = {
    "notes/Growth queue.md": "# Growth queue\nThe growth queue lists names that no page answers to. [[Revival]]\n",
    "notes/Index.md": "The index is derived from the vault and can be rebuilt. [[Revival]] [[Revival]]\n",
    "sources/Article.md": "A pasted article about the growth queue.\n",
}


def test_seven_tools_with_compact_schemas() -> None:
    schemas = tool_schemas()
    assert [s["function"]["name"] for s in schemas] == [
        "search",
        "read",
        "listing",
        "graph",
        "write",
        "relocate",
        "remove",
    ]
    assert all(s["function"]["description"] for s in schemas)
    assert len(json.dumps(schemas)) < 6000  # ~1,500 tokens: every character is paid on every turn


def test_every_result_starts_with_one_status(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    statuses = ("[OK]", "[OK → next]", "[DONE]", "[RETRY]", "[STOP]", "[more]")
    for name, args in [
        ("search", {"query": "growth queue"}),
        ("read", {"path": "notes/Index.md"}),
        ("listing", {}),
        ("graph", {"target": "Revival"}),
        ("write", {"path": "conversations/x.md", "content": "x"}),
    ]:
        text = call_tool(ctx, name, args)
        assert text.startswith(statuses), text


def test_repeating_a_search_in_a_turn_is_done_with_the_earlier_answer(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    first = call_tool(ctx, "search", {"query": "growth queue"}, turn="t1")
    again = call_tool(ctx, "search", {"query": "growth queue"}, turn="t1")
    assert again.startswith("[DONE] you already ran this exact search") and again.endswith(first)
    assert call_tool(ctx, "search", {"query": "growth queue"}, turn="t2") == first  # a new turn searches again


def test_bad_arguments_are_a_retry_naming_the_argument(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    assert call_tool(ctx, "read", {}).startswith("[RETRY] read got bad arguments (path: Field required")
    unknown = call_tool(ctx, "read", {"path": "notes/Index.md", "page": 2})
    assert unknown.startswith("[RETRY]") and "page" in unknown and "it takes: path, depth, section, cursor" in unknown
    assert call_tool(ctx, "read", {"path": "notes/Index.md", "depth": "all"}).startswith("[RETRY]")
    assert call_tool(ctx, "open", {"path": "x"}).startswith("[RETRY] there is no tool 'open'")


def test_health_line_only_when_something_is_owed(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    text = call_tool(ctx, "listing", {})
    assert text.splitlines()[-1] == "[note] health: 3 pages awaiting analysis"
    db = ctx.writer()
    for path, digest in db.execute("SELECT path, hash FROM pages").fetchall():
        db.execute("INSERT INTO analysis (path, hash, status, analysed_at) VALUES (?, ?, 'ok', 0)", (path, digest))
    assert "health" not in call_tool(ctx, "listing", {})
    for i in range(4):
        (ctx.settings.vault / f"notes/r{i}.md").write_text("[[Much wanted]]\n")
    sync(ctx.settings, db)
    db.execute("UPDATE analysis SET status = 'failed' WHERE path = 'notes/Index.md'")
    line = call_tool(ctx, "listing", {}).splitlines()[-1]
    assert line.startswith("[note] health: 4 pages awaiting analysis; 1 failed analysis; 1 concept that 4+ pages")


def test_in_a_chat_the_health_line_is_said_once_and_again_when_it_changes(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    first = run_tool(ctx, "listing", {}, chat="c1").text
    assert first.splitlines()[-1] == "[note] health: 3 pages awaiting analysis"
    assert "health" not in run_tool(ctx, "search", {"query": "growth queue"}, chat="c1").text
    assert "health" not in run_tool(ctx, "listing", {}, chat="c1").text
    assert "health: 3 pages" in run_tool(ctx, "listing", {}, chat="c2").text  # another chat hears it once too
    (ctx.settings.vault / "notes/New.md").write_text("new\n")
    sync(ctx.settings, ctx.writer())
    assert run_tool(ctx, "listing", {}, chat="c1").text.splitlines()[-1] == "[note] health: 4 pages awaiting analysis"


def test_search_without_embedder_says_so_in_every_result(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    summary = call_tool(ctx, "search", {"query": "growth queue"})
    body = call_tool(ctx, "search", {"query": "pasted article", "rung": "body"})
    for text in (summary, body):
        assert "[note]" in text and "wording only" in text
    assert "sources/Article.md" not in summary  # sources stay out of the summary rung
    assert "sources/Article.md" in body
    assert "FTS" not in call_tool(ctx, "search", {"query": 'AND OR "unclosed * NEAR('})


def test_tools_table_matches_the_api_surface() -> None:
    assert {name for name, tool in TOOLS.items() if tool.writes} == {"write", "relocate", "remove"}
