"""Issue 32, round four's unshipped variant, for the bench only: prose windows where each window after the
first opens with the last paragraph of the window before when that paragraph is at most ``OVERLAP_WORDS``
words (docs/retrieval.md, "Round five"). Runs ``bench/retrieval.py`` with ``sentinel.vault.entries.windows``
replaced; the window size and the leg weights come from the environment, as round four set them:

    SENTINEL_CHUNK_WORDS=120 SENTINEL_SEARCH__WEIGHT_LEXICAL=1.5 SENTINEL_SEARCH__WEIGHT_CHUNKS=2.0 \\
    SENTINEL_SEARCH__WEIGHT_SUMMARIES=0.75 SENTINEL_SEARCH__WEIGHT_EXCERPTS=0.75 \\
        python bench/overlap_variant.py --index VARIANT.db --sets vault-fresh
"""

from __future__ import annotations

import re
import sys

from sentinel.vault import entries

OVERLAP_WORDS = 60


def overlapping_windows(text: str, limit: int) -> list[str]:
    """``entries.windows`` with one short paragraph of overlap: a window that is cut at a paragraph boundary
    hands its last paragraph (when at most ``OVERLAP_WORDS`` words) to the next window as its opening."""
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for para in re.split(r"\n\s*\n", text):
        words = len(para.split())
        if not words:
            continue
        if words > limit:
            if current:
                pieces.append("\n\n".join(current))
                current, count = [], 0
            tokens = para.split()
            pieces.extend(" ".join(tokens[i : i + limit]) for i in range(0, len(tokens), limit))
            continue
        if count + words > limit and current:
            pieces.append("\n\n".join(current))
            last = current[-1]
            current, count = [], 0
            if len(last.split()) <= OVERLAP_WORDS:
                current, count = [last], len(last.split())
        current.append(para.strip())
        count += words
    if current:
        pieces.append("\n\n".join(current))
    return pieces


def main(argv: list[str] | None = None) -> int:
    entries.windows = overlapping_windows  # type: ignore[assignment]
    from bench.retrieval import main as retrieval_main

    return retrieval_main(argv)


if __name__ == "__main__":
    sys.exit(main())
