"""Bounded soak: Obsidian-like edits, concurrent searchers and captures against the real API, then a consistency
check of the index against a full rebuild.

    python bench/soak.py [--seconds 600] [--searchers 50] [--vault DIR]

Over a copy of the eval vault (or --vault), with the real API on a loopback port syncing every half second:
  - an editor edits pages the way Obsidian and sync tools do: write a temp file and rename it over the page,
    bursts of saves to one page, new pages, deletions, and renames of whole folders;
  - ``--searchers`` clients search over HTTP without pause;
  - a capturer saves conversations through /v1/capture;
  - hostile files lie in the vault from the start (issue 31): a YAML alias-bomb page, a FIFO and a socket named
    like pages, a symbolic link loop;
  - an appender appends lines in place to one page (as `echo >>` or an editor's append does) while API clients
    append to the same page through /v1/tools/write.
Prints operations, errors, p50/p99 per kind, 5xx answers, lost edits (a page whose bytes differ from the editor's
last save), lost appended lines and the rows by which the index differs from a full rebuild. Goal: 0 errors,
0 lost edits, 0 lost lines, 0 differences.
Lexical search only unless SENTINEL_EMBEDDER_URL / SENTINEL_EMBED_MODEL_DIR is set; no maintenance pass.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.tables import print_value_table  # noqa: E402
from sentinel.index.consistency import differences  # noqa: E402
from sentinel.index.db import open_index  # noqa: E402
from sentinel.keys import Scope, create_key  # noqa: E402
from sentinel.paths import keys_path  # noqa: E402
from sentinel.settings import Settings  # noqa: E402
from services.api.app import create_app  # noqa: E402
from tests.support.servers import serve  # noqa: E402

EVAL_VAULT = ROOT.parents[1] / "shared" / "eval" / "obsidian-help"
QUERIES = ["sync settings", "embed a file", "templates", "keyboard shortcuts", "graph view", "soak page", "links"]


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.server_errors = 0

    def count_status(self, status: int) -> None:
        if status >= 500:
            with self.lock:
                self.server_errors += 1

    def record(self, kind: str, started: float, error: str = "") -> None:
        with self.lock:
            self.latencies[kind].append(time.perf_counter() - started)
            if error:
                self.errors[kind].append(error)


class Editor:
    """Edits a folder of its own the way an editor does; remembers the last bytes it saved to every page."""

    def __init__(self, vault: Path, tally: Tally, seed: int) -> None:
        self.vault, self.tally, self.rng = vault, tally, random.Random(seed)
        self.folder = "soak"
        self.saved: dict[str, bytes] = {}
        self.n = 0

    def _save(self, rel: str, text: str) -> None:
        started = time.perf_counter()
        path = self.vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")  # Obsidian's way: a temp file renamed over the page
        data = text.encode()
        tmp.write_bytes(data)
        os.replace(tmp, path)
        self.saved[rel] = data
        self.tally.record("edit", started)

    def step(self) -> None:
        self.n += 1
        pages = sorted(self.saved)
        roll = self.rng.random()
        if roll < 0.4 or not pages:
            rel = f"{self.folder}/Soak page {self.n}.md"
            self._save(rel, f"# Soak page {self.n}\nsoak page words {self.n} [[Soak page {self.n - 1}]]\n")
        elif roll < 0.75:
            rel = self.rng.choice(pages)
            for burst in range(self.rng.randint(1, 5)):  # autosave bursts
                self._save(rel, f"# Edited\nsoak page edited {self.n}.{burst} [[Soak page {self.n}]]\n")
        elif roll < 0.9:
            rel = self.rng.choice(pages)
            started = time.perf_counter()
            (self.vault / rel).unlink()
            del self.saved[rel]
            self.tally.record("delete", started)
        else:
            started = time.perf_counter()
            new = f"soak-{self.n}"
            os.rename(self.vault / self.folder, self.vault / new)
            self.saved = {f"{new}/{k.split('/', 1)[1]}": v for k, v in self.saved.items()}
            self.folder = new
            self.tally.record("folder rename", started)

    def lost(self) -> list[str]:
        return [rel for rel, data in self.saved.items() if (self.vault / rel).read_bytes() != data]


LOG_PAGE = "notes/Soak append log.md"
BOMB = "\n".join(
    ["---", "a0: &a0 [lol]"]
    + [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    + ["---", "alias bomb body", ""]
)


def _plant_hostile(vault: Path) -> None:
    """The hostile files of issue 31, present before the API starts."""
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes/Soak bomb.md").write_text(BOMB)
    os.mkfifo(vault / "notes/Soak pipe.md")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(vault / "notes/Soak socket.md"))
    server.close()
    os.symlink("Soak loop b.md", vault / "notes/Soak loop a.md")
    os.symlink("Soak loop a.md", vault / "notes/Soak loop b.md")
    (vault / LOG_PAGE).write_text("# Append log\n")


class Appends:
    """Lines appended to ``LOG_PAGE`` by the in-place appender and by API clients; every one must be there."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lines: list[str] = []

    def add(self, line: str) -> None:
        with self.lock:
            self.lines.append(line)

    def lost(self, vault: Path) -> list[str]:
        present = set((vault / LOG_PAGE).read_text().splitlines())
        return [line for line in self.lines if line not in present]


