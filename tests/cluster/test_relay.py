"""The relay: JSON objects on channels, in order, to every subscriber — in memory and on Redis."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from slapjack.cluster import (
    BadClusterInput,
    ClusterUnavailable,
    RedisRelay,
    connect,
    room_in,
    room_out,
)


async def test_every_subscriber_gets_every_message_in_order(nodes: Any) -> None:
    owner, other, third = nodes.relay(), nodes.relay(), nodes.relay()
    async with other.subscribe(room_out("R1")) as sub1, third.subscribe(room_out("R1")) as sub2:
        frames = [{"type": "update", "seq": i, "text": "Bube ♣"} for i in range(50)]
        for frame in frames:
            assert await owner.publish(room_out("R1"), frame) == 2
        for sub in (sub1, sub2):
            got = [await asyncio.wait_for(sub.get(), 5) for _ in frames]
            assert got == [(room_out("R1"), f) for f in frames]
    # Nobody listens any more.
    assert await owner.publish(room_out("R1"), {"type": "update"}) == 0


async def test_one_subscription_on_several_channels(nodes: Any) -> None:
    relay = nodes.relay()
    async with relay.subscribe(room_in("A"), room_in("B")) as sub:
        await relay.publish(room_in("B"), {"n": 1})
        await relay.publish(room_out("A"), {"n": 2})  # not subscribed
        await relay.publish(room_in("A"), {"n": 3})
        assert await asyncio.wait_for(sub.get(), 5) == (room_in("B"), {"n": 1})
        assert await asyncio.wait_for(sub.get(), 5) == (room_in("A"), {"n": 3})
        iterator = aiter(sub)
        await relay.publish(room_in("A"), {"n": 4})
        assert await asyncio.wait_for(anext(iterator), 5) == (room_in("A"), {"n": 4})


async def test_malformed_messages_are_dropped_not_fatal(nodes: Any) -> None:
    relay = nodes.relay()
    async with relay.subscribe("chan") as sub:
        raw = relay.publish_raw("chan", "{broken")
        if asyncio.iscoroutine(raw):
            await raw
        raw = relay.publish_raw("chan", "[1, 2]")
        if asyncio.iscoroutine(raw):
            await raw
        await relay.publish("chan", {"ok": True})
        assert await asyncio.wait_for(sub.get(), 5) == ("chan", {"ok": True})
        assert sub.dropped == 2


@pytest.mark.parametrize(
    ("channel", "message"),
    [
        ("chan", [1, 2]),
        ("chan", {"x": math.nan}),
        ("chan", {"x": {1, 2}}),
        ("chan", {"x": "y" * 1_000_001}),
        ("has space", {}),
        ("", {}),
        ("star*", {}),
    ],
)
async def test_bad_messages_are_typed_errors(nodes: Any, channel: str, message: Any) -> None:
    with pytest.raises(BadClusterInput):
        await nodes.relay().publish(channel, message)


async def test_unreachable_redis_is_a_typed_error() -> None:
    client = connect("redis://127.0.0.1:1/0")
    try:
        relay = RedisRelay(client)
        with pytest.raises(ClusterUnavailable):
            await relay.publish("chan", {"x": 1})
        with pytest.raises(ClusterUnavailable):
            async with relay.subscribe("chan"):
                pass
    finally:
        await client.aclose()
