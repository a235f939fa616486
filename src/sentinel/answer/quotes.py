"""What a person reads when the vault is quoted: which sentences of a passage, and which further quotes, by code.

Seen in Open WebUI (docs/answers.md, stop 46's browser checks): a follow-up's quote opened with the sentence the
answer before it had shown ("¿Y en qué carpeta?" after the daily note's name); a second sentence of the same
page about something else ("… not synced between devices" for how often snapshots are saved; the page's opening
before the name); an FAQ's "Nein, … 30 Tage …" quoted without the question it answers, so a reader took it for
the answer to theirs. The rules here hold no threshold: each is a set relation on folded words (stems).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sentinel.answer.followup import what_is_asked
from sentinel.answer.packet import Passage
from sentinel.answer.read import NOTHING_READ, Read, subject_shown
from sentinel.answer.tables import JointRule, shared_words, tables_in
from sentinel.gates import quantity
from sentinel.gates.support import content_words, stems
from sentinel.vault.record_line import is_record_line
from sentinel.vault.sentences import Sentence, sentence_spans

_PARAGRAPH_BREAK = re.compile(r"\n[ \t>]*\n")  # a blank line, also inside a quote or callout ("> \n>")
_MARKUP = "*_#> \t\n"
# an answer to a yes-no question opens with its yes or no (en, de, es, tr): quoted alone it answers nothing asked
_YES_OR_NO = re.compile(r"^[*_\s]*(?:no|yes|nein|ja|doch|sí|si|hayır|evet)\s*[,.!:;]", re.IGNORECASE)


def _question_line(span: Sentence) -> bool:
    return span.text.strip(_MARKUP).endswith("?")


def _asked_by(spans: Sequence[Sentence], index: int) -> int | None:
    """The index of the question ``spans[index]`` answers (an FAQ's bold or heading question right above it),
    -1 when it opens with a yes or no whose question the passage does not hold, else None."""
    if index > 0 and _question_line(spans[index - 1]) and not _question_line(spans[index]):
        return index - 1
    return -1 if _YES_OR_NO.match(spans[index].text) else None


_LIST_ITEM = re.compile(r"^[ \t>]*(?:[-*+]|\d+[.)])[ \t]")


def _list_after(spans: Sequence[Sentence], index: int) -> list[int]:
    """The list items right after ``spans[index]`` when it ends in a colon: it announces them ("… für die
    folgenden Dienste an:"), and quoted alone it says none of them (seen in the browser, stop 48, row 7)."""
    if not spans[index].text.rstrip(_MARKUP).endswith(":"):
        return []
    items = []
    for after in range(index + 1, len(spans)):
        if not _LIST_ITEM.match(spans[after].text):
            break
        items.append(after)
    return items


_STEP = re.compile(r"^[ \t>]*\d+[.)][ \t]")


def _steps_with(text: str, spans: Sequence[Sentence], index: int) -> list[int]:
    """Every sentence of the numbered list ``spans[index]`` is in, in order (none when it is in no numbered list):
    a step is half an instruction (seen in the browser, stop 49: steps 2 and 3 of five quoted for "How do I pin
    …?"). A step's further sentences are on its line."""

    def in_list(i: int) -> bool:
        if _STEP.match(spans[i].text):
            return True
        return i > 0 and "\n" not in text[spans[i - 1].end : spans[i].start] and in_list(i - 1)

    if not in_list(index):
        return []
    first, last = index, index
    while first > 0 and in_list(first - 1):
        first -= 1
    while last + 1 < len(spans) and in_list(last + 1):
        last += 1
    return [i for i in range(first, last + 1) if not spans[i].block]


def _next_to(text: str, spans: Sequence[Sentence], before: int, after: int) -> bool:
    """Whether two sentences follow each other in one paragraph (a reader reads them as one)."""
    return after == before + 1 and not _PARAGRAPH_BREAK.search(text, spans[before].end, spans[after].start)


def holds(quote: str, question: str, lead: str) -> tuple[int, int]:
    """How many of a follow-up's own words (stems), then of the question's, ``quote`` holds."""
    words = stems(quote)
    return len(words & stems(lead)), len(words & stems(question))


def _new(words: frozenset[str], had: frozenset[str]) -> frozenset[str]:
    """``words`` that ``had`` does not hold, a word held when one of the two begins the other ("nota", "notas")."""
    return frozenset(w for w in words if not any(h.startswith(w) or w.startswith(h) for h in had if len(h) > 3))


def answers(quote: str, question: str, lead: str) -> bool:
    """Whether a quote can answer what was asked: it gives a number when the question asks for one, and for a
    follow-up with words of its own it holds one of them (else it answers the earlier question)."""
    asking = what_is_asked(question, lead)
    if quantity.asks_for_a_number(asking) and not quantity.gives_what_is_asked(quote, asking):
        return False
    own = stems(lead)
    return not own or bool(stems(quote) & own)


def adds(quote: str, had: frozenset[str], question: str, lead: str) -> bool:
    """Whether a further sentence of a passage ``answers`` and holds a word of the question (a follow-up's own
    words included) that the quote before it and its page's name (``had``) do not."""
    asked = stems(question) | stems(lead)
    return answers(quote, question, lead) and bool(_new(stems(quote) & asked, had))


def best_sentences(
    passage: Passage,
    question: str,
    record_label: str,
    count: int = 2,
    lead: str = "",
    read: Read = NOTHING_READ,
) -> str:
    """The passage's quotable sentences about the question, in page order, verbatim ("" when all of them were
    read already). Ranked, for a follow-up naming no subject of its own, by a table row of the thing the answer
    before showed (``Read.subject``: "and on my macbook?" after the Windows row "Delete the current line"; such a
    row answers it, whether it holds the follow-up's words or not), then by a follow-up's own words (``lead``),
    then a number where the question asks for one, then the question's words; the first is quoted, a further one
    only when it is next to a chosen one in its paragraph or ``adds`` to them. For a follow-up whose own words
    some sentence holds, only those sentences (and such a row) answer it; for a question asking for a number,
    nothing is quoted when every sentence giving one was read.
    Never quoted: a code or HTML block or a footnote's definition (``Sentence.block``), a saved note's own record
    line ("Record: [[2026-12-06-3]]"), a sentence ``read`` already, and an FAQ answer without the question it
    answers (with it, the question is quoted before it), and a sentence ending in a colon without the list it
    announces (``_list_after``; the list is quoted after it, one item a line), and a numbered step
    without the other steps of its list (``_steps_with``). Two sentences not
    next to each other in one paragraph are kept apart by a blank line, never joined into one line that reads as
    one."""
    wanted, own = set(content_words(question)), set(content_words(lead))
    asking = what_is_asked(question, lead)
    numbers = quantity.asks_for_a_number(asking)
    text = passage.text.strip("…")
    spans = sentence_spans(text)
    tables = tables_in(text, spans)  # a table's row is read, ranked and quoted with its header (answer.tables)
    quotable = [
        index
        for index, span in enumerate(spans)
        if not span.block
        and not tables.is_header(index)
        and content_words(span.text)
        and not is_record_line(record_label, span.text)
        and _asked_by(spans, index) != -1
    ]
    if not quotable:
        return passage.text
    # a follow-up naming no subject of its own asks the thing of the row shown before, in another table: its own
    # words chose the chunk (the place: "ob sync-setup"), the row's first cell chooses the row (``Read.subject``)
    shown_thing = subject_shown(read, lead, [spans[index].text for index in tables.rows])

    def same_thing(index: int) -> int:
        return shown_thing.subject(spans[index].text) if tables.in_table(index) else 0

    if answering := [
        i for i in quotable if same_thing(i) or shared_words(tables.read(spans, i), lead, tables.in_table(i))
    ]:
        quotable = answering

    def shared(index: int) -> tuple[int, int, int, int, int]:
        read_as, row = tables.read(spans, index), tables.in_table(index)
        gives = numbers and quantity.gives_what_is_asked(spans[index].text, asking)
        held = -same_thing(index), -shared_words(read_as, lead, row), -gives, -shared_words(read_as, question, row)
        return *held, -tables.names_a_column(index, wanted | own)

    # a row holds every column's cell: the row read already answers a follow-up naming another column ("And on Sync
    # Standard?" after the "Total storage" row; seen in the browser, the next row was quoted instead)
    if tables.in_table(best := min(quotable, key=shared)) and read.repeats(spans[best].text):
        return ""
    giving = [i for i in quotable if numbers and quantity.gives_what_is_asked(spans[i].text, asking)]
    if giving and all(read.repeats(spans[i].text) for i in giving):
        return ""  # seen in the browser: "und wie oft?" quoted "… lokal auf jedem Gerät" after "alle 5 Minuten"
    quotable = [index for index in quotable if not read.repeats(spans[index].text)]
    if not quotable:
        return ""

    ranked = sorted(quotable, key=shared)
    chosen = [ranked[0]]
    had = stems(f"{passage.title} {passage.trail} {tables.read(spans, ranked[0])}")
    for index in ranked[1:]:
        if len(chosen) == count:
            break
        beside = not tables.in_table(index) and any(_next_to(text, spans, min(c, index), max(c, index)) for c in chosen)
        if beside or adds(tables.read(spans, index), had, question, lead):
            chosen.append(index)
            had |= stems(spans[index].text)
    shown = sorted(
        {
            *chosen,
            *(q for i in chosen if (q := _asked_by(spans, i)) is not None),
            *(item for i in chosen for item in _list_after(spans, i)),
            *(step for i in chosen for step in _steps_with(text, spans, i)),
        }
    )

    return tables.joined(spans, shown, _joint(text, spans))


def _joint(text: str, spans: Sequence[Sentence]) -> JointRule:
    """How two quoted sentences are joined: a list stays a list, an item a line; two sentences next to each other in
    one paragraph by a space; any others by a blank line."""

    def joint(before: int, after: int) -> str:
        if _LIST_ITEM.match(spans[after].text) and after == before + 1:
            return "\n" if _LIST_ITEM.match(spans[before].text) or _next_to(text, spans, before, after) else "\n\n"
        return " " if _next_to(text, spans, before, after) else "\n\n"

    return joint


@dataclass(frozen=True)
class Procedure:
    """What a passage's numbered steps are to a written answer (``procedure``)."""

    steps: str  # the steps, verbatim and joined as the page lists them ("" when the passage holds no numbered list)
    written: bool  # a written sentence restates one of them
    after: bool  # every written sentence restates a sentence after the steps on the page (a result, a note)


def procedure(passage: Passage, written: Sequence[str], question: str, lead: str = "") -> Procedure:
    """The numbered steps of ``passage`` and how the ``written`` sentences citing it stand to them: a written
    sentence restates the passage sentence holding the most of its words (stems; every one of a tie), a step when
    that sentence is one of a numbered list's (``_steps_with``). Of several lists, the one holding the most of a
    follow-up's own words (``lead``), then of the question's (the first on a tie). Seen in the browser
    (bench/browser_turns_seventh.tsv row 1): "… ses kaydı nasıl alıyom?" was answered by the one true sentence
    after the steps ("Obsidian kaydedilen ses dosyasını kasanıza kaydeder ve etkin notun sonuna gömer."), the steps
    on the passage it cited; ``pipeline`` then quotes them."""
    text = passage.text.strip("…")
    spans = sentence_spans(text)
    lists: list[list[int]] = []
    for index, span in enumerate(spans):
        if _STEP.match(span.text) and not any(index in steps for steps in lists):
            lists.append(_steps_with(text, spans, index))
    lists = [steps for steps in lists if steps]
    if not lists:
        return Procedure("", written=False, after=False)
    restated: set[int] = set()
    for sentence in written:
        words = stems(sentence)
        shared = [0 if span.block else len(words & stems(span.text)) for span in spans]
        restated |= {index for index, count in enumerate(shared) if count and count == max(shared)}
    steps = max(lists, key=lambda run: holds(" ".join(spans[i].text for i in run), question, lead))
    quote = tables_in(text, spans).joined(spans, steps, _joint(text, spans))
    gives = any(index in run for run in lists for index in restated)
    return Procedure(quote, written=gives, after=bool(restated) and min(restated) > steps[-1])
