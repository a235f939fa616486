"""The browser check: bench/browser_turns.tsv typed into the real Open WebUI in Chromium; what a person reads.

Prints a markdown table, one row per turn (docs/answers.md, "The browser check as a bench").

    PYTHONPATH=src:. SENTINEL_TEST_LLAMA_THREADS=1 nice -n 5 .venv/bin/python bench/browser_chat.py --out DIR

How: the eval vault is copied fresh into a scratch folder and indexed with the defaults (e5 embeddings in
process); the stack the Open WebUI tests run starts on it (tests/openwebui's ``sentinel_in_open_webui``: the small
Qwen on llama.cpp with ctx 8192, the real tool API, a fresh Open WebUI) and ``sentinel openwebui setup`` gives it
the Sentinel model in auto mode, as tests/openwebui/test_answers_end_to_end.py. Chromium (Playwright) signs in,
types each turn key by key and presses Enter; the message's text is sampled every 0.25 s (the working line) until
Open WebUI stores the reply as done (the seconds: Enter to that), then the finished message's DOM text is read,
with its stored content, status history and sources, and a screenshot is taken. Written under --out: one JSON
file (every turn, every sample) and turn-NN.png per turn. Printed: the table, the counts over the vault turns
and the saves, wall time, CPU time (this process and its children, all reaped by the end) and load averages.

Needs .venv-owui (`make openwebui`), the models (`make llm models`), Redis on 127.0.0.1:6379, Debian's chromium
(`apt-get install chromium`) and the eval vault (SENTINEL_EVAL_VAULT).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.browser_turns import TURNS_FILE, Turn, TurnsFileError, load_turns, markup_shown, trimmed

if TYPE_CHECKING:  # the heavy imports are lazy: --help works without Open WebUI, Playwright or the models
    import httpx
    from playwright.sync_api import Page

    from tests.openwebui.servers import SentinelInOpenWebUI

SAMPLE_S = 0.25
SIGN_IN_S = 120  # the stack is up before the browser starts: the form is drawn in seconds
# The last assistant message as the page draws it: its status lines and its rendered content (ResponseMessage's
# `.status-description` and `#response-content-container` in Open WebUI 0.12).
LAST_REPLY_JS = """() => {
  const replies = document.querySelectorAll('div[id^="message-"] .chat-assistant');
  const last = replies[replies.length - 1];
  if (!last) return null;
  const box = last.closest('div[id^="message-"]');
  const status = [...last.querySelectorAll('.status-description')].map(e => e.innerText.trim()).filter(Boolean);
  const content = last.querySelector('#response-content-container');
  return {id: box.id.slice('message-'.length), status: status, content: content ? content.innerText : '',
          text: last.innerText};
}"""


@dataclass
class Result:
    n: int
    chat: str
    turn: str
    status: str  # the status line drawn above the answer when it finished
    read: str  # the finished answer's content as drawn (DOM text)
    shown: str  # the whole message as drawn: status, content, sources
    sources: list[str]
    fact_right: bool
    page_cited: bool
    markup: list[str]
    working: str  # the first line drawn while the turn ran (status or text), "" when none was sampled
    working_at_s: float
    seconds: float
    load: float
    stored: dict[str, Any] = field(default_factory=dict)  # content, statusHistory, sources as Open WebUI stored them
    samples: list[dict[str, Any]] = field(default_factory=list)
    screenshot: str = ""


def missing_prerequisites() -> list[str]:
    """What the check cannot run without, each with the command that provides it."""
    from tests.openwebui.servers import OWUI_PYTHON
    from tests.support.embedder import E5_DIR
    from tests.support.eval_data import missing_eval_vault
    from tests.support.llm_model import MODEL_PATH
    from tests.support.surfaces import CHROMIUM

    missing = []
    if not OWUI_PYTHON.exists():
        missing.append(f"{OWUI_PYTHON} is missing: run `make openwebui` (or `make test-prereqs`)")
    if not MODEL_PATH.is_file():
        missing.append(f"{MODEL_PATH} is missing: run `make llm`")
    if not E5_DIR.is_dir():
        missing.append(f"{E5_DIR} is missing: run `make models`")
    if not CHROMIUM.exists():
        missing.append(f"{CHROMIUM} is missing: apt-get install chromium")
    if reason := missing_eval_vault():
        missing.append(reason)
    return missing


def index_fresh(work: Path) -> dict[str, Any]:
    """Copy the eval vault into ``work``/vault and index it into ``work``/index.db with the default settings."""
    from sentinel.embed.factory import embedder_from_settings
    from sentinel.index.db import open_index
    from sentinel.index.sync import sync
    from sentinel.search import embed_pending
    from sentinel.settings import Settings
    from tests.support.embedder import E5_DIR
    from tests.support.eval_data import eval_vault_path

    started, cpu = time.monotonic(), time.process_time()
    shutil.copytree(eval_vault_path(), work / "vault", ignore=shutil.ignore_patterns("*.tsv", "*.txt"))
    settings = Settings(vault=work / "vault", index_path=work / "index.db", embed_model_dir=E5_DIR, _env_file=None)
    db = open_index(settings)
    try:
        sync(settings, db)
        embedder = embedder_from_settings(settings)
        assert embedder is not None
        embed_pending(db, embedder)
        pages = db.execute("SELECT count(*) FROM pages").fetchone()[0]
        chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        db.close()
    wall, used = time.monotonic() - started, time.process_time() - cpu
    return {"pages": pages, "chunks": chunks, "wall_s": round(wall, 1), "cpu_s": round(used, 1)}


@contextmanager
def stack(work: Path) -> Iterator[SentinelInOpenWebUI]:
    """The Open WebUI tests' stack on ``work`` with the Sentinel model set up in auto mode (the answer pipe)."""
    from tests.openwebui.session import answer_pipe_stack

    with answer_pipe_stack(work) as (running, setup):
        print("setup:", " | ".join(line for line in setup.output.splitlines() if "answers:" in line), flush=True)
        yield running


