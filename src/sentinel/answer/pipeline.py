"""One user turn answered: intent by code, the ladder by code, sentences by the model, support by a gate.

``answer_turn`` is the one way every door answers (Open WebUI's Sentinel model through ``POST /v1/ask``,
``sentinel ask``, MCP's ``ask``). The model may be absent or down: then, and whenever no sentence survives
the support gate, the answer is extractive (the best passages quoted verbatim with their pages), never an
invented one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from sentinel.answer import acts, compose, followup, record
from sentinel.answer.intent import Intent, TurnIntent, by_code, turn_language, with_second_opinion
from sentinel.answer.lines import lines_in
from sentinel.answer.packet import Packet, Passage, admitted, asks_how_to, build_packet, relevant
from sentinel.answer.quotes import answers, best_sentences, holds, procedure
from sentinel.answer.read import NOTHING_READ, Read
from sentinel.answer.result import Answer, Citation, obsidian_url
from sentinel.answer.save_replies import replies_for
from sentinel.answer.tables import marked
from sentinel.gates import garbled, labels, quantity, subject, support
from sentinel.gates.support import CitedSentence
from sentinel.providers.base import ChatProvider, ProviderError
from sentinel.tools.context import ToolContext
from sentinel.vault.links import shown_links
from sentinel.vault.quoted import quoted_lines
from sentinel.vault.record_line import is_record_line

log = logging.getLogger("sentinel.answer")

LABEL_MAX_WORDS = 6  # only a short turn that asks nothing may be a greeting the patterns missed: others skip the label
EXTRACTIVE_PASSAGES = 2
LOGGED_CHARS = 120  # of a left-out sentence, in its log line


@dataclass(frozen=True)
class Turn:
    """What a door hands the pipeline: the conversation so far (OpenAI shape, the user's turn last)."""

    messages: list[dict[str, Any]]
    chat_id: str = ""
    can_write: bool = True  # a read-only door (MCP by default) answers a save request without saving


def last_user_text(messages: list[dict[str, Any]]) -> str:
    turns = _user_turns(messages)
    return turns[-1] if turns else ""


def _user_turns(messages: list[dict[str, Any]]) -> list[str]:
    return [t for t in (acts.message_text(m).strip() for m in messages if m.get("role") == "user") if t]


def language_of_turn(messages: list[dict[str, Any]]) -> str:
    """The language of the lines Sentinel writes itself for the last user turn (``intent.turn_language``, given
    the turn before it for a follow-up too short to show one)."""
    turns = _user_turns(messages)
    return turn_language(turns[-1], turns[-2] if len(turns) > 1 else "") if turns else "en"


def working_line(turn: Turn) -> str:
    """The line a door shows while ``turn`` is answered ("Kasanda aranıyor…"), by code and before any model is
    asked: a door cannot know the turn's language, so it asks for this line first."""
    lines = lines_in(language_of_turn(turn.messages))
    return lines.saving if by_code(last_user_text(turn.messages)).intent is Intent.SAVE else lines.searching


def answer_turn(ctx: ToolContext, provider: ChatProvider | None, turn: Turn, model: str = "") -> Answer:
    text = last_user_text(turn.messages)
    if not text:
        return Answer("Ask a question about your vault, or say 'save this: …' to keep something.", model=model)
    language = language_of_turn(turn.messages)
    found = _intent(provider, text)
    if found.intent is Intent.SAVE:
        if not turn.can_write:
            replies = replies_for(text)
            result = Answer(replies.read_only, intent="save", status=replies.not_saved)
        else:
            result = acts.save(ctx, text, turn.messages, turn.chat_id)
    elif found.intent is Intent.LINK:
        result = acts.link_answer(ctx, found.subject)
    elif found.intent is Intent.SMALL_TALK:
        result = acts.small_talk(text)
    elif found.intent is Intent.RESEARCH:
        result = acts.research_answer(text)
    else:
        shown = [acts.message_text(m) for m in turn.messages[:-1] if m.get("role") == "assistant"]
        asked = followup.asked(_user_turns(turn.messages))
        result = _vault_answer(ctx, provider, asked, language, shown[-1] if shown else "")
        if turn.can_write:  # only a door that can save ever asks what an answer rested on
            record.remember(ctx.settings, turn.chat_id, result.answer, result.rests_on)
    result.model = model if provider is not None else ""
    result.language = language
    if found.by == "model":
        result.notes.append("the model's label read this turn as small talk")
    return result


def _intent(provider: ChatProvider | None, text: str) -> TurnIntent:
    found = by_code(text)
    if provider is None or found.intent is not Intent.VAULT or "?" in text or len(text.split()) > LABEL_MAX_WORDS:
        return found
    try:
        return with_second_opinion(found, compose.label(provider, text))
    except ProviderError as err:  # degrade, never fail: the code's reading stands
        log.warning("intent label unavailable: %s", err)
        return found


def budget_tokens(provider: ChatProvider | None, reply_tokens: int) -> int:
    """The tokens the packet may fill in the model's window (bench/followups.py builds packets with it too)."""
    window = provider.num_ctx if provider is not None else 4096
    return max(300, min(1200, window - reply_tokens - 400))


def _vault_answer(
    ctx: ToolContext, provider: ChatProvider | None, asked: followup.Asked, language: str, shown: str = ""
) -> Answer:
    """``shown``: the answer the turn before this one gave, which a follow-up's answer does not say again."""
    settings = ctx.settings.answer
    lines = lines_in(language)
    budget = budget_tokens(provider, settings.reply_tokens)
    turn = asked.turn if asked.earlier else ""
    read = Read.of(shown) if asked.earlier else NOTHING_READ  # what the person read in the answer before
    packet = build_packet(ctx, asked.searched, passages=settings.passages, budget_tokens=budget, turn=turn, read=read)
    packet.earlier, packet.turn = asked.earlier, turn
    if not packet.passages:
        return Answer(f"{lines.not_in_vault} {lines.no_page}", notes=packet.notes, status=lines.none_found)
    if not relevant(packet):
        closest = ", ".join(acts.page_link(ctx.settings.vault.name, p.path) for p in packet.passages[:3])
        opening = lines.not_named.format(name=packet.unnamed) if packet.unnamed else lines.not_in_vault
        said = f"{opening} {lines.closest.format(pages=closest)}"
        # the status says what was done, not the reply's first sentence again (seen in the browser: "La bóveda no lo
        # dice." over "La bóveda no lo dice. Las páginas más cercanas …"), nor "quoted" with nothing quoted
        return Answer(said, notes=packet.notes, status=lines.none_found)
    answer = _from_evidence(ctx, provider, admitted(packet), language, read)
    if packet.unmentioned:  # what follows is the nearest the vault comes, said so before a person reads it as a yes
        answer.answer = f"{lines.not_named.format(name=packet.unmentioned)} {answer.answer}"
        answer.notes.append(f"no chunk holds “{packet.unmentioned}”: said before the answer")
    return answer


def _from_evidence(
    ctx: ToolContext, provider: ChatProvider | None, packet: Packet, language: str, read: Read
) -> Answer:
    """The answer from the admitted passages (``packet.admitted``): written and checked, else quoted; ``read``:
    what the person read in the answer before a follow-up."""
    settings = ctx.settings.answer
    if provider is None:
        return _extractive(ctx, packet, 0, ["no model is configured: the answer quotes the vault"], language, read)
    try:
        proposed, shaped = compose.propose(provider, packet, settings.reply_tokens)
    except ProviderError as err:
        notes = [f"the model did not answer ({err}): the answer quotes the vault"]
        return _extractive(ctx, packet, 0, notes, language, read)
    kept, reasons = _checked(proposed, packet, ctx.settings.record_label)
    # seen in Open WebUI: a follow-up's answer opened with the sentence the turn before had shown
    if repeated := [s for s in kept if read.repeats(s.text)]:
        kept = [s for s in kept if s not in repeated]
        log_left_out("already_read", repeated)
        reasons.append(f"{len(repeated)} sentence(s) left out: the answer before this one said them already")
    # seen on bench/answers.py tr03: the model wrote one sentence twice, citing passages 1 and 2
    twice = [i for i, s in enumerate(kept) if Read.of(" ".join(k.text for k in kept[:i])).repeats(s.text)]
    if twice:
        log_left_out("said_twice", [kept[i] for i in twice])
        kept = [s for i, s in enumerate(kept) if i not in twice]
        reasons.append(f"{len(twice)} sentence(s) left out: this answer says them already")
    notes = [*packet.notes, *reasons]
    dropped = len(proposed) - len(kept)
    if not kept:
        return _extractive(ctx, packet, dropped, notes, language, read, shaped)
    return _written(ctx, packet, kept, dropped, notes, shaped, read)


def _checked(proposed: list[CitedSentence], packet: Packet, label: str) -> tuple[list[CitedSentence], list[str]]:
    """The model's sentences the gates keep (each supported by the passage it cites; a number among them when
    the question asks for one, each about the question's subject), and a note for each gate that dropped some."""
    # a note's record line says where its transcript is, never what the note says (seen in Open WebUI: the model
    # wrote "Record: 2026-12-06-3" as a sentence, its words all in the saved note's passage)
    records = [s for s in proposed if is_record_line(label, s.text)]
    proposed = [s for s in proposed if s not in records]
    supported = support.supported_sentences(proposed, packet.by_number(), packet.question, packet.turn)
    log_left_out("record_line", records)
    log_left_out("gates.support", supported.dropped)
    notes = [f"{len(records)} sentence(s) dropped: a note's record line, not what it says"] if records else []
    if supported.dropped:
        cause = f"not supported by the passage they cite ({supported.reason})"
        notes.append(f"{len(supported.dropped)} sentence(s) dropped: {cause}")
    # a copy re-strung around a verb its source lacks reads as its source ("Deine E-Mail ist deine E-Mail ein."),
    # and so does one that adds the question's words to it ("Noor lends me her glaze samples again on friday")
    # a copied header row ("Arama operatörü | Açıklama") or heading trail is in its passage and names only a label
    informative = supported
    for check in (labels.says_more_than_a_header, labels.says_more_than_its_trail):
        informative = check(informative.kept, packet.by_number())
        if informative.dropped:
            notes.append(f"{len(informative.dropped)} sentence(s) dropped: {informative.reason}")
        log_left_out("gates.labels", informative.dropped)
    whole = garbled.whole_copies(informative.kept, packet.by_number(), f"{packet.question} {packet.turn}")
    if whole.dropped:
        notes.append(f"{len(whole.dropped)} sentence(s) shown as the passage's own: a garbled copy of it")
    log_left_out("gates.garbled", whole.dropped)
    # a follow-up's own words say what it asks ("Peki ne sıklıkla …?": how often), else its question ("und Supporter?")
    asked = followup.what_is_asked(packet.question, packet.turn)
    answering = quantity.answers_the_number(whole.kept, asked)
    if answering.dropped:
        notes.append(f"{len(answering.dropped)} sentence(s) dropped: {answering.reason}")
    log_left_out("gates.quantity", answering.dropped)
    # the subject is in the joined question ("And on the Plus plan?" asks about the notes' version history too)
    on_subject = subject.about_the_subject(answering.kept, packet.by_number(), packet.question, asked)
    if on_subject.dropped:
        notes.append(f"{len(on_subject.dropped)} sentence(s) dropped: {on_subject.reason}")
    log_left_out("gates.subject", on_subject.dropped)
    return on_subject.kept, notes


def log_left_out(check: str, sentences: list[CitedSentence]) -> None:
    """One INFO line per sentence ``check`` left out, its text cut to ``LOGGED_CHARS``: the status only counts
    them ("2 sentences left out by the checks"), and a browser check could not say which they were."""
    for sentence in sentences:
        text = " ".join(sentence.text.split())
        shown = text if len(text) <= LOGGED_CHARS else text[: LOGGED_CHARS - 1] + "…"
        log.info("left out by %s: [%s] %s", check, sentence.cite, shown)


def _citation(ctx: ToolContext, passage: Passage, quote: str) -> Citation:
    url = obsidian_url(ctx.settings.vault.name, passage.path, passage.heading)
    return Citation(passage.path, passage.heading, quote, passage.title, url)


def _written(
    ctx: ToolContext,
    packet: Packet,
    kept: list[CitedSentence],
    dropped: int,
    notes: list[str],
    shaped: int,
    read: Read = NOTHING_READ,
) -> Answer:
    by_number = {p.number: p for p in packet.passages}
    order: list[int] = []
    for sentence in kept:
        if sentence.cite not in order:
            order.append(sentence.cite)
    shown = {number: index for index, number in enumerate(order, start=1)}
    text = " ".join(f"{s.text} [{shown[s.cite]}]" for s in kept)
    citations = [_citation(ctx, by_number[n], by_number[n].text) for n in order]
    # What each passage gave the answer: its sentences nearest the kept sentences citing it (code picks them;
    # the model's sentences are only the yardstick, never kept).
    said = {n: " ".join(s.text for s in kept if s.cite == n) for n in order}
    label = ctx.settings.record_label
    rests_on = {n: best_sentences(by_number[n], said[n], label) for n in order}
    if steps := _steps_not_written(packet, kept, order, read):
        number, quote, first = steps
        if number not in shown:  # the cited page's steps, in a passage no sentence cites
            order.append(number)
            shown[number] = len(order)
            citations.append(_citation(ctx, by_number[number], by_number[number].text))
            rests_on[number] = ""
        block = marked(quoted_lines(shown_links(quote)), f"[{shown[number]}]")
        text = f"{block}\n\n{text}" if first else f"{text}\n\n{block}"
        parts = [quote, rests_on[number]] if first else [rests_on[number], quote]
        rests_on[number] = "\n\n".join(part for part in parts if part)
        notes = [*notes, "the written sentences gave no step of how to: the cited passage's steps are quoted"]
    answer = Answer(text, citations, answered=True, dropped=dropped, call_shaped=shaped, notes=notes)
    answer.rests_on = [_citation(ctx, by_number[n], rests_on[n]) for n in order]
    return answer


def _steps_not_written(
    packet: Packet, kept: list[CitedSentence], order: list[int], read: Read = NOTHING_READ
) -> tuple[int, str, bool] | None:
    """For a question asking how to do something (``packet.asks_how_to``, of what the turn asks: a follow-up's own
    words when it asks of its own) whose kept sentences restate no step of the passages they cite: the first cited
    passage holding a numbered list, its steps (``quotes.procedure``: the passage's own text, never the model's),
    and whether they go before the written sentences (the passage is cited first and every sentence citing it
    restates the page after the steps: the page's order); when no cited passage holds steps, another passage of a
    cited page that does (after them). None when the question asks no how, a kept sentence restates a step, no
    passage of a cited page holds steps, or the person ``read`` those steps in the answer before."""
    if not asks_how_to(followup.what_is_asked(packet.question, packet.turn)):
        return None
    by_number = {p.number: p for p in packet.passages}
    found: tuple[int, str, bool] | None = None
    for number in order:
        written = [s.text for s in kept if s.cite == number]
        steps = procedure(by_number[number], written, packet.question, packet.turn)
        if steps.written:  # the answer says how already
            return None
        if steps.steps and found is None and not read.repeats(steps.steps):
            found = number, steps.steps, steps.after and number == order[0]
    if found is not None:
        return found
    # the cited page's steps in a passage of their own (its opening cited, its procedure under a heading below it:
    # bench/browser_turns_eighth.tsv row 3); never another page's (measured: an unrelated page's steps, h55c)
    cited_pages = {by_number[number].path for number in order}
    for passage in packet.passages:
        if passage.number not in order and passage.path in cited_pages:
            steps = procedure(passage, [], packet.question, packet.turn)
            if steps.steps and not read.repeats(steps.steps):
                return passage.number, steps.steps, False
    return None


def _extractive(
    ctx: ToolContext,
    packet: Packet,
    dropped: int,
    notes: list[str],
    language: str,
    read: Read = NOTHING_READ,
    shaped: int = 0,
) -> Answer:
    """The vault's own words: the best passages quoted verbatim, each with its page (``quotes.best_sentences``
    picks each passage's sentences). The first admitted passage (``packet.admitted``) holding a sentence
    the person has not ``read`` is always quoted (for a question asking for a number, the first whose quote gives
    one); a further one only when its quote ``answers`` too and holds as many of the question's words (seen
    in Open WebUI: "… try creating a note called Eiffel Tower" for what a saved note said to try, a list item
    "Version history - View or restore …" from another page for how long history is kept). When the first
    passage's answering sentences were all read already, the answer says so, in the turn's language, and cites
    the page (seen: "And on the Plus plan?" then quoted another page's "Below is a comparison … Plus plan:")."""
    label = ctx.settings.record_label
    lines = lines_in(language)
    sharing = packet.passages  # each admitted (``packet.admitted``)
    found = [(p, best_sentences(p, packet.question, label, lead=packet.turn, read=read)) for p in sharing]
    if not found[0][1]:  # the best passage's answer was read already: a lesser page's words would not be one
        first = sharing[0]
        # the one sentence that answers, under a line saying it was read: a pointer alone left the person to find
        # the fact in the answer above (the browser check counted rows 2 and 11 as missed with it)
        quote = best_sentences(first, packet.question, label, count=1, lead=packet.turn)
        cited = [_citation(ctx, first, quote)]
        notes = [*notes, "every sentence that answers was in the answer before this one: its best one quoted alone"]
        again = f"{lines.said_above}\n\n{marked(quoted_lines(shown_links(quote)), '[1]')}"
        answer = Answer(again, cited, answered=False, dropped=dropped, call_shaped=shaped, notes=notes)
        answer.rests_on = list(cited)
        return answer
    found = [(passage, quote) for passage, quote in found if quote]
    asking = followup.what_is_asked(packet.question, packet.turn)
    if quantity.asks_for_a_number(asking):  # a quote giving the number asked for first
        found.sort(key=lambda pair: not quantity.gives_what_is_asked(pair[1], asking))
    quotes = [found[0]]
    floor = holds(quotes[0][1], packet.question, packet.turn)
    for passage, quote in found[1:]:
        if len(quotes) == EXTRACTIVE_PASSAGES:
            break
        if answers(quote, packet.question, packet.turn) and holds(quote, packet.question, packet.turn) >= floor:
            quotes.append((passage, quote))
    shown = [lines.quoted_heading]
    citations = []
    for index, (passage, quote) in enumerate(quotes, start=1):
        shown.append(marked(quoted_lines(shown_links(quote)), f"[{index}]"))  # links as shown
        citations.append(_citation(ctx, passage, quote))
    answer = Answer("\n\n".join(shown), citations, answered=False, dropped=dropped, call_shaped=shaped, notes=notes)
    answer.rests_on = list(citations)  # the quotes shown are what it rests on
    return answer
