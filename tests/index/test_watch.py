"""The live watcher on a real file system with real file events and the real e5 model: an edit is found by
meaning without a command, whichever way an editor saves it; folder renames and mass disappearance go through
the full sync and its guard; a mount without events falls back to polling, said once."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.watch import Freshened, VaultWatcher, freshen
from sentinel.search.embedding import summary_passages
from sentinel.search.ladder import search
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from tests.support.vault import WriteVault

PAGES = {
    "notes/Tea.md": "# Tea\n\nGreen tea steeps for two minutes in water below boiling.\n",
    "notes/Bikes.md": "# Bikes\n\nA chain needs oil every few hundred kilometres.\n",
    **{f"notes/Filler {i}.md": f"# Filler {i}\n\nPage number {i} about nothing much.\n" for i in range(10)},
}
ESPRESSO = "# Coffee\n\nAn espresso shot is pressed through finely ground beans for twenty-five seconds.\n"


def wait_for(check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("the watcher did not catch up")
        time.sleep(0.05)


class Live:
    def __init__(self, ctx: ToolContext, watcher: VaultWatcher, rounds: list[Freshened]) -> None:
        self.ctx, self.watcher, self.rounds = ctx, watcher, rounds
        self.vault = ctx.settings.vault

    def by_meaning(self, query: str) -> list[str]:
        """Paths the semantic leg alone finds (wording cannot match: the queries share no word with the pages)."""
        found = search(self.ctx.reader(), self.ctx.settings, self.ctx.embedder, query, rung="body")
        return [hit.path for hit in found.hits]

    def summarised(self, path: str) -> bool:
        """The page's summary passage (as it reads now) has a vector."""
        passages = [text for text, page in summary_passages(self.ctx.reader(), [path]).items() if page == path]
        if not passages:
            return False
        return (
            self.ctx.reader().execute("SELECT 1 FROM summary_vectors WHERE text = ?", passages).fetchone() is not None
        )

    def pages(self) -> set[str]:
        return {r[0] for r in self.ctx.reader().execute("SELECT path FROM pages")}

    def vectors_of(self, path: str) -> int:
        return (
            self.ctx.reader()
            .execute(
                """SELECT COUNT(*) FROM chunks c JOIN chunk_vectors v ON v.text_hash = c.text_hash AND v.trail = c.trail
               WHERE c.path = ?""",
                (path,),
            )
            .fetchone()[0]
        )


def _live(settings: Settings, e5: OnnxEmbedder, elsewhere: bool = False) -> Iterator[Live]:
    ctx = ToolContext(settings=settings, embedder=e5)
    if elsewhere:
        ctx.backlog_elsewhere.set()
    started = freshen(ctx, embed=False)
    rounds: list[Freshened] = []
    watcher = VaultWatcher(ctx, on_round=rounds.append)
    watcher.start(backlog=started.report.changed_paths)
    try:
        yield Live(ctx, watcher, rounds)
    finally:
        watcher.stop()


@pytest.fixture
def live(vault_settings: WriteVault, e5: OnnxEmbedder) -> Iterator[Live]:
    settings = vault_settings(PAGES)
    settings.sync_interval_s = 0  # file events only: a poll must not do the watcher's work in these tests
    yield from _live(settings, e5)


def test_backlog_at_start_is_embedded_in_the_background(live: Live) -> None:
    wait_for(lambda: all(live.vectors_of(path) for path in PAGES))


def test_the_backlog_waits_while_a_run_elsewhere_covers_it_and_edits_do_not(
    vault_settings: WriteVault, e5: OnnxEmbedder
) -> None:
    settings = vault_settings(PAGES)
    settings.sync_interval_s = 0
    running = _live(settings, e5, elsewhere=True)  # an embedding run split across workers is going
    live = next(running)
    try:
        (live.vault / "notes/Coffee.md").write_text(ESPRESSO, encoding="utf-8")
        wait_for(lambda: live.vectors_of("notes/Coffee.md") > 0)  # an edit goes first, run or not
        time.sleep(1.0)
        assert not any(live.vectors_of(path) for path in PAGES)  # the start-up backlog is the run's
        live.ctx.backlog_elsewhere.clear()  # the run ended (or failed): what it left, the watcher does
        wait_for(lambda: all(live.vectors_of(path) for path in PAGES))
    finally:
        running.close()


