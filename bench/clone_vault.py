"""A vault N times the size of an indexed one, cheaply: hard-linked clones of its pages and an SQL-cloned index.

    python bench/clone_vault.py --vault .cache/bench/synth-100000 --index .cache/bench/synth-100000.db \\
        --out /tmp/m1 --copies 9 [--search]
    python bench/noop_sync.py --vault /tmp/m1/vault --index /tmp/m1/index.db --runs 5
    python bench/search_latency.py --vault /tmp/m1/vault --index /tmp/m1/index.db --queries 40   # with --search

Building a 1M-page index through the real sync takes hours on two cores (issue 37). ``OUT/vault`` holds the
source vault's folders plus ``--copies`` clones of each role folder's contents, one level down and with the
copy's mark before each file name (``notes/t12/x.md`` -> ``notes/c3/t12/c3 x.md``): every clone keeps its role
and gets a title of its own, so its wikilinks (all by name in the synthetic vault) still reach the source's
pages, as a real sync resolves them. The files are hard links (same inode: the same mtime and size, no disk).
``OUT/index.db`` is a fresh index (``open_index``: the real migrations) whose rows are the source's, copied in
SQL (``INSERT ... SELECT``) with each page's path, keys and title rewritten per copy (``moved``: one function,
``clone_path``, decides where a page goes, for the files and the rows alike).

Without ``--search`` only ``pages`` is cloned: enough for a sync. With it, everything search and the view read:
chunks (their trail, which opens with the page's title, gets the copy's mark; ``chunks_fts`` is filled by the
index's own trigger, with the real fold), headings, links, aliases, tags, analysis, and the vector tables. A
clone's vector is its source's with the offset from its language centre permuted by a fixed per-copy
permutation of the dimensions, then stored through the same quantise / nearest centre / sign bits code as any
vector: each copy's vectors keep their language cluster but have other neighbours, so the Hamming scan sees no
ten-way exact ties. The search log's triggers are set aside while rows are cloned (one row per cloned chunk
would be 9.5M log rows) and the generation is bumped once: a view loads whole. Then ``check_pages`` re-parses a
sample of cloned files with the indexer's parser and compares, and one real ``sync`` must find nothing to add,
update or remove (a full walk, recording the folder times for the no-op syncs that follow). The source vault
and index are only read.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

from sentinel.index.db import open_index
from sentinel.index.migrations import transaction
from sentinel.index.sync import sync
from sentinel.paths import page_name
from sentinel.search.centres import CENTRES_KEY, parse
from sentinel.search.embedding import IDENTITY_KEY
from sentinel.search.vectors import Centres, quantise, restore, sign_bits
from sentinel.settings import Settings
from sentinel.vault.links import key_base, link_key

COLUMNS = "role, frontmatter, description, hash, mtime_ns, size, problem, indexed_at, date"
BATCH = 20_000  # vectors transformed at a time
CACHE_KIB = 1 << 20  # SQLite's page cache while cloning: 1 GiB


def mark(copy: int) -> str:
    """What copy ``copy`` puts before each file name, hence before its title and trails ('' for the source)."""
    return f"c{copy} " if copy else ""


def clone_path(path: str, copy: int) -> str:
    """Where copy ``copy`` of a page goes: one level below its top folder (so its role holds), its name marked."""
    if not copy:
        return path
    top, _, rest = path.partition("/")
    folder, _, name = rest.rpartition("/")
    return f"{top}/c{copy}/{folder + '/' if folder else ''}{mark(copy)}{name}"


def clone_files(source: Path, vault: Path, copies: int) -> None:
    """The source vault hard-linked into ``vault``, plus ``copies`` hard-linked clones of each top folder's files."""
    tops = sorted(p.name for p in source.iterdir() if p.is_dir() and not p.name.startswith("."))
    taken = [f"{top}/c{copy}" for top in tops for copy in range(1, copies + 1) if (source / top / f"c{copy}").exists()]
    if taken:
        raise SystemExit(f"the source vault already has {taken[0]}: clones would mix with it; pick another vault")
    vault.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, vault, copy_function=os.link)
    for top in tops:
        for folder, _, names in os.walk(source / top):
            rel = Path(folder).relative_to(source).as_posix()
            for copy in range(1, copies + 1):
                made = False
                for name in names:
                    target = vault / clone_path(f"{rel}/{name}", copy)
                    if not made:
                        target.parent.mkdir(parents=True, exist_ok=True)
                        made = True
                    os.link(Path(folder) / name, target)


