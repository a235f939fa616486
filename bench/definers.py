"""Which names of the eval vault other pages define: the scan behind the held-back bench and the definitions set.

    .venv/bin/python -m bench.definers

Every page title of the eval vault against every sentence of every other page (all language folders): each
sentence the definition gate's code checks let through for the title (``definition.worth_asking``, with the
title's other spellings), grouped by title, with the page it sits on. This is how the out-of-page rows of
tests/maintain/data/definitions_set.tsv were found (then labelled by hand) and how bench/heldback.py's DEFINABLE
names were chosen: a title listed here whose name no other title spells. No model. Sentences are split as the
concept step splits them (paragraphs, then sentence ends), from each page's text as a reader sees it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from sentinel.gates import definition
from sentinel.vault.links import text_without_link_markup
from sentinel.vault.name_words import variant_key
from sentinel.vault.parse import split_frontmatter
from tests.support.eval_data import eval_vault_path

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+")
_LONGEST_NAME = 6  # words (the concept-name gate's limit)


def sentences(vault: Path) -> list[tuple[Path, str, str]]:
    """(page, sentence, paragraph language) for every sentence of every page."""
    found = []
    for page in sorted(vault.rglob("*.md")):
        body = split_frontmatter(page.read_text(encoding="utf-8"))[1]
        for raw in _PARAGRAPH.split(body):
            paragraph = text_without_link_markup(raw).strip()
            language = definition.language_of(paragraph)
            for sentence in _SENTENCE_END.split(paragraph):
                if sentence := _LIST_MARK.sub("", sentence).strip():
                    found.append((page, sentence, language))
    return found


def main() -> None:
    vault = eval_vault_path()
    every = sentences(vault)
    by_key: dict[str, set[int]] = defaultdict(set)  # variant_key of every word run -> sentences carrying it
    for i, (_, sentence, _) in enumerate(every):
        words = sentence.split()
        for start in range(len(words)):
            for end in range(start + 1, min(len(words), start + _LONGEST_NAME) + 1):
                by_key[variant_key(" ".join(words[start:end]))].add(i)
    titles = {page.stem.casefold(): page.stem for page in vault.rglob("*.md")}
    spelt = defaultdict(set)
    for title in titles.values():
        spelt[variant_key(title)].add(title.casefold())
    for key, title in sorted(titles.items()):
        definers = [
            every[i]
            for i in sorted(by_key.get(variant_key(title), ()))
            if every[i][0].stem.casefold() != key and definition.worth_asking(every[i][1], title, every[i][2])
        ]
        if not definers:
            continue
        others = sorted(spelt[variant_key(title)] - {key})
        print(f"{title}: {len(definers)}" + (f" (another title spells it: {', '.join(others)})" if others else ""))
        for page, sentence, _ in definers:
            print(f"  [{page.relative_to(vault)}] {sentence}")


if __name__ == "__main__":
    main()
