"""Redis goes away (killed, hung) and comes back empty, as after a failover to a
replica that had not received the last writes: live rooms are not held up,
what needs Redis gets a typed error to wait on, and the node writes all of
its state again when Redis answers. A Redis of the test's own."""

from __future__ import annotations

import asyncio
import logging
import uuid

import pytest

from slapjack.cluster import ClusterUnavailable, ClusterView, Node, connect

from .conftest import OwnRedis, eventually


def make_node(url: str, prefix: str, node_id: str) -> Node:
    return Node(
        ClusterView(connect(url, timeout_s=0.3), prefix=prefix),
        node_id,
        f"http://127.0.0.1:9{len(node_id)}00",
        interval_s=0.05,
        ttl_s=0.5,
    )


async def test_redis_killed_and_back_empty(
    own_redis: OwnRedis, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="slapjack.cluster")
    prefix = f"t-{uuid.uuid4().hex[:8]}"
    a = make_node(own_redis.url, prefix, "a")
    reader = ClusterView(connect(own_redis.url, timeout_s=0.3), prefix=prefix)
    try:
        assert await a.start()
        a.own("R1", 4)
        a.list_room("R1", {"name": "one"}, created_ms=1)
        await a.flush()
        assert await reader.mapped("R1") == ("a", 4)

        own_redis.kill()
        await eventually(lambda: not a.available.is_set(), timeout=5)
        assert a.metrics["redis_outages"] == 1 and not a.metrics["redis_up"]
        assert "Redis unreachable" in caplog.text and "keeps its live rooms playing" in caplog.text
        # What needs Redis fails with the typed error; the caller can wait on it.
        with pytest.raises(ClusterUnavailable):
            await a.place()
        with pytest.raises(ClusterUnavailable):
            await a.reserve_code(lambda: "NEW1")
        with pytest.raises(ClusterUnavailable):
            await a.public_rooms()
        assert not await a.wait_available(timeout=0.2)
        # Live rooms go on changing their state: nothing raises, it waits to be written.
        a.own("R2", 6)
        a.list_room("R2", {"name": "two"}, created_ms=2)
        a.list_room("R1", {"name": "one, now playing"})
        a.disown("R1")
        a.own("R3", 8)
        await asyncio.sleep(0.3)  # several heartbeats fail meanwhile, one outage counted
        assert a.metrics["redis_outages"] == 1 and a.metrics["beat_failures"] >= 2

        waiter = asyncio.create_task(a.wait_available(timeout=10))
        own_redis.start()  # back, and empty: every acknowledged write is gone
        assert await waiter
        await eventually(lambda: _mapped(reader, "R3", ("a", 8)), timeout=5)
        assert await reader.mapped("R2") == ("a", 6)
        assert await reader.mapped("R1") is None
        assert [x.code for x in (await reader.public_rooms()).listings] == ["R2"]
        assert (await reader.node("a")).state == "live"  # type: ignore[union-attr]
        assert a.metrics["redis_up"] and a.metrics["redis_down_s"] > 0.2
        assert a.metrics["resyncs"] >= 2
        assert "Redis answers again after" in caplog.text
        assert await a.place() == "a"
    finally:
        await a.close()
        await reader.client.aclose()


async def _mapped(view: ClusterView, code: str, want: tuple[str, int]) -> bool:
    try:
        return await view.mapped(code) == want
    except ClusterUnavailable:
        return False


async def test_a_wiped_redis_is_refilled_without_an_outage(own_redis: OwnRedis) -> None:
    """FLUSHALL while the node runs (a failover that lost everything, noticed only
    by the keys being gone): the next heartbeat writes the node's state again."""
    prefix = f"t-{uuid.uuid4().hex[:8]}"
    a = make_node(own_redis.url, prefix, "a")
    reader = ClusterView(connect(own_redis.url, timeout_s=0.3), prefix=prefix)
    try:
        await a.start()
        a.own("W1", 2)
        a.list_room("W1", {"n": 1})
        await a.flush()
        await reader.client.flushall()
        assert await reader.mapped("W1") is None
        await eventually(lambda: _mapped(reader, "W1", ("a", 2)), timeout=3)
        assert [x.code for x in (await reader.public_rooms()).listings] == ["W1"]
        assert a.metrics["redis_outages"] == 0
    finally:
        await a.close()
        await reader.client.aclose()


async def test_a_hung_redis_is_a_down_redis(own_redis: OwnRedis) -> None:
    """SIGSTOP on redis-server: calls time out (0.3 s here) instead of hanging."""
    prefix = f"t-{uuid.uuid4().hex[:8]}"
    a = make_node(own_redis.url, prefix, "a")
    try:
        await a.start()
        own_redis.pause()
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(ClusterUnavailable):
            await a.place()
        assert loop.time() - began < 3
        await eventually(lambda: not a.available.is_set(), timeout=5)
        own_redis.resume()
        assert await a.wait_available(timeout=10)
        assert await a.place() == "a"
    finally:
        own_redis.resume()
        await a.close()


async def test_a_node_started_while_redis_is_down(own_redis: OwnRedis) -> None:
    own_redis.kill()
    prefix = f"t-{uuid.uuid4().hex[:8]}"
    a = make_node(own_redis.url, prefix, "a")
    try:
        assert not await a.start()  # keeps trying in the background
        a.own("S1", 1)
        own_redis.start()
        assert await a.wait_available(timeout=10)
        reader = ClusterView(connect(own_redis.url), prefix=prefix)
        try:
            await eventually(lambda: _mapped(reader, "S1", ("a", 1)), timeout=5)
        finally:
            await reader.client.aclose()
    finally:
        await a.close()


async def test_a_cancelled_call_stays_cancelled_and_a_slow_one_times_out() -> None:
    """redis-py may turn a task's cancellation mid-command into a connection
    error: the guard gives the cancellation back, so a heartbeat loop that
    handles ClusterUnavailable still stops when its node closes (it hung
    before). A call slower than the guard's limit is ClusterUnavailable."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from slapjack.cluster.view import guard

    async def cut_off() -> None:
        async with guard("test"):
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                raise RedisConnectionError("Connection closed by server.") from None

    task = asyncio.create_task(cut_off())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    began = asyncio.get_running_loop().time()
    with pytest.raises(ClusterUnavailable, match="no answer within"):
        async with guard("slow", timeout_s=0.05):
            await asyncio.sleep(5)
    assert asyncio.get_running_loop().time() - began < 1
    # and that timeout left no cancellation behind
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