def stored_reply(client: httpx.Client, chat_id: str, replies: int) -> dict[str, Any] | None:
    """The chat's newest assistant message when it is the ``replies``-th and Open WebUI stored it as done."""
    messages = (client.get(f"/api/v1/chats/{chat_id}").json()["chat"]["history"].get("messages") or {}).values()
    answers = sorted((m for m in messages if m.get("role") == "assistant"), key=lambda m: m.get("timestamp") or 0)
    if len(answers) == replies and answers[-1].get("done"):
        return dict(answers[-1])
    return None


def sign_in(page: Page, url: str, out: Path) -> None:
    """Sign in as the admin; when Open WebUI shows no sign-in form, stop saying what it showed instead (seen once,
    beside a CI run: ten minutes' wait and a bare Playwright timeout)."""
    from playwright.sync_api import TimeoutError as NoForm

    from tests.openwebui.servers import ADMIN_EMAIL, ADMIN_PASSWORD

    page.goto(f"{url}/auth")
    try:
        page.locator("input[type=email]").wait_for(timeout=SIGN_IN_S * 1000)
    except NoForm as err:
        shot = out / "sign-in.png"
        page.screenshot(path=str(shot))
        shown = " ".join(page.inner_text("body").split())[:300]
        raise SystemExit(
            f"Open WebUI at {page.url} showed no sign-in form within {SIGN_IN_S} s; it showed {shown!r} ({shot})"
        ) from err
    page.fill("input[type=email]", ADMIN_EMAIL)
    page.fill("input[type=password]", ADMIN_PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda address: "/auth" not in address)


def new_chat(page: Page, url: str) -> None:
    page.goto(f"{url}/?models=sentinel")
    page.locator("#chat-input").wait_for()
    if page.locator("div[role=dialog]").count():  # a dialog over the page on a first sign-in
        page.keyboard.press("Escape")


