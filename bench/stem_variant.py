"""Round six's word-form variants of the lexical leg, measured without changing the code (bench only).

    python bench/stem_variant.py --index COPY --mode stem|both [--split] [--rebuild] -- <bench/retrieval.py args>

``--rebuild`` fills ``chunks_fts`` of ``--index`` (a copy made with SQLite's backup API: it is written) again
with the variant's fold, then ``bench/retrieval.py`` runs on it with the query side patched the same way, for
this process only. Run it on an index whose pages are all current (the sync then writes no chunk: the triggers
would fold a written chunk the old way).

- ``stem``: every word is replaced by its Snowball stem in its language (a chunk's: its language folder; the
  query's: py3langid among the vault's languages, as ``search.meaning`` reads it).
- ``both``: the folded word stays and its stem (where it differs) is added; the query asks for both.
- ``--split`` (German queries): a query word the index does not hold is replaced by two parts it holds
  (``tabellenimport`` -> ``tabellen import``; a linking ``s`` may end the first part).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from functools import lru_cache
from pathlib import Path

import py3langid
import snowballstemmer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import retrieval
from sentinel.index import fold as fold_module
from sentinel.search import ladder, postings
from sentinel.search.centres import words_language
from sentinel.search.families import folder_language
from sentinel.search.fts_query import MAX_TERMS, WORD, prune_common, query_terms
from sentinel.search.meaning import WORDS_SURE

ALGORITHM = {"en": "english", "de": "german", "es": "spanish", "tr": "turkish"}
# ``STEM_LANGUAGES=de,es,tr``: stem only these (the others' words are only folded, on both sides)
ALGORITHM = {k: v for k, v in ALGORITHM.items() if k in os.environ.get("STEM_LANGUAGES", ",".join(ALGORITHM))}
LANGUAGES = ("de", "en", "es", "tr")  # the eval vault's, for the query's language
MIN_PART = 3


@lru_cache(maxsize=4)
def _stemmer(language: str):  # type: ignore[no-untyped-def]
    return snowballstemmer.stemmer(ALGORITHM[language]) if language in ALGORITHM else None


@lru_cache(maxsize=500_000)
def stem(word: str, language: str) -> str:
    stemmer = _stemmer(language)
    return fold_module.fold(stemmer.stemWord(word) if stemmer else word)


def words(text: str, language: str, mode: str) -> list[str]:
    """The tokens of ``text`` in ``language`` as the variant indexes them (``both``: the stems that differ come
    after all the words, so a phrase of words still matches)."""
    surface = WORD.findall(text.casefold())
    stems = [stem(w, language) for w in surface]
    if mode == "stem":
        return stems
    folded = WORD.findall(fold_module.fold(text))
    held = set(folded)
    return folded + [s for s in stems if s not in held]


def chunk_language(path: str, text: str) -> str:
    """A chunk's language: its language folder's, else its words' (py3langid), where Snowball stems it."""
    language = folder_language(path) or str(py3langid.classify(text)[0])
    return language if language in ALGORITHM else ""


def variant_fold(value: str | None, path: str, text: str, mode: str) -> str:
    return " ".join(words(value or "", chunk_language(path, text or ""), mode))


def rebuild(index: Path, mode: str) -> None:
    db = sqlite3.connect(index)
    db.create_function("variant_fold", 4, variant_fold, deterministic=True)
    with db:
        db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')")
        db.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25()')")
        db.execute(
            "INSERT INTO chunks_fts(rowid, text, trail) "
            "SELECT id, variant_fold(text, path, text, ?), variant_fold(trail, path, text, ?) FROM chunks",
            (mode, mode),
        )
        db.execute("UPDATE search_generation SET n = n + 1")
    db.close()


def query_words(text: str, mode: str) -> list[str]:
    if mode == "none":
        return query_terms(text)
    language, sure = words_language(text, LANGUAGES)
    if mode == "both" and sure < WORDS_SURE:
        language = ""
    return list(dict.fromkeys(words(text, language, mode)))[: MAX_TERMS * (2 if mode == "both" else 1)]


def split(db: sqlite3.Connection, terms: list[str], frequencies: dict[str, int]) -> list[str]:
    """Each term the index does not hold, as two parts it holds (the longest first part that works), else as
    it is."""
    out: list[str] = []
    for term in terms:
        if frequencies.get(term, 0) > 0 or len(term) < 2 * MIN_PART:
            out.append(term)
            continue
        cuts = [(term[:i], term[i:]) for i in range(len(term) - MIN_PART, MIN_PART - 1, -1)]
        cuts += [(a[:-1], b) for a, b in cuts if a.endswith("s") and len(a) > MIN_PART]
        parts = sorted({p for cut in cuts for p in cut})
        held = postings.frequencies(db, parts)
        found = next(((a, b) for a, b in cuts if held.get(a, 0) > 0 and held.get(b, 0) > 0), None)
        out.extend(found if found else (term,))
    return list(dict.fromkeys(out))


def patch(mode: str, compound: bool) -> None:
    def lexical_terms(db: sqlite3.Connection, query: str, chunk_count: int):  # type: ignore[no-untyped-def]
        terms = query_words(query, mode)
        frequencies = postings.frequencies(db, terms)
        if compound and words_language(query, LANGUAGES)[0] == "de":
            terms = split(db, terms, frequencies)
            frequencies = postings.frequencies(db, terms)
        return prune_common(terms, frequencies, chunk_count)

    ladder.lexical_terms = lexical_terms  # type: ignore[assignment]


def main() -> int:
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--convo-index", type=Path, required=True)
    parser.add_argument("--mode", choices=("stem", "both", "none"), default="stem")
    parser.add_argument("--split", action="store_true")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args(own)
    if args.rebuild and args.mode != "none":
        for index in (args.index, args.convo_index):
            rebuild(index, args.mode)
    if args.mode != "none" or args.split:
        patch(args.mode, args.split)
    return retrieval.main(["--index", str(args.index), "--convo-index", str(args.convo_index), *rest])


if __name__ == "__main__":
    sys.exit(main())
