"""The evidence packet: the ladder run by code for one question, as numbered verbatim passages.

The model never chooses what to read: the body rung ranks pages (exact names first, then the fused legs) and
each page gives its best chunk, narrowed to the sentences that share the most words with the question so the
packet fits the model's window. A narrowed passage is still the page's own text, contiguous, and says that it
is an excerpt ("…" where it was cut): nothing is cut silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from sentinel.answer.read import NOTHING_READ, Read, subject_shown
from sentinel.answer.tables import Tables, body_rows, shared_words, tables_in
from sentinel.answer.unnamed import silenced, unmentioned
from sentinel.gates import quantity
from sentinel.gates.support import STEM, Evidence, content_words
from sentinel.search.hits import list_run, page_chunks
from sentinel.search.ladder import SearchInputError, search
from sentinel.search.results import Hit
from sentinel.tools.context import ToolContext
from sentinel.vault.sentences import Sentence, sentence_spans
from sentinel.vault.tables import as_table

# A question asking how to do something, in en, de, es, tr (from the four languages' grammar, fitted to no set):
# its answer is a page's numbered steps.
_ASKS_HOW_TO = re.compile(
    r"\bhow\s+(?:do|can|could|should)\s+(?:i|you|we)\b|\bhow\s+to\b"  # en
    r"|\bwie\s+(?:kann|könnte|muss|soll)\s+(?:ich|man)\b|\bwie\s+\w+\s+ich\b"  # de: "Wie öffne ich …"
    # es: "¿Cómo abro …?"; unaccented only where a clause opens ("tengo notas en keep, como las paso?")
    r"|\bcómo\b|(?:^|[,.;:¿?!])\s*como\b"
    r"|\bnas[ıi]l\b"  # tr, typed with or without its dotless i ("nasil")
    # asking for the steps by name: "what steps", "welche Schritte", "q pasos tengo q seguir", "hangi adımlar"
    r"|\b(?:what|which)\s+steps\b|\bwelche\s+schritte\b|\b(?:qu[eé]|q|cu[aá]les\s+son\s+los)\s+pasos\b"
    r"|\bhangi\s+ad[ıi]m",
    re.IGNORECASE,
)
_STEP = re.compile(r"^[ \t>]*\d+[.)][ \t]+(.+)$", re.MULTILINE)  # an ordered list's item
# The e5 cosine (the question embedded as a query, the passage as the model reads it as a passage) from which a
# passage is evidence for the question. Chosen on bench/unanswered.py's choosing halves (grid .78, .80, .82, .84;
# docs/answers.md): .82 left 6 of 22 questions the vault does not answer with nothing where one shared word left
# 1, and kept a right page's passage for 700 of 775 answerable questions where it kept 701; .84 lost 13. e5's
# cosines sit in a narrow band (unrelated text about .75-.80), a scale of that model family: another embedder
# is held to the shared word alone.
MIN_COSINE = 0.82
CHARS_PER_TOKEN = 3.5  # rough, on the side of caution: the packet must fit, not fill
_ELLIPSIS = "…"


@dataclass(frozen=True)
class Passage:
    number: int
    path: str
    title: str
    heading: str
    trail: str
    text: str  # verbatim, contiguous; starts or ends with "…" where the chunk went on
    cosine: float | None = None  # e5 cosine to the question (``MIN_COSINE``); None: not measured

    def read_as(self) -> str:
        """The passage as the model reads it (``Packet.render``), without its number."""
        return f"{self.trail or self.title}\n{self.text}"

    def evidence(self) -> Evidence:
        return Evidence(self.number, self.text, self.title, self.trail)


@dataclass
class Packet:
    question: str  # what was searched: a follow-up's words joined to the earlier question's (answer.followup)
    passages: list[Passage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the search said a reader must know
    earlier: str = ""  # the earlier question a follow-up continues, shown to the model as such
    turn: str = ""  # the follow-up itself, when ``earlier`` is set
    unnamed: str = ""  # a name the question holds that no chunk holds (``unnamed.silenced``): nothing is evidence
    # a device's name no chunk holds whole, or a name's kin ("MacBook"), where nothing is silenced
    # (``unnamed.unmentioned``): the answer opens by saying the vault does not mention it
    unmentioned: str = ""

    def by_number(self) -> dict[int, Evidence]:
        return {p.number: p.evidence() for p in self.passages}

    def render(self) -> str:
        """The packet as the model reads it."""
        return "\n\n".join(f"[{p.number}] {p.read_as()}" for p in self.passages)


def narrowed(
    text: str, question_words: set[str], max_chars: int, lead: frozenset[str] = frozenset(), read: Read = NOTHING_READ
) -> str:
    """The contiguous run of the chunk's sentences, at most ``max_chars`` long, that holds the most of a
    follow-up's own words (``lead``, stems), then the table row naming the most of the thing the answer before it
    showed (``read``: ``Read.subject``), then the most question words (the chunk itself when it fits), cut
    from the chunk as it stands (its line breaks kept, so a code block stays one); "…" marks each side where
    the chunk goes on. A pipe table's rows keep their header (``_above``): a run never ends on a header."""
    if len(text) <= max_chars:
        return text
    sentences = sentence_spans(text)
    tables = tables_in(text, sentences)
    asked = " ".join(sorted(question_words))
    scores = [
        (
            _leading(s.text, lead),
            read.subject(s.text) if tables.in_table(index) else 0,
            shared_words(s.text, asked, tables.in_table(index)),
        )
        for index, s in enumerate(sentences)
    ]
    best, best_score, best_above = (0, 0), (-1, -1, -1), ""
    for start in range(len(sentences)):
        above, header = _above(sentences, tables, start)
        end, score = start, scores[header] if header is not None else (0, 0, 0)
        while end < len(sentences) and len(above) + sentences[end].end - sentences[start].start <= max_chars:
            score = _plus(score, scores[end])
            end += 1
        if end - 1 > start and tables.is_header(end - 1):  # a header without its rows says nothing
            end -= 1
            score = _plus(score, scores[end], -1)
        if end > start and score > best_score:
            best, best_score, best_above = (start, end), score, above
    start, end = best
    if end == start:  # no sentence fits alone: the chunk's opening, marked as cut
        return text[:max_chars] + _ELLIPSIS
    excerpt = best_above + text[sentences[start].start : sentences[end - 1].end]
    opening = (_ELLIPSIS + ("\n" if excerpt.startswith("|") else "")) if start > 0 else ""
    end, excerpt = _answering_row(text, sentences, tables, scores, (start, end), max_chars - len(best_above), excerpt)
    closing = ("\n" if tables.in_table(end - 1) else "") + _ELLIPSIS if end < len(sentences) else ""
    return opening + excerpt + closing


