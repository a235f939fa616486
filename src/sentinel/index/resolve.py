"""Link resolution as Obsidian does it, and the growth queue's revival.

A link target resolves by, in order: (1) exact vault path, (2) file-name match (a path suffix such as
``sub/Page`` must match whole components), (3) alias. Where several pages match, the shortest path wins, as in
Obsidian; remaining ties go to the lexicographically first path so every run decides the same way.
Resolution depends on the target key alone, so one UPDATE per key revives (or re-points) every link to it.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Iterator

from sentinel.paths import page_name, without_md
from sentinel.vault.links import key_base, link_key

_BATCH = 500


def _batches(items: list[str]) -> Iterator[list[str]]:
    for i in range(0, len(items), _BATCH):
        yield items[i : i + _BATCH]


def _best(paths: Iterable[str]) -> str | None:
    return min(paths, key=lambda p: (len(p), p), default=None)


def resolve_keys(db: sqlite3.Connection, keys: Iterable[str]) -> dict[str, str | None]:
    """Resolve link keys (see ``links.link_key``) to page paths, or None when nothing answers to them."""
    keys = sorted(set(keys))
    bases = sorted({key_base(k) for k in keys})
    by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
    by_alias: dict[str, list[str]] = defaultdict(list)
    for batch in _batches(bases):
        marks = ",".join("?" * len(batch))
        for path, path_key, name_key in db.execute(
            f"SELECT path, path_key, name_key FROM pages WHERE name_key IN ({marks})", batch
        ):
            by_name[name_key].append((path, path_key))
    for batch in _batches(keys):
        marks = ",".join("?" * len(batch))
        for path, alias_key in db.execute(f"SELECT path, alias_key FROM aliases WHERE alias_key IN ({marks})", batch):
            by_alias[alias_key].append(path)
    resolved: dict[str, str | None] = {}
    for key in keys:
        candidates = by_name.get(key_base(key), [])
        exact = _best(p for p, pk in candidates if pk == key)
        suffix = _best(p for p, pk in candidates if pk.endswith("/" + key))
        resolved[key] = exact or suffix or _best(by_alias.get(key, []))
    return resolved


def refresh_links(db: sqlite3.Connection, keys: Iterable[str]) -> int:
    """Re-resolve every link whose key is in ``keys``; one UPDATE per key. Returns links changed."""
    changed = 0
    for key, path in resolve_keys(db, keys).items():
        cursor = db.execute(
            "UPDATE links SET resolved = ? WHERE target_key = ? AND resolved IS NOT ?", (path, key, path)
        )
        changed += cursor.rowcount
    return changed


def keys_touching(db: sqlite3.Connection, names: Iterable[str]) -> set[str]:
    """Link keys whose resolution may change when pages or aliases with these names appear or vanish."""
    names = sorted(set(names))
    keys: set[str] = set()
    for batch in _batches(names):
        marks = ",".join("?" * len(batch))
        keys.update(
            row[0]
            for row in db.execute(
                f"SELECT DISTINCT target_key FROM links WHERE target_base IN ({marks}) OR target_key IN ({marks})",
                [*batch, *batch],
            )
        )
    return keys


def page_for_link(db: sqlite3.Connection, text: str) -> str | None:
    """The page a link with this target reaches (``[[Name]]`` brackets allowed), or None."""
    key = link_key(text.strip().removeprefix("[[").removesuffix("]]"))
    return resolve_keys(db, [key])[key] if key else None


def shortest_names(db: sqlite3.Connection, paths: Iterable[str]) -> dict[str, str]:
    """The shortest link target that reaches each page and could mean no other: its name when no other page
    has it, else the fewest trailing folders that tell it apart (``en/Plugins/Canvas``). ``page_for_link``
    reads every one back to its page, as a link would."""
    paths = sorted(set(paths))
    bases = sorted({key_base(link_key(p)) for p in paths})
    namesakes: dict[str, list[str]] = defaultdict(list)
    for batch in _batches(bases):
        marks = ",".join("?" * len(batch))
        for path_key, name_key in db.execute(
            f"SELECT path_key, name_key FROM pages WHERE name_key IN ({marks})", batch
        ):
            namesakes[name_key].append(path_key)
    names: dict[str, str] = {}
    for path in paths:
        key = link_key(path)
        parts = without_md(path).split("/")
        for depth in range(1, len(parts) + 1):
            suffix = "/".join(parts[-depth:]).casefold()
            reached = [k for k in namesakes[key_base(key)] if k == suffix or k.endswith("/" + suffix)]
            if reached == [key] or depth == len(parts):
                names[path] = "/".join(parts[-depth:]) if depth > 1 else page_name(path)
                break
    return names
