"""Which of the offered tools a turn's first call may be, and with which arguments: Sentinel's own knowledge of
its primitives, handed to the pool's first-call constraint (``sentinel_pool.repair.constrain_call``), which
itself knows only the tools a request offers.

A turn's first call has no tool result to take a path from, so a page-changing primitive there can only guess
one (measured: the small Qwen's first call on a wifi question was relocate), and one that takes a page or folder
(read, graph, listing) can take it only from the user's words. Left out of the schema, still offered: a later
round may call them.
"""

from __future__ import annotations

import re

from sentinel.answer.intent import names_the_web
from sentinel.providers.base import JsonSchema
from sentinel.research import TOOL_NAME as RESEARCH
from sentinel.tools.registry import TOOLS

# Sentinel's primitives that change or remove a page the caller names (save only adds a new note).
PAGE_CHANGING = frozenset(name for name, tool in TOOLS.items() if tool.writes)
# Arguments that name a place in the vault (a page or a folder), and what words that name one show: a [[link]],
# a .md file, or a folder/ path.
PLACE_ARGUMENTS = frozenset({"path", "target", "source", "folder"})
_NAMES_A_PLACE = re.compile(r"\[\[[^\]]+\]\]|\S+\.md\b|\w/")
# Arguments whose values come from a tool result: a cursor from a [more] line, a hash from read.
RESULT_ARGUMENTS = frozenset({"cursor", "expected_hash"})


def opening(name: str, schema: JsonSchema | None, words: str) -> JsonSchema | None:
    """The arguments schema a turn's first call of ``name`` may take, given the user's ``words``; None when it may
    not be that call at all."""
    if not _first_call_can(name, schema, words):
        return None
    return _from_words(schema)


def _first_call_can(name: str, schema: JsonSchema | None, words: str) -> bool:
    """Never a page-changing primitive, one that takes a page or a folder only when the user's message names one
    (measured with the small Qwen through Open WebUI: "when is my vault backed up?" opened with ``read`` of an
    invented path, then with ``listing`` of notes/; a wifi question with ``graph``), and research only when it
    names the web (measured: with research offered, the same backups question opened with research of an
    invented question). What is left is what needs nothing from the vault yet: search, save."""
    if name in PAGE_CHANGING:
        return False
    if name == RESEARCH:
        return names_the_web(words)
    takes = set((schema or {}).get("properties") or ())
    return not (takes & PLACE_ARGUMENTS) or bool(_NAMES_A_PLACE.search(words))


def _from_words(schema: JsonSchema | None) -> JsonSchema:
    """A first call's arguments without those only a tool result gives (measured: the small Qwen's first
    search took ``cursor: 10`` from the description's example and skipped the page it was after)."""
    schema = schema or {"type": "object"}
    properties = {k: v for k, v in (schema.get("properties") or {}).items() if k not in RESULT_ARGUMENTS}
    required = [k for k in schema.get("required") or () if k not in RESULT_ARGUMENTS]
    return {**schema, "properties": properties, "required": required, "additionalProperties": False}