def _append_in_place(vault: Path, until: float, stop: threading.Event, appends: Appends, tally: Tally) -> None:
    n = 0
    while time.monotonic() < until and not stop.is_set():
        line = f"editor line {n}"
        started = time.perf_counter()
        fd = os.open(vault / LOG_PAGE, os.O_WRONLY | os.O_APPEND)
        os.write(fd, f"{line}\n".encode())
        os.close(fd)
        appends.add(line)
        tally.record("editor append", started)
        n += 1
        time.sleep(0.02)


async def _api_appender(url: str, key: str, until: float, tally: Tally, appends: Appends, i: int) -> None:
    async with httpx.AsyncClient(timeout=60, headers={"Authorization": f"Bearer {key}"}) as client:
        n = 0
        while time.monotonic() < until:
            line = f"api {i} line {n}"
            body = {"path": LOG_PAGE, "content": line, "mode": "append"}
            started = time.perf_counter()
            try:
                answer = await client.post(f"{url}/v1/tools/write", json=body)
                ok = answer.status_code == 200 and answer.json()["text"].startswith("[OK]")
                if ok:
                    appends.add(line)
                tally.count_status(answer.status_code)
                tally.record("api append", started, "" if ok else f"{answer.status_code} {answer.text[:120]}")
            except httpx.HTTPError as err:
                tally.record("api append", started, repr(err))
            n += 1
            await asyncio.sleep(0.05)


async def _searcher(url: str, key: str, until: float, tally: Tally, i: int) -> None:
    async with httpx.AsyncClient(timeout=60, headers={"Authorization": f"Bearer {key}"}) as client:
        n = i
        while time.monotonic() < until:
            started = time.perf_counter()
            try:
                answer = await client.post(f"{url}/v1/tools/search", json={"query": QUERIES[n % len(QUERIES)]})
                ok = answer.status_code == 200 and not answer.json()["text"].startswith("[STOP]")
                tally.count_status(answer.status_code)
                tally.record("search", started, "" if ok else f"{answer.status_code} {answer.text[:120]}")
            except httpx.HTTPError as err:
                tally.record("search", started, repr(err))
            n += 7


