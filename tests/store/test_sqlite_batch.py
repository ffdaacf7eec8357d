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
    await store._drain()  # callers are answered a moment before the counters move
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
    await store._drain()  # callers are answered a moment before the counters move
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


async def test_each_store_call_is_one_trip_to_the_sqlite_thread(
    sqlite_store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = sqlite_store
    table, _ = play(6)
    trips = 0
    real = store._db._execute

    async def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal trips
        trips += 1
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(store._db, "_execute", counting)
    await store.create_room("ONE", SETTINGS, header_of(table))
    await store.set_seat("ONE", 0, "Ada", None)
    await store.append_action("ONE", 0, actions_of(table)[0])
    game_id = await store.finish_game("ONE", table.record.to_dict())
    room = await store.load_room("ONE")
    stats = await store.player_stats(table.record.players[0])
    assert trips == 6
    assert room.seats[0].name == "Ada" and len(room.actions) == 1
    assert (await store.get_summary(game_id)).id == game_id and stats.games == 1


async def test_a_transaction_that_awaits_anything_else_fails_and_rolls_back(
    sqlite_store: SqliteStore,
) -> None:
    store = sqlite_store
    table, _ = play(7)

    async def wanders(conn: Any) -> None:
        await conn.execute(
            "INSERT INTO rooms (code, settings, header, next_index, created_ms,"
            " game_started_ms) VALUES ('AWAY', '{}', '{}', 0, 0, 0)"
        )
        await asyncio.sleep(0)  # not the connection's: cannot run in its thread

    with pytest.raises(StoreUnavailable, match="awaited something besides its connection"):
        await store._run(wanders, write=True)
    assert "AWAY" not in await store.live_rooms()
    await store.create_room("AFTER", SETTINGS, header_of(table))
    assert "AFTER" in await store.live_rooms()


async def test_the_wal_is_checkpointed_beside_the_writer(tmp_path: Path) -> None:
    from slapjack.store.sqlite import CHECKPOINT_EVERY

    path = tmp_path / "wal.sqlite3"
    store = await SqliteStore.open(path)
    table, _ = play(8)
    acts = actions_of(table)
    try:
        assert await store.pragma("wal_autocheckpoint") == 0  # not inside our commits
        await store.create_room("W", SETTINGS, header_of(table))
        # One commit each, until two checkpoints ran beside the writer (on a busy
        # machine a checkpoint can outlast the next CHECKPOINT_EVERY commits:
        # the next one then starts at the first commit after it ended).
        commits = 0
        while commits < 10 * CHECKPOINT_EVERY and (
            commits < 2 * CHECKPOINT_EVERY + 10 or store.checkpoints < 2
        ):
            await store.append_action("W", commits, acts[commits % len(acts)] | {"n": commits})
            commits += 1
        assert store._checkpoint is not None
        await store._checkpoint
        assert store.checkpoints >= 2, (store.checkpoints, commits)
    finally:
        await store.close()
    reopened = await SqliteStore.open(path)
    try:
        assert len((await reopened.load_room("W")).actions) == commits
    finally:
        await reopened.close()
