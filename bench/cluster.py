"""Takeover benchmark of the cluster (issue 15): how long play stops when the
node that runs a room dies.

Starts ``--nodes`` ``slapjack serve --redis-url … --database-url postgresql://…``
processes on loopback ports (a fresh key prefix and schema), then ``--kills``
times: a room with one human seat (a terminal client, joined through another
node, that follows ``moved``) and bots is made on a node, played for a moment,
the node is killed with ``kill -9``, and the time from the kill to the client's
``welcome`` from the new owner is measured; the killed node is started again
(same id) before the next round. Prints every takeover time, the median and
the max.

    .venv/bin/python bench/cluster.py --nodes 3 --kills 10

Redis: ``SLAPJACK_BENCH_REDIS`` (default redis://127.0.0.1:6379/0);
PostgreSQL: ``SLAPJACK_BENCH_PG`` (default postgresql://postgres@127.0.0.1:5432/test).
With ``--capacity`` it measures instead the capacity table: for each node
count of ``--counts`` (default 1,2,3) it starts that many nodes and drives
``--players-per-node`` players on each at human pace with the generator of
``bench/load.py`` (its player: flips about once a second, slaps each jack
after ~300 ms, answers every ping), one generator process per node whose
rooms are made on that node (its requests carry the placement header, so no
room is forwarded) and whose sockets go to it. After a ramp-up and
``--settle`` it measures ``--seconds`` and prints one row per node count:
players connected, flip→client and flip→all-clients delays (p50/p99), lost
frames, CPU per node (and µs per player-second), the Redis and PostgreSQL
CPU and Redis commands over the same window minus their idle rate measured
just before (both servers are shared with other users of the machine: their
figures include whatever else ran), the actions stored per second and the
Redis commands and PostgreSQL CPU per action. Loopback only; every node
process is killed on the way out, and the whole run is bounded by
``--deadline``.

    .venv/bin/python bench/cluster.py --capacity --players-per-node 400 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import redis.asyncio as aioredis

from slapjack.tui.online import OnlineClient, Target

REDIS = os.environ.get("SLAPJACK_BENCH_REDIS", "redis://127.0.0.1:6379/0")
PG = os.environ.get("SLAPJACK_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
ROOM = {
    "create": {"name": "bench", "seats": 3, "bots": {"1": "casual", "2": "casual"}},
    "timing": {"start_delay_ms": 0.0, "turn_ms": 300.0, "bot_pace": 0.3, "grace_ms": 60_000.0},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Node:
    def __init__(self, name: str, db: str, prefix: str, log: Path) -> None:
        self.name, self.db, self.prefix, self.log = name, db, prefix, log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "slapjack.cli", "serve", "--port", str(self.port),
             "--database-url", self.db, "--redis-url", REDIS, "--cluster-prefix", self.prefix,
             "--node-id", self.name, "--no-rate-limits", "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=self.log.open("ab"),
            env={**os.environ, "SLAPJACK_TEST_HOOKS": "1"},
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/cluster", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError(f"node {self.name} did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.proc = None


class Seat:
    def __init__(self) -> None:
        self.welcomes: list[tuple[float, str]] = []
        self.client: OnlineClient | None = None

    def on_welcome(self, msg: Any) -> None:
        assert self.client is not None
        self.welcomes.append((time.monotonic(), self.client.target.server))

    def on_update(self, msg: Any) -> None: ...
    def on_server_error(self, msg: Any) -> None: ...
    def on_bad_frame(self, what: str) -> None: ...
    def on_status(self, status: str, detail: Any) -> None: ...


async def one_takeover(nodes: list[Node], owner: Node, via: Node) -> float:
    async with httpx.AsyncClient(timeout=10) as http:
        code = (await http.post(f"{owner.url}/api/test/rooms", json=ROOM)).json()["code"]
        seat = (await http.post(f"{via.url}/api/rooms/{code}/join", json={"name": "B"})).json()
    handler = Seat()
    client = OnlineClient(Target(via.url, code), seat["token"], handler)
    handler.client = client
    task = asyncio.create_task(client.run())
    try:
        while not handler.welcomes:
            await asyncio.sleep(0.01)
        await asyncio.sleep(1.0)  # the game runs (stored on its first flips)
        before = len(handler.welcomes)
        owner.kill()
        killed = time.monotonic()
        while len(handler.welcomes) == before:
            if time.monotonic() - killed > 30:
                raise RuntimeError("no takeover within 30 s")
            await asyncio.sleep(0.005)
        return handler.welcomes[-1][0] - killed
    finally:
        await client.close()
        task.cancel()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--capacity", action="store_true", help="the capacity table instead")
    parser.add_argument("--counts", default="1,2,3", help="--capacity: node counts")
    parser.add_argument("--players-per-node", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--deadline", type=float, default=900.0, help="the whole run's bound (s)")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _stop)
    signal.signal(signal.SIGTERM, _stop)
    signal.alarm(int(args.deadline))
    from cluster_capacity import capacity, fresh_nodes

    if args.capacity:
        await capacity(args, Node, REDIS, PG)
        return
    schema, prefix, nodes = await fresh_nodes(Node, PG, args.nodes, "bench")
    times: list[float] = []
    try:
        for n in nodes:
            n.start()
        await asyncio.sleep(1.0)
        for k in range(args.kills):
            owner, via = nodes[k % len(nodes)], nodes[(k + 1) % len(nodes)]
            took = await one_takeover(nodes, owner, via)
            times.append(took)
            print(f"kill {k + 1}: node {owner.name}, play resumed after {took:.2f} s", flush=True)
            await asyncio.to_thread(owner.start)
            await asyncio.sleep(0.5)
    finally:
        for n in nodes:
            if n.proc is not None:
                n.kill()
        r = aioredis.Redis.from_url(REDIS)
        keys = [k async for k in r.scan_iter(match=f"{prefix}:*")]
        if keys:
            await r.delete(*keys)
        await r.aclose()
        conn = await asyncpg.connect(PG)
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await conn.close()
    if times:
        print(
            f"takeover over {len(times)} kills: median {statistics.median(times):.2f} s,"
            f" max {max(times):.2f} s, min {min(times):.2f} s ({args.nodes} nodes)"
        )


def _stop(signum: int, frame: Any) -> None:
    raise SystemExit(f"bench/cluster.py stopped by signal {signum}")


if __name__ == "__main__":
    asyncio.run(main())
