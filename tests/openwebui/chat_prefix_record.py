"""Record the Sentinel chat's prefix from the real Open WebUI into ``tool/chat_prefix.json`` (``make chat-prefix``).

The warm-up (sentinel.openwebui_warm) sends that file on a stack's very first start, before any chat has let the
gateway record the prefix itself. It is what Open WebUI really sends, never rebuilt from our files: Open WebUI
computes the tool schemas at chat time. So this starts a fresh Open WebUI (offline, its own data folder) in front
of a scripted backend, registers Sentinel with the default settings, asks one question, and writes the messages
before the question and the tools of the first request the backend got.
test_end_to_end.py fails when the file no longer matches what Open WebUI sends.

Run: ``.venv/bin/python -m tests.openwebui.chat_prefix_record [--out FILE]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from sentinel.chat_prefix import ChatPrefix, write_prefix
from tests.openwebui.chat_backends import ChatBackend
from tests.openwebui.servers import OWUI_PYTHON, REPO, open_webui
from tests.openwebui.session import chat, setup_sentinel

SHIPPED = REPO / "tool" / "chat_prefix.json"
MODEL = "recording-model"
# Nothing listens there: setup only writes it into the tool's valves, and the backend's answer calls no tool.
NO_TOOL_API = "http://127.0.0.1:9"


def recorded_prefix(work: Path) -> ChatPrefix:
    """The prefix of the first request a fresh Open WebUI sends for the Sentinel model."""
    backend = ChatBackend(MODEL, lambda _: "recorded")
    with backend, open_webui(work / "open-webui", [backend.root + "/v1"], []) as owui:
        setup_sentinel(owui, NO_TOOL_API, MODEL, key="recording-key")
        chat(owui, "What does my vault say about backups?", timeout_s=300)
    first = backend.tool_requests()[0] if backend.tool_requests() else {}
    prefix = ChatPrefix.of_request(first)
    if prefix is None:
        raise SystemExit(f"Open WebUI sent no request with tools; what it sent: {backend.requests!r:.2000}")
    return prefix


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=SHIPPED, help=f"where to write it (default {SHIPPED})")
    args = parser.parse_args()
    if not OWUI_PYTHON.is_file():
        sys.exit(f"{OWUI_PYTHON} is missing: run `make openwebui`")
    with tempfile.TemporaryDirectory(prefix="chat-prefix-") as work:
        prefix = recorded_prefix(Path(work))
    write_prefix(args.out, prefix)
    names = [tool.get("function", {}).get("name") for tool in prefix.tools]
    print(f"{args.out}: {len(prefix.messages)} leading message(s), tools {', '.join(map(str, names))}")


if __name__ == "__main__":
    main()
