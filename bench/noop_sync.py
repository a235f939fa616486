"""No-op sync: the folder-times walk against the full walk, on an indexed vault with nothing changed.

    python bench/noop_sync.py --pages 100000 [--runs 5]     # the vault and index bench/search_latency.py made
    python bench/noop_sync.py --vault DIR --index PATH [--walk folders] [--profile 25]

Runs ``sync`` ``--runs`` times each way on the same index (the full walk by declaring the file system
untrusted for the run) and prints the median and the worst, wall and CPU (process) time, the process's peak
RSS and the load average beside them. ``--walk folders`` runs only the folder-times syncs (the index must hold
a settled record, as bench/clone_vault.py leaves one), so the peak RSS is theirs alone. ``--profile N`` adds
one folder-times sync under cProfile and prints its N costliest functions (own time): where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
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


def _runs(settings: Settings, runs: int, trusted: frozenset[str]) -> tuple[list[float], list[float], set[str]]:
    folders.TRUSTED_TYPES = trusted
    folders.trusts_folder_times.cache_clear()
    db = open_index(settings)
    wall: list[float] = []
    cpu: list[float] = []
    kernel: list[float] = []  # the system share of the CPU time: the stats and SQLite's reads
    how: set[str] = set()
    for _ in range(runs):
        started, started_cpu, started_sys = time.perf_counter(), time.process_time(), _system_s()
        report = sync(settings, db)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        kernel.append(_system_s() - started_sys)
        how.add(report.walk)
        assert not (report.added or report.updated or report.removed), "the vault changed during the bench"
    db.close()
    return wall, cpu, kernel, how


def _system_s() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


def _load() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0]


def _peak_mb() -> str:
    return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"  # Linux gives KiB


def _timed(name: str, wall: list[float], cpu: list[float], kernel: list[float]) -> tuple[str, str]:
    return (
        f"{name}, median / worst (s): wall; CPU (of it system, median)",
        f"{statistics.median(wall):.2f} / {max(wall):.2f}; {statistics.median(cpu):.2f} / {max(cpu):.2f} "
        f"({statistics.median(kernel):.2f})",
    )


def _profile(settings: Settings, top: int) -> None:
    db = open_index(settings)
    profiler = cProfile.Profile()
    report = profiler.runcall(sync, settings, db)
    db.close()
    print(f"\none {report.walk} sync under cProfile, {top} costliest functions by own time:")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, help="the cached synthetic vault of this size")
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--index", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--walk", choices=("both", "folders"), default="both")
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    args = parser.parse_args(argv)
    vault = args.vault or CACHE / f"synth-{args.pages}"
    index = args.index or CACHE / f"synth-{args.pages}.db"
    settings = Settings(vault=vault, index_path=index, _env_file=None)
    trusted = folders.TRUSTED_TYPES
    rows = [("load average (1 min) at start", _load())]
    if args.walk == "both":
        full_wall, full_cpu, full_kernel, _ = _runs(settings, args.runs, frozenset())
        rows += [_timed("full walk", full_wall, full_cpu, full_kernel), ("peak RSS after the full walks", _peak_mb())]
        rows.append(("load average after the full walks", _load()))
        _runs(settings, 1, trusted)  # records the folders
        time.sleep(folders.SETTLE_NS / 1e9)  # ... which count once settled
    wall, cpu, kernel, how = _runs(settings, args.runs, trusted)
    rows += [_timed(f"folder times ({', '.join(sorted(how))})", wall, cpu, kernel), ("peak RSS (process)", _peak_mb())]
    rows.append(("load average (1 min) at end", _load()))
    print_value_table(f"no-op sync of {vault}", rows)
    if args.profile:
        _profile(settings, args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
