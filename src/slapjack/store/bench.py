"""Measure action appends: ``python -m slapjack.store.bench [--pg URL]``.

Each room appends its actions one after another, awaiting each (as a room
task does); many rooms at once share commits. Prints appends per second and
the 50th/99th percentile of the time one ``append_action`` waits. SQLite runs
in a temporary directory; PostgreSQL (with ``--pg``) in a temporary schema
that is dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from pathlib import Path

from slapjack.core import Rules, Table

from ._sql import SqlStore
from .postgres import PostgresStore
from .sqlite import SqliteStore

SHAPES = ((1, 2000), (100, 50), (1000, 10))


async def _run(store: SqlStore, rooms: int, per_room: int) -> str:
    table = Table.new(Rules.from_options({"preset": "classic"}), ["A", "B", "C", "D"], seed=1)
    header = table.record.to_dict()
    header.pop("actions")
    for r in range(rooms):
        await store.create_room(f"B{r}", {}, header)
    waits: list[float] = []

    async def feed(code: str) -> None:
        for i in range(per_room):
            t0 = time.perf_counter()
            await store.append_action(code, i, {"t": i * 100, "flip": "A"})
            waits.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    await asyncio.gather(*(feed(f"B{r}") for r in range(rooms)))
    elapsed = time.perf_counter() - t0
    waits.sort()
    n = len(waits)
    return (
        f"{rooms:5d} rooms x {per_room:4d} appends: {n / elapsed:8.0f} appends/s,"
        f" wait p50 {waits[n // 2] * 1000:6.2f} ms, p99 {waits[int(n * 0.99)] * 1000:6.2f} ms"
    )


async def _main(pg_url: str | None) -> None:
    print("sqlite (WAL, synchronous=NORMAL)")
    for rooms, per_room in SHAPES:
        with tempfile.TemporaryDirectory() as tmp:
            store = await SqliteStore.open(Path(tmp) / "bench.sqlite3")
            try:
                print(" ", await _run(store, rooms, per_room))
            finally:
                await store.close()
    if pg_url is None:
        return
    import asyncpg  # type: ignore[import-untyped]

    print("postgresql")
    for rooms, per_room in SHAPES:
        schema = f"slapjack_bench_{uuid.uuid4().hex[:8]}"
        admin = await asyncpg.connect(pg_url)
        try:
            await admin.execute(f'CREATE SCHEMA "{schema}"')
            sep = "&" if "?" in pg_url else "?"
            pg = await PostgresStore.open(f"{pg_url}{sep}search_path={schema}")
            try:
                print(" ", await _run(pg, rooms, per_room))
            finally:
                await pg.close()
        finally:
            await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            await admin.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", metavar="URL", help="also measure this PostgreSQL database")
    args = parser.parse_args()
    asyncio.run(_main(args.pg))


if __name__ == "__main__":
    main()