def _answering_row(
    text: str,
    sentences: list[Sentence],
    tables: Tables,
    scores: list[tuple[int, int, int]],
    run: tuple[int, int],
    room: int,
    excerpt: str,
) -> tuple[int, str]:
    """``run`` (its ``excerpt``) with the row that answers when the run cuts a table's rows: the table's body row
    after the run scoring highest (a follow-up's words, the thing shown before, then the question's words, a row's
    read by stems: ``tables.shared_words``) replaces the run's last rows, after a row "| … |", when it scores above
    every row the run holds; else the run as it is. Seen on the spent turns (bench/quoted_turns.py, _more row 2):
    "Nachfolgend ein Vergleich … Tarif:", the header and the first row "Synchronisierte Vaults" were kept and the
    row "Maximale Dateigröße | 5 MB" asked for was cut, the prose above the table holding "Sync" in each sentence.
    Returns the run's new end (the index after the row shown) and its text."""
    start, end = run
    table = tables.rows.get(end - 1)
    if table is None or tables.rows.get(end) is not table:
        return end, excerpt
    after = [index for index in range(end, len(sentences)) if tables.rows.get(index) is table]
    row = max(after, key=lambda index: (scores[index], -index))
    kept = [index for index in range(start, end) if tables.rows.get(index) is table]
    if kept and scores[row] <= max(scores[index] for index in kept):
        return end, excerpt
    shown = f"| {_ELLIPSIS} |\n{text[sentences[row].start : sentences[row].end].strip()}"
    last = end - 1  # the first row left out: the text up to it (a header's separator line too) stays
    while (
        last > start
        and tables.rows.get(last - 1) is table
        and sentences[last].start - sentences[start].start + len(shown) > room
    ):
        last -= 1
    if last == start or sentences[last].start - sentences[start].start + len(shown) > room:
        return end, excerpt
    return row + 1, excerpt[: len(excerpt) - (sentences[end - 1].end - sentences[last].start)] + shown


def _plus(score: tuple[int, ...], more: tuple[int, ...], sign: int = 1) -> tuple[int, int, int]:
    first, second, third = (a + sign * b for a, b in zip(score, more, strict=True))
    return first, second, third


