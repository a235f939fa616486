"""Fixtures of the model-pool tests: real Redis under a key prefix of the test's own (``redis_prefix``, a root
plugin), the real API app on loopback, and node agents in threads. Only keys under the prefix are ever deleted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sentinel.settings import PoolSettings, Settings
from sentinel_pool.registry import PoolKeys
from services.api.app import create_app
from tests.support.redis_prefix import REDIS_URL
from tests.support.servers import serve
from tests.support.vault import WriteVault

VAULT = {"notes/Pool.md": "# Pool\nThe pool runs models on several machines.\n"}


@pytest.fixture
def pool_settings(vault_settings: WriteVault, redis_prefix: str) -> Settings:
    """Settings of a local-only API on loopback whose pool lives under the test's prefix; quick heartbeats."""
    settings = vault_settings(VAULT)
    settings.redis_url, settings.redis_prefix = REDIS_URL, redis_prefix
    settings.local_only, settings.sync_interval_s = True, 0
    settings.pool = PoolSettings(
        heartbeat_s=0.3,
        ttl_s=1.5,
        connect_timeout_s=2,
        first_token_timeout_s=120,
        read_timeout_s=60,
        registry_refresh_s=0,
    )
    return settings


@pytest.fixture
def keys(pool_settings: Settings) -> PoolKeys:
    return PoolKeys.from_settings(pool_settings)


@pytest.fixture
def gateway(pool_settings: Settings) -> Iterator[str]:
    """The API service (with the pool's routes) on a loopback port."""
    with serve(create_app(pool_settings)) as url:
        yield url
