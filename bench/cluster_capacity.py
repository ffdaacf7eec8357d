"""``bench/cluster.py --capacity``: players, delays and CPU for 1, 2, 3 nodes,
with the generator of ``bench/load.py`` spread over the nodes (see the
docstring of bench/cluster.py)."""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import statistics
import tempfile
import time
import uuid
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import redis.asyncio as aioredis

import load

PLACED = "x-slapjack-placed"
"""The header of a request a node forwarded: the room is made on the node asked."""


class PlacedWorker(load.Worker):  # type: ignore[misc]
    """load.py's generator, whose rooms are made on the node it talks to."""

    async def make_rooms(self, url: str, rooms: int) -> list[tuple[Any, str]]:
        seats: list[tuple[Any, str]] = []
        gate = asyncio.Semaphore(8)
        limits = httpx.Limits(max_connections=8)
        headers = {PLACED: "1"}
        async with httpx.AsyncClient(
            base_url=url, limits=limits, timeout=120, headers=headers
        ) as http:

            async def make_room() -> None:
                async with gate:
                    body = {"seats": load.SEATS, "public": False, "turn_seconds": 5}
                    code = (await http.post("/api/rooms", json=body)).json()["code"]
                    room = load.RoomRun(code)
                    for s in range(load.SEATS):
                        path = f"/api/rooms/{code}/join"
                        joined = (await http.post(path, json={"name": f"P{s}"})).json()
                        seats.append((room, joined["token"]))

            await asyncio.gather(*(make_room() for _ in range(rooms)))
        return seats


def worker_main(index: int, args: dict[str, Any], pipe: Connection) -> None:
    load.Worker = PlacedWorker
    load.worker_main(index, args, pipe)


def proc_cpu_s(pid: int) -> float:
    return load.proc_cpu_seconds(pid)


