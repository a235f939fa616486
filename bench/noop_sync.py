"""No-op sync: the folder-times walk against the full walk, on an indexed vault with nothing changed.

    python bench/noop_sync.py --pages 100000 [--runs 5]     # the vault and index bench/search_latency.py made
    python bench/noop_sync.py --vault DIR --index PATH

Runs ``sync`` ``--runs`` times each way on the same index (the full walk by declaring the file system
untrusted for the run) and prints the median and the worst, with the load average beside them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from sentinel.index import folders
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import print_value_table

CACHE = Path(__file__).resolve().parents[1] / ".cache" / "bench"


def _runs(settings: Settings, runs: int, trusted: frozenset[str]) -> tuple[list[float], set[str]]:
    folders.TRUSTED_TYPES = trusted
    folders.trusts_folder_times.cache_clear()
    db = open_index(settings)
    seconds, how = [], set()
    for _ in range(runs):
        started = time.perf_counter()
        report = sync(settings, db)
        seconds.append(time.perf_counter() - started)
        how.add(report.walk)
        assert not (report.added or report.updated or report.removed), "the vault changed during the bench"
    db.close()
    return seconds, how


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, help="the cached synthetic vault of this size")
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--index", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    vault = args.vault or CACHE / f"synth-{args.pages}"
    index = args.index or CACHE / f"synth-{args.pages}.db"
    settings = Settings(vault=vault, index_path=index, _env_file=None)
    trusted = folders.TRUSTED_TYPES
    load = Path("/proc/loadavg").read_text().split(" ")[0]
    full, _ = _runs(settings, args.runs, frozenset())
    _runs(settings, 1, trusted)  # records the folders
    time.sleep(folders.SETTLE_NS / 1e9)  # ... which count once settled
    quick, how = _runs(settings, args.runs, trusted)
    rows = [
        ("load average (1 min) at start / end", f"{load} / {Path('/proc/loadavg').read_text().split(' ')[0]}"),
        ("full walk, median / worst (s)", f"{statistics.median(full):.2f} / {max(full):.2f}"),
        (
            f"folder times ({', '.join(sorted(how))}), median / worst (s)",
            f"{statistics.median(quick):.2f} / {max(quick):.2f}",
        ),
    ]
    print_value_table(f"no-op sync of {vault}", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
