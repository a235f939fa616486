"""Gate: a label copied as a sentence (a table's header row, a passage's heading trail) is no answer.

Protects the person who asked which search operator finds only the tasks not done from reading "Arama operatörü |
Açıklama" and nothing else (the eighth held-out browser file, row 1, stop 55): the small Qwen copied the header of
the passage's operator table, every word of it in its passage, so the support gate kept it, and the person read the
names of two columns. A header names what a table's columns hold and says nothing about any row; a heading trail
("Obsidian Sync sorun giderme > Genel > Çakışma çözümleme > Çakışma çözümleme seçenekleri", written as the answer
to which version lets a person choose how conflicts are handled: bench/answers_set.tsv tr09, stop 55) says where a
passage is, not what it says. A sentence whose content words are all words of one header line of a table in the
passage it cites, or all words of one passage's title and heading trail, is dropped; when nothing else is kept,
the passage is quoted, where a body row is read with its header (``answer.tables``), never the header alone.
"""

from __future__ import annotations

from sentinel.gates import Verdict
from sentinel.gates.support import CitedSentence, Evidence, content_words
from sentinel.vault.links import text_without_link_markup
from sentinel.vault.tables import pipe_tables


def _header_words(text: str) -> list[frozenset[str]]:
    """The content words of each pipe table's header line in ``text`` (a passage as the model reads it)."""
    lines = text.splitlines()
    return [frozenset(content_words(text_without_link_markup(lines[t.header]))) for t in pipe_tables(lines)]


def _only_a_header(sentence: CitedSentence, evidence: Evidence | None) -> bool:
    words = set(content_words(text_without_link_markup(sentence.text)))
    if not words or evidence is None or "|" not in evidence.text:
        return False
    return any(words <= header for header in _header_words(evidence.text))


def says_more_than_a_header(sentences: list[CitedSentence], packet: dict[int, Evidence]) -> Verdict[CitedSentence]:
    """Keep the sentences that say more than a header line of a table in the passage they cite."""
    dropped = [s for s in sentences if _only_a_header(s, packet.get(s.cite))]
    kept = [s for s in sentences if s not in dropped]
    reason = "a table's header row names its columns and answers nothing" if dropped else ""
    return Verdict(passed=not dropped, reason=reason, kept=kept, dropped=dropped)


def says_more_than_its_trail(sentences: list[CitedSentence], packet: dict[int, Evidence]) -> Verdict[CitedSentence]:
    """Keep the sentences that say more than the title and heading trail of a passage of the packet (any one:
    tr09's trail was passage 1's, cited as passage 3, in whose words the support gate found it)."""
    trails = [set(content_words(f"{evidence.title} {evidence.trail}")) for evidence in packet.values()]

    def only_where(sentence: CitedSentence) -> bool:
        words = set(content_words(text_without_link_markup(sentence.text)))
        return bool(words) and any(words <= trail for trail in trails)

    dropped = [s for s in sentences if only_where(s)]
    kept = [s for s in sentences if s not in dropped]
    reason = "a heading trail says where a passage is, not what it says" if dropped else ""
    return Verdict(passed=not dropped, reason=reason, kept=kept, dropped=dropped)
