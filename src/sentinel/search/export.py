"""``sentinel export-vectors``: the semantic summary leg as a compact store the Obsidian plugin searches offline.

The plugin (obsidian-plugin/src/ondevice.ts) embeds the query with the same e5 int8 model in its ``query:``
form and ranks exactly as ``vectors.nearest`` does for this leg: each page's int8 vector times its scale,
minus its language's centre, at unit length, against the query minus its nearest centre. So on a phone with no
server the Semantic mode gives the pages the server's summary leg gives (the server rescores all vectors when it
holds at most ``CANDIDATES`` of them, else Hamming candidates first; on-device always rescores all).

Layout, in ``<vault>/.sentinel/vectors/`` (``paths.vectors_export_dir``), written whole or not at all:
``manifest.json`` (format, model identity, dims, count, language centres, each row's page path and title) and
``vectors.bin``: ``count * dims`` int8, then ``count`` float32 scales, then ``count`` int16 centre indices,
little-endian.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sentinel.errors import Refused
from sentinel.search.embedding import recorded_identity
from sentinel.search.results import LEG_SUMMARIES
from sentinel.search.vectors import stored
from sentinel.search.view import current_view

FORMAT = "sentinel-vectors/1"
MANIFEST = "manifest.json"
VECTORS = "vectors.bin"


class ExportRefused(Refused, RuntimeError):
    """Nothing to export yet, with what to run."""


@dataclass(frozen=True)
class Exported:
    folder: Path
    count: int
    bytes: int


def export_vectors(db: sqlite3.Connection, folder: Path) -> Exported:
    """Write the summary leg's vectors of ``db`` into ``folder`` (replacing an earlier export atomically)."""
    view = current_view(db)
    vectors = view.summaries
    identity = recorded_identity(db)
    if vectors is None or not len(vectors) or identity is None:
        raise ExportRefused("no page summary has a vector yet: run `sentinel embed` first, then export again")
    found = stored(db, vectors.table, vectors.vector_ids.tolist())
    keep = [i for i, vid in enumerate(vectors.vector_ids.tolist()) if int(vid) in found]
    rowids = [int(vectors.items[i]) for i in keep]
    pages = dict(_pages(db, rowids))
    keep = [i for i, rowid in zip(keep, rowids, strict=True) if rowid in pages]
    blobs = b"".join(found[int(vectors.vector_ids[i])][0] for i in keep)
    scales = np.array([found[int(vectors.vector_ids[i])][1] for i in keep], dtype="<f4")
    centre_of = vectors.centre_of[keep].astype("<i2")
    manifest = {
        "format": FORMAT,
        "leg": LEG_SUMMARIES,
        "model": identity,
        "query_prefix": "query: ",
        "dims": vectors.dims,
        "count": len(keep),
        "centres": vectors.centres.vectors.astype(float).tolist(),
        "languages": list(vectors.centres.languages),
        "pages": [pages[int(vectors.items[i])] for i in keep],
    }
    folder.mkdir(parents=True, exist_ok=True)
    data = blobs + scales.tobytes() + centre_of.tobytes()
    _replace(folder / VECTORS, data)
    _replace(folder / MANIFEST, json.dumps(manifest, ensure_ascii=False).encode())
    return Exported(folder, len(keep), len(data))


def _pages(db: sqlite3.Connection, rowids: list[int]) -> list[tuple[int, list[str]]]:
    out: list[tuple[int, list[str]]] = []
    for start in range(0, len(rowids), 500):
        batch = rowids[start : start + 500]
        marks = ",".join("?" * len(batch))
        out += [
            (int(r[0]), [r[1], r[2]])
            for r in db.execute(f"SELECT rowid, path, title FROM pages WHERE rowid IN ({marks})", batch)
        ]
    return out


def _replace(path: Path, data: bytes) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, path)
