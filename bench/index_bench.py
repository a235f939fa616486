"""Index benchmarks: full rebuild speed, no-op sync, revival of a much-linked name, peak memory.

    python bench/index_bench.py [--pages 10000] [--vault DIR] [--eval]

Prints a table. Synthetic vaults come from bench/synth_vault.py and are cached under .cache/bench/.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.synth_vault import generate  # noqa: E402
from sentinel.index.db import open_index  # noqa: E402
from sentinel.index.sync import sync, sync_paths  # noqa: E402
from sentinel.settings import Settings  # noqa: E402
from tests.support.eval_data import eval_vault_path  # noqa: E402

EVAL_VAULT = eval_vault_path()


def synthetic(pages: int) -> Path:
    vault = ROOT / ".cache" / "bench" / f"synth-{pages}"
    if not (vault / ".complete").exists():
        shutil.rmtree(vault, ignore_errors=True)
        generate(vault, pages)
        (vault / ".complete").touch()
    return vault


def measure_vault(name: str, vault: Path, table: Table) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(vault=vault, index_path=Path(tmp) / "index.db", _env_file=None)
        db = open_index(settings)
        report = sync(settings, db, rebuild=True)
        pages = report.added
        rebuild_rate = pages / report.seconds
        noop = min(sync(settings, db).seconds for _ in range(3))
        chunks = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        table.add_row(
            name,
            f"{pages:,}",
            f"{chunks:,}",
            f"{report.seconds:.1f} s",
            f"{rebuild_rate:,.0f}",
            f"{noop * 1000:.0f} ms",
            "",
            "",
        )


def measure_revival(links: int, table: Table) -> None:
    """``links`` pages each link to a name no page answers to; then the page appears."""
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        (vault / "notes").mkdir(parents=True)
        for i in range(links):
            (vault / "notes" / f"p{i}.md").write_text(f"page {i} reaches for [[Much Wanted]]\n")
        settings = Settings(vault=vault, index_path=Path(tmp) / "index.db", _env_file=None)
        db = open_index(settings)
        sync(settings, db)
        (vault / "notes" / "Much Wanted.md").write_text("here at last\n")
        started = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        changed = db.execute(
            "UPDATE links SET resolved = 'notes/Much Wanted.md' WHERE target_key = 'much wanted'"
        ).rowcount
        update_ms = (time.perf_counter() - started) * 1000
        db.execute("ROLLBACK")
        report = sync_paths(settings, db, ["notes/Much Wanted.md"])
        assert report.links_changed == changed == links
        table.add_row(
            f"revive a name {links:,} links reach for",
            "",
            "",
            "",
            "",
            "",
            f"{update_ms:.1f} ms",
            f"{report.seconds * 1000:.0f} ms",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="*", default=[10_000])
    parser.add_argument("--eval", action="store_true", help="also measure the eval vault")
    args = parser.parse_args()
    table = Table(
        "vault",
        "pages",
        "chunks",
        "rebuild",
        "pages/s",
        "no-op sync",
        "revival UPDATE",
        "revival sync",
        title="sentinel index",
    )
    if args.eval:
        measure_vault("eval (obsidian-help)", EVAL_VAULT, table)
    for pages in args.pages:
        measure_vault(f"synthetic {pages:,}", synthetic(pages), table)
    measure_revival(10_000, table)
    Console().print(table)
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
