"""Takeover on real Redis and PostgreSQL: a node that stops heartbeating loses its
rooms to the others with new epochs, its late writes are refused, nobody is
declared dead by a Redis that lost its keys or by a watcher that was away."""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from slapjack.cluster import Claim, Node, Watcher, heir
from slapjack.core import Rules, Table
from slapjack.store import StaleOwner

from .conftest import REDIS_URL, Cluster, delete_prefix, eventually

WORKER = Path(__file__).with_name("node_worker.py")
HEADER = Table.new(Rules.from_options({"preset": "classic"}), ["A", "B"], seed=1).record.to_dict()
HEADER.pop("actions")


def flip(i: int) -> dict[str, Any]:
    return {"t": i * 100, "flip": ("A", "B")[i % 2]}


def pause(node: Node) -> None:
    """Freeze a node's heartbeat, as SIGSTOP freezes its whole process."""
    for task in node._tasks:
        task.cancel()
    node._tasks = []


async def scan_until(watchers: list[Watcher], want: int, timeout: float = 10.0) -> list[Claim]:
    claims: list[Claim] = []
    deadline = time.monotonic() + timeout
    while len(claims) < want:
        assert time.monotonic() < deadline, f"{len(claims)} of {want} rooms claimed"
        for found in await asyncio.gather(*(w.scan() for w in watchers)):
            claims += found
        await asyncio.sleep(0.05)
    return claims


async def test_a_silent_node_loses_its_rooms_and_its_late_writes_are_refused(
    cluster: Cluster, stores: Any
) -> None:
    store_a, store_b = await stores(), await stores()
    a = cluster.node("a", interval_s=0.1, ttl_s=0.5)
    b = cluster.node("b", interval_s=0.1, ttl_s=0.5)
    await a.start()
    await b.start()
    codes = [f"T{i}" for i in range(5)]
    old = {}
    for code in codes:
        old[code] = await store_a.create_room(code, {}, HEADER, owner="a")
        a.own(code, old[code])
        for i in range(3):
            await store_a.append_action(code, i, flip(i), epoch=old[code])
    await a.flush()
    watcher = Watcher(b, store_b)
    for _ in range(8):  # a is alive: nothing happens however often b looks
        assert await watcher.scan() == []
        await asyncio.sleep(0.05)

    pause(a)
    paused_at = time.monotonic()
    claims = await scan_until([watcher], len(codes))
    detected = time.monotonic() - paused_at
    assert 0.5 <= detected < 3.0, detected
    assert sorted(c.code for c in claims) == codes
    for claim in claims:
        assert claim.previous_owner == "a" and claim.previous_epoch == old[claim.code]
        assert claim.epoch > claim.previous_epoch and claim.silent_s >= 0.5
        owner = await store_b.room_owner(claim.code)
        assert (owner.owner, owner.epoch) == ("b", claim.epoch)
        assert b.owned[claim.code] == claim.epoch
        where = await cluster.view().locate(claim.code)
        assert where is not None and (where.node, where.epoch, where.url) == (
            "b",
            claim.epoch,
            b.url,
        )
        state = await store_b.load_room(claim.code)  # the rebuild: every acknowledged action
        assert state.actions == tuple(flip(i) for i in range(3))
    recorded = await cluster.view().takeovers()
    assert sorted(t["code"] for t in recorded) == codes
    assert {t["node"] for t in recorded} == {"b"} and all(
        t["previous_owner"] == "a" for t in recorded
    )
    assert await watcher.scan() == []  # claimed once

    # a wakes up: its next writes are refused; its heartbeat notices the gap.
    for code in codes:
        with pytest.raises(StaleOwner) as caught:
            await store_a.append_action(code, 3, flip(3), epoch=old[code])
        assert caught.value.owner == "b"
    stalls: list[float] = []
    a.on_stall.append(stalls.append)
    await a.heartbeat()
    assert a.suspect.is_set() and a.metrics["stalls"] == 1 and stalls and stalls[0] > 0.5
    assert sorted(await a.verify(store_a)) == codes
    assert a.owned == {} and not a.suspect.is_set()


async def test_a_dead_nodes_rooms_are_spread_over_the_live_nodes(
    cluster: Cluster, stores: Any
) -> None:
    store_a = await stores()
    nodes = {n: cluster.node(n, interval_s=0.1, ttl_s=0.5) for n in "abcd"}
    for node in nodes.values():
        await node.start()
    await nodes["d"].drain()  # a draining node takes no rooms
    codes = [f"S{i:02d}" for i in range(40)]
    for code in codes:
        nodes["a"].own(code, await store_a.create_room(code, {}, HEADER, owner="a"))
    watchers = [Watcher(nodes[n], await stores()) for n in "bcd"]
    for w in watchers:
        assert await w.scan() == []
    pause(nodes["a"])
    claims = await scan_until(watchers, len(codes))
    assert sorted(c.code for c in claims) == codes  # each exactly once
    per_node = collections.Counter([(await store_a.room_owner(c.code)).owner for c in claims])
    assert set(per_node) == {"b", "c"} and min(per_node.values()) >= 5, per_node
    for code in codes:  # the heir every node computes is the one that took it
        assert (await store_a.room_owner(code)).owner == heir(code, ["b", "c"])


