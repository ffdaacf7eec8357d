"""Placement of new rooms and room codes unique across the cluster, on real Redis
(and PostgreSQL behind the codes, in several processes at once)."""

from __future__ import annotations

import asyncio
import collections
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slapjack.cluster import ClusterView, CodesExhausted, NodeLoad, NoNodeAvailable
from slapjack.store import PostgresStore

from .conftest import REDIS_URL, Cluster, delete_prefix, redis_or_skip

WORKER = Path(__file__).with_name("code_worker.py")


async def test_new_rooms_go_to_the_least_loaded_live_node(cluster: Cluster) -> None:
    cluster.loads.update(a=NodeLoad(players=10), b=NodeLoad(players=3), c=NodeLoad(players=7))
    nodes = [cluster.node(n, interval_s=5.0, ttl_s=15.0) for n in "abc"]
    for node in nodes:
        await node.start()
    view = cluster.view()

    async def cpu(**shares: float) -> None:  # what the heartbeats reported, made exact
        for n, share in shares.items():
            await view.client.hset(view.node_key(n), "cpu", str(share))

    await cpu(a=0.1, b=0.1, c=0.1)
    # b (3 players) first; each placed room counts as 2 players until b's next
    # heartbeat; at equal load the lower CPU, then the node id.
    assert [await view.place() for _ in range(5)] == ["b", "b", "b", "c", "b"]
    # The next heartbeats report what really joined and reset the count.
    cluster.loads.update(a=NodeLoad(players=1), b=NodeLoad(players=9), c=NodeLoad(players=9))
    for node in nodes:
        await node.heartbeat()
    await cpu(a=0.1, b=0.3, c=0.2)
    assert await view.place() == "a"
    # A node above the hot CPU mark gets rooms only when every node is that busy.
    await cpu(a=0.95)
    assert await view.place() == "c"  # b and c at 9 players: c has the lower CPU
    await cpu(b=0.99, c=0.99)
    assert await view.place() == "a"


async def test_concurrent_placements_spread_evenly(cluster: Cluster) -> None:
    nodes = [cluster.node(n, interval_s=5.0, ttl_s=15.0) for n in "abc"]
    for node in nodes:
        await node.start()
    views = [cluster.view() for _ in range(3)]
    for n in "abc":  # equal load, equal CPU: only the placed-room counts decide
        await views[0].client.hset(views[0].node_key(n), "cpu", "0.2")
    chosen = await asyncio.gather(*(views[i % 3].place() for i in range(99)))
    assert collections.Counter(chosen) == {"a": 33, "b": 33, "c": 33}


async def test_no_node_to_place_on(cluster: Cluster) -> None:
    view = cluster.view()
    with pytest.raises(NoNodeAvailable, match="ever"):
        await view.place()
    a = cluster.node("a")
    await a.start()
    await a.drain()
    with pytest.raises(NoNodeAvailable, match="draining"):
        await view.place()
    await a.close()
    with pytest.raises(NoNodeAvailable):
        await view.place()


# ------------------------------------------------------------------ room codes


async def test_reserved_codes_are_unique_and_expire(cluster: Cluster) -> None:
    a, b = cluster.node("a"), cluster.node("b")
    await a.start()
    await b.start()
    space = [f"C{i:03d}" for i in range(150)]
    rng = iter(range(10**9))

    def draw() -> str:
        return space[(next(rng) * 7919) % len(space)]

    codes = await asyncio.gather(
        *((a if i % 2 else b).reserve_code(draw, attempts=500) for i in range(150))
    )
    assert sorted(codes) == sorted(space)  # every one once
    with pytest.raises(CodesExhausted):
        await a.reserve_code(draw, attempts=30)
    view = cluster.view()
    assert 0 < await view.client.pttl(view.room_key(codes[0])) <= 60_000
    owner = (await view.mapped(codes[0]))[0]  # type: ignore[index]
    other = b if owner == "a" else a
    await other.release_code(codes[0])  # not its reservation: nothing happens
    assert await view.mapped(codes[0]) == (owner, 0)
    await (a if owner == "a" else b).release_code(codes[0])
    assert await view.mapped(codes[0]) is None
    # Creating the room turns the reservation into the map entry, with no expiry.
    code = await a.reserve_code(lambda: "NEW1")
    a.own(code, 3)
    await a.flush()
    assert await view.client.pttl(view.room_key(code)) == -1
    assert (await view.locate(code)).epoch == 3  # type: ignore[union-attr]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    space=st.integers(min_value=1, max_value=40),
    reservers=st.integers(min_value=1, max_value=6),
    tries=st.integers(min_value=1, max_value=60),
)
def test_concurrent_reservations_never_share_a_code(space: int, reservers: int, tries: int) -> None:
    """Any number of concurrent reservers on several connections over a small
    code space: every code reserved at most once, exhaustion a typed error."""

    async def run() -> None:
        first = await redis_or_skip()
        prefix = f"slapjack-test-{uuid.uuid4().hex[:12]}"
        views = [ClusterView(await redis_or_skip(), prefix=prefix) for _ in range(3)]
        try:
            counter = iter(range(10**9))

            def draw() -> str:
                return f"S{next(counter) % space}"

            async def one(i: int) -> str | None:
                try:
                    return await views[i % 3].reserve_code(draw, f"n{i % reservers}", attempts=5)
                except CodesExhausted:
                    return None

            got = await asyncio.gather(*(one(i) for i in range(tries)))
            won = [c for c in got if c is not None]
            assert len(won) == len(set(won))
            assert len(won) <= space
            if tries <= space:
                # draws walk the space in order, so nobody runs out early
                assert len(won) == tries
        finally:
            await delete_prefix(first, prefix)
            for v in views:
                await v.client.aclose()
            await first.aclose()

    asyncio.run(run())


async def test_room_codes_stay_unique_across_processes(pg_url: str) -> None:
    """Six node processes create rooms at once from a code space of 343 codes
    (three of 7 letters), 40 rooms each: four reserve in Redis, two skip it (as
    if a Redis failover had lost their reservations). No code is ever created
    twice: the store's primary key answers RoomExists to the loser."""
    client = await redis_or_skip()
    prefix = f"slapjack-test-{uuid.uuid4().hex[:12]}"
    modes = ["redis", "redis", "redis", "redis", "store", "store"]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                REDIS_URL,
                prefix,
                pg_url,
                f"node{i}",
                "40",
                "ABCDEFG",
                "3",
                mode,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, mode in enumerate(modes)
    ]
    try:
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        await delete_prefix(client, prefix)
        await client.aclose()
    created: dict[str, tuple[str, int]] = {}
    collisions = collections.Counter[str]()
    for i, (out, err) in enumerate(outputs):
        assert procs[i].returncode == 0, err
        lines = out.splitlines()
        assert lines[-1] == "done"
        for line in lines[:-1]:
            kind, code, *rest = line.split()
            if kind == "created":
                assert code not in created, f"{code} created twice: {created[code]} and node{i}"
                created[code] = (f"node{i}", int(rest[0]))
            else:
                collisions[modes[i]] += 1
    assert len(created) == 6 * 40
    assert collisions["store"] > 0, "the processes without Redis never collided: no test"
    store = await PostgresStore.open(pg_url)
    try:
        assert sorted(await store.live_rooms()) == sorted(created)
        for code, (node, epoch) in created.items():
            owner = await store.room_owner(code)
            assert (owner.owner, owner.epoch) == (node, epoch)
        assert len({e for _, e in created.values()}) == len(created)  # epochs never repeat
    finally:
        await store.close()
