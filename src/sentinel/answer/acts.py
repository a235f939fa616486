"""The answers code gives without the model writing anything: a save, a link question, small talk, research.

A save keeps the user's own words: what follows the request ("save this: X"), else the rest of the request
("remember that X"), else the user's previous message (with the question it continues, for a follow-up). The note's
title is drawn from those words; a title the model proposes is used only when every word of it is in them. A bare
"save this" right after a vault answer also keeps what that answer rested on: each cited passage's sentences,
verbatim, in a quote callout headed by a link to its page (``vault.quoted``), as recorded when the answer was given
(``answer.record``). The model's sentences never enter the note: the system must not feed on its own output.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from sentinel.answer import followup, record
from sentinel.answer.intent import words_to_keep
from sentinel.answer.result import Answer, Citation, obsidian_url
from sentinel.answer.save_replies import replies_for, saved_reply
from sentinel.gates.support import content_words
from sentinel.paths import note_path, page_name, without_md
from sentinel.tools.capture import capture
from sentinel.tools.context import ToolContext
from sentinel.tools.graph import Connections, Unresolved, connections_in_reach
from sentinel.tools.policy import Status
from sentinel.vault.links import text_without_link_markup
from sentinel.vault.quoted import quote_block

TITLE_WORDS = 6
_REQUEST = re.compile(
    r"^\W*(?:(?:please|bitte|por\s+favor|lütfen)\W+)?(?:(?:can|could|would)\s+you\s+(?:please\s+)?)?"
    r"(?:save|note|keep|remember|record|store|speicher\w*|notier\w*|merk\w*\s+dir|guarda\w*|anota\w*|"
    r"apunta\w*|recuerda\w*)\b\s*(?:(?:this|that|it|das|dies|es|esto|eso|que|dass)\b)?\s*",
    re.IGNORECASE,
)
_TR_REQUEST = re.compile(
    r"\s*(?:bunu|şunu|onu)?\s*(?:kaydet\w*|kayded\w*\s*(?:misin)?|not\s+al\w*|not\s+et\w*|sakla\w*)\W*$",
    re.IGNORECASE,
)
GREETINGS = {
    "de": "Hallo! Frag mich etwas über deine Notizen, oder sag „speichere das: …“, um etwas festzuhalten.",
    "es": "¡Hola! Pregúntame algo sobre tus notas, o di «guarda esto: …» para guardar algo.",
    "tr": "Merhaba! Notların hakkında bir şey sor ya da bir şeyi saklamak için «bunu kaydet: …» de.",
    "en": "Hello! Ask me something about your notes, or say 'save this: …' to keep something.",
}
_GREETING_LANGUAGE = re.compile(
    r"(?P<de>hallo|danke|guten|tschüss)|(?P<es>hola|gracias|buen|adiós)|(?P<tr>merhaba|selam|teşekkür|sağ\s*ol)",
    re.IGNORECASE,
)


def request_words(turn: str) -> str:
    """What the save request itself holds to keep ("save this: X", "remember that X"), or ""."""
    if tail := words_to_keep(turn):
        return tail
    rest = _TR_REQUEST.sub("", _REQUEST.sub("", turn, count=1)).strip(" .!")
    return rest if len(content_words(rest)) >= 2 else ""


def kept_words(turn: str, earlier_user_turns: list[str]) -> str:
    """What a save keeps, in the user's own words ("" when the conversation holds nothing to keep)."""
    if words := request_words(turn):
        return words
    # a follow-up ("And on the Plus plan?") is kept with the question it continues: both are the user's words
    return followup.asked([t for t in earlier_user_turns if t.strip()]).searched.strip()


def quoted_passages(rests_on: list[Citation]) -> list[str]:
    """Each passage an answer rested on, as the note keeps it: the page's sentences (links as the page shows
    them, so the note links only to the page it quotes) under a link to that page and heading."""
    blocks = []
    for cite in rests_on:
        target = without_md(cite.path) + (f"#{cite.heading}" if cite.heading else "")
        link = f"[[{target}|{page_name(cite.path)}]]"
        blocks.append(quote_block(link, text_without_link_markup(cite.quote).strip("… ")))
    return blocks


def title_of(words: str, proposed: str = "") -> str:
    """The note's title: the model's proposal when each of its words is in ``words``, else the first words."""
    allowed = set(content_words(words))
    proposal = " ".join(re.sub(r"[^\w\s-]", " ", proposed).split())
    if proposal and content_words(proposal) and set(content_words(proposal)) <= allowed:
        return proposal[:80]
    first = re.sub(r"[^\w\s-]", " ", words).split()[:TITLE_WORDS]
    title = " ".join(first)
    return title[:1].upper() + title[1:]


