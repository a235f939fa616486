"""The browser check's turns (bench/browser_turns.tsv) and how a turn's text is read: no browser needed here.

The TSV has one row per turn, in the order they are typed, with columns:

- ``n``: the row's number in docs/answers.md's browser tables (row 9 is typed before row 8 there);
- ``chat``: a label; consecutive rows with the same label are typed into the same chat, a new label opens a new one;
- ``turn``: what is typed;
- ``page``: a piece of the page path the answer should cite (empty for a save, whose reply names the note;
  ``-`` for a question the vault does not answer, whose reply cites no page);
- ``fact``: one or more regular expressions joined by `` && ``; the fact is right when every one is found in the
  text a person reads (the finished message's DOM text).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TURNS_FILE = Path(__file__).with_name("browser_turns.tsv")
COLUMNS = ("n", "chat", "turn", "page", "fact")
FACT_JOIN = " && "
NO_PAGE = "-"  # the vault holds no answer: the right reply cites nothing
# Markup a person should never see as written in a rendered answer: bold, wikilinks, callouts, fences, JSON (a tool
# call or its arguments), footnote markers, a wiki link's closing half or a link to a heading ("[#Historial de
# versiones]", seen in the browser at stop 52).
MARKERS = ("**", "[[", "[!", "```", '{"', "[^", "]]", "[#")
# Shapes of a link cut in half or a sentence cut inside a parenthesis, each on one line of what a person reads
# (seen in the browser at stop 52 and in answers_set's tr03): an alias half ("Yerleşik Eklentiler|eklentisi]"),
# words in brackets that are no citation mark ("[Tres leyes del movimiento ]"; "[1]" is one), a line opening after
# a parenthesis it does not hold ("dein Handy) empfangen …") or ending inside one ("Sekundäre Geräte (z.").
SHAPES = {
    "|…]": re.compile(r"[^\s|]\|[^|\[\]\n]*\]"),
    "[…]": re.compile(r"\[(?!\d+\])(?![!^#\[])[^\[\]\n]+\]"),
}
_NOT_A_PARENTHESIS = re.compile(r"^[ \t>]*(?:\d+|[a-zA-Z])\)[ \t]|[:;]-?[()]")  # a list's "1)", a smiley


@cache
def says_not_named() -> re.Pattern[str]:
    """ "The vault does not mention “X”" in every language (imported when a turn is judged: ``--help`` and the
    turns file's checks run without sentinel)."""
    from sentinel.answer.lines import LINES

    templates = (re.escape(lines.not_named).replace(re.escape("{name}"), ".+?") for lines in LINES.values())
    return re.compile("|".join(templates))


@dataclass(frozen=True)
class Turn:
    n: int
    chat: str
    text: str
    page: str
    facts: tuple[re.Pattern[str], ...]

    @property
    def is_save(self) -> bool:
        return not self.page

    @property
    def unanswerable(self) -> bool:
        return self.page == NO_PAGE

    def fact_right(self, read: str) -> bool:
        """Whether every one of the turn's fact patterns is found in ``read``; for a question the vault does not
        answer, also whether ``read`` says the vault does not mention the thing the question names (the other
        form of "the vault does not say", ``lines.not_named``, in any language)."""
        if self.unanswerable and says_not_named().search(read):
            return True
        return all(pattern.search(read) for pattern in self.facts)

    def cites_page(self, sources: list[str]) -> bool:
        """Whether ``sources`` cite the turn's page; for a question the vault does not answer, whether they cite
        none (a page cited beside "the vault does not say" would be an answer's source that answers nothing)."""
        if self.unanswerable:
            return not sources
        return bool(self.page) and any(self.page in source for source in sources)


class TurnsFileError(ValueError):
    """A turns file that cannot be used; the message names the file, the line and the fix."""


def load_turns(path: Path = TURNS_FILE) -> list[Turn]:
    """The turns of ``path`` in their order; raises TurnsFileError naming the line and what to change."""
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise TurnsFileError(f"{path}: the header must be {'<TAB>'.join(COLUMNS)}, found {reader.fieldnames}")
        turns = [_turn(path, reader.line_num, row) for row in reader]
    if not turns:
        raise TurnsFileError(f"{path}: no turns below the header; add one row per turn")
    _check_order(path, turns)
    return turns


def _turn(path: Path, line: int, row: dict[str, str | None]) -> Turn:
    where = f"{path}:{line}"
    if None in row or any(row.get(column) is None for column in COLUMNS):
        raise TurnsFileError(f"{where}: expected {len(COLUMNS)} tab-separated columns ({', '.join(COLUMNS)})")
    values = {column: str(row[column]).strip() for column in COLUMNS}
    if not values["n"].isdigit():
        raise TurnsFileError(f"{where}: n must be the row's number in docs/answers.md, found {values['n']!r}")
    if not values["chat"] or not values["turn"] or not values["fact"]:
        raise TurnsFileError(f"{where}: chat, turn and fact must not be empty")
    facts = []
    for source in values["fact"].split(FACT_JOIN):
        try:
            facts.append(re.compile(source.strip()))
        except re.error as err:
            problem = f"the fact pattern {source.strip()!r} is no regular expression ({err})"
            raise TurnsFileError(f"{where}: {problem}") from err
    return Turn(int(values["n"]), values["chat"], values["turn"], values["page"], tuple(facts))


def _check_order(path: Path, turns: list[Turn]) -> None:
    seen: set[int] = set()
    closed: set[str] = set()
    for before, turn in zip([None, *turns], turns, strict=False):
        if turn.n in seen:
            raise TurnsFileError(f"{path}: row number {turn.n} is given twice; number each turn once")
        seen.add(turn.n)
        if before is not None and before.chat != turn.chat:
            closed.add(before.chat)
        if turn.chat in closed:
            raise TurnsFileError(
                f"{path}: row {turn.n} goes back to chat {turn.chat!r} after another chat; a chat's turns must be "
                "consecutive rows (the check types into one open chat at a time)"
            )


def markup_shown(text: str) -> list[str]:
    """The markers of ``MARKERS`` found as written in ``text`` (what a person reads), in MARKERS' order, then the
    ``SHAPES`` it shows, then "…)" for a line opening after a parenthesis and "(…" for one ending inside one."""
    found = [marker for marker in MARKERS if marker in text]
    found += [name for name, shape in SHAPES.items() if shape.search(text)]
    closes_none = opens_unclosed = False
    for line in text.splitlines():
        depth = 0
        for char in _NOT_A_PARENTHESIS.sub(" ", line):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth < 0:
                closes_none, depth = True, 0
        opens_unclosed |= depth > 0
    return found + ["…)"] * closes_none + ["(…"] * opens_unclosed


def trimmed(text: str, width: int = 160) -> str:
    """``text`` on one line, cut at ``width`` characters with an ellipsis; table pipes escaped."""
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"
