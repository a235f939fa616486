"""The health line, the nightly schedule's missed-run check, and the one-pass-per-index lock."""

from __future__ import annotations

import json
from datetime import datetime, time, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.maintain.health import health_line
from sentinel.maintain.lock import PassBusy, local_pass_lock
from sentinel.maintain.schedule import (
    BadScheduleTime,
    last_run,
    last_slot,
    missed_run,
    parse_at,
    record_first_chat,
    record_run,
    schedule_started,
)
from tests.support.maintain_pass import RunPass, ScriptedModel
from tests.support.vault import WriteVault


def test_health_line_is_empty_when_nothing_is_owed(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/a.md": "A page.\n", "conversations/c.md": "user: hi\n"})
    done = run_maintain(settings, ScriptedModel())
    assert health_line(done.db) == ""


def test_health_line_says_what_is_owed(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    referencing = {f"notes/r{i}.md": f"Page {i} reaches for [[dark matter]].\n" for i in range(3)}
    bloated = "\n".join(f"## Section {i}\n\ntext\n" for i in range(13))
    settings = vault_settings(
        {**referencing, "notes/bad.md": "Fails.\n", "wiki/Big.md": bloated, "notes/plain.md": "dark matter too\n"}
    )
    # One page fails analysis; "dark matter" is linked by three pages and extracted from a fourth.
    model = ScriptedModel(
        analysis=lambda text: (
            {"summary": "", "concepts": []}
            if "Fails" in text
            else {"summary": "s", "concepts": ["dark matter"] if "dark matter" in text else []}
        )
    )
    done = run_maintain(settings, model)
    (settings.vault / "notes/new.md").write_text("New.\n", encoding="utf-8")
    sync(settings, done.db)
    line = health_line(done.db)
    assert line.startswith("health: ")
    assert "1 page awaiting analysis" in line
    assert "1 failed analysis" in line
    assert "1 concept that 4+ pages reference and nothing defines (dark matter)" in line
    assert "1 concept page past 12 sections" in line


def test_schedule_time_is_checked() -> None:
    assert parse_at("23:00") == time(23, 0)
    assert parse_at("7:05") == time(7, 5)
    with pytest.raises(BadScheduleTime, match="HH:MM"):
        parse_at("11pm")


def test_a_run_missed_while_asleep_is_due_at_start(vault_settings: WriteVault) -> None:
    db = open_index(vault_settings({}))
    at = time(23, 0)
    evening = datetime(2026, 11, 2, 23, 30).astimezone()
    assert last_slot(at, evening) == datetime(2026, 11, 2, 23, 0).astimezone()
    assert not missed_run(db, at, evening)  # a new install has missed nothing: no unrequested first pass
    record_run(db, evening - timedelta(minutes=25))
    assert not missed_run(db, at, evening)
    # The laptop slept through the next night's 23:00 and wakes at 08:00 the day after.
    assert missed_run(db, at, datetime(2026, 11, 4, 8, 0).astimezone())
    assert not missed_run(db, at, datetime(2026, 11, 3, 22, 59).astimezone())


def test_a_new_install_starts_its_schedule_after_the_first_chat_or_pass(vault_settings: WriteVault) -> None:
    db = open_index(vault_settings({}))
    assert not schedule_started(db)
    record_first_chat(db)
    record_first_chat(db)  # only the first one is kept
    assert schedule_started(db)
    other = open_index(vault_settings({}).model_copy(update={"index_path": db_path(db).with_name("other.db")}))
    record_run(other)
    assert schedule_started(other)


def db_path(db: object) -> Path:
    return Path(db.execute("PRAGMA database_list").fetchone()[2])  # type: ignore[attr-defined]


def test_a_pass_that_reached_no_model_is_not_a_pass(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "A page about stars.\n"})
    args = ["maintain", "--vault", str(settings.vault), "--index", str(settings.index_path), "--provider", "openai"]
    result = CliRunner().invoke(app, [*args, "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--json"])
    assert result.exit_code == 4, result.output
    assert json.loads(result.stdout)["unreached"]
    assert last_run(open_index(settings)) is None  # the missed night is still to be caught up


def test_one_pass_per_index(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/a.md": "A.\n"})
    with local_pass_lock(settings), pytest.raises(PassBusy, match="already running"):
        run_maintain(settings, ScriptedModel())
    assert run_maintain(settings, ScriptedModel()).report.analysed == 1  # released on exit
