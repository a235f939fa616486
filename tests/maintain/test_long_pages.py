"""A long page: the summary role reads it whole, extraction walks overlapping windows."""

from __future__ import annotations

import itertools
import json

from sentinel.maintain.analysis import PARTS_INTRO
from sentinel.maintain.models import Models
from sentinel.maintain.text import window_chars, windows
from tests.support.maintain_pass import RunPass, reply
from tests.support.scripted import ChatRequest, ScriptedProvider
from tests.support.vault import WriteVault

PARAGRAPH = "The quick survey covers pulsar timing and radio bursts in detail. " * 6


def test_windows_overlap_and_cover_everything() -> None:
    text = "\n\n".join(f"Paragraph {i}. " + PARAGRAPH for i in range(20))
    parts = windows(text, 1000, 200)
    assert len(parts) > 5 and all(len(p) <= 1000 for p in parts)
    for before, after in itertools.pairwise(parts):
        assert after[:50] in before  # each window starts inside the previous one
    assert parts[-1].endswith(text[-100:])
    # every word of the text is inside some window
    assert all(any(word in p for p in parts) for word in {f"Paragraph {i}." for i in range(20)})


def test_long_page_is_summarised_whole_and_extracted_in_windows(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    body = "\n\n".join(
        f"Section {i}. "
        + PARAGRAPH
        + (" Here we meet the Crab Nebula." if i == 2 else "")
        + (" Finally the Vela pulsar." if i == 11 else "")
        for i in range(12)
    )
    settings = vault_settings({"sources/survey.md": body})

    def summary(request: ChatRequest) -> str:
        assert "Section 0." in request.messages[1]["content"] and "Section 11." in request.messages[1]["content"]
        return json.dumps({"summary": "A survey of pulsars."})

    def extraction(request: ChatRequest) -> str:
        text = request.messages[1]["content"]
        names = [n for n in ("Crab Nebula", "Vela pulsar", "pulsar timing") if n in text]
        return reply(json.dumps({"concepts": names}), prompt_tokens=len(text) // 4)  # type: ignore[return-value]

    summary_model = ScriptedProvider([summary], num_ctx=32768)
    # A 2048-token window holds ~2.6k characters of page text: the 5k-character page needs several windows.
    extraction_model = ScriptedProvider([extraction] * 50, num_ctx=2048)
    done = run_maintain(settings, Models(extraction_model, summary_model, "x + summary y"))
    row = done.analysis("sources/survey.md")
    assert row["status"] == "ok" and row["summary"] == "A survey of pulsars."
    assert sorted(json.loads(row["concepts"])) == ["Crab Nebula", "Vela pulsar", "pulsar timing"]  # each once
    windows_asked = [r for r in extraction_model.requests if "<page>" in r.messages[1]["content"]]
    assert len(windows_asked) >= 2
    assert all('"summary"' not in r.messages[1]["content"] for r in windows_asked)
    assert len(summary_model.requests) == 1


def test_page_longer_than_the_summary_window_still_gets_a_summary_and_concepts(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    body = "\n\n".join(
        f"Section {i}. " + PARAGRAPH + (" Here we meet the Crab Nebula." if i == 2 else "") for i in range(12)
    )
    settings = vault_settings({"sources/survey.md": body})
    fits = window_chars(2048, settings.analysis_reply_tokens, settings.analysis_chars_per_token)
    assert len(body) > fits  # no role reads this page whole: the only model has a 2048-token window

    def answer(request: ChatRequest) -> str:
        text = str(request.messages[1]["content"])
        page = text.split("<page>\n", 1)[1].split("\n</page>", 1)[0]
        assert len(page) <= fits, "a request larger than the model's window"  # what a real server refuses
        if PARTS_INTRO in page:
            return reply(json.dumps({"summary": "A survey of pulsars."}), prompt_tokens=len(text) // 4)  # type: ignore[return-value]
        sections = sorted({w.split(".")[0] for w in page.split("Section ")[1:]})
        names = ["Crab Nebula"] if "Crab Nebula" in page else []
        line = {"summary": f"Sections {', '.join(sections)} on pulsar timing.", "concepts": names}
        return reply(json.dumps(line), prompt_tokens=len(text) // 4)  # type: ignore[return-value]

    model = ScriptedProvider([answer] * 50, num_ctx=2048)
    done = run_maintain(settings, Models(model, model, "x"))  # no separate summary role: the shipped default
    row = done.analysis("sources/survey.md")
    assert row["status"] == "ok" and row["summary"] == "A survey of pulsars."
    assert json.loads(row["concepts"]) == ["Crab Nebula"]
    asked = [str(r.messages[1]["content"]) for r in model.requests]
    reduced = [text for text in asked if PARTS_INTRO in text]
    assert len(reduced) == 1 and reduced[0].count("\n- Sections ") == len(asked) - 1  # every window's line
    assert "summary reduced from" in row["reason"]
