"""A vault N times the size of an indexed one, cheaply: hard-linked clones of its pages and SQL-cloned ``pages`` rows.

    python bench/clone_vault.py --vault .cache/bench/synth-100000 --index .cache/bench/synth-100000.db \\
        --out /tmp/m1 --copies 9
    python bench/noop_sync.py --vault /tmp/m1/vault --index /tmp/m1/index.db --runs 5

For what reads only the ``pages`` table (path, mtime_ns, size, role) and stats files, a no-op sync above all:
building a 1M-page index through the real sync takes hours on two cores. ``OUT/vault`` holds the source vault's
folders plus ``--copies`` clones of each role folder's contents, one level down (``notes/t12/x.md`` ->
``notes/c3/t12/x.md``), so every clone keeps its role; the files are hard links (same inode: the same mtime and
size, no disk). ``OUT/index.db`` is a fresh index (``open_index``: the real migrations) whose ``pages`` rows are
the source index's, copied with the path and ``path_key`` rewritten for each clone (``name_key`` and the title
are the file name's and stay). No chunks, links or vectors: the index is fit for a sync, not for search. The
source vault and index are only read. Then one real ``sync`` must find nothing to add, update or remove; it is
a full walk and records the folder times for the no-op syncs that follow.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

from sentinel.index.db import open_index
from sentinel.index.migrations import transaction
from sentinel.index.sync import sync
from sentinel.paths import page_name
from sentinel.settings import Settings
from sentinel.vault.links import key_base, link_key

COLUMNS = "title, name_key, role, frontmatter, description, hash, mtime_ns, size, problem, indexed_at, date"


def clone_folder(top: str, copy: int) -> str:
    """Where copy ``copy`` of a role folder's contents goes: one level down, so its role (the top folder) holds."""
    return f"{top}/c{copy}"


def clone_files(source: Path, vault: Path, copies: int) -> None:
    """The source vault hard-linked into ``vault``, plus ``copies`` hard-linked clones of each top folder."""
    shutil.copytree(source, vault, copy_function=os.link)
    tops = sorted(p.name for p in source.iterdir() if p.is_dir() and not p.name.startswith("."))
    taken = [f"{top}/c{copy}" for top in tops for copy in range(1, copies + 1) if (source / top / f"c{copy}").exists()]
    if taken:
        raise SystemExit(f"the source vault already has {taken[0]}: clones would mix with it; pick another vault")
    for copy in range(1, copies + 1):
        for top in tops:
            shutil.copytree(source / top, vault / clone_folder(top, copy), copy_function=os.link)


def clone_rows(db: sqlite3.Connection, source_index: Path, copies: int) -> int:
    """The source index's ``pages`` rows, then each clone's: the path and path_key get ``c<copy>/`` after their
    first component (every page sits under a top folder; a page at the vault's root is refused)."""
    db.execute("ATTACH DATABASE ? AS src", (f"file:{source_index}?mode=ro",))
    loose = db.execute("SELECT path FROM src.pages WHERE instr(path, '/') = 0 LIMIT 1").fetchone()
    if loose:
        raise SystemExit(f"'{loose[0]}' sits at the vault's root: this script clones top folders only")
    with transaction(db):
        db.execute(f"INSERT INTO pages (path, path_key, {COLUMNS}) SELECT path, path_key, {COLUMNS} FROM src.pages")
        for copy in range(1, copies + 1):
            shifted = "substr({0}, 1, instr({0}, '/')) || ? || substr({0}, instr({0}, '/') + 1)"
            db.execute(
                f"INSERT INTO pages (path, path_key, {COLUMNS}) "
                f"SELECT {shifted.format('path')}, {shifted.format('path_key')}, {COLUMNS} FROM src.pages",
                (f"c{copy}/", f"c{copy}/"),
            )
    db.execute("DETACH DATABASE src")
    return int(db.execute("SELECT COUNT(*) FROM pages").fetchone()[0])


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
    args = parser.parse_args(argv)
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: clone_vault makes a new folder, pick another or delete it")
    vault, index = args.out / "vault", args.out / "index.db"
    started = time.perf_counter()
    clone_files(args.vault.resolve(), vault, args.copies)
    print(f"hard-linked clones: {time.perf_counter() - started:.0f} s", flush=True)
    settings = Settings(vault=vault, index_path=index, _env_file=None)
    db = open_index(settings)
    pages = clone_rows(db, args.index.resolve(), args.copies)
    check_keys(db)
    print(f"pages rows: {pages:,} ({time.perf_counter() - started:.0f} s)", flush=True)
    report = sync(settings, db)
    db.close()
    print(
        f"first sync ({report.walk} walk, {report.seconds:.1f} s): {report.added} added, {report.updated} updated, "
        f"{report.removed} removed, {report.unchanged:,} unchanged"
    )
    if report.added or report.updated or report.removed or report.problems:
        raise SystemExit("the clone does not match its index: fix the clone rows, not the sync")
    return 0


if __name__ == "__main__":
    sys.exit(main())