def _moved(db: sqlite3.Connection, copies: int) -> None:
    """TEMP table ``moved``: each source page's path, keys and title in each copy (copy 0 is the source)."""
    loose = db.execute("SELECT path FROM src.pages WHERE instr(path, '/') = 0 LIMIT 1").fetchone()
    if loose:
        raise SystemExit(f"'{loose[0]}' sits at the vault's root: this script clones top folders only")
    db.execute(
        "CREATE TEMP TABLE moved (copy INTEGER, old TEXT, new TEXT, path_key TEXT, name_key TEXT, title TEXT, "
        "mark TEXT, PRIMARY KEY (copy, old))"
    )
    paths = [path for (path,) in db.execute("SELECT path FROM src.pages ORDER BY rowid")]
    for copy in range(copies + 1):
        rows = []
        for path in paths:
            new = clone_path(path, copy)
            rows.append((copy, path, new, link_key(new), key_base(link_key(new)), page_name(new), mark(copy)))
        db.executemany("INSERT INTO temp.moved VALUES (?,?,?,?,?,?,?)", rows)


def _by_copy(db: sqlite3.Connection, copies: int, table: str, columns: str, select: str, key: str) -> None:
    """Each copy's rows of ``table`` in source order: ``select`` over ``src.{table} t`` and ``moved m``."""
    for copy in range(copies + 1):
        db.execute(
            f"INSERT INTO {table} ({columns}) SELECT {select} FROM src.{table} t "
            f"JOIN temp.moved m ON m.copy = ? AND m.old = t.{key} ORDER BY t.rowid",
            (copy,),
        )


def clone_rows(db: sqlite3.Connection, source_index: Path, copies: int, search: bool) -> dict[str, float]:
    """The source index's rows, then each clone's (see the module's docstring). Returns seconds per step."""
    took: dict[str, float] = {}
    # one transaction of ~25 GB at 1M pages: a rollback journal holds only the few pages that existed before it,
    # where WAL would hold all of it again until a checkpoint; the index's secondary indexes take random-order
    # inserts, which SQLite's default 2 MB page cache turns into reads from disk
    db.execute("PRAGMA journal_mode = DELETE")
    db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    db.execute("ATTACH DATABASE ? AS src", (f"file:{source_index}?mode=ro",))
    _moved(db, copies)
    logged = db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search_gen%'"
    ).fetchall()
    with transaction(db):
        for name, _ in logged:
            db.execute(f"DROP TRIGGER {name}")
        started = time.perf_counter()
        _by_copy(
            db, copies, "pages", f"path, path_key, name_key, title, {COLUMNS}",
            f"m.new, m.path_key, m.name_key, m.title, {COLUMNS}", "path",
        )  # fmt: skip
        took["pages"] = time.perf_counter() - started
        if search:
            _clone_search(db, copies, took)
        for _, sql in logged:
            db.execute(sql)
        db.execute("UPDATE search_generation SET n = n + 1")  # a bump by code: a view loads whole
    db.execute("DETACH DATABASE src")
    db.execute("PRAGMA journal_mode = WAL")  # as open_index leaves every index
    return took


def _clone_search(db: sqlite3.Connection, copies: int, took: dict[str, float]) -> None:
    steps = {
        "chunks, and chunks_fts through its trigger": (
            "chunks", "path, ordinal, trail, heading, text, text_hash, words, kind, language",
            "m.new, t.ordinal, m.mark || t.trail, t.heading, t.text, t.text_hash, t.words, t.kind, t.language", "path",
        ),
        "headings": (
            "headings", "path, ordinal, level, text, line", "m.new, t.ordinal, t.level, t.text, t.line", "path",
        ),
        "links": (
            "links", "source, target, target_key, target_base, heading, display, kind, line, places, resolved",
            "m.new, t.target, t.target_key, t.target_base, t.heading, t.display, t.kind, t.line, t.places, t.resolved",
            "source",
        ),
        "aliases": ("aliases", "path, alias, alias_key", "m.new, t.alias, t.alias_key", "path"),
        "tags": ("tags", "path, tag", "m.new, t.tag", "path"),
        "analysis": (
            "analysis", "path, hash, status, summary, concepts, reason, model, analysed_at",
            "m.new, t.hash, t.status, t.summary, t.concepts, t.reason, t.model, t.analysed_at", "path",
        ),
    }  # fmt: skip
    for label, (table, columns, select, key) in steps.items():
        started = time.perf_counter()
        _by_copy(db, copies, table, columns, select, key)
        took[label] = time.perf_counter() - started
    started = time.perf_counter()
    db.execute(
        "INSERT INTO meta (key, value) SELECT key, value FROM src.meta WHERE key IN (?, ?, ?)",
        (IDENTITY_KEY, *(CENTRES_KEY.format(table=t) for t in ("chunk_vectors", "summary_vectors"))),
    )
    identity = db.execute("SELECT value FROM meta WHERE key = ?", (IDENTITY_KEY,)).fetchone()
    if identity is not None:  # else the source has no vectors: search_latency fills the clone's
        dims = int(json.loads(identity[0])["dims"])
        _clone_vectors(db, copies, "chunk_vectors", "text_hash, trail", dims)
        _clone_vectors(db, copies, "summary_vectors", "text", dims)
    took["vector tables"] = time.perf_counter() - started