def one_turn(page: Page, client: httpx.Client, turn: Turn, replies: int, out: Path, timeout_s: float) -> Result:
    """Type ``turn`` key by key, press Enter, sample the drawn reply until Open WebUI stores it as done (the
    chat's ``replies``-th reply), then read the finished message as drawn and take a screenshot."""
    from sentinel.openwebui_check import cited_sources

    box = page.locator("#chat-input")
    box.click()
    box.press_sequentially(turn.text, delay=15)
    load = os.getloadavg()[0]
    started = time.monotonic()
    page.keyboard.press("Enter")
    samples: list[dict[str, Any]] = []
    message = None
    while message is None:
        at = time.monotonic() - started
        if at > timeout_s:
            raise TimeoutError(f"row {turn.n}: no finished reply within {timeout_s:.0f} s ({page.url})")
        drawn = page.evaluate(LAST_REPLY_JS)
        if drawn and replies == _count_replies(page) and (not samples or _changed(samples[-1], drawn)):
            samples.append({"at_s": round(at, 2), "status": drawn["status"], "content": drawn["content"]})
        chat_id = page.url.split("/c/")[-1].split("?")[0] if "/c/" in page.url else ""
        message = stored_reply(client, chat_id, replies) if chat_id else None
        if message is None:
            time.sleep(SAMPLE_S)
    seconds = time.monotonic() - started
    page.locator(f"#message-{message['id']} #response-content-container").wait_for()
    time.sleep(0.5)  # the last tokens and the sources drawn
    drawn = page.evaluate(LAST_REPLY_JS) or {"status": [], "content": "", "text": ""}
    shot = out / f"turn-{turn.n:02d}.png"
    page.screenshot(path=str(shot))
    working = next((s for s in samples if s["status"] or s["content"].strip()), None)
    sources = cited_sources(message)
    kept = {key: message.get(key) for key in ("content", "statusHistory", "sources")}
    return Result(
        n=turn.n,
        chat=turn.chat,
        turn=turn.text,
        status=(drawn["status"] or [""])[-1],
        read=drawn["content"],
        shown=drawn["text"],
        sources=sources,
        fact_right=turn.fact_right(drawn["content"]),
        page_cited=turn.cites_page(sources),
        markup=markup_shown(drawn["text"]),
        working=((working["status"] or [""])[-1] or working["content"].strip()) if working else "",
        working_at_s=working["at_s"] if working else 0.0,
        seconds=round(seconds, 1),
        load=load,
        stored=kept,
        samples=samples,
        screenshot=shot.name,
    )


def _count_replies(page: Page) -> int:
    return int(page.evaluate("() => document.querySelectorAll('div[id^=\"message-\"] .chat-assistant').length"))


def _changed(last: dict[str, Any], drawn: dict[str, Any]) -> bool:
    return bool(last["status"] != drawn["status"] or last["content"] != drawn["content"])


def drive(running: SentinelInOpenWebUI, turns: list[Turn], out: Path, timeout_s: float) -> list[Result]:
    """Every turn in its chat, in order, in one headless Chromium signed in as the admin."""
    from playwright.sync_api import sync_playwright

    from tests.openwebui.session import admin
    from tests.support.surfaces import CHROMIUM, CHROMIUM_ARGS

    url = running.owui.url
    results: list[Result] = []
    client = admin(running.owui)  # already used to sign in: httpx will not enter it again, closed below
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.set_default_timeout(timeout_s * 1000)
            sign_in(page, url, out)
            chat, replies = "", 0
            for turn in turns:
                if turn.chat != chat:
                    new_chat(page, url)
                    chat, replies = turn.chat, 0
                replies += 1
                result = one_turn(page, client, turn, replies, out, timeout_s)
                results.append(result)
                print(
                    f"row {result.n}: {result.seconds} s, load {result.load:.2f}: {trimmed(result.read, 90)}",
                    flush=True,
                )
            browser.close()
    finally:
        client.close()
    return results


def print_table(results: list[Result]) -> None:
    print(
        "\n| # | turn | status line | what a person reads | pages cited | fact right? | raw markup shown "
        "| working line seen | s |\n|---|---|---|---|---|---|---|---|---|"
    )
    for r in results:
        pages = "; ".join(trimmed(s.split("/")[-1].replace(".md", ""), 50) for s in r.sources) or "none"
        cited = "" if not r.sources else (" (right page)" if r.page_cited else "")
        fact = "right" if r.fact_right else "**missed**"
        working = f"{trimmed(r.working, 40)} ({r.working_at_s:.2f} s)" if r.working else "none sampled"
        print(
            f"| {r.n} | {trimmed(r.turn, 60)} | {trimmed(r.status, 60)} | {trimmed(r.read)} | {pages}{cited} "
            f"| {fact} | {' '.join(f'`{m}`' for m in r.markup) or 'none'} | {working} | {r.seconds:.1f} |"
        )