def test_edit_in_place_is_found_by_meaning(live: Live) -> None:
    (live.vault / "notes/Coffee.md").write_text(ESPRESSO, encoding="utf-8")
    # its chunks and its summary line: both semantic legs see it
    wait_for(lambda: live.vectors_of("notes/Coffee.md") > 0 and live.summarised("notes/Coffee.md"))
    assert live.by_meaning("how long to brew a strong italian coffee")[0] == "notes/Coffee.md"


def test_an_edit_to_the_first_lines_keeps_the_page_in_the_summary_leg(live: Live) -> None:
    wait_for(lambda: live.summarised("notes/Tea.md"))
    (live.vault / "notes/Tea.md").write_text("# Tea\n\nBlack tea wants water at a full boil.\n", encoding="utf-8")
    wait_for(lambda: "Black tea" in _text_of(live, "notes/Tea.md") and live.summarised("notes/Tea.md"))


def test_temp_file_renamed_over_the_page(live: Live) -> None:
    temp = live.vault / "notes/.Tea.md.swp"
    temp.write_text(ESPRESSO.replace("# Coffee", "# Tea"), encoding="utf-8")
    os.replace(temp, live.vault / "notes/Tea.md")
    wait_for(lambda: "espresso" in _text_of(live, "notes/Tea.md") and live.vectors_of("notes/Tea.md") > 0)
    assert "notes/.Tea.md.swp" not in live.pages()


def test_delete_then_create_keeps_the_page(live: Live) -> None:
    page = live.vault / "notes/Bikes.md"
    page.unlink()
    page.write_text("# Bikes\n\nTyres hold three bar of pressure.\n", encoding="utf-8")
    wait_for(lambda: "Tyres" in _text_of(live, "notes/Bikes.md") and live.vectors_of("notes/Bikes.md") > 0)
    assert "notes/Bikes.md" in live.pages()


def test_folder_rename_moves_its_pages(live: Live) -> None:
    (live.vault / "notes").rename(live.vault / "kept")
    wait_for(lambda: "kept/Tea.md" in live.pages() and "notes/Tea.md" not in live.pages())


def test_mass_disappearance_deletes_nothing(live: Live) -> None:
    for path in PAGES:
        (live.vault / path).unlink()
    wait_for(lambda: any(done.report.refused for done in live.rounds))
    assert set(PAGES) <= live.pages()


def test_files_that_are_not_pages_are_ignored(live: Live) -> None:
    wait_for(lambda: all(live.vectors_of(path) for path in PAGES))  # the start-up backlog, out of the way
    before = len(live.rounds)
    (live.vault / "notes/Tea.md~").write_text("backup", encoding="utf-8")
    (live.vault / "notes/4913").write_text("", encoding="utf-8")  # vim's probe file
    (live.vault / ".obsidian").mkdir()
    (live.vault / ".obsidian/workspace.json").write_text("{}", encoding="utf-8")
    time.sleep(1.0)
    assert all(not done.report.changed_paths for done in live.rounds[before:])


def test_a_mount_without_events_falls_back_to_polling_said_once(
    vault_settings: WriteVault, e5: OnnxEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    settings = vault_settings(PAGES)
    ctx = ToolContext(settings=settings, embedder=e5)
    freshen(ctx, embed=False)
    watcher = VaultWatcher(ctx)  # never started: no file event reaches it, as on such a mount
    (settings.vault / "notes/Coffee.md").write_text(ESPRESSO, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="sentinel.watch"):
        watcher._poll()
        (settings.vault / "notes/Tea.md").write_text("# Tea\n\nChanged again.\n", encoding="utf-8")
        watcher._poll()
    assert watcher.polling
    told = [r.getMessage() for r in caplog.records if "polling the vault" in r.getMessage()]
    assert len(told) == 1 and "notes/Coffee.md arrived without a file event" in told[0]
    assert _text_of_ctx(ctx, "notes/Tea.md") == "Changed again."


def _text_of_ctx(ctx: ToolContext, path: str) -> str:
    rows = ctx.reader().execute("SELECT text FROM chunks WHERE path = ? ORDER BY ordinal", (path,)).fetchall()
    return "\n".join(r[0] for r in rows)


def _text_of(live: Live, path: str) -> str:
    return _text_of_ctx(live.ctx, path)


def test_poll_mode_finds_edits_without_events(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings(PAGES)
    settings.watch, settings.watch_poll_s = "poll", 0.2
    for live in _live(settings, e5):
        (Path(settings.vault) / "notes/Coffee.md").write_text(ESPRESSO, encoding="utf-8")
        wait_for(lambda live=live: live.vectors_of("notes/Coffee.md") > 0)
