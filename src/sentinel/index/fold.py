"""The text fold: how the lexical leg compares words, decided once for the index and for the query.

FTS5's unicode61 tokenizer lower-cases and (``remove_diacritics 2``) strips Latin diacritics, but it keeps
Turkish ``ı`` as a letter of its own (so ``Çalışma`` never met ``calisma``), keeps ``ß`` (so ``Straße`` never
met ``strasse``), and reads a run of Chinese, Japanese or Korean characters as a single word (so a CJK page
had no lexical leg: basic-memory #1294). ``fold`` runs before unicode61 on both sides: the chunk triggers call
it as the SQL function ``sentinel_fold`` (registered on every connection by ``index.db.connect``) and
``search.fts_query`` folds the query with the same function. A change here needs a migration that calls
``rebuild_fts`` (m004 did it for the first unified fold).

CJK runs become their characters and their overlapping bigrams, the CJK analyser of Lucene and Elasticsearch:
no dictionary to ship, the same for all three scripts, and a two-character word (most Chinese words) is one
bigram token that bm25 weighs by its rarity.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata

SQL_FUNCTION = "sentinel_fold"
# Combining diacritical marks (accents, cedilla, breve, tilde, umlaut, the dot of İ): what Latin-script words
# drop. Marks outside this block carry meaning (the kana voicing marks: か is not が) and stay.
_LATIN_MARKS = re.compile("[\u0300-\u036f]+")
_CJK_RUN = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]+"
)


def _bigrams(match: re.Match[str]) -> str:
    run = match.group(0)
    pairs = [run[i : i + 2] for i in range(len(run) - 1)]
    return " " + " ".join([*pairs, *run]) + " "  # bigrams first: a long query keeps them under its term cap


def _strip_marks(text: str, length: int) -> str:
    # casefold keeps ı (Turkish readers write and search it as i); NFKD also unifies compatibility forms
    decomposed = unicodedata.normalize("NFKD", text.replace("ı", "i"))
    stripped = _LATIN_MARKS.sub("", decomposed)
    if len(stripped) != length:  # something was decomposed: compose what remains (Hangul, kana)
        stripped = unicodedata.normalize("NFC", stripped)
    return stripped


def without_latin_marks(text: str) -> str:
    """``text`` without Latin diacritics, Turkish dotless ``ı`` as ``i``, compatibility forms unified; marks that
    carry meaning stay on their letters (``が`` is not ``か``). The fold's rules, for the name fold
    (``sentinel.vault.name_words``)."""
    return _strip_marks(text, len(text))


def fold(text: str) -> str:
    """``text`` as the lexical leg compares it: compatibility forms unified, case folded (``ß`` -> ``ss``),
    Latin diacritics and Turkish dotless ``ı`` dropped, CJK runs split into characters and bigrams."""
    if text.isascii():
        return text.lower()  # most text of most vaults takes this path
    return _CJK_RUN.sub(_bigrams, _strip_marks(text.casefold(), len(text)))


def register(db: sqlite3.Connection) -> None:
    """Make ``fold`` callable from SQL on this connection (the chunk triggers need it to write)."""
    db.create_function(SQL_FUNCTION, 1, fold, deterministic=True)


def rebuild_fts(db: sqlite3.Connection) -> None:
    """Fill ``chunks_fts`` again from ``chunks`` with the current fold (inside the caller's transaction)."""
    db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')")
    # 'delete-all' starts FTS5's structure record over, so the refill could repeat an earlier one to the byte; a
    # config write (the default rank, unchanged) bumps the cookie that record carries, which the held postings'
    # key (sentinel.search.postings.fts_state) then sees.
    db.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25()')")
    db.execute(
        f"INSERT INTO chunks_fts(rowid, text, trail) SELECT id, {SQL_FUNCTION}(text), {SQL_FUNCTION}(trail) FROM chunks"
    )
    # Every chunk's tokens may have changed with no chunk written: a bump by code (no change logged), so a search
    # process reads its view and its held postings (sentinel.search.postings) again.
    db.execute("UPDATE search_generation SET n = n + 1")
