"""``python -m services.common.embed_split``: ask the API to embed the vault across the embedding workers (``POST
/v1/embed``) and follow the run to its end (``GET /v1/embed``); what ``make embed workers=N`` runs.

Exit codes: 0 the run finished; 1 the API refused or the run failed (its words are printed); 2 no API answers
(start the stack with ``make up``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import httpx

NOT_THERE = 2


def write_key(explicit: str) -> str:
    """The key to call with: ``--key``, else the first write key of ``SENTINEL_API_KEYS`` (what the stack's API
    container holds)."""
    if explicit:
        return explicit
    for entry in os.environ.get("SENTINEL_API_KEYS", "").split(","):
        scope, _, key = entry.strip().partition(":")
        if scope == "write" and key:
            return key
    return ""


def line(progress: dict[str, Any]) -> str:
    batches, pages, chunks = progress["batches"], progress["page_vectors"], progress["chunks"]
    return (
        f"{progress['state']}: batches {batches['done']}/{batches['total']}, page vectors {pages['done']}/"
        f"{pages['total']}, chunks {chunks['done']}/{chunks['total']}, {progress['seconds']} s"
    )


def follow(client: httpx.Client, poll_s: float, say: Any) -> dict[str, Any]:
    """The run's progress, said at each change, until it ends."""
    said = ""
    while True:
        progress: dict[str, Any] = client.get("/v1/embed").raise_for_status().json()
        if progress["state"] == "idle":
            return progress
        now = line(progress)
        if now.rsplit(",", 1)[0] != said.rsplit(",", 1)[0]:
            say(now)
            said = now
        if progress["state"] != "running":
            return progress
        time.sleep(poll_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.common.embed_split", description=__doc__.split("\n\n")[0])
    port = os.environ.get("SENTINEL_API_PORT", "8000")
    parser.add_argument("--url", default=f"http://127.0.0.1:{port}", help="the API's root (default: %(default)s)")
    parser.add_argument("--key", default="", help="a write key (default: the first of SENTINEL_API_KEYS)")
    parser.add_argument("--reembed", action="store_true", help="drop every vector and embed everything again")
    parser.add_argument("--poll-s", type=float, default=2.0, help="seconds between progress checks")
    args = parser.parse_args(argv)
    key = write_key(args.key)
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    with httpx.Client(base_url=args.url, headers=headers, timeout=60) as client:
        try:
            started = client.post("/v1/embed", params={"reembed": args.reembed} if args.reembed else None)
        except httpx.TransportError as error:
            say(f"no Sentinel API answers at {args.url} ({error}): start the stack with `make up`")
            return NOT_THERE
        if started.status_code != 202:
            say(f"the API refused the run ({started.status_code}): {_detail(started)}")
            return 1
        say(f"embedding run {started.json()['run']} on {', '.join(started.json()['workers'])}")
        ended = follow(client, args.poll_s, say)
    if ended.get("state") != "finished":
        say(f"the run failed: {ended.get('error') or ended}")
        return 1
    counts = ended.get("counts") or {}
    say(f"finished: {counts.get('summaries', 0)} page vectors and {counts.get('chunks', 0)} chunks embedded")
    where = ended.get("providers_by_worker") or {}
    for worker, batches in sorted((ended.get("batches_by_worker") or {}).items()):
        say(f"  {worker}: {batches} batches on {', '.join(where.get(worker) or ['?'])}")
    return 0


def _detail(answer: httpx.Response) -> str:
    try:
        return str(answer.json().get("detail", answer.text))
    except ValueError:
        return answer.text


if __name__ == "__main__":
    sys.exit(main())
