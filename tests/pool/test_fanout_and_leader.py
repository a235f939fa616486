"""The analysis fan-out's vault side (phases, store-time derived gate, epoch check) on a real index and real
Redis, and ``/api/leader`` showing the maintenance lock's real holder. No model: a worker's result is a message,
written here as a worker would send it."""

from __future__ import annotations

import httpx

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.maintain.cluster_lock import maintenance_lock
from sentinel.maintain.fanout import AnalysisResult, due_batch, store_result
from sentinel.maintain.queue import awaiting_analysis
from sentinel.paths import Role
from sentinel.settings import Settings
from sentinel_pool.fanout import with_ledger
from sentinel_pool.jobs import JobLedger
from tests.support.redis_prefix import REDIS_URL
from tests.support.vault import WriteVault

PAGES = {
    "notes/Kettle.md": "# Kettle\nA kettle boils water with a heating element.\n",
    "sources/Stove.md": "# Stove\nA stove heats pans.\n",
    "wiki/Heating element.md": "# Heating element\nA heating element turns current into heat. See the thermostat.\n",
}


def _settings(vault_settings: WriteVault, redis_prefix: str) -> Settings:
    settings = vault_settings(PAGES)
    settings.redis_url, settings.redis_prefix = REDIS_URL, redis_prefix
    return settings


def test_phases_hold_wiki_pages_back_until_the_others_are_analysed(
    vault_settings: WriteVault, redis_prefix: str
) -> None:
    settings = _settings(vault_settings, redis_prefix)
    db = open_index(settings)
    sync(settings, db)
    first = due_batch(settings, db)
    assert (first.phase, sorted(j.path for j in first.jobs), first.wiki_waiting) == (
        "non-derived",
        ["notes/Kettle.md", "sources/Stove.md"],
        1,
    )
    assert first.jobs[0].text.startswith("Title: ")  # the text the model reads, made on the vault side

    def worker_result(job_index: int, concepts: list[str], epoch: int = 1) -> AnalysisResult:
        job = first.jobs[job_index]
        return AnalysisResult(job=job, epoch=epoch, attempt=1, worker="node-b@host", queue="q", status="ok",
                              summary="s", concepts=concepts, model_label="m")  # fmt: skip

    for index, job in enumerate(first.jobs):
        store_result(db, worker_result(index, ["heating element"] if job.role is Role.NOTE else []))
    second = due_batch(settings, db)
    assert (second.phase, [j.path for j in second.jobs], second.wiki_waiting) == (
        "wiki",
        ["wiki/Heating element.md"],
        0,
    )
    wiki = AnalysisResult(job=second.jobs[0], epoch=1, attempt=1, worker="node-b@host", queue="q", status="ok",
                          summary="s", concepts=["heating element", "thermostat"], model_label="m")  # fmt: skip
    stored = store_result(db, wiki)
    # the derived-page gate ran at store time, against what this pass's non-derived pages brought
    assert (stored.concepts, stored.dropped_derived) == (["heating element"], ["thermostat"])
    assert awaiting_analysis(db) == [] and due_batch(settings, db).phase == "nothing due"
    model = db.execute("SELECT model FROM analysis WHERE path = 'wiki/Heating element.md'").fetchone()[0]
    assert model == "m on node-b@host"
    db.close()


def test_only_the_current_epochs_result_may_be_stored(vault_settings: WriteVault, redis_prefix: str) -> None:
    settings = _settings(vault_settings, redis_prefix)

    async def two_runs(ledger: JobLedger) -> tuple[bool, bool]:
        first = await ledger.assign("page-job", "node-a@host", "q", owner="task-1", send=True)
        second = await ledger.assign("page-job", "node-b@host", "q", owner="task-1", send=True)  # redelivered
        return await ledger.done(first), await ledger.done(second)

    assert with_ledger(settings, two_runs) == (False, True)


def test_leader_shows_who_holds_the_maintenance_lock_and_since_when(pool_settings: Settings, gateway: str) -> None:
    assert httpx.get(f"{gateway}/api/leader").json()["held"] is False
    with maintenance_lock(pool_settings, "celery@box pid 7 task t-1", "t-1") as me:
        leader = httpx.get(f"{gateway}/api/leader").json()
        assert leader["held"] is True and leader["lock"] == f"{pool_settings.redis_prefix}maintain:lock"
        assert leader["holder"] == {"holder": "celery@box pid 7 task t-1", "since": me.since, "task_id": "t-1"}
    assert httpx.get(f"{gateway}/api/leader").json()["held"] is False


def test_fan_out_needs_an_extraction_model(gateway: str) -> None:
    refused = httpx.post(f"{gateway}/api/pool/analyses", timeout=30)
    assert refused.status_code == 409 and "no extraction model is configured" in refused.text
