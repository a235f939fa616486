"""Opportunistic maintenance: a pass between nights only when the vault and the conversation model are idle and
the analysis model fits beside it. Real Redis (the chat record and the pool agent's node record, under this
test's own key prefix) and a real HTTP server standing in for Ollama's status endpoints (no GPU here)."""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.maintain import opportunity, schedule
from sentinel.serving import server_key
from sentinel.settings import ProviderSettings, Settings
from sentinel_pool.chat_first import RedisServingRecord
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, publish
from services.common.tasks import IDLE_TASK
from services.worker.celery_app import celery_app
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.vault import WriteVault

ANALYSIS = "qwen2.5:7b"
GIB = 1024**3


@pytest.fixture
def prefix() -> Iterator[str]:
    prefix = f"sentinel-test-{uuid.uuid4().hex[:10]}:"
    yield prefix
    client = Redis.from_url("redis://127.0.0.1:6379/0")
    keys = list(client.scan_iter(match=f"{prefix}*", count=500))
    if keys:
        client.delete(*keys)


class Ollama:
    """What the stand-in server reports: the models it has (with sizes) and the ones in memory."""

    def __init__(self) -> None:
        self.loaded: list[str] = []
        self.sizes = {ANALYSIS: 5 * GIB, "chat-model": 2 * GIB}

    def __call__(self, request: RecordedRequest) -> tuple[int, object]:
        if request.path == "/api/ps":
            return 200, {"models": [{"name": n, "model": n, "size_vram": self.sizes[n]} for n in self.loaded]}
        if request.path == "/api/tags":
            return 200, {"models": [{"name": n, "model": n, "size": s} for n, s in self.sizes.items()]}
        return 404, {"error": "not found"}


def _quiet_vault(vault_settings: WriteVault, minutes_ago: float) -> Settings:
    settings = vault_settings({"notes/a.md": "# A\n\nOwed an analysis.\n", "notes/b.md": "# B\n\nSo is this.\n"})
    past = time.time() - minutes_ago * 60
    for page in settings.vault.rglob("*.md"):
        os.utime(page, (past, past))
    return settings


def _setup(settings: Settings, server: str, prefix: str, free_mb: int | None) -> tuple[Settings, Redis]:
    role = ProviderSettings(kind="ollama", base_url=server, model=ANALYSIS)
    settings = settings.model_copy(
        update={
            "maintain_idle_minutes": 10.0,
            "redis_prefix": prefix,
            "extraction": role,
            "conversation": ProviderSettings(kind="ollama", base_url=server, model="chat-model"),
        }
    )
    redis = Redis.from_url(settings.redis_url, decode_responses=True)
    backend = BackendRecord(url=f"{server}/v1", kind="ollama", models=[ANALYSIS, "chat-model"])
    record = NodeRecord(node="gpu-box", vram_free_mb=free_mb, backends=[backend])
    publish(redis, PoolKeys.from_settings(settings), record, ttl_s=60)
    return settings, redis


def _indexed(settings: Settings) -> sqlite3.Connection:
    db = open_index(settings)
    sync(settings, db)
    schedule.record_run(db)  # the schedule has started (a new install runs no unrequested pass)
    return db


def test_an_idle_machine_with_room_runs_a_pass(vault_settings: WriteVault, prefix: str) -> None:
    ollama = Ollama()
    with HttpStub(ollama) as server:
        settings, redis = _setup(_quiet_vault(vault_settings, 30), server.url, prefix, free_mb=8 * 1024)
        db = _indexed(settings)
        redis.set(PoolKeys.from_settings(settings).last_chat(server_key(server.url)), time.time() - 20 * 60)
        moment = opportunity.chance(settings, db, RedisServingRecord(settings))
        assert moment.go, moment.reason
        assert "2 pages owed" in moment.reason and "5120 MiB" in moment.reason and "8192 MiB" in moment.reason
        ollama.loaded = [ANALYSIS]
        assert "already in memory" in opportunity.chance(settings, db, RedisServingRecord(settings)).reason


@pytest.mark.parametrize(
    ("vault_minutes", "chat_minutes", "free_mb", "why"),
    [
        (3, 20, 8192, "the vault changed 3.0 min ago"),
        (30, 4, 8192, "had a chat 4.0 min ago"),
        (30, 20, 4096, "needs 5120 MiB and"),
        (30, 20, None, "no pool agent reports the free VRAM"),
    ],
)
def test_a_busy_or_full_machine_waits_and_says_why(
    vault_settings: WriteVault, prefix: str, vault_minutes: float, chat_minutes: float, free_mb: int | None, why: str
) -> None:
    with HttpStub(Ollama()) as server:
        settings, redis = _setup(_quiet_vault(vault_settings, vault_minutes), server.url, prefix, free_mb)
        db = _indexed(settings)
        redis.set(PoolKeys.from_settings(settings).last_chat(server_key(server.url)), time.time() - chat_minutes * 60)
        moment = opportunity.chance(settings, db, RedisServingRecord(settings))
        assert not moment.go and why in moment.reason, moment.reason


def test_a_chat_in_flight_or_nothing_owed_or_the_setting_off_runs_nothing(
    vault_settings: WriteVault, prefix: str
) -> None:
    with HttpStub(Ollama()) as server:
        settings, redis = _setup(_quiet_vault(vault_settings, 30), server.url, prefix, free_mb=8192)
        db = _indexed(settings)
        keys = PoolKeys.from_settings(settings)
        redis.zadd(keys.chats(server_key(server.url)), {"a-chat": time.time() + 60})
        assert "or has one now" in opportunity.chance(settings, db, RedisServingRecord(settings)).reason
        redis.delete(keys.chats(server_key(server.url)))
        assert opportunity.chance(settings, db, RedisServingRecord(settings)).go
        db.execute("INSERT INTO analysis (path, hash, status, analysed_at) SELECT path, hash, 'ok', 0 FROM pages")
        assert "nothing is owed" in opportunity.chance(settings, db, RedisServingRecord(settings)).reason
        off = settings.model_copy(update={"maintain_idle_minutes": 0.0})
        assert "off" in opportunity.chance(off, db, RedisServingRecord(off)).reason


def test_a_server_that_reports_nothing_is_a_no(vault_settings: WriteVault, prefix: str, tmp_path: Path) -> None:
    with HttpStub(lambda request: (500, {"error": "boom"})) as server:
        settings, _ = _setup(_quiet_vault(vault_settings, 30), server.url, prefix, free_mb=8192)
        db = _indexed(settings)
        moment = opportunity.chance(settings, db, RedisServingRecord(settings))
        assert not moment.go and "did not report its models" in moment.reason


def test_beat_checks_each_minute_only_when_the_setting_is_on(tmp_path: Path) -> None:
    on = celery_app(Settings(vault=tmp_path, maintain_idle_minutes=15, _env_file=None))
    off = celery_app(Settings(vault=tmp_path, _env_file=None))
    assert on.conf.beat_schedule["opportunistic-maintenance"]["task"] == IDLE_TASK and IDLE_TASK in on.tasks
    assert "opportunistic-maintenance" not in off.conf.beat_schedule
