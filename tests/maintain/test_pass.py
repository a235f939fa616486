"""The pass as a whole: order, progress lines, budget, dry run, crash and resume, the CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.maintain import queue
from sentinel.providers import ProviderUnavailable
from tests.support.maintain_pass import RunPass, ScriptedModel, reply
from tests.support.vault import WriteVault

PAGES = {f"notes/p{i}.md": f"Page {i} is about topic {i}.\n" for i in range(1, 4)}


def test_progress_lines_split_load_prefill_and_generation(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/p1.md": PAGES["notes/p1.md"]})
    answer = json.dumps({"summary": "s", "concepts": ["topic 1"]})
    split = ScriptedModel(analysis=lambda t: reply(answer, total_s=4.2, load_s=0.3, prefill_s=0.3, generation_s=3.5))
    done = run_maintain(settings, split)
    assert "  [1/1] notes/p1.md: ok 1 concepts, load 0.3s prefill 0.3s gen 3.5s" in done.lines
    assert done.text.startswith("sync\n") and "\nanalysis\n" in done.text and "\nembedding\n" in done.text
    assert "  analysed 1   failed 0   written 0   embedded 0" in done.report.summary_lines()[0]
    assert "peak memory" in done.report.summary_lines()[0]


def test_prefill_and_generation_without_load_are_shown_split(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/p1.md": PAGES["notes/p1.md"]})
    answer = json.dumps({"summary": "s", "concepts": []})
    llama_cpp = ScriptedModel(analysis=lambda t: reply(answer, total_s=4.2, prefill_s=0.4, generation_s=3.5))
    done = run_maintain(settings, llama_cpp)
    assert "  [1/1] notes/p1.md: ok 0 concepts, prefill 0.4s gen 3.5s" in done.lines
    assert not any("wall clock" in line for line in done.lines)


def test_one_total_per_call_is_said_once(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(PAGES)
    done = run_maintain(
        settings, ScriptedModel(analysis=lambda t: reply('{"summary": "s", "concepts": []}', total_s=9.4))
    )
    assert "  [1/3] notes/p1.md: ok 0 concepts, 9.4s" in done.lines
    assert sum("one total per call" in line for line in done.lines) == 1


def test_budget_stops_cleanly_between_pages(
    vault_settings: WriteVault,
    run_maintain: RunPass,
    e5: OnnxEmbedder,
) -> None:
    import time

    settings = vault_settings(PAGES)

    def slow(text: str) -> str:
        time.sleep(0.3)
        return '{"summary": "s", "concepts": []}'

    done = run_maintain(settings, ScriptedModel(analysis=slow), minutes=0.2 / 60, embedder=lambda: e5)
    assert done.report.analysed == 1
    assert "time budget spent with 2 pages still awaiting analysis" in done.report.stopped
    assert queue.count_awaiting(done.db) == 2
    # the budget covers embedding too: what it could not embed stays pending, and the report says how much
    assert done.report.embedded == 0 and "passages still to embed" in done.report.stopped
    assert done.db.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0] == 0


def test_a_crash_mid_pass_leaves_no_page_half_analysed_and_the_next_run_resumes(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(PAGES)

    def dies_on_page_two(text: str) -> str:
        if "Page 2" in text:
            raise KeyboardInterrupt  # the process is killed while the model answers
        return json.dumps({"summary": f"summary of {text.splitlines()[0]}", "concepts": []})

    with pytest.raises(KeyboardInterrupt):
        run_maintain(settings, ScriptedModel(analysis=dies_on_page_two))
    resumed = ScriptedModel(analysis=lambda t: {"summary": "later", "concepts": []})
    done = run_maintain(settings, resumed)
    rows = {r["path"]: r for r in done.db.execute("SELECT * FROM analysis")}
    assert rows["notes/p1.md"]["summary"] == "summary of Title: p1"  # kept from the first run, not redone
    assert [t.splitlines()[0] for t in resumed.asked_about("analysis")] == ["Title: p2", "Title: p3"]
    assert all(r["status"] == "ok" and r["summary"] for r in rows.values())


def test_an_unreachable_server_stops_the_pass_and_pages_stay_due(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(PAGES)

    def gone_after_one(text: str) -> str:
        if "Page 1" not in text:
            raise ProviderUnavailable("http://127.0.0.1:9/v1 could not be reached after 3 tries")
        return '{"summary": "s", "concepts": []}'

    done = run_maintain(settings, ScriptedModel(analysis=gone_after_one))
    assert done.report.analysed == 1 and done.report.failed == 0
    assert "could not be reached" in done.report.stopped
    assert queue.count_awaiting(done.db) == 2


def test_dry_run_counts_what_is_owed_without_a_model(vault_settings: WriteVault) -> None:
    settings = vault_settings({**PAGES, "notes/links.md": "[[dark matter]] and [[Topic one]]\n"})
    result = CliRunner().invoke(
        app,
        ["maintain", "--dry-run", "--vault", str(settings.vault), "--index", str(settings.index_path)],
        env={"SENTINEL_EXTRACTION__MODEL": ""},
    )
    assert result.exit_code == 0, result.output
    assert "pages awaiting analysis   4" in result.output
    assert "growth-queue names        2" in result.output
    assert "no model was called" in result.output


def test_cli_without_a_model_says_which_settings_to_set(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    result = CliRunner().invoke(
        app,
        ["maintain", "--vault", str(settings.vault), "--index", str(settings.index_path), "--json"],
        env={"SENTINEL_EXTRACTION__MODEL": ""},
    )
    assert result.exit_code == 4, result.output  # no model reached: the pass did not run, and says so
    report = json.loads(result.stdout)
    assert "SENTINEL_EXTRACTION__MODEL" in report["stopped"] and report["analysed"] == 0