def summary(results: list[Result], turns: list[Turn]) -> list[str]:
    by_n = {turn.n: turn for turn in turns}
    vault = [r for r in results if not by_n[r.n].is_save]
    saves = [r for r in results if by_n[r.n].is_save]
    seconds = [r.seconds for r in vault] or [0.0]
    return [
        f"vault turns: fact right {sum(r.fact_right for r in vault)}/{len(vault)}, "
        f"right page cited {sum(r.page_cited for r in vault)}/{len(vault)}, "
        f"seconds median {statistics.median(seconds):.1f} max {max(seconds):.1f}",
        f"saves: right {sum(r.fact_right for r in saves)}/{len(saves)}, "
        f"seconds {', '.join(f'{r.seconds:.1f}' for r in saves) or '-'}",
        f"raw markup shown in {sum(bool(r.markup) for r in results)}/{len(results)} turns",
        f"load at each turn's start: {min(r.load for r in results):.2f}-{max(r.load for r in results):.2f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n\n", 3)[3])
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--out", type=Path, required=True, help="folder for the JSON and the screenshots")
    parser.add_argument("--turns", type=Path, default=TURNS_FILE, help="the turns (default: the TSV beside this file)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N turns (a quick look)")
    parser.add_argument("--turn-timeout", type=float, default=600.0, help="seconds one turn may take")
    parser.add_argument("--keep-work", action="store_true", help="keep the scratch vault, index and Open WebUI data")
    parser.add_argument("--work", type=Path, help="the scratch folder (kept); an index.db there is reused, not fresh")
    args = parser.parse_args()
    try:
        turns = load_turns(args.turns)[: args.limit or None]
    except (OSError, TurnsFileError) as err:
        raise SystemExit(f"the turns file cannot be used: {err}") from err
    try:
        missing = missing_prerequisites()
    except ImportError as err:
        raise SystemExit(f"run from the repository root with PYTHONPATH=src:. and .venv's python ({err})") from err
    if missing:
        raise SystemExit("the browser check cannot run:\n- " + "\n- ".join(missing))
    args.out.mkdir(parents=True, exist_ok=True)
    started, load_start = time.monotonic(), os.getloadavg()
    work = args.work or Path(tempfile.mkdtemp(prefix="browser-chat-"))
    try:
        if (work / "index.db").exists():
            indexed: dict[str, Any] = {"reused": str(work / "index.db")}
            shutil.rmtree(work / "open-webui", ignore_errors=True)
        else:
            indexed = index_fresh(work)
        print(f"indexed: {indexed}", flush=True)
        with stack(work) as running:
            results = drive(running, turns, args.out, args.turn_timeout)
        notes = sorted(p.name for p in (work / "vault" / "notes").glob("*.md"))
    finally:
        if not (args.keep_work or args.work):
            shutil.rmtree(work, ignore_errors=True)
    wall = time.monotonic() - started
    times = os.times()  # the stack's processes were reaped when it closed: their CPU is in the children's times
    cpu = times.user + times.system + times.children_user + times.children_system
    load_end = os.getloadavg()
    lines = [
        *summary(results, turns),
        f"wall {wall:.0f} s, CPU {cpu:.0f} s (user+sys, this process and its children: stack, index, browser); "
        f"without the index: wall {wall - indexed.get('wall_s', 0):.0f} s, CPU {cpu - indexed.get('cpu_s', 0):.0f} s; "
        f"load (1/5/15 min) at start {load_start[0]:.2f}/{load_start[1]:.2f}/{load_start[2]:.2f}, "
        f"at end {load_end[0]:.2f}/{load_end[1]:.2f}/{load_end[2]:.2f}",
    ]
    print_table(results)
    print("\n" + "\n".join(lines))
    record = {"indexed": indexed, "notes_saved": notes, "summary": lines, "turns": [asdict(r) for r in results]}
    (args.out / "browser_chat.json").write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"written: {args.out / 'browser_chat.json'} and {len(results)} screenshots", flush=True)


if __name__ == "__main__":
    main()