async def test_a_wiped_redis_declares_nobody_dead(cluster: Cluster, stores: Any) -> None:
    """A failover to an empty replica: every key is gone at once, but the nodes'
    heartbeat counters move again within one interval (less than the ttl), so no
    room changes hands. Here Redis loses everything ten times in 1.5 s."""
    store = await stores()
    a = cluster.node("a", interval_s=0.05, ttl_s=0.3)
    b = cluster.node("b", interval_s=0.05, ttl_s=0.3)
    await a.start()
    await b.start()
    for i in range(5):
        a.own(f"K{i}", await store.create_room(f"K{i}", {}, HEADER, owner="a"))
    watcher = Watcher(b, store)
    view = cluster.view()
    deadline = time.monotonic() + 1.5  # five times the ttl
    wipes, scans, next_wipe = 0, 0, 0.0
    while time.monotonic() < deadline:
        if time.monotonic() >= next_wipe:
            await delete_prefix(view.client, cluster.prefix)
            wipes += 1
            next_wipe = time.monotonic() + 0.15
        assert await watcher.scan() == []
        scans += 1
        await asyncio.sleep(0.02)
    assert wipes >= 8 and scans > 30
    assert await store.room_owners() == {"a": 5}
    await eventually(lambda: _mapped_all(view, a), timeout=3)  # a wrote its map back


async def _mapped_all(view: Any, node: Node) -> bool:
    return all([await view.mapped(c) == ("a", e) for c, e in node.owned.items()])


async def test_a_watcher_that_was_away_counts_afresh(cluster: Cluster, stores: Any) -> None:
    store = await stores()
    a = cluster.node("a", interval_s=0.1, ttl_s=0.5)
    b = cluster.node("b", interval_s=0.1, ttl_s=0.5)
    await a.start()
    await b.start()
    a.own("AW1", await store.create_room("AW1", {}, HEADER, owner="a"))
    now = [100.0]
    watcher = Watcher(b, store, clock=lambda: now[0])
    assert await watcher.scan() == []
    pause(a)
    now[0] += 30.0  # the watcher's process was stopped 30 s: it cannot tell who died when
    assert await watcher.scan() == []
    now[0] += 0.2
    assert await watcher.scan() == []
    now[0] += 0.2
    assert await watcher.scan() == []
    now[0] += 0.2  # 0.6 s of its own watching: a is dead
    claims = await watcher.scan()
    assert [c.code for c in claims] == ["AW1"]
    # A watcher whose own node is suspect (it was the one paused) judges nobody.
    b.suspect.set()
    assert await watcher.scan() == []


async def test_a_restarted_node_reclaims_its_own_rooms(cluster: Cluster, stores: Any) -> None:
    store = await stores()
    old = await store.create_room("RS1", {}, HEADER, owner="a")
    await store.create_room("RS2", {}, HEADER)  # from a single-node store
    again = cluster.node("a")
    await again.start()
    watcher = Watcher(again, store)
    claims = await watcher.recover_own()
    assert [(c.code, c.previous_epoch) for c in claims] == [("RS1", old)]
    assert claims[0].epoch > old and again.owned == {"RS1": claims[0].epoch}
    with pytest.raises(StaleOwner):  # the previous process with this id is fenced off
        await store.append_action("RS1", 0, flip(0), epoch=old)
    more = await watcher.recover_own(include_unowned=True)
    assert [c.code for c in more] == ["RS1", "RS2"]
    assert (await store.room_owner("RS2")).owner == "a"
    with pytest.raises(ValueError):
        Watcher(Node(None, "solo", "http://x"), store)


async def test_sigstop_past_the_ttl_then_sigcont(
    cluster: Cluster, stores: Any, pg_url: str
) -> None:
    """A real node process, stopped with SIGSTOP while it appends: another node
    takes its room; after SIGCONT the old process's write is refused, it sees
    its stall and gives the room up. Every action it had acknowledged is in
    the record, then the new owner's, nothing else."""
    store_b = await stores()
    b = cluster.node("b", interval_s=0.1, ttl_s=0.6)
    await b.start()
    watcher = Watcher(b, store_b)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(WORKER),
        REDIS_URL,
        cluster.prefix,
        pg_url,
        "a",
        "SIG1",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    lines: list[str] = []

    async def read_until(predicate: Any, timeout: float = 20.0) -> None:
        assert proc.stdout is not None
        async with asyncio.timeout(timeout):
            while not predicate():
                raw = await proc.stdout.readline()
                if not raw:
                    raise AssertionError(f"worker ended: {lines[-5:]}")
                lines.append(raw.decode().strip())

    try:
        await read_until(lambda: sum(x.startswith("ack") for x in lines) >= 20)
        os.kill(proc.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        # Whatever it printed before the stop is in the pipe: read it now.
        await asyncio.sleep(0.1)
        claims = await scan_until([watcher], 1)
        took = time.monotonic() - stopped
        assert [c.code for c in claims] == ["SIG1"] and took < 5.0
        state = await store_b.load_room("SIG1")
        found = len(state.actions)
        for k in range(found, found + 3):
            await store_b.append_action(
                "SIG1", k, {"t": k * 100, "flip": "B"}, epoch=claims[0].epoch
            )
        os.kill(proc.pid, signal.SIGCONT)
        await read_until(lambda: "closed redis" in lines)
        assert await asyncio.wait_for(proc.wait(), 10) == 0
    finally:
        if proc.returncode is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
            await proc.wait()
        if proc.returncode != 0:
            assert proc.stderr is not None
            print("worker stdout:", lines[-10:], "stderr:", (await proc.stderr.read())[-3000:])
    acked = [int(x.split()[1]) for x in lines if x.startswith("ack")]
    assert acked == list(range(found)), (found, acked[-3:], lines[-8:])
    refused = [x for x in lines if x.startswith("refused")]
    assert refused == [f"refused {claims[0].epoch} b"]
    assert any(x.startswith("stall") for x in lines), lines[-8:]
    assert "lost SIG1" in lines and "done" in lines
    final = await store_b.load_room("SIG1")
    assert final.actions == (
        *(flip(i) for i in range(found)),
        *({"t": k * 100, "flip": "B"} for k in range(found, found + 3)),
    )
