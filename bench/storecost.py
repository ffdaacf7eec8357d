"""The store's write-ahead cost per append (issue 14): CPU per append, batches, commit times.

Two shapes, each on a fresh SQLite file (WAL, synchronous=NORMAL: the server's
default store) or, with ``--pg URL``, a fresh PostgreSQL schema:

* ``paced``: ``--rooms`` rooms (500) each append one action a second (a
  random phase each, as 2,000 players in 4-seat rooms flip), for
  ``--seconds``; with ``--busy F`` a task keeps the event loop busy a
  fraction F of the time with pure Python work (as the server's rooms and
  sockets do), in slices of ``--slice-ms``, so a database thread has to win
  the GIL back from it.
* ``saturated``: ``--rooms`` rooms append back to back (each awaits its
  append, as a room task does), ``--per-room`` each.
* ``batches``: group commits of a given size (``--sizes``, appends to that
  many different rooms of ``--rooms`` queued in one turn of the loop, so one
  commit takes them), ``--per-size`` appends each, the sizes in turn for
  ``--rounds`` rounds: the process's CPU per append by the size of the
  commit (checkpoints included), and the same driver on the null store.

Printed per run: appends/s, the time one ``append_action`` waits (p50 / p99 /
max), group-commit sizes, and the process's CPU per append (every thread:
the SQLite adapter's database thread and its checkpointer are in the process)
with the busy task's own CPU taken out (it is measured with ``thread_time``
around each slice). ``--store null`` runs the same driver against a store
that does nothing (the driver's own cost, to subtract). ``--commit-times``
adds the distribution of one group commit's time in the database (the
SQLite adapter's ``batch_timings``: the time inside the transaction).

The script imports the store by its absolute name, so the same file measures
another checkout: ``PYTHONPATH=/path/to/other/src python bench/storecost.py``.

    .venv/bin/python bench/storecost.py --shape paced --rooms 500 --seconds 20 --busy 0.5
    .venv/bin/python bench/storecost.py --shape saturated --rooms 500 --per-room 40
    .venv/bin/python bench/storecost.py --shape saturated --rooms 1 --per-room 3000 --commit-times
    .venv/bin/python bench/storecost.py --shape batches --rooms 1500 --sizes 1,2,4,8,16
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import slapjack.store as store_pkg
from slapjack.core import Rules, Table
from slapjack.store import PostgresStore, SqliteStore


class NullStore:
    """The driver's own cost: an append that returns at once."""

    batch_timings: Any = None

    async def create_room(self, code: str, settings: Any, header: Any) -> int:
        return 0

    async def append_action(self, code: str, index: int, action: Any) -> None:
        return None

    async def close(self) -> None:
        return None


def _header() -> dict[str, Any]:
    table = Table.new(Rules.from_options({"preset": "classic"}), ["A", "B", "C", "D"], seed=1)
    header = table.record.to_dict()
    header.pop("actions")
    return header


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Busy:
    """Keeps the loop busy ``share`` of the time: pure Python for ``slice_s``,
    then a sleep so the share holds; its own CPU is counted with thread_time."""

    def __init__(self, share: float, slice_s: float) -> None:
        self.share, self.slice_s = share, slice_s
        self.cpu = 0.0
        self.stop = False

    async def run(self) -> None:
        if self.share <= 0:
            return
        pause = self.slice_s * (1.0 - self.share) / self.share
        while not self.stop:
            c0 = time.thread_time()
            end = time.perf_counter() + self.slice_s
            x = 0
            while time.perf_counter() < end:
                for k in range(50):
                    x ^= k * 7
            self.cpu += time.thread_time() - c0
            await asyncio.sleep(pause)


async def _open(kind: str, tmp: Path, pg: str | None) -> tuple[Any, Any]:
    if kind == "null":
        return NullStore(), None
    if pg is None:
        return await SqliteStore.open(tmp / "cost.sqlite3"), None
    import asyncpg  # type: ignore[import-untyped]

    schema = f"slapjack_cost_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(pg)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in pg else "?"
    return await PostgresStore.open(f"{pg}{sep}search_path={schema}"), (admin, schema)


