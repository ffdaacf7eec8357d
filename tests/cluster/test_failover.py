"""The scale-out story end to end: Redis lease + relay + PostgreSQL store.

Node A owns a room and appends its actions; A dies; node B takes the lease,
rebuilds the room from PostgreSQL in the identical state and plays on. A's
late write cannot corrupt the record.
"""

from __future__ import annotations

import asyncio
import os
import uuid

import asyncpg
import pytest

from slapjack.cluster import RedisLeases, RedisRelay, room_out
from slapjack.core import Flip, Record, Rules, Slap, Table
from slapjack.core.record import action_to_dict
from slapjack.store import ActionConflict, PostgresStore

from .conftest import redis_or_skip

PG_URL = os.environ.get("SLAPJACK_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def full_game() -> Table:
    table = Table.new(Rules.from_options({"preset": "classic"}), ["Anna", "Ben", "Cem"], seed=21)
    t = 0
    while not table.game.over:
        g = table.game
        if g.race_open:
            for s in g.in_seats():
                table.apply(Slap(s, 180 + 30 * ((s + t // 100) % 3), False, t))
            table.settle(final=True)
        elif g.turn is None:
            table.settle(final=True)
        else:
            table.apply(Flip(g.turn, t))
        t += 100
    return table


async def test_failover_rebuilds_the_room_from_the_store() -> None:
    client = await redis_or_skip()
    prefix = f"slapjack-test-{uuid.uuid4().hex[:12]}"
    schema = f"slapjack_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = await asyncpg.connect(PG_URL, timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        await client.aclose()
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required under CI=true: {exc}")
        pytest.skip(f"PostgreSQL is not reachable: {exc}")
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    url = f"{PG_URL}?search_path={schema}"
    store_a = await PostgresStore.open(url)
    store_b = await PostgresStore.open(url)
    try:
        reference = full_game()
        names = reference.record.players
        actions = [action_to_dict(a, names) for a in reference.record.actions]
        half = len(actions) // 2
        header = reference.record.to_dict()
        header.pop("actions")

        leases_a = RedisLeases(client, "node-a", 1000, prefix=prefix)
        leases_b = RedisLeases(client, "node-b", 1000, prefix=prefix)
        relay_a = RedisRelay(client, prefix=prefix)
        relay_b = RedisRelay(client, prefix=prefix)

        async with relay_b.subscribe(room_out("FO1")) as frames:
            lease_a = await leases_a.acquire("FO1", renew=False)
            assert lease_a is not None
            await store_a.create_room("FO1", {"owner": "node-a"}, header)
            for i in range(half):
                lease_a.check()
                await store_a.append_action("FO1", i, actions[i])
                await relay_a.publish(room_out("FO1"), {"seq": i})
                if i % 5 == 0:
                    assert await lease_a.renew()
            seen = [(await asyncio.wait_for(frames.get(), 5))[1]["seq"] for _ in range(half)]
            assert seen == list(range(half))
            # Node A dies here: no more renewals. Node B waits for the room.
            lease_b = None
            for _ in range(200):
                lease_b = await leases_b.acquire("FO1")
                if lease_b is not None:
                    break
                await asyncio.sleep(0.02)
            assert lease_b is not None and lease_b.epoch > lease_a.epoch
            assert not lease_a.held

            room = await store_b.load_room("FO1")
            table = Table(room.record())
            rec = reference.record
            partial = Table(Record(rec.rules, rec.players, rec.deck, rec.seed, rec.actions[:half]))
            assert table.game.snapshot() == partial.game.snapshot()
            assert len(table.record.actions) == half
            for i in range(half, len(actions)):
                lease_b.check()
                await store_b.append_action("FO1", i, actions[i])
            # The zombie writes late: a different action at a stored index is refused.
            with pytest.raises(ActionConflict):
                await store_a.append_action("FO1", half, {"t": 1, "flip": "Cem"})
            final = (await store_b.load_room("FO1")).record()
            assert final.to_dict() == reference.record.to_dict()
            await lease_b.release()
    finally:
        await store_a.close()
        await store_b.close()
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()
        async for key in client.scan_iter(match=f"{prefix}:*"):
            await client.delete(key)
        await client.aclose()
