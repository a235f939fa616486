"""Held postings brought current from the change log (``sentinel.search.held_patch``): a patched copy is exactly
what reading everything again gives, and anything the log cannot vouch for is read whole."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from sentinel.index.migrations import transaction
from sentinel.index.sync import sync
from sentinel.search import held_patch, postings
from sentinel.search.view import index_file
from sentinel.settings import Settings
from tests.search.test_postings import (
    _added_page,
    _edit,
    _edited_page,
    _every_list,
    _fts_command,
    _page,
    _read_all,
    _read_all_asked,
    _refolded,
    _removed_page,
    _synced,
)
from tests.support.vault import WriteVault


@pytest.fixture
def held_everything(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(postings, "MIN_HELD_ROWS", 0)
    postings.forget()
    postings.READS.clear()
    yield
    postings.forget()


def _same_as_read_whole(db: sqlite3.Connection, held: postings.Held) -> None:
    whole = postings.read_held(index_file(db), list(held.terms), None)
    assert (held.state, held.generation, held.rows, held.average) == (
        whole.state,
        whole.generation,
        whole.rows,
        whole.average,
    )
    size = max(len(held.tokens), len(whole.tokens))
    assert np.array_equal(_padded(held, size), _padded(whole, size))
    assert held.terms.keys() == whole.terms.keys()
    for word, (ids, counts) in whole.terms.items():
        assert held.terms[word][0].tolist() == ids.tolist(), word
        assert held.terms[word][1].tolist() == counts.tolist(), word


def _padded(held: postings.Held, size: int) -> np.ndarray:
    tokens = np.zeros(size, dtype=np.int64)
    tokens[: len(held.tokens)] = held.tokens
    return tokens


def _reused_id(settings: Settings, db: sqlite3.Connection) -> None:
    """The page holding the highest chunk id removed and another written: SQLite gives the new chunk that id."""
    top = db.execute("SELECT path FROM chunks ORDER BY id DESC LIMIT 1").fetchone()[0]
    (settings.vault / top).unlink()
    sync(settings, db)
    (settings.vault / "notes/Reuse.md").write_text("## Reused\n\nfjord fjord grove.\n")
    sync(settings, db)


def _many_edits(settings: Settings, db: sqlite3.Connection) -> None:
    _edit(settings, db)


@pytest.mark.parametrize(
    "write",
    [_edited_page, _removed_page, _added_page, _reused_id, _many_edits],
    ids=["edit", "removal", "addition", "a-reused-id", "edits-removals-additions"],
)
def test_page_writes_patch_the_held_copy_to_exactly_a_whole_read(
    vault_settings: WriteVault,
    monkeypatch: pytest.MonkeyPatch,
    held_everything: None,
    write: Callable[[Settings, sqlite3.Connection], None],
) -> None:
    monkeypatch.setattr(postings.held_patch, "MAX_CHANGED_SHARE", 1.0)  # the test vault is small: any share
    settings, db = _synced(vault_settings)
    held = _read_all(db)
    write(settings, db)
    postings.READS.clear()
    fresh = _read_all_asked(db)
    assert postings.READS == {"patched": 1}
    assert fresh.state != held.state
    assert _every_list(db, fresh) == 0
    _same_as_read_whole(db, fresh)


def test_patches_follow_one_another(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, held_everything: None
) -> None:
    monkeypatch.setattr(postings.held_patch, "MAX_CHANGED_SHARE", 1.0)
    settings, db = _synced(vault_settings)
    _read_all(db)
    rng = random.Random(3)
    postings.READS.clear()
    for round_ in range(4):
        (settings.vault / f"notes/N{round_ * 5:02}.md").write_text(_page(rng, rng.randint(1, 4)))
        (settings.vault / f"notes/New{round_}.md").write_text(_page(rng, 2))
        sync(settings, db)
        fresh = _read_all_asked(db)
        assert _every_list(db, fresh) == 0
    assert postings.READS == {"patched": 4}
    _same_as_read_whole(db, fresh)


@pytest.mark.parametrize(
    "write",
    [_fts_command("rebuild"), _fts_command("optimize"), _refolded],
    ids=["rebuild", "optimize", "refold"],
)
def test_writes_the_log_does_not_describe_read_everything_again(
    vault_settings: WriteVault, held_everything: None, write: Callable[[Settings, sqlite3.Connection], None]
) -> None:
    settings, db = _synced(vault_settings)
    _edited_page(settings, db)  # two segments: 'optimize' has something to merge
    _read_all(db)
    write(settings, db)
    postings.READS.clear()
    fresh = _read_all_asked(db)
    assert postings.READS == {"whole": 1}
    assert _every_list(db, fresh) == 0


def _same_tokens_other_words(text: str) -> str:
    return text.replace("amber", "zebra")  # a word no query asked for: the totals stay, amber's rows move


def _one_more_word(text: str) -> str:
    return text.rstrip() + " zebra\n"  # every held word's rows stay, the token totals move


@pytest.mark.parametrize("rewrite", [_same_tokens_other_words, _one_more_word], ids=["same-tokens", "one-more"])
def test_a_patch_that_is_not_fts5s_state_is_thrown_away(
    vault_settings: WriteVault,
    monkeypatch: pytest.MonkeyPatch,
    held_everything: None,
    rewrite: Callable[[str], str],
) -> None:
    """A log that names the wrong page (here rewritten by hand): the patch misses the page that changed, one of
    FTS5's own figures (rows and tokens, or a word's rows) says so, and everything is read again."""
    monkeypatch.setattr(postings.held_patch, "MAX_CHANGED_SHARE", 1.0)
    settings, db = _synced(vault_settings)
    page = next(p for p in sorted((settings.vault / "notes").glob("N*.md")) if "amber" in p.read_text())
    _read_all(db)
    page.write_text(rewrite(page.read_text()))
    sync(settings, db)
    relative = f"notes/{page.name}"
    with transaction(db):
        db.execute("UPDATE search_changes SET path = 'notes/Rare.md' WHERE path = ?", (relative,))
    postings.READS.clear()
    fresh = _read_all_asked(db)
    assert postings.READS == {"whole": 1}
    assert _every_list(db, fresh) == 0


def test_a_big_change_reads_everything_again(vault_settings: WriteVault, held_everything: None) -> None:
    settings, db = _synced(vault_settings)
    _read_all(db)
    _edit(settings, db)  # a third of the test vault's pages
    postings.READS.clear()
    fresh = _read_all_asked(db)
    assert postings.READS == {"whole": 1}
    assert _every_list(db, fresh) == 0


def _patch_of(held: postings.Held) -> held_patch.Patched:
    return held_patch.Patched(held.rows, held.average, held.tokens.copy(), dict(held.terms))


def test_fts5s_own_figures_check_a_patch(vault_settings: WriteVault, held_everything: None) -> None:
    _, db = _synced(vault_settings)
    held = _read_all(db)
    assert held_patch.agrees_with_fts5(db, _patch_of(held), postings.VOCAB)

    one_chunk_short = _patch_of(held)
    ids, counts = held.terms["amber"]
    one_chunk_short.terms["amber"] = (ids[1:], counts[1:])
    assert not held_patch.agrees_with_fts5(db, one_chunk_short, postings.VOCAB)

    one_token_more = _patch_of(held)
    one_token_more.tokens[int(ids[0])] += 1
    assert not held_patch.agrees_with_fts5(db, one_token_more, postings.VOCAB)

    one_row_more = dataclasses.replace(_patch_of(held), rows=held.rows + 1)
    assert not held_patch.agrees_with_fts5(db, one_row_more, postings.VOCAB)
