"""A node process creating rooms as fast as it can (tests/cluster/test_codes.py).

    python code_worker.py REDIS_URL PREFIX PG_URL NODE ROOMS ALPHABET LENGTH MODE

MODE ``redis``: reserve each code in Redis (SET NX), then create the room in
PostgreSQL; ``store``: skip Redis, as if a failover had lost every
reservation, so only the store's primary key keeps codes unique. Prints one
line per room created (``created CODE EPOCH``) and per collision the store
caught (``exists CODE``), then ``done``.
"""

from __future__ import annotations

import asyncio
import random
import sys

from slapjack.cluster import ClusterView, connect
from slapjack.core import Rules, Table
from slapjack.store import PostgresStore, RoomExists


async def main() -> None:
    redis_url, prefix, pg_url, node, rooms, alphabet, length, mode = sys.argv[1:]
    table = Table.new(Rules.from_options({"preset": "classic"}), ["A", "B"], seed=1)
    header = table.record.to_dict()
    header.pop("actions")
    rng = random.Random(node)

    def draw() -> str:
        return "".join(rng.choice(alphabet) for _ in range(int(length)))

    client = connect(redis_url)
    view = ClusterView(client, prefix=prefix)
    store = await PostgresStore.open(pg_url, max_size=2)
    made = 0
    try:
        while made < int(rooms):
            code = await view.reserve_code(draw, node, attempts=200) if mode == "redis" else draw()
            try:
                epoch = await store.create_room(code, {}, header, owner=node)
            except RoomExists:
                print(f"exists {code}", flush=True)
                if mode == "redis":
                    await view.release_code(code, node)
                continue
            if mode == "redis":
                await view.set_owner(code, node, epoch)
            print(f"created {code} {epoch}", flush=True)
            made += 1
    finally:
        await store.close()
        await client.aclose()
    print("done", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
