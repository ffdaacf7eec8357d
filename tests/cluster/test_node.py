"""Nodes on real Redis: heartbeats and expiry, the room map, the lobby, draining,
and the same calls without Redis (one process)."""

from __future__ import annotations

import asyncio

import pytest

from slapjack.cluster import (
    BadClusterInput,
    CodesExhausted,
    Listing,
    Node,
    NodeLoad,
)

from .conftest import Cluster, eventually


async def test_a_node_heartbeats_and_expires(cluster: Cluster) -> None:
    cluster.loads["a"] = NodeLoad(players=12, rooms=3)
    a = cluster.node("a", interval_s=0.05, ttl_s=0.3)
    assert await a.start()
    view = cluster.view()
    info = await view.node("a")
    assert info is not None and info.state == "live" and info.live and info.accepts_rooms
    assert (info.url, info.players, info.rooms) == ("http://127.0.0.1:8000", 12, 3)
    assert info.interval_ms == 50 and info.ttl_ms == 300 and info.pid > 0 and info.version
    first = info.beat
    await eventually(lambda: a.beat > first + 3)
    assert (await view.node("a")).beat > first  # type: ignore[union-attr]
    cluster.loads["a"] = NodeLoad(players=40)
    await eventually(lambda: _players(view, "a", 40))
    assert a.metrics["beats"] >= 4 and a.metrics["redis_up"] and a.available.is_set()

    # It stops heartbeating without a word (a crash): gone after its ttl.
    for task in a._tasks:
        task.cancel()
    await eventually(lambda: _state(view, "a", "gone"), timeout=3)
    gone = await view.node("a")
    assert gone is not None and not gone.live and gone.url == ""  # still listed, as gone
    assert [n.node for n in await view.live_nodes()] == []


async def _players(view: object, node: str, n: int) -> bool:
    info = await view.node(node)  # type: ignore[attr-defined]
    return info is not None and info.players == n


async def _state(view: object, node: str, state: str) -> bool:
    info = await view.node(node)  # type: ignore[attr-defined]
    return info is not None and info.state == state


async def test_close_deregisters_at_once(cluster: Cluster) -> None:
    a, b = cluster.node("a"), cluster.node("b")
    await a.start()
    await b.start()
    view = cluster.view()
    assert {n.node for n in await view.live_nodes()} == {"a", "b"}
    await a.close()
    assert {n.node for n in await view.live_nodes()} == {"b"}
    assert await view.place() == "b"
    await a.close()  # twice is fine


async def test_the_room_map_and_locate(cluster: Cluster) -> None:
    a, b = cluster.node("a"), cluster.node("b")
    await a.start()
    await b.start()
    view = cluster.view()
    a.own("K7Q2PX", 5)
    await a.flush()
    where = await view.locate("K7Q2PX")
    assert where is not None
    assert (where.node, where.epoch, where.url, where.live, where.source) == (
        "a",
        5,
        a.url,
        True,
        "redis",
    )
    assert await b.locate("K7Q2PX") == where
    assert (await a.locate("K7Q2PX")).source == "local"  # type: ignore[union-attr]
    # b claims it at a newer epoch; a's late re-assertion cannot point the map back.
    b.own("K7Q2PX", 9)
    await b.flush()
    a.own("K7Q2PX", 5)
    await a.flush()
    assert "K7Q2PX" in a.superseded
    assert (await view.locate("K7Q2PX")).node == "b"  # type: ignore[union-attr]
    # a's disown does not remove b's entry; b's does.
    a.disown("K7Q2PX")
    await a.flush()
    assert await view.mapped("K7Q2PX") == ("b", 9)
    b.disown("K7Q2PX")
    await b.flush()
    assert await view.locate("K7Q2PX") is None
    assert await view.room_map() == {}
    with pytest.raises(BadClusterInput):
        a.own("bad code", 1)
    with pytest.raises(BadClusterInput):
        a.own("OK", 0)


