"""The text fold: how the lexical leg compares words, decided once for the index and for the query.

FTS5's unicode61 tokenizer lower-cases and (``remove_diacritics 2``) strips Latin diacritics, but it keeps
Turkish ``ı`` as a letter of its own (so ``Çalışma`` never met ``calisma``), keeps ``ß`` (so ``Straße`` never
met ``strasse``), and reads a run of Chinese, Japanese or Korean characters as a single word (so a CJK page
had no lexical leg: basic-memory #1294). ``fold`` runs before unicode61 on both sides: the chunk triggers call
it as the SQL function ``sentinel_fold`` (registered on every connection by ``index.db.connect``) and
``search.fts_query`` folds the query with the same function. A change here needs a migration that calls
``rebuild_fts`` (m004 did it for the first unified fold, m011 for word stems).

Word forms (issue 32, round six): in German, Spanish and Turkish each word is replaced by its Snowball stem
before it is folded ("Sicherungskopien" and "Sicherungskopie" are one token), so a question meets its page's
inflections. A chunk's language is its page's, decided when the page's chunks are written (``page_language``:
its language folder, else the language of its opening words), and stored with it (``chunks.language``), so the
delete trigger removes exactly the tokens the insert wrote whatever the language identifier says later; the
query's language is the search's (``search.lexical``). English is not stemmed: on the choosing sets its stems
lost more first places than they won (docs/retrieval.md, round six).

CJK runs become their characters and their overlapping bigrams, the CJK analyser of Lucene and Elasticsearch:
no dictionary to ship, the same for all three scripts, and a two-character word (most Chinese words) is one
bigram token that bm25 weighs by its rarity.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from functools import lru_cache

import snowballstemmer

from sentinel.index import language_id
from sentinel.paths import folder_language

SQL_FUNCTION = "sentinel_fold"
LANGUAGE_FUNCTION = "sentinel_page_language"
# The languages whose words are stemmed, and their Snowball algorithm (chosen on the choosing sets, round six).
STEMMED = {"de": "german", "es": "spanish", "tr": "turkish"}
_WORD = re.compile(r"([^\W_]+)")  # a word as FTS5's unicode61 tokenizer reads one (split keeps it)
STEMS_HELD = 200_000  # words whose stem each language keeps (a few tens of MB at most)
PAGE_SAMPLE = 2000  # characters of a page's opening its language is read from
PAGE_SURE = 0.9  # py3langid's normalised probability from which a page without a language folder is stemmed
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


class _Stems(dict[str, str]):
    """One language's word -> stem, filled as words are met: ``map`` over a chunk's words stays in C for the
    words seen before (most of them), where a cached function cost a Python call a word (sync, round six)."""

    def __init__(self, algorithm: str) -> None:
        super().__init__()
        self._stemmer = snowballstemmer.stemmer(algorithm)

    def __missing__(self, word: str) -> str:
        if len(self) >= STEMS_HELD:
            self.clear()  # a vault's vocabulary is unbounded; a sync's memory is not
        stem = self[word] = str(self._stemmer.stemWord(word))
        return stem


@lru_cache(maxsize=len(STEMMED))
def _stems(language: str) -> _Stems:
    return _Stems(STEMMED[language])


def stemmed_language(language: str) -> str:
    """The language of ``STEMMED`` that ``language`` (``de``, ``de-AT``, ``es_MX``) is, or ""."""
    base = language.lower().replace("_", "-").partition("-")[0]
    return base if base in STEMMED else ""


def fold(text: str, language: str = "") -> str:
    """``text`` as the lexical leg compares it: in a ``STEMMED`` language each word its stem; compatibility forms
    unified, case folded (``ß`` -> ``ss``), Latin diacritics and Turkish dotless ``ı`` dropped, CJK runs split
    into characters and bigrams."""
    stems = stemmed_language(language)
    if stems:  # stemmed before the marks go: Turkish and Spanish suffixes are spelt with them
        parts = _WORD.split(text.casefold())  # the words are every other part, from the second
        parts[1::2] = map(_stems(stems).__getitem__, parts[1::2])
        text = "".join(parts)
    if text.isascii():
        return text.lower()  # most text of most vaults takes this path
    return _CJK_RUN.sub(_bigrams, _strip_marks(text.casefold(), len(text)))


def forms(text: str) -> list[str]:
    """``text`` folded as each language's chunks hold it (unstemmed first): a phrase query that must find it
    in a chunk of any language asks for each."""
    return list(dict.fromkeys(fold(text, language) for language in ("", *STEMMED)))


def page_language(path: str, text: str) -> str:
    """The language a page's chunks are folded in: its language folder, else its words' (``text``: the opening
    of the page, ``page_languages``) when py3langid is sure of it; none when it is not (a mixed or short page
    stays unstemmed: a wrong stem would cost it its own words). Decided once a page, not a chunk: a short chunk
    of a German page is German, and a sync reads the identifier ten times less (round six)."""
    if language := folder_language(path):
        return language
    label, probability = language_id.every_language().classify(text)
    return str(label) if probability >= PAGE_SURE else ""


def page_languages(chunks: str) -> str:
    """The SQL of each page's (``path``) language (``language``) from the rows of ``chunks`` (a table with
    ``path``, ``ordinal``, ``text``): what the chunk writer and m011 store with every chunk of the page."""
    return f"""SELECT path, {LANGUAGE_FUNCTION}(path, substr(group_concat(text, char(10)), 1, {PAGE_SAMPLE}))
        AS language FROM (SELECT path, text FROM {chunks} ORDER BY path, ordinal) GROUP BY path"""


def chunk_fold(column: str, row: str = "") -> str:
    """The SQL that folds a chunk's ``column`` (``text``, ``trail``) in its language; ``row``: ``new.``, ``old.``."""
    return f"{SQL_FUNCTION}({row}{column}, {row}language)"


def register(db: sqlite3.Connection) -> None:
    """Make ``fold`` and ``page_language`` callable from SQL on this connection (the chunk triggers and the
    chunk writer need them)."""
    db.create_function(SQL_FUNCTION, 1, fold, deterministic=True)
    db.create_function(SQL_FUNCTION, 2, fold, deterministic=True)
    db.create_function(LANGUAGE_FUNCTION, 2, page_language, deterministic=True)


def rebuild_fts(db: sqlite3.Connection) -> None:
    """Fill ``chunks_fts`` again from ``chunks`` with the current fold (inside the caller's transaction)."""
    db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')")
    # 'delete-all' starts FTS5's structure record over, so the refill could repeat an earlier one to the byte; a
    # config write (the default rank, unchanged) bumps the cookie that record carries, which the held postings'
    # key (sentinel.search.postings.fts_state) then sees.
    db.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25()')")
    columns = {str(r[1]) for r in db.execute("PRAGMA table_info(chunks)")}
    language = "" if "language" in columns else "'' AS "  # before m011 stored a chunk's language: none stemmed
    db.execute(
        f"INSERT INTO chunks_fts(rowid, text, trail) SELECT id, {chunk_fold('text')}, {chunk_fold('trail')} "
        f"FROM (SELECT id, text, trail, {language}language FROM chunks)"
    )
    # Every chunk's tokens may have changed with no chunk written: a bump by code (no change logged), so a search
    # process reads its view and its held postings (sentinel.search.postings) again.
    db.execute("UPDATE search_generation SET n = n + 1")
