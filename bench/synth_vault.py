"""Write a synthetic Obsidian-style vault of N pages for index and search benchmarks.

    python bench/synth_vault.py OUT --pages 10000 [--seed 0]

The vault imitates what matters for cost: ~10 body chunks per page at the default 250-word chunk size
(100k pages ~ 1M chunks), a Zipf word distribution per language (en, de, es, tr with their own frequent
words, so FTS5 sees realistic very-common terms), headings H1-H3, frontmatter with descriptions, aliases,
tags, status/type/confidence facets and typed edges (related:, parent:, depends_on:) on some pages, about ten
wikilinks per page (mostly inside the page's topic, ~8% unresolved, some embeds and heading links), and the
four role folders. Pages of one topic share a topic vocabulary, so lexical and vector neighbourhoods cluster
the way real notes do. The same seed always writes the same vault. ``generate`` is importable.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

LANGUAGES = ("en", "de", "es", "tr")
# Frequent function words per language: the terms that make FTS5 OR-queries slow at scale.
COMMON = {
    "en": "the of and to in is a that for it as with on be by this are or from at an not you can your",
    "de": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an",
    "es": "de la que el en y a los se del las un por con no una su para es al lo como más o pero",
    "tr": "ve bir bu da de için ile olarak daha çok gibi en ne var olan ya kadar sonra her şey ama",
}
SYLLABLES = {
    "en": "ba ter con ing ex pro tion ver str com ple ment ar ly sync note ca fi le ed",
    "de": "ver ein ge sch ung lich keit ber ein ste nach zu ent hal tig ier au ei ch",
    "es": "ci ón mo ra de lo ca ta es pa tra mi ble ria con cia dad ar er",
    "tr": "lar ler ı ma me ye ya ka ba ça ğı in ün da de ma sı li lı ğe",
}
FOLDER_SHARE = {"notes": 0.55, "wiki": 0.15, "sources": 0.2, "conversations": 0.1}
WORDS_PER_LANGUAGE = 20_000
TOPIC_WORDS = 60
PAGES_PER_TOPIC = 40


@dataclass(frozen=True)
class _Page:
    rel: str
    title: str
    topic: int
    lang: str


def _vocabulary(rng: random.Random, lang: str) -> list[str]:
    """Invented words with a language's flavour, deterministic for the seed; common words first."""
    words: list[str] = COMMON[lang].split()
    seen = set(words)
    syllables = SYLLABLES[lang].split()
    while len(words) < WORDS_PER_LANGUAGE:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


