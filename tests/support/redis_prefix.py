"""The real Redis on 127.0.0.1:6379 (a plugin of the root conftest), under key prefixes no one else uses: a test
deletes only the keys under its own prefix, never the database."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from redis import Redis

REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix no one else uses; its keys are deleted afterwards (and only those)."""
    prefix = f"sentinel-test-{uuid.uuid4().hex[:10]}:"
    yield prefix
    client = Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{prefix}*", count=500))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture
def redis_client() -> Iterator[Redis]:
    client = Redis.from_url(REDIS_URL, decode_responses=True)
    yield client
    client.close()