def permutation(copy: int, dims: int) -> np.ndarray:
    """Copy ``copy``'s fixed permutation of the dimensions (the identity for the source)."""
    return np.arange(dims) if not copy else np.random.default_rng(copy).permutation(dims)


def _clone_vectors(db: sqlite3.Connection, copies: int, table: str, keys: str, dims: int) -> None:
    """The source's vectors, then each copy's: keyed by the copy's marked trail (or passage, which opens with
    the title), the offset from the language centre permuted, stored as ``bench/search_latency`` stores any."""
    recorded = db.execute("SELECT value FROM meta WHERE key = ?", (CENTRES_KEY.format(table=table),)).fetchone()
    if recorded is None:
        return
    centres, _ = parse(recorded[0])
    rest = "vec, scale, centre, bits, tokens, truncated"
    db.execute(f"INSERT INTO {table} ({keys}, {rest}) SELECT {keys}, {rest} FROM src.{table} ORDER BY id")
    for copy in range(1, copies + 1):
        order = permutation(copy, dims)
        cursor = db.execute(f"SELECT {keys}, vec, scale, tokens, truncated FROM src.{table} ORDER BY id")
        while batch := cursor.fetchmany(BATCH):
            columns = list(zip(*batch, strict=True))
            vectors = restore(columns[-4], columns[-3], dims)
            which = centres.nearest(vectors)
            vectors = centres.vectors[which] + (vectors - centres.vectors[which])[:, order]
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            _store(db, table, keys, centres, vectors, columns, mark(copy))
    count = int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    value = json.dumps({"n": count, "languages": list(centres.languages), "vectors": centres.vectors.tolist()})
    db.execute("UPDATE meta SET value = ? WHERE key = ?", (value, CENTRES_KEY.format(table=table)))


def _store(
    db: sqlite3.Connection, table: str, keys: str, centres: Centres, vectors: np.ndarray, columns: list, prefix: str
) -> None:
    q, scales = quantise(vectors)
    which = centres.nearest(vectors)
    bits = sign_bits(centres.centred(vectors, which))
    width = len(keys.split(", "))
    key_columns = [*columns[: width - 1], [prefix + k for k in columns[width - 1]]]
    db.executemany(
        f"INSERT INTO {table} ({keys}, vec, scale, centre, bits, tokens, truncated) "
        f"VALUES ({','.join('?' * width)},?,?,?,?,?,?)",
        [
            (*key, q[i].tobytes(), float(scales[i]), int(which[i]), bits[i].tobytes(), tokens, truncated)
            for i, (key, tokens, truncated) in enumerate(
                zip(zip(*key_columns, strict=True), columns[-2], columns[-1], strict=True)
            )
        ],
    )


def check_keys(db: sqlite3.Connection) -> None:
    """Every row's keys and title as the indexer computes them (``sync._store``): a wrong clone fails here."""
    for path, path_key, name_key, title in db.execute("SELECT path, path_key, name_key, title FROM pages"):
        if (path_key, name_key, title) != (link_key(path), key_base(link_key(path)), page_name(path)):
            raise SystemExit(f"cloned row {path!r} has keys {path_key!r}, {name_key!r}, {title!r}: not the indexer's")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True, help="the indexed vault to clone (only read)")
    parser.add_argument("--index", type=Path, required=True, help="its index (only read)")
    parser.add_argument("--out", type=Path, required=True, help="a new folder: OUT/vault and OUT/index.db")
    parser.add_argument("--copies", type=int, default=9)
    parser.add_argument("--search", action="store_true", help="clone every table search reads, not only pages")
    args = parser.parse_args(argv)
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: clone_vault makes a new folder, pick another or delete it")
    vault, index = args.out / "vault", args.out / "index.db"
    started = time.perf_counter()
    clone_files(args.vault.resolve(), vault, args.copies)
    print(f"hard-linked clones: {time.perf_counter() - started:.0f} s", flush=True)
    settings = Settings(vault=vault, index_path=index, _env_file=None)
    db = open_index(settings)
    took = clone_rows(db, args.index.resolve(), args.copies, args.search)
    check_keys(db)
    for step, seconds in took.items():
        print(f"  cloned {step}: {seconds:.0f} s", flush=True)
    pages = db.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    print(f"pages rows: {pages:,} ({time.perf_counter() - started:.0f} s)", flush=True)
    report = sync(settings, db)
    db.close()
    print(
        f"first sync ({report.walk} walk, {report.seconds:.1f} s): {report.added} added, {report.updated} updated, "
        f"{report.removed} removed, {report.unchanged:,} unchanged",
        flush=True,
    )
    if report.added or report.updated or report.removed or report.problems:
        raise SystemExit("the clone does not match its index: fix the clone rows, not the sync")
    print(f"done in {time.perf_counter() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
