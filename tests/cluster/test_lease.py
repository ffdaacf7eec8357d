"""Room leases: one owner at a time, renewal, death and takeover — in memory and on Redis."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slapjack.cluster import (
    BadClusterInput,
    ClusterUnavailable,
    LeaseLost,
    MemoryLeases,
    Owner,
    RedisLeases,
    connect,
)
from slapjack.cluster.lease import SAFETY


async def test_one_owner_at_a_time(nodes: Any) -> None:
    a, b = nodes.leases("node-a"), nodes.leases("node-b")
    lease = await a.acquire("ROOM1")
    assert lease is not None and lease.held
    assert await b.acquire("ROOM1") is None
    owner = await b.owner("ROOM1")
    assert owner == Owner("node-a", lease.epoch)
    assert await b.owner("OTHER") is None
    other = await b.acquire("OTHER")  # other rooms are independent
    assert other is not None
    await lease.release()
    assert not lease.held
    assert await a.owner("ROOM1") is None
    taken = await b.acquire("ROOM1")
    assert taken is not None
    assert taken.epoch > lease.epoch
    assert (await a.owner("ROOM1")) == Owner("node-b", taken.epoch)
    await taken.release()
    await other.release()


async def test_renewal_keeps_the_room(nodes: Any) -> None:
    a, b = nodes.leases("node-a", ttl_ms=300), nodes.leases("node-b", ttl_ms=300)
    async with await a.acquire("ROOM2") as lease:  # type: ignore[union-attr]
        await asyncio.sleep(1.0)  # more than three TTLs
        assert lease.held
        assert lease.renewals >= 3
        assert await b.acquire("ROOM2", renew=False) is None
        lease.check()
    assert not lease.held
    assert await b.owner("ROOM2") is None


async def test_a_dead_owner_is_taken_over(nodes: Any) -> None:
    ttl = 400
    a, b = nodes.leases("node-a", ttl_ms=ttl), nodes.leases("node-b", ttl_ms=ttl)
    dead = await a.acquire("ROOM3", renew=False)  # a node that stops renewing
    assert dead is not None
    assert await b.acquire("ROOM3") is None
    # The owner stops trusting its lease before the key can expire.
    await asyncio.sleep(ttl / 1000 * SAFETY + 0.02)
    assert not dead.held
    assert dead.lost.is_set()
    with pytest.raises(LeaseLost):
        dead.check()
    await asyncio.sleep(ttl / 1000 * (1 - SAFETY) + 0.05)
    heir = await b.acquire("ROOM3")
    assert heir is not None and heir.epoch > dead.epoch
    # The old owner can neither renew nor release the new owner's lease.
    assert await dead.renew() is False
    await dead.release()
    assert (await a.owner("ROOM3")) == Owner("node-b", heir.epoch)
    await heir.release()


async def test_a_lease_that_expired_in_the_backend_is_lost_on_renewal(nodes: Any) -> None:
    a = nodes.leases("node-a", ttl_ms=100)
    b = nodes.leases("node-b", ttl_ms=100)
    lease = await a.acquire("ROOM4", renew=False)
    assert lease is not None
    await asyncio.sleep(0.15)
    heir = await b.acquire("ROOM4", renew=False)
    assert heir is not None
    lease._valid_until = float("inf")  # even a node whose clock stalled …
    assert await lease.renew() is False  # … is told by the backend
    assert lease.lost.is_set()
    await heir.release()


@pytest.mark.parametrize(
    ("node", "room", "ttl"),
    [
        ("has#hash", "R", 1000),
        ("", "R", 1000),
        ("has space", "R", 1000),
        ("node", "", 1000),
        ("node", "x" * 101, 1000),
        ("node", "R", 10),
        ("node", "R", True),
    ],
)
async def test_bad_input_is_typed(node: str, room: str, ttl: Any) -> None:
    with pytest.raises(BadClusterInput):
        leases = MemoryLeases(node, ttl)
        await leases.acquire(room)


async def test_unreachable_redis_is_a_typed_error() -> None:
    client = connect("redis://127.0.0.1:1/0")
    try:
        leases = RedisLeases(client, "node-a", 1000)
        with pytest.raises(ClusterUnavailable):
            await leases.acquire("ROOM")
        with pytest.raises(ClusterUnavailable):
            await leases.owner("ROOM")
    finally:
        await client.aclose()
    with pytest.raises(BadClusterInput):
        connect("http://127.0.0.1:6379")