def _above(sentences: list[Sentence], tables: Tables, start: int) -> tuple[str, int | None]:
    """What a run opening at ``sentences[start]`` puts above it, and the index of the header that is: for a table's
    body row, the table's header and separator, and a row "| … |" when rows between are left out (seen: a narrowed
    passage kept a row, its "5 MB" the size of nothing named, and cut its header away); else nothing."""
    table = tables.rows.get(start)
    if table is None:
        return "", None
    first = min(index for index, row_table in tables.rows.items() if row_table is table)
    skipped = f"| {_ELLIPSIS} |\n" if first < start else ""
    return f"{table.header}\n{table.separator}\n{skipped}", first - 1 if tables.is_header(first - 1) else None


def _leading(text: str, lead: frozenset[str]) -> int:
    """How many of a follow-up's own words (stems) ``text`` holds."""
    return len({w[:STEM] for w in content_words(text)} & lead) if lead else 0


def _subject(text: str, read: Read) -> int:
    """How closely a table row of ``text`` names the thing the answer before showed (``Read.subject``; 0: none)."""
    return max((read.subject(row) for row in body_rows(text)), default=0)


def _chunk_for_turn(ctx: ToolContext, hit: Hit, lead: frozenset[str], read: Read = NOTHING_READ) -> Hit:
    """``hit`` with the chunk of its page that holds the most of a follow-up's own words (the searched chunk
    when none holds more): "¿Y en qué carpeta?" after a question about the daily note's name is answered in the
    page's settings, not in the chunk the two questions' words found. On a tie, the chunk whose headings hold
    more of them: "¿y en el móvil?" is answered under "Móvil y tabletas más pequeñas", not in the page's opening
    that names mobile in passing. Then the chunk holding a row of the thing the answer before showed, in another
    table (``read``: ``Read.subject``): "and on my macbook?" after the Windows row "Delete the current line" is
    answered by the macOS table's row of that name, not by the row the joined words found ("Delete to the end of
    the current line"). Chunks are compared first by the one sentence or table row (read under its headings) that
    holds the most of them, then by all their sentences together: "and to delete everything from the cursor back to
    the start of the line?" is answered by the Editing table's row "Delete to start of line" (delete, start, line),
    not by the Navigation table, whose rows hold more of the words between them (cursor, back, start, line: its
    rows "Move cursor right …" and "Jump to start of line" were quoted; bench/browser_turns_seventh.tsv row 9)."""

    def chosen(trail: str, text: str) -> tuple[int, int, int, int]:
        whole = _leading(f"{trail} {text}", lead), _leading(trail, lead), _subject(text, read)
        return _best_read(text, lead, rows_only=False, above=trail), *whole

    best, most = hit, chosen(hit.trail, hit.text)
    for trail, heading, text in page_chunks(ctx.reader(), hit.path):
        if text.strip() and (found := chosen(trail, text)) > most:
            best, most = replace(hit, trail=trail, heading=heading, text=text), found
    return best


def _number_words(text: str, words: frozenset[str]) -> int:
    """How many of ``words`` (stems) the sentences of ``text`` that give a number hold together: what a chunk
    offers a question asking for a number (``gates.quantity`` keeps only sentences giving one)."""
    giving = " ".join(s.text for s in sentence_spans(text) if quantity.gives_a_number(s.text))
    return _leading(giving, words)


def _with_number_chunk(ctx: ToolContext, hits: list[Hit], words: frozenset[str]) -> list[Hit]:
    """``hits`` with the first page's other chunk placed before the chunk the search chose for it, when the other
    chunk's sentences giving a number hold more of the question's words (stems) than the chosen one's. A packet
    takes one chunk a page, the one the search ranked first: for "Innerhalb welcher Frist bekomme ich eine
    Erstattung für Obsidian Sync?" the refund page's FAQ ("… 30 Tage lang aufbewahrt", a missed payment), never
    its opening ("Wir bieten innerhalb von 7 Tagen nach dem Kauf eine vollständige Erstattung …"). Bounded: one
    chunk added, from the page the search ranked first (a lower page's other chunk won on words like "long" in
    "as long as", seen on the version history question); the searched chunk stays (choosing instead of adding
    lost a right answer: docs/answers.md, stop 47)."""
    first = hits[0]
    best, most = None, _number_words(first.text, words)
    for trail, heading, text in page_chunks(ctx.reader(), first.path):
        if text.strip() and text != first.text and (found := _number_words(text, words)) > most:
            best, most = replace(first, trail=trail, heading=heading, text=text), found
    return hits if best is None else [best, *hits]


