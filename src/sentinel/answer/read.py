"""What the person has already read: the answer shown just before a follow-up, and the thing it was about.

Seen in the browser (stop 52, a spent held-out turn): "… delete the whole line …" on Windows was answered with the
row "Delete the current line | Ctrl+Shift+K"; the follow-up "and on my macbook?" with the macOS table's "Delete to
the end of the current line | Cmd+Delete", which shares as many of the joined question's words as the macOS row
"Delete the current line | Cmd+Shift+K" does. A follow-up that names no subject of its own asks the earlier
answer's thing of another place, plan or platform; a table's row names its thing in its first cell. So the row
whose first cell the answer shown named, in another table (the row itself not read), is the thing asked again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sentinel.answer.followup import asks_of_its_own
from sentinel.answer.tables import first_cell
from sentinel.gates.support import stems
from sentinel.vault.sentences import sentence_spans

CITE_MARK = re.compile(r"\s*\[\d+\]")  # an answer's "[1]" after a sentence or a quote


@dataclass(frozen=True)
class Read:
    """What the person has already read: the sentences of the answer shown just before this turn."""

    sentences: tuple[frozenset[str], ...] = ()

    @classmethod
    def of(cls, shown: str) -> Read:
        spans = sentence_spans(CITE_MARK.sub("", shown))
        return cls(tuple(words for span in spans if (words := stems(span.text))))

    def repeats(self, text: str) -> bool:
        """Whether ``text`` says nothing that the sentences already read did not: every word (stems, numbers
        whole) of each of its sentences is in one sentence read (a model's item may hold two: seen on
        bench/answers.py tr03, "… basın. Ayrıca … açabilirsiniz." written twice). The one test of "said before",
        for the model's sentences and for quotes alike."""
        spans = [words for span in sentence_spans(text) if (words := stems(span.text))]
        return bool(spans) and all(any(words <= sentence for sentence in self.sentences) for words in spans)

    def subject(self, row: str) -> int:
        """How many words (stems) of a table body row's first cell (``tables.first_cell``) one sentence read holds,
        when it holds them all and the row itself was not read: "Delete the current line | Cmd+Shift+K" after
        "Delete the current line | Ctrl+Shift+K" was shown gives 3, "Delete to the end of the current line | …"
        gives 0 ("end" was not read). More words is the closer match: a row "Delete" would give 1. 0 for a row
        read already ("And on Sync Standard?" after the "Total storage" row: that row is read as it stands)."""
        cell = stems(first_cell(row))
        if not cell or self.repeats(row) or not any(cell <= sentence for sentence in self.sentences):
            return 0
        return len(cell)


NOTHING_READ = Read()


def subject_shown(read: Read, turn: str, rows: Sequence[str] = ()) -> Read:
    """What a follow-up ``turn``'s rows are matched against (``Read.subject``): the answer read before it when the
    turn names no subject of its own ("and on my macbook?", "und auf Android?", "¿y en el plan Plus?"), else
    nothing: a turn asking something of its own (``followup.asks_of_its_own``) asks another thing, and one naming
    the thing of one of the table ``rows`` (its first cell holds a word of the turn: "And on the Plus plan?" over a
    row "Plus") asks that row."""
    own = stems(turn)
    if not turn or asks_of_its_own(turn) or any(stems(first_cell(row)) & own for row in rows):
        return NOTHING_READ
    return read
