"""The model's drafts, captured with what they were checked against: a bench run writes them once, and a
candidate gate is read against every one of them offline (how many it refuses, each to be read by a person),
without asking the model again.

One JSON line per answer the pipeline checked: the question (and a follow-up's own words), each passage of the
packet as ``gates.support.Evidence`` holds it, the sentences the model proposed, and those the gates kept (with
``gates.garbled`` and without it).
``recording`` wraps the pipeline's check for the length of a bench run; ``load`` reads the lines back.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sentinel.answer import pipeline
from sentinel.gates import garbled, sorted_items
from sentinel.gates.support import CitedSentence, Evidence


@contextmanager
def recording(path: Path | None, label: str) -> Iterator[None]:
    """While open, each call of the pipeline's check appends one line to ``path`` (nothing when None);
    ``label`` names the question in the line (a bench sets it per question through ``label_of``)."""
    if path is None:
        yield
        return
    try:  # before any question is asked: a bad path found after the first answer wastes the model's run
        path.open("a", encoding="utf-8").close()
    except OSError as error:
        why = f"--drafts {path}: cannot append there ({error.strerror}); name a file in a folder that exists"
        raise SystemExit(why) from error
    real = pipeline._checked  # the one place proposed and kept sentences meet their packet
    asking = {"id": label}

    def checked(proposed: list[CitedSentence], packet: Any, record_label: str) -> Any:
        kept, notes = real(proposed, packet, record_label)
        gate = garbled.whole_copies  # the same check without the garbled-copy gate: its "before", no model asked
        garbled.whole_copies = lambda sentences, *_: sorted_items(sentences, [])  # type: ignore[assignment]
        try:
            before, _ = real(proposed, packet, record_label)
        finally:
            garbled.whole_copies = gate
        line = {
            "id": asking["id"],
            "question": packet.question,
            "turn": packet.turn,
            "passages": [asdict(e) for e in packet.by_number().values()],
            "proposed": [asdict(s) for s in proposed],
            "kept": [asdict(s) for s in kept],
            "kept_without_garbled": [asdict(s) for s in before],
        }
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        return kept, notes

    pipeline._checked = checked  # type: ignore[assignment]
    _LABELS.append(asking)
    try:
        yield
    finally:
        pipeline._checked = real
        _LABELS.remove(asking)


_LABELS: list[dict[str, str]] = []


def label_of(question_id: str) -> None:
    """Name the question the next captured lines belong to."""
    for asking in _LABELS:
        asking["id"] = question_id


def load(path: Path) -> Iterator[tuple[dict[str, Any], dict[int, Evidence], list[CitedSentence]]]:
    """Each captured line, with its packet by number and its kept sentences rebuilt."""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        packet = {p["number"]: Evidence(**p) for p in line["passages"]}
        yield line, packet, [CitedSentence(**s) for s in line["kept"]]


def main(argv: list[str] | None = None) -> int:
    """Read the captured drafts against ``gates.garbled``: answers written and kept without it and with it, and
    each sentence it replaced beside the source sentence shown instead, for a person to read."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    for path in args.files:
        lines = [line for line, _, _ in load(path) if line["id"] != "warm"]
        written = (sum(bool(line["kept_without_garbled"]) for line in lines), sum(bool(line["kept"]) for line in lines))
        checked = sum(len(line["kept_without_garbled"]) for line in lines)
        print(f"{path}: {len(lines)} answers, written and kept {written[0]} -> {written[1]}; {checked} sentences kept")
        for line, packet, _ in load(path):
            for sentence in (CitedSentence(**s) for s in line["kept_without_garbled"]):
                evidence = packet.get(sentence.cite)
                asked = f"{line['question']} {line['turn']}"
                shown = garbled.restored(sentence.text, evidence.text, asked) if evidence else sentence.text
                if shown != sentence.text:
                    print(f"  {line['id']} [{sentence.cite}] {sentence.text!r}\n      shown: {shown!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
