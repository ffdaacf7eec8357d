"""The SQLite adapter's group commit: one trip to its thread, multi-row statements."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from slapjack.store import SqliteStore, StoreUnavailable
from slapjack.store.sqlite import ROWS_PER_STATEMENT

from .conftest import header_of, play
from .test_rooms import SETTINGS, actions_of


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> Any:
    store = await SqliteStore.open(tmp_path / "batch.sqlite3")
    try:
        yield store
    finally:
        await store.close()


async def test_a_group_commit_is_one_trip_to_the_sqlite_thread(
    sqlite_store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = sqlite_store
    table, _ = play(3)
    acts = actions_of(table)[:6]
    codes = [f"H{i}" for i in range(20)]
    for code in codes:
        await store.create_room(code, SETTINGS, header_of(table))
    trips = 0
    real = store._db._execute

    async def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal trips
        trips += 1
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(store._db, "_execute", counting)
    batches_before = store.batches_written
    store.batch_timings.clear()

    async def feed(code: str) -> None:
        for i, action in enumerate(acts):
            await store.append_action(code, i, action)

    await asyncio.gather(*(feed(code) for code in codes))
    monkeypatch.undo()
    batches = store.batches_written - batches_before
    assert trips == batches, "each batch is exactly one call into the thread"
    assert batches < len(codes) * len(acts) / 4, "rooms appending at once share commits"
    assert sum(size for size, *_ in store.batch_timings) == len(codes) * len(acts)
    assert all(ms >= 0.0 for _, *times in store.batch_timings for ms in times)
    summary = store.batch_summary()
    assert summary["n"] == batches and summary["size"]["max"] >= len(codes) / 2
    for code in codes:
        assert list((await store.load_room(code)).actions) == acts


async def test_a_batch_larger_than_one_statement_is_written_whole(
    sqlite_store: SqliteStore,
) -> None:
    store = sqlite_store
    table, _ = play(4)
    acts = actions_of(table)[:2]
    rooms = ROWS_PER_STATEMENT + 60  # more inserts and more updates than one statement takes
    codes = [f"L{i:04d}" for i in range(rooms)]
    for code in codes:
        await store.create_room(code, SETTINGS, header_of(table))
    before = store.batches_written
    await asyncio.gather(*(store.append_action(code, 0, acts[0]) for code in codes))
    assert store.batches_written - before == 1
    # Every room's next index moved: index 1 is next (0 again is a repeat, 2 a gap).
    await asyncio.gather(*(store.append_action(code, 1, acts[1]) for code in codes))
    await store.append_action(codes[-1], 0, acts[0])
    for code in codes:
        assert list((await store.load_room(code)).actions) == acts


async def test_a_statement_failing_mid_batch_rolls_the_whole_batch_back(
    sqlite_store: SqliteStore,
) -> None:
    store = sqlite_store
    table, _ = play(5)
    acts = actions_of(table)[:4]
    for code in ("OK1", "OK2", "BAD"):
        await store.create_room(code, SETTINGS, header_of(table))
    async with store._tx() as conn:
        await conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON room_actions WHEN NEW.code = 'BAD'"
            " BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    results = await asyncio.gather(
        *(store.append_action(code, 0, acts[0]) for code in ("OK1", "BAD", "OK2")),
        return_exceptions=True,
    )
    assert all(isinstance(r, StoreUnavailable) for r in results)
    for code in ("OK1", "OK2", "BAD"):
        assert list((await store.load_room(code)).actions) == []
    async with store._tx() as conn:
        await conn.execute("DROP TRIGGER refuse")
    # No transaction was left open: the same appends now go through.
    await asyncio.gather(*(store.append_action(code, 0, acts[0]) for code in ("OK1", "BAD")))
    assert list((await store.load_room("BAD")).actions) == acts[:1]