async def _drop(cleanup: Any) -> None:
    if cleanup is not None:
        admin, schema = cleanup
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        store, cleanup = await _open(args.store, Path(tmp), args.pg)
        try:
            header = _header()
            codes = [f"C{r}" for r in range(args.rooms)]
            for code in codes:
                await store.create_room(code, {}, header)
            timings = getattr(store, "batch_timings", None)
            if timings is not None:
                timings.clear()
            waits: list[float] = []
            busy = Busy(args.busy, args.slice_ms / 1000.0)
            rng = random.Random(7)

            async def paced(code: str, until: float) -> None:
                await asyncio.sleep(rng.random())
                i = 0
                nxt = time.perf_counter()
                while nxt < until:
                    t0 = time.perf_counter()
                    await store.append_action(code, i, {"t": i * 1000, "flip": "A"})
                    waits.append(time.perf_counter() - t0)
                    i += 1
                    nxt += 1.0
                    await asyncio.sleep(max(0.0, nxt - time.perf_counter()))

            async def back_to_back(code: str) -> None:
                for i in range(args.per_room):
                    t0 = time.perf_counter()
                    await store.append_action(code, i, {"t": i * 100, "flip": "A"})
                    waits.append(time.perf_counter() - t0)

            spinner = asyncio.create_task(busy.run())
            cpu0, t0 = time.process_time(), time.perf_counter()
            if args.shape == "paced":
                until = t0 + args.seconds
                await asyncio.gather(*(paced(c, until) for c in codes))
            else:
                await asyncio.gather(*(back_to_back(c) for c in codes))
            elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            busy.stop = True
            await spinner
            n = len(waits)
            out: dict[str, Any] = {
                "store": args.store if args.pg is None or args.store == "null" else "postgresql",
                "shape": args.shape,
                "rooms": args.rooms,
                "busy": args.busy,
                "appends": n,
                "appends_per_s": round(n / elapsed),
                "cpu_us_per_append": round((cpu - busy.cpu) / n * 1e6, 1),
                "busy_cpu_share": round(busy.cpu / elapsed, 2),
                "wait_ms": {
                    "p50": round(_pct(waits, 0.5) * 1000, 3),
                    "p99": round(_pct(waits, 0.99) * 1000, 3),
                    "max": round(max(waits) * 1000, 3),
                },
            }
            if hasattr(store, "loop_batches"):
                out["on_loop"] = store.loop_batches
                out["loop_busy"] = store.loop_busy
            if hasattr(store, "checkpoints"):
                out["checkpoints"] = store.checkpoints
                wal = Path(tmp) / "cost.sqlite3-wal"
                out["wal_mb"] = round(wal.stat().st_size / 1e6, 1) if wal.exists() else 0.0
            if timings:
                rows = list(timings)
                sizes = [r[0] for r in rows]
                out["batches"] = len(rows)
                out["batch_size"] = {
                    "mean": round(statistics.fmean(sizes), 2),
                    "p50": _pct(sizes, 0.5),
                    "max": max(sizes),
                }
                if args.commit_times:
                    inside = [r[2] for r in rows]
                    out["commit_ms"] = {
                        q: round(_pct(inside, v), 3)
                        for q, v in (("p50", 0.5), ("p99", 0.99), ("p999", 0.999))
                    } | {"max": round(max(inside), 3)}
            return out
        finally:
            await store.close()
            await _drop(cleanup)


async def batches(args: argparse.Namespace) -> dict[str, Any]:
    """The ``batches`` shape: CPU per append by the size of the group commit."""
    sizes = [int(v) for v in args.sizes.split(",")]
    out: dict[str, Any] = {"shape": "batches", "rooms": args.rooms, "per_size": args.per_size}
    for kind in ("db", "null"):
        with tempfile.TemporaryDirectory() as tmp:
            store, cleanup = await _open(kind, Path(tmp), args.pg)
            try:
                header = _header()
                codes = [f"C{r}" for r in range(args.rooms)]
                for code in codes:
                    await store.create_room(code, {}, header)
                nxt = dict.fromkeys(codes, 0)
                rng = random.Random(7)
                per: dict[int, list[float]] = {k: [] for k in sizes}
                for _ in range(args.rounds):
                    for k in sizes:
                        n, cpu = 0, 0.0
                        while n < args.per_size:
                            chosen = rng.sample(codes, k)
                            cpu0 = time.process_time()
                            await asyncio.gather(
                                *(
                                    store.append_action(c, nxt[c], {"t": nxt[c], "flip": "A"})
                                    for c in chosen
                                )
                            )
                            cpu += time.process_time() - cpu0
                            for c in chosen:
                                nxt[c] += 1
                            n += k
                        per[k].append(cpu / n * 1e6)
                timings = getattr(store, "batch_timings", None)
                if timings:
                    out["largest_commit"] = max(r[0] for r in timings)
                out[kind] = {str(k): round(statistics.median(v), 1) for k, v in per.items()}
            finally:
                await store.close()
                await _drop(cleanup)
    out["store_us_per_append"] = {k: round(v - out["null"][k], 1) for k, v in out["db"].items()}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", choices=("paced", "saturated", "batches"), default="paced")
    p.add_argument("--store", choices=("db", "null"), default="db")
    p.add_argument("--pg", metavar="URL", help="PostgreSQL instead of SQLite")
    p.add_argument("--rooms", type=int, default=500)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--per-room", type=int, default=40)
    p.add_argument("--busy", type=float, default=0.0, help="share of the loop kept busy (0-0.95)")
    p.add_argument("--slice-ms", type=float, default=2.0)
    p.add_argument("--commit-times", action="store_true")
    p.add_argument("--sizes", default="1,2,4,8,16", help="batches: commit sizes")
    p.add_argument("--per-size", type=int, default=3000, help="batches: appends per size and round")
    p.add_argument("--rounds", type=int, default=3, help="batches: rounds (the median is printed)")
    p.add_argument("--label", default="", help="printed with the result")
    args = p.parse_args()
    if not 0.0 <= args.busy <= 0.95:
        p.error("--busy is 0 to 0.95")
    if args.rooms < 1 or args.per_room < 1 or args.seconds <= 0:
        p.error("--rooms, --per-room and --seconds must be positive")
    if args.shape == "batches":
        if not all(v.strip().isdigit() and 0 < int(v) <= args.rooms for v in args.sizes.split(",")):
            p.error("--sizes: positive integers, none larger than --rooms")
        result = asyncio.run(batches(args))
    else:
        result = asyncio.run(run(args))
    result["label"] = args.label
    result["code"] = str(Path(store_pkg.__file__).resolve().parents[2])
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