async def _capturer(url: str, key: str, until: float, tally: Tally) -> None:
    async with httpx.AsyncClient(timeout=60, headers={"Authorization": f"Bearer {key}"}) as client:
        n = 0
        while time.monotonic() < until:
            n += 1
            body = {
                "chat_id": f"soak-chat-{n % 5}",
                "messages": [{"role": "user", "content": f"question {n}"}, {"role": "assistant", "content": "ok"}],
                "subject": f"Soak capture {n % 3}",
                "content": f"kept {n}",
            }
            started = time.perf_counter()
            try:
                answer = await client.post(f"{url}/v1/capture", json=body)
                ok = answer.status_code == 200 and answer.json()["text"].startswith("[OK]")
                tally.count_status(answer.status_code)
                tally.record("capture", started, "" if ok else f"{answer.status_code} {answer.text[:120]}")
            except httpx.HTTPError as err:
                tally.record("capture", started, repr(err))
            await asyncio.sleep(0.5)


def _edit(editor: Editor, until: float, stop: threading.Event) -> None:
    while time.monotonic() < until and not stop.is_set():
        try:
            editor.step()
        except OSError as err:
            editor.tally.record("edit", time.perf_counter(), repr(err))
        time.sleep(editor.rng.uniform(0.01, 0.2))


def _ms(values: list[float], q: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--searchers", type=int, default=50)
    parser.add_argument("--vault", type=Path, default=EVAL_VAULT)
    parser.add_argument("--appenders", type=int, default=8, help="API clients appending beside the editor")
    args = parser.parse_args()
    logging.disable(logging.INFO)
    with tempfile.TemporaryDirectory(prefix="sentinel-soak-") as scratch:
        vault = Path(scratch) / "vault"
        shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(".sentinel", ".obsidian"))
        _plant_hostile(vault)
        appends = Appends()
        settings = Settings(vault=vault, index_path=Path(scratch) / "index.db", sync_interval_s=0.5)
        _, key = create_key(keys_path(settings), Scope.WRITE, "soak")
        tally = Tally()
        editor = Editor(vault, tally, seed=1)
        stop = threading.Event()
        with serve(create_app(settings), timeout=300) as url:
            until = time.monotonic() + args.seconds
            editing = threading.Thread(target=_edit, args=(editor, until, stop), daemon=True)
            editing.start()
            appending = threading.Thread(
                target=_append_in_place, args=(vault, until, stop, appends, tally), daemon=True
            )
            appending.start()

            async def load() -> None:
                await asyncio.gather(
                    *(_searcher(url, key, until, tally, i) for i in range(args.searchers)),
                    _capturer(url, key, until, tally),
                    *(_api_appender(url, key, until, tally, appends, i) for i in range(args.appenders)),
                )

            asyncio.run(load())
            stop.set()
            editing.join()
            appending.join()
            time.sleep(1.5)  # the API's last sync
        db = open_index(settings)
        diff = differences(settings, db)
        lost = editor.lost()
        lost_lines = appends.lost(vault)
        appended = len(appends.lines)
    rows = []
    for kind in sorted(tally.latencies):
        lat, errs = tally.latencies[kind], tally.errors[kind]
        rows.append((f"{kind}: ops / errors", f"{len(lat)} / {len(errs)}"))
        rows.append((f"{kind}: p50 / p99 ms", f"{_ms(lat, 0.5)} / {_ms(lat, 0.99)}"))
        if errs:
            rows.append((f"{kind}: first error", errs[0].replace("|", "/")))
    rows += [
        ("seconds / searchers", f"{args.seconds:.0f} / {args.searchers}"),
        ("lost edits", str(len(lost))),
        ("appended lines (editor in place + API) / lost", f"{appended} / {len(lost_lines)}"),
        ("5xx answers", str(tally.server_errors)),
        ("index rows differing from a full rebuild", str(sum(diff.values())) + (f" {diff}" if diff else "")),
        ("mean searches per second", f"{len(tally.latencies['search']) / args.seconds:.1f}"),
    ]
    print_value_table("soak", rows)
    sys.exit(1 if lost or lost_lines or diff or tally.server_errors or any(tally.errors.values()) else 0)


if __name__ == "__main__":
    main()