def save(
    ctx: ToolContext,
    turn: str,
    messages: list[dict[str, Any]],
    chat_id: str,
    proposed_title: str = "",
) -> Answer:
    """Keep the user's words as a note and the conversation as its transcript (``tools.capture``)."""
    earlier = [message_text(m) for m in messages[:-1] if m.get("role") == "user"]
    words = kept_words(turn, earlier)
    quotes: list[str] = []
    previous = messages[-2] if len(messages) >= 2 else {}
    if words and not request_words(turn) and previous.get("role") == "assistant":
        quotes = quoted_passages(record.rested_on(ctx.settings, chat_id, message_text(previous)))
    replies = replies_for(turn)
    if not words:
        return Answer(replies.nothing_yet, intent="save", status=replies.not_saved)
    title = title_of(words, proposed_title)
    chat_id = chat_id or f"ask-{uuid.uuid4().hex[:12]}"
    body = "\n\n".join([words, *quotes])
    messages = messages or [{"role": "user", "content": turn}]
    result = capture(ctx, chat_id, messages, title, body)
    if result.status is not Status.OK:
        refused = replies.failed.format(why=result.body)
        return Answer(refused, intent="save", notes=[result.render()], status=replies.not_saved)
    note = note_path(title, ctx.settings)
    url = obsidian_url(ctx.settings.vault.name, note)
    transcript = result.body.rsplit(" in ", 1)[-1]
    updated = result.body.startswith("appended")
    reply, status = saved_reply(turn, f"[{note}]({url})", words, len(quotes), transcript, updated)
    return Answer(
        reply,
        citations=[Citation(note, "", words, title, url)],
        intent="save",
        answered=True,
        saved=note,
        status=status,
    )


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def page_link(vault: str, path: str) -> str:
    """A page as a markdown link that opens it in Obsidian, shown by its name."""
    return f"[{page_name(path)}]({obsidian_url(vault, path)})"


def _listed(vault: str, items: list[str]) -> str:
    shown = [page_link(vault, i) for i in items[:12]]
    more = f" and {len(items) - 12} more" if len(items) > 12 else ""
    if len(shown) <= 1:
        return "".join(shown) + more
    return ", ".join(shown[:-1]) + (f", {shown[-1]}{more}" if more else f" and {shown[-1]}")


def link_answer(ctx: ToolContext, subject: str) -> Answer:
    """A link question answered from the graph, as prose, with the pages as citations."""
    found = connections_in_reach(ctx, subject)
    vault = ctx.settings.vault.name
    if isinstance(found, str):
        return Answer(found, intent="link")
    if isinstance(found, Unresolved):
        if not found.sources:
            return Answer(f"No page is named “{subject}”, and no page links to that name.", intent="link")
        cites = [Citation(p, "", "", url=obsidian_url(vault, p)) for p in found.sources]
        return Answer(
            f"No page is named “{subject}” yet; {len(found.sources)} page(s) link to that name: "
            f"{_listed(vault, found.sources)}.",
            citations=cites,
            intent="link",
            answered=True,
        )
    return Answer(_link_prose(found, vault), citations=_link_citations(found, vault), intent="link", answered=True)


def _link_prose(found: Connections, vault: str) -> str:
    parts = [page_link(vault, found.path) + (f" (also called {', '.join(found.aliases)})" if found.aliases else "")]
    parts.append(f"links to {_listed(vault, found.points_at)}." if found.points_at else "links to no other page.")
    sentences = [" ".join(parts)]
    if found.pointed_at_by:
        sentences.append(f"It is linked from {_listed(vault, found.pointed_at_by)}.")
    else:
        sentences.append("No page links to it.")
    if found.missing:
        names = ", ".join(f"“{n}”" for n, _ in found.missing[:8])
        sentences.append(f"It also reaches for names that have no page yet: {names}.")
    return " ".join(sentences)


def _link_citations(found: Connections, vault: str) -> list[Citation]:
    pages = [found.path, *found.pointed_at_by, *found.points_at]
    seen: dict[str, None] = dict.fromkeys(pages)
    return [Citation(p, "", "", url=obsidian_url(vault, p)) for p in list(seen)[:20]]


def small_talk(turn: str) -> Answer:
    match = _GREETING_LANGUAGE.search(turn)
    language = next((k for k, v in match.groupdict().items() if v), "en") if match else "en"
    return Answer(GREETINGS[language], intent="small_talk", answered=True)


def research_answer(question: str) -> Answer:
    return Answer(
        "Web research is its own step, so nothing from the web is mixed into an answer unasked: run "
        f'`sentinel research "{question}"` (or the research tool in Open WebUI). It writes the verified passages '
        "with their URLs into sources/, and questions about it are then answered from them.",
        intent="research",
    )
