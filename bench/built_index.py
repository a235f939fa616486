"""The ``--index`` of a bench that only reads one: refused by name when no file is there.

Opening an index creates it, so a wrong path (a question typed where the path went) left an empty SQLite file
named as the question at the repository's root, and the bench answered from nothing: an empty index lets no
passage in, and every table it prints reads as "the vault does not say".
"""

from __future__ import annotations

import argparse
from pathlib import Path


def built_index(text: str) -> Path:
    """``text`` as a path to an index file that exists (an ``argparse`` type)."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(
            f"no index at {text!r}: give the path of an index built before (bench/retrieval.py builds one of the "
            "eval vault in .cache/bench/)"
        )
    return path
