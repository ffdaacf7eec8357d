"""Fixtures for the cluster tests: every contract test runs in memory and on Redis.

Redis is the local server (``SLAPJACK_TEST_REDIS``, default
``redis://127.0.0.1:6379/0``); each test uses its own key prefix and deletes
its keys afterwards. Without Redis the Redis cases skip, except under
``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from slapjack.cluster import (
    Hub,
    Leases,
    LeaseTable,
    MemoryLeases,
    MemoryRelay,
    RedisLeases,
    RedisRelay,
    Relay,
)

REDIS_URL = os.environ.get("SLAPJACK_TEST_REDIS", "redis://127.0.0.1:6379/0")


async def redis_or_skip() -> aioredis.Redis:
    client: aioredis.Redis = aioredis.Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        await client.ping()
    except (RedisError, OSError) as exc:
        await client.aclose()
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis at {REDIS_URL} is required under CI=true: {exc}")
        pytest.skip(f"Redis at {REDIS_URL} is not reachable: {exc}")
    return client


@pytest.fixture(params=["memory", "redis"])
async def nodes(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """A factory of simulated nodes sharing one backend: ``leases(node, ttl)``, ``relay()``."""
    kind = str(request.param)
    if kind == "memory":
        table = LeaseTable()
        hub = Hub()

        class MemoryNodes:
            backend = "memory"

            def leases(self, node: str, ttl_ms: int = 5000) -> Leases:
                return MemoryLeases(node, ttl_ms, table=table)

            def relay(self) -> Relay:
                return MemoryRelay(hub)

        yield MemoryNodes()
        return

    first = await redis_or_skip()
    prefix = f"slapjack-test-{uuid.uuid4().hex[:12]}"
    clients: list[aioredis.Redis] = [first]

    def client() -> aioredis.Redis:
        c: aioredis.Redis = aioredis.Redis.from_url(REDIS_URL, decode_responses=True)
        clients.append(c)
        return c

    class RedisNodes:
        backend = "redis"

        def leases(self, node: str, ttl_ms: int = 5000) -> Leases:
            return RedisLeases(client(), node, ttl_ms, prefix=prefix)

        def relay(self) -> Relay:
            return RedisRelay(client(), prefix=prefix)

    try:
        yield RedisNodes()
    finally:
        async for key in first.scan_iter(match=f"{prefix}:*"):
            await first.delete(key)
        for c in clients:
            await c.aclose()


Factory = Callable[..., Any]
