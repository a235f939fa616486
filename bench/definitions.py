"""Precision and recall of the definition-shape rule (``definition.worth_asking``) on the definitions set.

    .venv/bin/python -m bench.definitions

tests/maintain/data/definitions_set.tsv: 202 sentences of the eval vault in en/de/es/tr, each with a name and a
hand label ("defines" or "not"; the file's header says how). The rule is the code half of the definition gate
(a plain statement, the name as subject in its language's definitional shape); a sentence it refuses is never put
to the model, so its recall bounds the concept pages the pass can write, and its precision is what the model's two
questions then have to sort. Prints a table per language and every miss and every false pass. No model.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sentinel.gates import definition

SET = Path(__file__).resolve().parents[1] / "tests" / "maintain" / "data" / "definitions_set.tsv"


@dataclass(frozen=True)
class Labelled:
    defines: bool
    language: str
    name: str
    sentence: str
    spelling_page: str = ""  # another page's title that spells the name: the pass leaves the name alone
    out_of_page: bool = False  # a row of the second round: a sentence on another page than the name's own


def load(path: Path = SET) -> list[Labelled]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    unknown = {r["label"] for r in rows} - {"defines", "not"}
    if unknown:
        raise ValueError(f"{path}: unknown labels {sorted(unknown)}; use defines or not")
    return [
        Labelled(
            r["label"] == "defines",
            r["language"],
            r["name"],
            r["sentence"],
            r["spelling_page"] or "",
            r["spelling_page"] is not None,
        )
        for r in rows
    ]


def shape_rule(item: Labelled) -> bool:
    """The shape rule alone: the sentence's language by its own stop words, then ``definition.worth_asking``."""
    return definition.worth_asking(item.sentence, item.name, definition.language_of(item.sentence))


def asked(items: list[Labelled]) -> list[Labelled]:
    """The rows the shape rule decides in the pass: a name another page's title spells is left alone before
    anything is asked (``concepts.write_concept_pages``: one thing, one page)."""
    return [item for item in items if not item.spelling_page]


def scores(items: list[Labelled], rule: Callable[[Labelled], bool] = shape_rule) -> tuple[int, int, int]:
    """(true passes, false passes, misses)."""
    hits = [(item.defines, rule(item)) for item in items]
    return (
        sum(d and p for d, p in hits),
        sum(p and not d for d, p in hits),
        sum(d and not p for d, p in hits),
    )


def main() -> None:
    every = load()
    items = asked(every)
    print(f"definitions set: {len(every)} sentences, {sum(i.defines for i in every)} labelled defines")
    print(f"the rule decides {len(items)} of them in the pass ({len(every) - len(items)} left alone first)\n")
    print("| language | sentences | defines | rule passes | precision | recall |")
    print("|---|---|---|---|---|---|")
    for language in [*sorted({i.language for i in items}), "out of page", "all"]:
        chosen = [i for i in items if language in ("all", i.language) or (language == "out of page" and i.out_of_page)]
        true, false, missed = scores(chosen)
        precision = f"{true / (true + false):.2f}" if true + false else "-"
        recall = f"{true / (true + missed):.2f}" if true + missed else "-"
        print(f"| {language} | {len(chosen)} | {true + missed} | {true + false} | {precision} | {recall} |")
    alone = [i for i in every if i.spelling_page]
    true, false, _ = scores(alone)
    print(
        f"\nleft alone by the pass (another page's title spells the name): {len(alone)} rows; the shape rule alone "
        f"would pass {true} labelled defines and {false} labelled not"
    )
    print("\nmissed (labelled defines, refused by the rule):")
    for item in items:
        if item.defines and not shape_rule(item):
            print(f"  [{item.language}] {item.name}: {item.sentence}")
    print("\nlet through (labelled not):")
    for item in items:
        if shape_rule(item) and not item.defines:
            print(f"  [{item.language}] {item.name}: {item.sentence}")


if __name__ == "__main__":
    main()
