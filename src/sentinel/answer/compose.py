"""The model's one job in an answer: write sentences over the packet, each naming the passage it came from.

The reply is sampled under a JSON schema (the server constrains it: no tool-call text, no prose around it), and
what comes back is only a proposal: ``gates.support`` decides which sentences ship.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from sentinel.answer.packet import Packet
from sentinel.answer.read import Read
from sentinel.gates.support import CitedSentence
from sentinel.providers.base import ChatProvider, JsonSchema
from sentinel.vault.links import shown_links
from sentinel.vault.sentences import as_read, sentence_spans

log = logging.getLogger("sentinel.answer")
MAX_SENTENCES = 3
# The longest sentence item the schema lets the model write: the server ends the string there, so an item this
# long was cut, most often in a loop repeating one sentence (browser, stop 53: "Metni `küçük harfe` dönüştürür."
# fourteen times, then "Metni `küçük har").
MAX_CHARS = 400
_ENDS = re.compile(r"[.!?…:;。)\]»“”\"'`*]\s*$")
SYSTEM = (
    "You answer a question about the user's notes using ONLY the numbered passages given. Write at most "
    f"{MAX_SENTENCES} short sentences in the language of the question. Each sentence must repeat what one passage "
    "says, in that passage's own words where possible, and give that passage's number as cite. Never add facts, "
    "numbers or advice that the passages do not state. If no passage answers the question, return no sentences."
)
LABEL_SYSTEM = (
    "Classify the user's message with one word: save (they ask to keep or note something), research (they ask to "
    "look something up on the web), link (they ask what links to or connects to a page), small_talk (a greeting "
    "or thanks), or vault (a question about their notes)."
)
LABELS = ("save", "research", "link", "small_talk", "vault")
# Text shaped like a tool call (a JSON object naming a function, a fenced block): never shown to a person.
_CALL_SHAPED = re.compile(r"```|\{\s*\"(?:name|function|tool|arguments)\"\s*:|<tool_call>", re.IGNORECASE)
# The schema's opening, up to its list of sentences, and what stands between two of them.
_SENTENCES_OPEN = re.compile(r'\s*\{\s*"sentences"\s*:\s*\[')
_BETWEEN_ITEMS = re.compile(r"\s*,?\s*")


def sentence_schema(passages: int) -> JsonSchema:
    return {
        "type": "object",
        "properties": {
            "sentences": {
                "type": "array",
                "maxItems": MAX_SENTENCES,
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "maxLength": MAX_CHARS},
                        "cite": {"type": "integer", "minimum": 1, "maximum": max(1, passages)},
                    },
                    "required": ["text", "cite"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["sentences"],
        "additionalProperties": False,
    }


def messages_for(packet: Packet) -> list[dict[str, Any]]:
    asked = f"Question: {packet.question}"
    if packet.earlier:
        asked = f"Earlier question: {packet.earlier}\nQuestion (it continues the earlier one): {packet.turn}"
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Passages:\n\n{packet.render()}\n\n{asked}"},
    ]


def call_shaped(text: str) -> bool:
    return bool(_CALL_SHAPED.search(text))


def parse_sentences(content: str, passages: str = "") -> tuple[list[CitedSentence], int]:
    """The sentences of a reply, and how many were call-shaped text (dropped, never shown), each shown as a
    person reads it (``links.shown_links``, with the ``passages`` it was written from). A reply cut off in
    its list gives the sentences it holds whole (``whole_items``); any other reply that is not the schema's JSON
    gives none."""
    try:
        data = json.loads(content)
    except ValueError:
        data = {"sentences": whole_items(content)}
        if not data["sentences"]:
            return [], int(call_shaped(content))
    items = data.get("sentences") if isinstance(data, dict) else None
    out: list[CitedSentence] = []
    shaped = 0
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        # A small model copies the passage's wiki links and callout markers, which Open WebUI shows raw
        # ("[[Plans|Sync plan]]", "> [!tip]"), and cuts a link in half ("Yerleşik Eklentiler|eklentisi]"):
        # the sentence is kept as a reader of the page sees it, and the gate checks that text.
        text = once(as_read(" ".join(shown_links(item["text"], passages).split())), len(item["text"]) >= MAX_CHARS)
        cite = item.get("cite")
        if not text:
            continue
        if call_shaped(text):
            shaped += 1
            continue
        out.append(CitedSentence(text, cite if isinstance(cite, int) and not isinstance(cite, bool) else 0))
    return out, shaped


def once(text: str, cut: bool) -> str:
    """``text`` with each of its sentences said once, and, when the server ended it at ``MAX_CHARS`` (``cut``),
    without the unfinished sentence it ends in: a person never reads a sentence twice in one answer, nor a word
    cut in half. The repeats and the cut piece are logged, never shown."""
    spans = sentence_spans(text)
    if cut and spans and not _ENDS.search(spans[-1].text):
        log.info("left out by the reply's length limit: %s", spans[-1].text)
        spans = spans[:-1]
    kept: list[str] = []
    for span in spans:
        if kept and Read.of(" ".join(kept)).repeats(span.text):
            log.info("left out, said already in its item: %s", span.text)
            continue
        kept.append(span.text)
    return text if len(kept) == len(sentence_spans(text)) else " ".join(kept)  # an item left whole as written


def whole_items(content: str) -> list[Any]:
    """The sentences a reply cut off inside its list still holds whole, each read by the json module: the model
    ran out of reply tokens in its last sentence (seen on bench/answers.py tr03: two whole sentences giving
    "Ctrl+P" lost with the third, cut mid-link, and the vault quoted instead). The cut one is never read; a reply
    not opening as the schema does gives none. The gates check what is kept, as for any reply."""
    opening = _SENTENCES_OPEN.match(content)
    if not opening:
        return []
    decoder, at = json.JSONDecoder(), opening.end()
    items: list[Any] = []
    while True:
        at = _BETWEEN_ITEMS.match(content, at).end()  # type: ignore[union-attr]  # matches the empty string too
        try:
            item, at = decoder.raw_decode(content, at)
        except ValueError:
            return items
        items.append(item)


def propose(provider: ChatProvider, packet: Packet, max_tokens: int) -> tuple[list[CitedSentence], int]:
    """Ask the model for cited sentences over ``packet``; (sentences, call-shaped pieces dropped)."""
    reply = provider.chat(
        messages_for(packet),
        json_schema=sentence_schema(len(packet.passages)),
        temperature=0.0,
        max_tokens=max_tokens,
    )
    return parse_sentences(reply.content, packet.render())


def label(provider: ChatProvider, text: str) -> str | None:
    """The model's one-word reading of a user turn (a second opinion only), or None when it gave none."""
    schema = {
        "type": "object",
        "properties": {"intent": {"type": "string", "enum": list(LABELS)}},
        "required": ["intent"],
    }
    reply = provider.chat(
        [{"role": "system", "content": LABEL_SYSTEM}, {"role": "user", "content": text}],
        json_schema=schema,
        temperature=0.0,
        max_tokens=16,
    )
    try:
        found = json.loads(reply.content).get("intent")
    except (ValueError, AttributeError):
        return None
    return found if found in LABELS else None
