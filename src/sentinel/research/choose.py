"""Which passages of a page answer the question: decided by code, narrowed (never widened) by an optional model.

Splitting: the extracted text's paragraphs (one per line, a list item without its marker), a paragraph longer
than ``passage_max_words`` cut at sentence ends, pieces shorter than ``passage_min_chars`` left out; every
passage is a slice of the text.

Choosing: e5 cosine between the question and the passage, both embedded as passages. Asking whether a passage
is about what the question is about is a symmetric comparison, and measured on the loopback site's eval pages
(bench/research.py: 6 questions, 10 pages in 4 languages) it separates relevant from off-topic pages far better
than e5's retrieval form (``query:`` against ``passage:``): AUC 0.96 against 0.85 over all questions, where
``query:`` on both sides gave 0.89. A passage answers when its cosine reaches ``min_similarity``; the best
``passages_per_page`` by cosine are kept. Lexical overlap with the question's words was measured as a second way
in and left out: it let in off-topic pages in the question's language and no relevant page (docs/research.md).

The model, when ``model_filter`` is on, sees those candidates numbered and answers which of them answer the
question, copying the sentences of each that do. That copy is checked by the verbatim gate against the candidate
it names (``verbatim.keep_passages``): what is kept is the candidate's own text at that place, what is not found
is dropped. So the model can only leave passages out or shorten them; it cannot add a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from sentinel.embed.base import Embedder
from sentinel.gates import schema, verbatim
from sentinel.providers import ChatProvider, Message
from sentinel.settings import ResearchSettings

_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+")
_LIST_MARK = re.compile(r"^(?:[-*+•]|\d+[.)])\s+")  # the extractor's marker of a list item: not the page's words


@dataclass(frozen=True)
class Candidate:
    text: str
    similarity: float


class AnswerItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    number: int
    quote: Annotated[str, Field(max_length=4000)]


class AnswerReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answers: Annotated[list[AnswerItem], Field(max_length=20)]


def _pieces(line: str, max_words: int) -> list[str]:
    """``line`` cut at sentence ends into slices of at most ``max_words`` words (a longer sentence stays whole)."""
    if len(line.split()) <= max_words:
        return [line]
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(line)), len(line)]
    pieces: list[str] = []
    begin = 0
    for i, start in enumerate(starts[1:], 1):
        if len(line[begin:start].split()) > max_words and starts[i - 1] > begin:
            pieces.append(line[begin : starts[i - 1]].rstrip())
            begin = starts[i - 1]
    pieces.append(line[begin:].rstrip())
    return pieces


def split_passages(text: str, settings: ResearchSettings) -> list[str]:
    """The passages of an extracted text, in order, each a slice of it."""
    found: list[str] = []
    for line in text.split("\n"):
        line = line.strip()
        line = line[mark.end() :] if (mark := _LIST_MARK.match(line)) else line
        for piece in _pieces(line, settings.passage_max_words):
            if len(piece) >= settings.passage_min_chars and piece not in found:
                found.append(piece)
    return found


def question_vector(question: str, embedder: Embedder) -> np.ndarray:
    """The question as the passages are compared with it: embedded as a passage (see the module's docstring)."""
    return np.asarray(embedder.embed([question], "passage").vectors[0])


def candidates(question: str, passages: list[str], embedder: Embedder, settings: ResearchSettings) -> list[Candidate]:
    """The passages that answer ``question`` by code's measure, best first, at most ``passages_per_page``."""
    if not passages:
        return []
    cosines = embedder.embed(passages, "passage").vectors @ question_vector(question, embedder)
    kept = [Candidate(p, float(c)) for p, c in zip(passages, np.asarray(cosines), strict=True)]
    kept = [c for c in kept if c.similarity >= settings.min_similarity]
    kept.sort(key=lambda c: -c.similarity)
    return kept[: settings.passages_per_page]


def _prompt(question: str, chosen: list[Candidate]) -> list[Message]:
    listed = "\n\n".join(f"[{i}] {c.text}" for i, c in enumerate(chosen, 1))
    return [
        {
            "role": "system",
            "content": "You check whether passages of a web page answer a question. You never write anything of "
            "your own: you give a passage's number and copy, word for word, the sentences of it that answer.",
        },
        {
            "role": "user",
            "content": f"Question: {question}\n\nPassages:\n\n{listed}\n\nWhich passages answer the question? For "
            'each that does, reply {"number": <its number>, "quote": <the sentences of it that answer, copied '
            'exactly; the whole passage if all of it does>}. Reply JSON only: {"answers": [...]}, with an empty '
            "list when none answers.",
        },
    ]


@dataclass(frozen=True)
class Filtered:
    passages: list[str]  # the candidates' own text, narrowed
    dropped: int  # quotes the verbatim gate dropped (the model's words, never written)
    refused: str  # why the model's reply was not used ("" when it was)


def model_filter(
    question: str, chosen: list[Candidate], provider: ChatProvider, attempts: int, max_tokens: int
) -> Filtered:
    """Ask the model which candidates answer; keep only what the verbatim gate finds in the candidate named."""
    if not chosen:
        return Filtered([], 0, "")
    try:
        reply = schema.gated_call(
            provider, _prompt(question, chosen), AnswerReply, attempts=attempts, max_tokens=max_tokens
        ).reply
    except schema.CallRefused as refused:
        return Filtered([], 0, f"the model's reply was refused ({refused.reason}); no passage of this page kept")
    kept: list[str] = []
    dropped = 0
    for item in reply.answers:
        source = chosen[item.number - 1].text if 1 <= item.number <= len(chosen) else ""
        verdict = verbatim.keep_passages([item.quote], source)
        dropped += len(verdict.dropped)
        kept += [text for text in verdict.kept if text not in kept]
    return Filtered(kept, dropped, "")
