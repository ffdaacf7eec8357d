"""Measure action appends: ``python -m slapjack.store.bench [--pg URL] [--fenced] [--repeat N]``.

Each room appends its actions one after another, awaiting each (as a room
task does); many rooms at once share commits. Prints appends per second and
the 50th/99th percentile of the time one ``append_action`` waits. SQLite runs
in a temporary directory; PostgreSQL (with ``--pg``) in a temporary schema
that is dropped afterwards. ``--fenced``: every room has an owner and every
append carries its epoch (as a cluster node writes). ``--repeat N``: each
shape N times on a fresh database, then the median of the N runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from slapjack.core import Rules, Table

from ._sql import SqlStore
from .postgres import PostgresStore
from .sqlite import SqliteStore

SHAPES = ((1, 2000), (100, 50), (1000, 10))


@dataclass(frozen=True, slots=True)
class Figures:
    rooms: int
    per_room: int
    rate: float  #: appends per second
    p50_ms: float
    p99_ms: float
    cpu_us: (
        float  #: this process's CPU time per append (SQLite: all of it; PostgreSQL: the client's)
    )

    def line(self) -> str:
        return (
            f"{self.rooms:5d} rooms x {self.per_room:4d} appends: {self.rate:8.0f} appends/s,"
            f" wait p50 {self.p50_ms:6.2f} ms, p99 {self.p99_ms:6.2f} ms,"
            f" CPU {self.cpu_us:5.1f} us/append"
        )


async def measure(store: SqlStore, rooms: int, per_room: int, *, fenced: bool = False) -> Figures:
    table = Table.new(Rules.from_options({"preset": "classic"}), ["A", "B", "C", "D"], seed=1)
    header = table.record.to_dict()
    header.pop("actions")
    epochs: dict[str, int] = {}
    for r in range(rooms):
        if fenced:
            epochs[f"B{r}"] = await store.create_room(f"B{r}", {}, header, owner="bench")
        else:  # the calls as they were before fencing (the bench also runs on older code)
            await store.create_room(f"B{r}", {}, header)
    waits: list[float] = []

    async def feed(code: str) -> None:
        epoch = epochs.get(code)
        for i in range(per_room):
            action = {"t": i * 100, "flip": "A"}
            t0 = time.perf_counter()
            if epoch is None:
                await store.append_action(code, i, action)
            else:
                await store.append_action(code, i, action, epoch=epoch)
            waits.append(time.perf_counter() - t0)

    cpu0, t0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(feed(f"B{r}") for r in range(rooms)))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    waits.sort()
    n = len(waits)
    return Figures(
        rooms,
        per_room,
        n / elapsed,
        waits[n // 2] * 1000,
        waits[int(n * 0.99)] * 1000,
        cpu / n * 1e6,
    )


async def _run(store: SqlStore, rooms: int, per_room: int, *, fenced: bool = False) -> str:
    return (await measure(store, rooms, per_room, fenced=fenced)).line()


def median(runs: list[Figures]) -> Figures:
    first = runs[0]
    return Figures(
        first.rooms,
        first.per_room,
        statistics.median(r.rate for r in runs),
        statistics.median(r.p50_ms for r in runs),
        statistics.median(r.p99_ms for r in runs),
        statistics.median(r.cpu_us for r in runs),
    )


async def _sqlite(rooms: int, per_room: int, fenced: bool) -> Figures:
    with tempfile.TemporaryDirectory() as tmp:
        store = await SqliteStore.open(Path(tmp) / "bench.sqlite3")
        try:
            return await measure(store, rooms, per_room, fenced=fenced)
        finally:
            await store.close()


async def _postgres(pg_url: str, rooms: int, per_room: int, fenced: bool) -> Figures:
    import asyncpg  # type: ignore[import-untyped]

    schema = f"slapjack_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(pg_url)
    try:
        await admin.execute(f'CREATE SCHEMA "{schema}"')
        sep = "&" if "?" in pg_url else "?"
        pg = await PostgresStore.open(f"{pg_url}{sep}search_path={schema}")
        try:
            return await measure(pg, rooms, per_room, fenced=fenced)
        finally:
            await pg.close()
    finally:
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()


async def _main(pg_url: str | None, fenced: bool, repeat: int) -> None:
    what = "fenced (every append carries its epoch)" if fenced else "not fenced"
    suffix = f", median of {repeat} runs" if repeat > 1 else ""
    print(f"sqlite (WAL, synchronous=NORMAL), {what}{suffix}")
    for rooms, per_room in SHAPES:
        runs = [await _sqlite(rooms, per_room, fenced) for _ in range(repeat)]
        print(" ", median(runs).line())
    if pg_url is None:
        return
    print(f"postgresql, {what}{suffix}")
    for rooms, per_room in SHAPES:
        runs = [await _postgres(pg_url, rooms, per_room, fenced) for _ in range(repeat)]
        print(" ", median(runs).line())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", metavar="URL", help="also measure this PostgreSQL database")
    parser.add_argument("--fenced", action="store_true", help="appends carry their epoch")
    parser.add_argument("--repeat", metavar="N", type=int, default=1, help="median of N runs")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    asyncio.run(_main(args.pg, args.fenced, args.repeat))


if __name__ == "__main__":
    main()
