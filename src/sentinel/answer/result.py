"""What an answer is, for every door (Open WebUI, ``sentinel ask``, ``POST /v1/ask``, MCP): the text a person
reads, the citations behind it as data, and how it was reached."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from urllib.parse import quote

from sentinel.answer.lines import answer_status
from sentinel.paths import without_md


@dataclass(frozen=True)
class Citation:
    path: str
    heading: str
    quote: str  # the passage's text the answer rests on, verbatim
    title: str = ""
    url: str = ""  # obsidian://open?vault=...&file=... (opens the page in Obsidian)

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Answer:
    answer: str
    citations: list[Citation] = field(default_factory=list)
    intent: str = "vault"
    answered: bool = False  # False: extractive only, or the vault does not hold it
    dropped: int = 0  # sentences the support gate dropped
    call_shaped: int = 0  # pieces of the model's reply shaped like a tool call, never shown
    model: str = ""
    notes: list[str] = field(default_factory=list)
    saved: str = ""  # the note a save wrote or updated
    status: str = ""  # the short line a door shows beside the answer ("" : ``status_line`` says it)
    language: str = "en"  # of the lines Sentinel writes itself (``intent.turn_language``)
    # Per cited passage, the sentences of it the answer rests on (what a later "save this" quotes); not sent.
    rests_on: list[Citation] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "answer": self.answer,
            "citations": [c.as_dict() for c in self.citations],
            "intent": self.intent,
            "answered": self.answered,
            "dropped": self.dropped,
            "model": self.model,
            "notes": list(self.notes),
            "saved": self.saved,
            "call_shaped": self.call_shaped,
            "status": self.status_line(),
        }

    def status_line(self) -> str:
        """The short line a door shows beside the answer (Open WebUI's status): what a save did, in its
        language, or how the answer was checked, in the turn's."""
        return self.status or answer_status(self.language, self.answered, self.dropped)


def obsidian_url(vault_name: str, path: str, heading: str = "") -> str:
    """The link that opens ``path`` (at ``heading``) in Obsidian, as the search page writes it."""
    file = without_md(path) + (f"#{heading}" if heading else "")
    return f"obsidian://open?vault={quote(vault_name, safe='')}&file={quote(file, safe='')}"