class _Writer:
    """Text generator for one vault: Zipf over each language's vocabulary, topic words mixed in."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.vocab = {lang: _vocabulary(self.rng, lang) for lang in LANGUAGES}
        ranks = np.arange(1, WORDS_PER_LANGUAGE + 1)
        zipf = 1.0 / ranks**1.07
        self.cdf = np.cumsum(zipf / zipf.sum())

    def topic_words(self, lang: str) -> list[str]:
        return self.rng.sample(self.vocab[lang][200:], TOPIC_WORDS)

    def words(self, lang: str, topic: list[str], n: int) -> list[str]:
        picks = np.searchsorted(self.cdf, self.np.random(n))
        vocab = self.vocab[lang]
        out = [vocab[min(i, WORDS_PER_LANGUAGE - 1)] for i in picks]
        for i in self.np.choice(n, size=max(1, n // 8), replace=False):
            out[i] = topic[int(self.np.integers(len(topic)))]
        return out

    def sentence(self, lang: str, topic: list[str], n: int) -> str:
        words = self.words(lang, topic, n)
        return " ".join(words).capitalize() + "."


def _plan(pages: int, rng: random.Random) -> list[_Page]:
    planned: list[_Page] = []
    folders = list(FOLDER_SHARE)
    weights = list(FOLDER_SHARE.values())
    topics = max(1, pages // PAGES_PER_TOPIC)
    titles: set[str] = set()
    for i in range(pages):
        topic = i % topics
        lang = LANGUAGES[topic % len(LANGUAGES)] if rng.random() < 0.85 else rng.choice(LANGUAGES)
        folder = rng.choices(folders, weights)[0]
        title = f"{lang.upper()} topic {topic} page {i}"
        while title in titles:
            title += "x"
        titles.add(title)
        sub = f"t{topic % 97}"
        planned.append(_Page(f"{folder}/{sub}/{title}.md", title, topic, lang))
    return planned


def _frontmatter(page: _Page, rng: random.Random, writer: _Writer, topic: list[str], peers: list[_Page]) -> str:
    lines = ["---"]
    if rng.random() < 0.4:
        lines.append(f"description: {writer.sentence(page.lang, topic, rng.randint(12, 25))}")
    if rng.random() < 0.3:
        lines.append(f"aliases: [{' '.join(rng.sample(topic, 2))}]")
    if rng.random() < 0.5:
        lines.append(f"tags: [{', '.join(rng.sample(topic, 2))}]")
    if rng.random() < 0.3:
        lines.append(f"type: {rng.choice(['entity', 'concept', 'project', 'howto'])}")
    if rng.random() < 0.15:
        lines.append(f"status: {rng.choice(['seedling', 'evergreen', 'draft'])}")
    if rng.random() < 0.05:
        lines.append("confidence: low")
    if peers and rng.random() < 0.2:
        edge = rng.choice(["related", "parent", "depends_on"])
        lines.append(f'{edge}: ["[[{rng.choice(peers).title}]]"]')
    lines.append("---")
    return "\n".join(lines) + "\n" if len(lines) > 2 else ""


def _link(rng: random.Random, peers: list[_Page], everyone: list[_Page]) -> str:
    roll = rng.random()
    if roll < 0.08:
        return f"[[Missing {rng.randint(0, 500)}]]"  # unresolved: feeds the growth queue
    target = rng.choice(peers) if peers and roll < 0.85 else rng.choice(everyone)
    if roll > 0.97:
        return f"![[{target.title}]]"
    if roll > 0.93:
        return f"[[{target.title}#Overview|{target.title.lower()}]]"
    return f"[[{target.title}]]"


def _page_text(
    page: _Page, rng: random.Random, writer: _Writer, topic: list[str], peers: list[_Page], all_pages: list[_Page]
) -> str:
    parts = [_frontmatter(page, rng, writer, topic, peers)]
    sections = rng.randint(5, 14)
    links_left = rng.randint(4, 16)
    for s in range(sections):
        level = 1 if s == 0 else rng.choice([2, 2, 2, 3])
        heading = "Overview" if s == 0 else " ".join(writer.words(page.lang, topic, rng.randint(1, 4))).capitalize()
        parts.append(f"{'#' * level} {heading}\n")
        for _ in range(rng.randint(1, 3)):
            sentences = [writer.sentence(page.lang, topic, rng.randint(5, 18)) for _ in range(rng.randint(2, 4))]
            if links_left and rng.random() < 0.6:
                sentences.insert(rng.randint(0, len(sentences)), _link(rng, peers, all_pages))
                links_left -= 1
            parts.append(" ".join(sentences) + "\n")
    return "\n".join(parts)


def generate(out: Path, pages: int, seed: int = 0) -> int:
    """Write ``pages`` pages under ``out`` (created; existing files with the same names are overwritten).

    Returns the number of words written.
    """
    rng = random.Random(seed)
    writer = _Writer(seed)
    planned = _plan(pages, rng)
    by_topic: dict[int, list[_Page]] = {}
    for page in planned:
        by_topic.setdefault(page.topic, []).append(page)
    topic_vocab = {t: writer.topic_words(members[0].lang) for t, members in by_topic.items()}
    words = 0
    made: set[Path] = set()
    for page in planned:
        target = out / page.rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        peers = [p for p in by_topic[page.topic] if p is not page]
        text = _page_text(page, rng, writer, topic_vocab[page.topic], peers, planned)
        target.write_text(text, encoding="utf-8")
        words += len(text.split())
    return words


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the vault into")
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.pages < 1:
        parser.error("--pages must be at least 1")
    words = generate(args.out, args.pages, args.seed)
    print(f"wrote {args.pages} pages, {words} words, into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
