"""Translation families do not depend on a process's string-hash order.

Joining near-identical pages is order-dependent (a join can refuse a later one that would put two pages of
one language in a family), so the order must come from the vectors and ranks, never from iterating a set of
language codes, whose order changes with ``PYTHONHASHSEED`` from one process to the next.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# four pages: en A and es C are near-identical, as are A and de B, and C and de D; each pair is mutual
# nearest in its languages, so a join order decides whether {A, B} + {C, D} or {A, B, C} + {D} result
_FAMILIES_IN_A_PROCESS = """
import json
import numpy as np
from sentinel.search import families

vectors = {
    "A.md": np.array([1.0, 0.0, 0.0]),
    "B.md": np.array([0.97, 0.243, 0.0]),
    "C.md": np.array([0.93, 0.0, 0.367]),
    "D.md": np.array([0.8, 0.0, 0.6]),
}
vectors = {p: v / np.linalg.norm(v) for p, v in vectors.items()}
families.page_vectors = lambda db, paths: {p: vectors[p] for p in paths}
language = {"A.md": "en", "B.md": "de", "C.md": "es", "D.md": "de"}
top = list(vectors)
union = families._Union(top, language)
families._join_near_identical(None, top, language, union)
print(json.dumps(sorted(sorted(p for p in top if union.find(p) == root) for root in {union.find(p) for p in top})))
"""


def _families_with_seed(seed: int) -> list[list[str]]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, "-c", _FAMILIES_IN_A_PROCESS], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_the_same_families_whatever_the_hash_seed() -> None:
    seen = {json.dumps(_families_with_seed(seed)) for seed in range(12)}
    assert len(seen) == 1, f"families differ between processes: {seen}"
    # the closest pair (A, B at .97) joins first; A and C then cannot share a family with B's German
    assert json.loads(seen.pop()) == [["A.md", "B.md"], ["C.md", "D.md"]]
