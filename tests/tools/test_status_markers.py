"""The status markers have one home, ``Status`` (``sentinel.tools.policy``): every place that tells the model or a
person what they are lists exactly those, and no tool output opens with a marker ``Status`` does not know.

Adding a marker touches ``policy.py`` (``Status``, ``MEANINGS``) and the README line checked here; MCP's
instructions and every system prompt are written from ``Status``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sentinel import prompts
from sentinel.mcp.server import INSTRUCTIONS
from sentinel.tools.policy import MEANINGS, Status, markers

REPO = Path(__file__).resolve().parents[2]
# what a marker looks like: a bracketed status word first, the words read from ``Status`` (so a new marker is
# looked for without touching this file; a variant of a known word, as research's "[OK -> search ...]" once was,
# is still caught as unknown)
WORDS = "|".join(sorted({re.escape(status.value[1:-1].split()[0]) for status in Status}))
MARKER = re.compile(rf"^\[(?:{WORDS})\b[^\]]*\]")


def _listed(text: str) -> list[str]:
    return [found for found in re.findall(rf"\[(?:{WORDS})[^\]]*\]", text)]


def test_every_status_has_a_meaning() -> None:
    assert set(MEANINGS) == set(Status)


def test_mcp_instructions_list_the_markers_from_status() -> None:
    assert markers() in INSTRUCTIONS


def test_the_readme_lists_exactly_the_markers() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    line = next(part for part in readme.split("\n\n") if "starts with one status:" in part)
    assert _listed(line) == [status.value for status in Status], line


def test_the_system_prompt_tells_the_markers_from_status_only() -> None:
    """The prompt file leaves the markers to ``MEANINGS`` (its slot); read, it tells each once, in order."""
    raw = prompts.SYSTEM_PROMPT.read_text(encoding="utf-8")
    assert prompts.MARKERS_SLOT in raw and _listed(raw) == []
    told = prompts.read_prompt(prompts.SYSTEM_PROMPT, "unused")
    assert _listed(told) == [status.value for status in Status]
    assert all(f"{status} {MEANINGS[status]}" in told for status in Status)


def test_no_output_opens_with_a_marker_status_does_not_know() -> None:
    known = {status.value for status in Status}
    unknown = []
    for path in sorted((REPO / "src").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found = MARKER.match(node.value)
                if found and found.group(0) not in known:
                    unknown.append(f"{path.relative_to(REPO)}:{node.lineno} {found.group(0)}")
    assert unknown == []