def asks_how_to(question: str) -> bool:
    """Whether the question asks how to do something (its answer: steps)."""
    return bool(_ASKS_HOW_TO.search(question))


def _step_words(trail: str, text: str, words: frozenset[str]) -> int:
    """How many of ``words`` (stems) a chunk's numbered steps hold with its heading trail (0 without steps)."""
    steps = _STEP.findall(text)
    return _leading(f"{trail} {' '.join(steps)}", words) if steps else 0


def _with_steps_chunk(ctx: ToolContext, hits: list[Hit], words: frozenset[str]) -> list[Hit]:
    """``hits`` with the first page's chunk of numbered steps placed before the chunk the search chose for it,
    when those steps (with their headings) hold more of the question's words (stems) than the chosen chunk's
    do. Seen in the browser: "How do I pin a command …?" got the section's opening ("You can pin frequently
    used commands …"), its steps under "### Pin a command" another chunk. Bounded as ``_with_number_chunk``."""
    first = hits[0]
    best, most = None, _step_words(first.trail, first.text, words)
    for trail, heading, text in page_chunks(ctx.reader(), first.path):
        if text.strip() and text != first.text and (found := _step_words(trail, text, words)) > most:
            best, most = replace(first, trail=trail, heading=heading, text=text), found
    return hits if best is None else [best, *hits]


def _best_read(text: str, words: frozenset[str], rows_only: bool, above: str = "") -> int:
    """How many of ``words`` (stems) the sentence of ``text`` holding most of them holds, a table's body row read
    with its header (``answer.tables``), each read under ``above`` (a chunk's heading trail); ``rows_only``: among
    the body rows alone."""
    spans = sentence_spans(text)
    tables = tables_in(text, spans)
    indexes = tables.rows if rows_only else range(len(spans))
    return max((_leading(f"{above} {tables.read(spans, index)}", words) for index in indexes), default=0)


def _with_table_chunk(ctx: ToolContext, hits: list[Hit], words: frozenset[str]) -> list[Hit]:
    """``hits`` with one page's other chunk placed before the chunk the search chose for it: the first page, in
    the search's order, with a chunk holding a table row that, read with its header, holds more of the question's
    words (stems) than any sentence of the chosen chunk does. A table's row is where a page states one thing's
    value, and a chunk is ranked by its words together: "¿Qué tipo de opción es el dominio personalizado en
    Publish?" got the site page's opening, its "Dominio personalizado | Botón" row in another chunk (the browser's
    tables turns, rows 5 and 6). Bounded as ``_with_number_chunk``: one chunk added, the searched one stays."""
    for position, hit in enumerate(hits):
        best, most = None, _best_read(hit.text, words, rows_only=False)
        for trail, heading, text in page_chunks(ctx.reader(), hit.path):
            if "|" in text and text != hit.text and (found := _best_read(text, words, rows_only=True)) > most:
                best, most = replace(hit, trail=trail, heading=heading, text=text), found
        if best is not None:
            return [*hits[:position], best, *hits[position:]]
    return hits


def _as_procedures(ctx: ToolContext, hits: list[Hit]) -> list[Hit]:
    """``hits`` with each step of a numbered list read as its list (``search.hits.list_run``), ``narrowed`` then
    keeping the steps around those holding the question's words; a second step of a list already read is left
    out (one passage a procedure). For every question, not only one asking how (``asks_how_to``): a step is a
    step by the page's structure, whatever the wording ("wo aktiviere ich die Insider-Builds?" asks no "how"),
    and its "there" and "then" point at the steps before it."""
    out: list[Hit] = []
    read: set[tuple[str, str]] = set()
    for hit in hits:
        text = list_run(ctx.reader(), hit.path, hit.trail, hit.text)
        if (hit.path, text) not in read:
            read.add((hit.path, text))
            out.append(replace(hit, text=text))
    return out