async def test_the_lobby_is_the_same_from_every_node(cluster: Cluster) -> None:
    a, b, c = cluster.node("a"), cluster.node("b"), cluster.node("c")
    for node in (a, b, c):
        await node.start()
    a.own("A1", 1)
    a.list_room("A1", {"name": "first", "status": "waiting"}, created_ms=1000)
    b.own("B1", 2)
    b.list_room("B1", {"name": "second", "status": "playing"}, created_ms=2000)
    b.list_room("B2", {"name": "third", "status": "waiting"}, created_ms=3000)
    await a.flush()
    await b.flush()
    pages = [await n.public_rooms() for n in (a, b, c)]
    assert pages[0] == pages[1] == pages[2]
    assert [x.code for x in pages[0].listings] == ["A1", "B1", "B2"] and pages[0].total == 3
    assert pages[0].listings[0] == Listing(
        "A1", "a", 1, 1000, {"name": "first", "status": "waiting"}
    )
    waiting = await c.public_rooms(lambda info: info["status"] == "waiting", limit=1)
    assert [x.code for x in waiting.listings] == ["A1"] and waiting.total == 2
    second = await c.public_rooms(lambda info: info["status"] == "waiting", limit=1, offset=1)
    assert [x.code for x in second.listings] == ["B2"]
    # An update replaces the listing; unlisting removes it.
    b.list_room("B1", {"name": "second", "status": "waiting"})
    b.unlist_room("B2")
    await b.flush()
    page = await c.public_rooms()
    assert [(x.code, x.info["status"], x.created_ms) for x in page.listings] == [
        ("A1", "waiting", 1000),
        ("B1", "waiting", 2000),
    ]
    # A room listed by its old owner and its new one counts once, at the new epoch.
    c.own("A1", 7)
    c.list_room("A1", {"name": "first", "status": "resumed"}, created_ms=1000)
    await c.flush()
    page = await b.public_rooms()
    assert [(x.code, x.node, x.info["status"]) for x in page.listings] == [
        ("A1", "c", "resumed"),
        ("B1", "b", "waiting"),
    ]
    # A node that dies takes its listings with it (they expire with its heartbeat).
    for task in b._tasks:
        task.cancel()
    await eventually(lambda: _codes_are(c, ["A1"]), timeout=3)
    with pytest.raises(BadClusterInput):
        await c.public_rooms(limit=0)
    with pytest.raises(ValueError):
        a.list_room("X1", {"bad": float("nan")})


async def _codes_are(node: Node, codes: list[str]) -> bool:
    return [x.code for x in (await node.public_rooms()).listings] == codes


async def test_draining(cluster: Cluster) -> None:
    a, b = cluster.node("a"), cluster.node("b")
    await a.start()
    await b.start()
    view = cluster.view()
    await a.drain()
    assert (await view.node("a")).state == "draining"  # type: ignore[union-attr]
    assert {await view.place() for _ in range(6)} == {"b"}
    # An operator drains b from outside (slapjack cluster drain): b learns it.
    assert await view.set_draining("b")
    await eventually(lambda: b.draining)
    with pytest.raises(Exception, match="no live node takes new rooms"):
        await view.place()
    assert await view.set_draining("b", False)
    await eventually(lambda: not b.draining)
    assert await view.place() == "b"
    await a.drain(False)
    assert not a.draining
    assert not await view.set_draining("nobody")


async def test_one_process_without_redis() -> None:
    node = Node(None, "solo", "http://127.0.0.1:8000")
    assert await node.start() and node.available.is_set()
    assert await node.place() == "solo"
    codes = iter(["AAAAAA", "AAAAAA", "BBBBBB"])
    first = await node.reserve_code(lambda: next(codes))
    second = await node.reserve_code(lambda: next(codes))
    assert (first, second) == ("AAAAAA", "BBBBBB")
    with pytest.raises(CodesExhausted):
        await node.reserve_code(lambda: "AAAAAA", attempts=3)
    await node.release_code("AAAAAA")
    node.own("AAAAAA", 1)
    node.list_room("AAAAAA", {"name": "x"})
    assert (await node.locate("AAAAAA")).url == "http://127.0.0.1:8000"  # type: ignore[union-attr]
    assert await node.locate("ZZZZZZ") is None
    assert [x.code for x in (await node.public_rooms()).listings] == ["AAAAAA"]
    assert [n.node for n in await node.nodes()] == ["solo"]
    await node.flush()
    await node.drain()
    await node.close()


def test_bad_node_arguments() -> None:
    for kwargs in (
        {"node_id": "a b", "public_url": "http://x"},
        {"node_id": "a#1", "public_url": "http://x"},
        {"node_id": "", "public_url": "http://x"},
        {"node_id": "a", "public_url": "ftp://x"},
        {"node_id": "a", "public_url": "http://x", "interval_s": 1.0, "ttl_s": 1.5},
        {"node_id": "a", "public_url": "http://x", "interval_s": 0.0},
    ):
        with pytest.raises(BadClusterInput):
            Node(None, **kwargs)  # type: ignore[arg-type]
    assert Node(None, "a", "https://a.example.org/").url == "https://a.example.org"


async def test_cpu_is_reported(cluster: Cluster) -> None:
    a = cluster.node("busy", interval_s=0.05, ttl_s=0.5)
    await a.start()
    view = cluster.view()
    deadline = asyncio.get_running_loop().time() + 0.3
    while asyncio.get_running_loop().time() < deadline:  # keep this process busy
        sum(i * i for i in range(20_000))
        await asyncio.sleep(0)
    await eventually(lambda: _cpu_above(view, "busy", 0.05))


async def _cpu_above(view: object, node: str, share: float) -> bool:
    info = await view.node(node)  # type: ignore[attr-defined]
    return info is not None and info.cpu > share