def postgres_cpu_s() -> float:
    """CPU seconds of every ``postgres`` process of the machine (the shared server)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_text().strip()
            if comm != "postgres":
                continue
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


async def redis_counts(r: aioredis.Redis) -> tuple[float, int]:
    cpu = await r.info("cpu")
    stats = await r.info("stats")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]), int(
        stats["total_commands_processed"]
    )


async def stored_actions(pg: str, schema: str) -> int:
    conn = await asyncpg.connect(pg)
    try:
        n = await conn.fetchval(
            "SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables"
            " WHERE schemaname = $1 AND relname = 'room_actions'",
            schema,
        )
        return int(n)
    finally:
        await conn.close()


async def fresh_nodes(node_cls: Any, pg: str, n: int, tag: str) -> tuple[str, str, list[Any]]:
    """``n`` nodes (not started) on a fresh PostgreSQL schema and Redis key
    prefix of their own, logging to a new temp dir: schema, prefix, nodes."""
    schema = f"slapjack_bench_{uuid.uuid4().hex[:10]}"
    prefix = f"sjbench-{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(pg)
    await conn.execute(f'CREATE SCHEMA "{schema}"')
    await conn.close()
    logs = Path(tempfile.mkdtemp(prefix=f"slapjack-cluster-{tag}-"))
    nodes = [
        node_cls(chr(ord("a") + i), f"{pg}?search_path={schema}", prefix, logs / f"{i}.log")
        for i in range(n)
    ]
    return schema, prefix, nodes


async def one_count(
    args: argparse.Namespace, node_cls: Any, redis: str, pg: str, n: int
) -> dict[str, Any]:
    schema, prefix, nodes = await fresh_nodes(node_cls, pg, n, "capacity")
    workers: list[tuple[Any, Connection]] = []
    r = aioredis.Redis.from_url(redis)
    try:
        for node in nodes:
            await asyncio.to_thread(node.start)
        pids = [int(httpx.get(f"{x.url}/api/metrics", timeout=30).json()["pid"]) for x in nodes]
        # the shared servers' idle rates (other users included), over 5 s
        rc0, ro0 = await redis_counts(r)
        pc0, t0 = postgres_cpu_s(), time.perf_counter()
        await asyncio.sleep(5.0)
        rc1, ro1 = await redis_counts(r)
        pc1, t1 = postgres_cpu_s(), time.perf_counter()
        idle = {"redis_cpu": (rc1 - rc0) / (t1 - t0), "redis_ops": (ro1 - ro0) / (t1 - t0),
                "pg_cpu": (pc1 - pc0) / (t1 - t0)}  # fmt: skip
        ctx = mp.get_context("spawn")
        rooms = args.players_per_node // load.SEATS
        for i, node in enumerate(nodes):
            params = {"url": node.url, "rooms": rooms, "rate": 200.0, "seed": i + 1, "pin": False}
            here, there = ctx.Pipe()
            p = ctx.Process(target=worker_main, args=(i, params, there), daemon=True)
            p.start()
            workers.append((p, here))

        def gather(kind: str) -> list[Any]:
            out = []
            for p, pipe in workers:
                if not pipe.poll(300):
                    raise SystemExit(f"generator {p.pid} did not answer ({kind})")
                got, value = pipe.recv()
                assert got == kind, (got, kind)
                out.append(value)
            return out

        await asyncio.to_thread(gather, "rooms")
        connected = sum(await asyncio.to_thread(gather, "connected"))
        await asyncio.sleep(args.settle)
        cpu0 = [proc_cpu_s(pid) for pid in pids]
        rc0, ro0 = await redis_counts(r)
        pc0, a0, t0 = postgres_cpu_s(), await stored_actions(pg, schema), time.perf_counter()
        for _, pipe in workers:
            pipe.send("measure")
        await asyncio.sleep(args.seconds)
        cpu1 = [proc_cpu_s(pid) for pid in pids]
        rc1, ro1 = await redis_counts(r)
        pc1, t1 = postgres_cpu_s(), time.perf_counter()
        for _, pipe in workers:
            pipe.send("stop")
        parts = await asyncio.to_thread(gather, "stats")
        await asyncio.sleep(1.0)  # PostgreSQL's statistics lag a little
        a1 = await stored_actions(pg, schema)
        for _, pipe in workers:
            pipe.send("quit")
        wall = t1 - t0
        delays = [d for p in parts for d in p["delays"]]
        alls = [d for p in parts for d in p["all_delays"]]
        actions_s = (a1 - a0) / wall
        redis_cpu = max(0.0, (rc1 - rc0) / wall - idle["redis_cpu"])
        redis_ops = max(0.0, (ro1 - ro0) / wall - idle["redis_ops"])
        pg_cpu = max(0.0, (pc1 - pc0) / wall - idle["pg_cpu"])
        node_cpu = [100.0 * (b - a) / wall for a, b in zip(cpu0, cpu1, strict=True)]
        return {
            "nodes": n,
            "players": connected,
            "delay_p50_ms": round(load.pct(delays, 50), 1),
            "delay_p99_ms": round(load.pct(delays, 99), 1),
            "all_p50_ms": round(load.pct(alls, 50), 1),
            "all_p99_ms": round(load.pct(alls, 99), 1),
            "lost": sum(int(p["lost"]) for p in parts),
            "closed": sum(int(p["closed"]) for p in parts),
            "node_cpu_pct": [round(c, 1) for c in node_cpu],
            "node_us_per_player_s": round(1e6 * sum(node_cpu) / 100.0 / max(connected, 1), 1),
            "gen_cpu_pct": [round(100.0 * p["cpu_s"] / max(p["wall_s"], 1e-9), 1) for p in parts],
            "actions_per_s": round(actions_s, 1),
            "redis_cpu_pct": round(100.0 * redis_cpu, 1),
            "redis_ops_per_s": round(redis_ops, 1),
            "redis_ops_per_action": round(redis_ops / actions_s, 2) if actions_s else None,
            "pg_cpu_pct": round(100.0 * pg_cpu, 1),
            "pg_us_per_action": round(1e6 * pg_cpu / actions_s, 1) if actions_s else None,
            "idle": {k: round(v, 3) for k, v in idle.items()},
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }
    finally:
        for p, _ in workers:
            p.join(5)
            if p.is_alive():
                p.kill()
        for node in nodes:
            if node.proc is not None:
                node.kill()
        keys = [k async for k in r.scan_iter(match=f"{prefix}:*")]
        if keys:
            await r.delete(*keys)
        await r.aclose()
        conn = await asyncpg.connect(pg)
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await conn.close()


async def capacity(args: argparse.Namespace, node_cls: Any, redis: str, pg: str) -> None:
    load.raise_nofile()
    rows = []
    for n in (int(x) for x in args.counts.split(",")):
        print(f"{n} node(s), {args.players_per_node} players each …", flush=True)
        row = await one_count(args, node_cls, redis, pg, n)
        rows.append(row)
        print(row, flush=True)
    cols = ("nodes", "players", "all_p50_ms", "all_p99_ms", "lost", "node_cpu_pct",
            "node_us_per_player_s", "actions_per_s", "redis_ops_per_action",
            "redis_cpu_pct", "pg_cpu_pct", "pg_us_per_action", "load_average")  # fmt: skip
    print("| " + " | ".join(cols) + " |")
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in cols) + " |")
    per = [r["node_us_per_player_s"] for r in rows if r["players"]]
    if per:
        print(f"µs of node CPU per player-second: median {statistics.median(per)}")
