"""A node process that owns one room and appends to it as fast as it can
(tests/cluster/test_takeover.py stops it with SIGSTOP and lets it go on).

    python node_worker.py REDIS_URL PREFIX PG_URL NODE ROOM

Prints ``epoch E`` once the room is created, ``ack I`` per acknowledged
append, ``retry I ...`` when the store failed underneath (its session ended
while the process was stopped), ``stall S`` when its heartbeat finds itself
silent past its ttl, ``refused CURRENT OWNER`` when its write is fenced off,
then ``lost CODES`` from ``node.verify``, ``done`` and a line per thing closed.
"""

from __future__ import annotations

import asyncio
import sys
import time

from slapjack.cluster import ClusterView, Node, connect
from slapjack.core import Rules, Table
from slapjack.store import PostgresStore, StaleOwner, StoreUnavailable


def flip(i: int) -> dict[str, object]:
    return {"t": i * 100, "flip": ("A", "B")[i % 2]}


async def main() -> int:
    redis_url, prefix, pg_url, node_id, room = sys.argv[1:]
    table = Table.new(Rules.from_options({"preset": "classic"}), ["A", "B"], seed=1)
    header = table.record.to_dict()
    header.pop("actions")
    client = connect(redis_url)
    node = Node(
        ClusterView(client, prefix=prefix),
        node_id,
        "http://127.0.0.1:9999",
        interval_s=0.1,
        ttl_s=0.6,
    )
    node.on_stall.append(lambda gap: print(f"stall {gap:.2f}", flush=True))
    store = await PostgresStore.open(pg_url, idle_in_transaction_ms=500)
    try:
        await node.start()
        epoch = await store.create_room(room, {}, header, owner=node_id)
        node.own(room, epoch)
        await node.flush()
        print(f"epoch {epoch}", flush=True)
        deadline = time.monotonic() + 60
        i = 0
        while time.monotonic() < deadline:
            try:
                await store.append_action(room, i, flip(i), epoch=epoch)
            except StaleOwner as exc:
                print(f"refused {exc.current} {exc.owner}", flush=True)
                break
            except StoreUnavailable as exc:
                print(f"retry {i} {exc.code}", flush=True)
                await asyncio.sleep(0.05)
                continue
            print(f"ack {i}", flush=True)
            i += 1
            await asyncio.sleep(0.01)
        else:
            print("never refused", flush=True)
            return 1
        await asyncio.sleep(0.3)  # a heartbeat or two: the stall is noticed
        lost = await node.verify(store)
        print(f"lost {','.join(lost)}", flush=True)
        print("done", flush=True)
        return 0
    finally:
        await node.close()
        print("closed node", flush=True)
        await store.close()
        print("closed store", flush=True)
        await client.aclose()
        print("closed redis", flush=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