def build_packet(
    ctx: ToolContext, question: str, *, passages: int, budget_tokens: int, turn: str = "", read: Read = NOTHING_READ
) -> Packet:
    """Up to ``passages`` numbered passages for ``question``, together within ``budget_tokens``. For a
    follow-up, ``question`` is what was searched (the earlier question's words joined to it) and ``turn`` the
    follow-up's own words, which then lead: each page gives the chunk holding most of them, the passages
    holding more of them come first (the search's order on a tie), and each is narrowed to them first. A
    question asking for a number may take the first page's second chunk (``_with_number_chunk``), a question
    asking how to do something its chunk of numbered steps (``_with_steps_chunk``); a step found alone is read
    with its list (``_as_procedures``). ``read``: the answer shown before a follow-up naming no subject of its own
    (``read.subject_shown``), whose thing then chooses among the chunks and rows its own words leave tied."""
    named = silenced(ctx.reader(), question)
    packet = Packet(question, unnamed=named, unmentioned="" if named else unmentioned(ctx.reader(), question))
    try:
        result = search(ctx.reader(), ctx.settings, ctx.embedder, question, "body", limit=passages)
    except SearchInputError as err:
        packet.notes.append(str(err))
        return packet
    packet.notes.extend(result.notes)
    hits: list[Hit] = [h for h in result.hits if h.text.strip()]
    if not hits:
        return packet
    lead = frozenset(w[:STEM] for w in content_words(turn))
    shown = subject_shown(read, turn)
    if lead:
        hits = [_chunk_for_turn(ctx, hit, lead, shown) for hit in hits]
        hits.sort(key=lambda hit: (-_leading(f"{hit.trail} {hit.text}", lead), -_subject(hit.text, shown)))
    elif quantity.asks_for_a_number(question):  # a follow-up's own words choose its chunks (above)
        hits = _with_number_chunk(ctx, hits, frozenset(w[:STEM] for w in content_words(question)))
    elif asks_how_to(question):
        hits = _with_steps_chunk(ctx, hits, frozenset(w[:STEM] for w in content_words(question)))
    if not lead:
        hits = _with_table_chunk(ctx, hits, frozenset(w[:STEM] for w in content_words(question)))
    hits = _as_procedures(ctx, hits)
    per_passage = int(budget_tokens * CHARS_PER_TOKEN / len(hits))
    wanted = set(content_words(question))
    for number, hit in enumerate(hits, start=1):
        packet.passages.append(
            Passage(
                number=number,
                path=hit.path,
                title=hit.title,
                heading=hit.heading,
                trail=hit.trail,
                text=narrowed(as_table(hit.text.strip()), wanted, max(200, per_passage), lead, shown),
            )
        )
    packet.passages = _measured(ctx, question, packet.passages)
    return packet


def _measured(ctx: ToolContext, question: str, passages: list[Passage]) -> list[Passage]:
    """``passages`` with each one's e5 cosine to ``question`` (unchanged without an e5 embedder)."""
    embedder = ctx.embedder
    if embedder is None or not passages or "e5" not in embedder.identity.name.casefold():
        return passages
    asked = embedder.embed([question], "query").vectors[0]
    read = embedder.embed([p.read_as() for p in passages], "passage").vectors
    return [replace(p, cosine=float(vector @ asked)) for p, vector in zip(passages, read, strict=True)]


def shares_words(passage: Passage, question: str) -> bool:
    """Whether the passage (with its title and trail) has a content word of the question (same first letters)."""
    wanted = {w[:STEM] for w in content_words(question)}
    return bool(wanted & {w[:STEM] for w in content_words(f"{passage.title} {passage.trail} {passage.text}")})


def lets_in(passage: Passage, question: str) -> bool:
    """Whether the passage is evidence for the question: it shares a content word with it, and its e5 cosine to it
    (where measured) reaches ``MIN_COSINE``. "¿Cuántos años tiene mi abuela?" shares "tiene" with pages about
    plans; their cosines stay near .81."""
    return shares_words(passage, question) and (passage.cosine is None or passage.cosine >= MIN_COSINE)


def relevant(packet: Packet) -> bool:
    """Whether any passage is evidence for the question (``lets_in``; else the vault does not say): none is when
    the question names a thing no chunk holds (``Packet.unnamed``), however on topic e5 reads the rest."""
    return not packet.unnamed and any(lets_in(p, packet.question) for p in packet.passages)


def admitted(packet: Packet) -> Packet:
    """``packet`` with only the passages ``lets_in`` admits, numbered from 1: what the model reads and the answer
    may quote. Seen in the browser (stop 49, row 1): "¿Qué tiempo hará mañana en Madrid?" let in one passage,
    and the model wrote from another below the floor ("Ayuda y soporte", cosine .814) that the support gate kept."""
    kept = [p for p in packet.passages if lets_in(p, packet.question)]
    return replace(packet, passages=[replace(p, number=n) for n, p in enumerate(kept, start=1)])
