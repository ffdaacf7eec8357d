"""The SQLite adapter's group commit: on the event loop (WAL, synchronous NORMAL or
OFF) or in one trip to its thread, multi-row statements."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import slapjack.store.sqlite as sq
from slapjack.store import (
    ActionConflict,
    ActionGap,
    SqliteStore,
    StaleOwner,
    StoreUnavailable,
    UnknownRoom,
)
from slapjack.store._sqlite_raw import ROWS_PER_STATEMENT, Known

from .conftest import header_of, play
from .test_rooms import SETTINGS, actions_of


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> Any:
    store = await SqliteStore.open(tmp_path / "batch.sqlite3")
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def thread_store(tmp_path: Path) -> Any:
    """Group commits in the database thread (as with synchronous=FULL)."""
    store = await SqliteStore.open(tmp_path / "thread.sqlite3", loop_commits=False)
    try:
        yield store
    finally:
        await store.close()


def count_trips(store: SqliteStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls into the store's database thread (``trips[0]``)."""
    trips = [0]
    real = store._db._execute

    async def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips[0] += 1
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(store._db, "_execute", counting)
    return trips


async def test_a_group_commit_is_one_trip_to_the_sqlite_thread(
    thread_store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = thread_store
    assert store._loop_conn is None
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
    # The rooms are known now: the fast path, in a transaction of two inserts.
    seen = statements_on_loop(store)
    await asyncio.gather(*(store.append_action(code, 1, acts[1]) for code in codes))
    assert store._loop_conn is not None
    store._loop_conn.set_trace_callback(None)
    assert not [s for s in seen if "FROM rooms" in s]
    assert [s.split(" (")[0] for s in seen] == [
        "BEGIN IMMEDIATE",
        "SELECT changes FROM room_guard WHERE id = 1",
        "INSERT INTO room_actions",
        "INSERT INTO room_actions",
        "COMMIT",
    ], seen
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
    thread_store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = thread_store
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
            "INSERT INTO rooms (code, settings, header, created_ms,"
            " game_started_ms) VALUES ('AWAY', '{}', '{}', 0, 0)"
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


async def test_group_commits_run_on_the_event_loop_without_a_trip_to_the_thread(
    sqlite_store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = sqlite_store
    assert store._loop_conn is not None  # WAL, synchronous=NORMAL: the default
    table, _ = play(3)
    acts = actions_of(table)[:6]
    codes = [f"E{i}" for i in range(20)]
    for code in codes:
        await store.create_room(code, SETTINGS, header_of(table))
    trips = count_trips(store, monkeypatch)
    batches_before, on_loop_before = store.batches_written, store.loop_batches
    store.batch_timings.clear()

    async def feed(code: str) -> None:
        for i, action in enumerate(acts):
            await store.append_action(code, i, action)

    await asyncio.gather(*(feed(code) for code in codes))
    await store._drain()
    monkeypatch.undo()
    batches = store.batches_written - batches_before
    assert trips[0] == 0, "no group commit went to the thread"
    assert store.loop_batches - on_loop_before == batches
    assert batches < len(codes) * len(acts) / 4, "rooms appending at once share commits"
    assert all(to == 0.0 and back == 0.0 for _, to, _, back in store.batch_timings)
    assert store.batch_summary()["on_loop"] == store.loop_batches
    for code in codes:
        assert list((await store.load_room(code)).actions) == acts
    # The thread's connection sees the loop's commits, and the loop's its writes.
    await store.reset_room("E0", header_of(table))
    await store.append_action("E0", 0, acts[0])
    assert list((await store.load_room("E0")).actions) == acts[:1]


async def test_a_file_locked_by_another_connection_sends_the_batch_to_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "locked.sqlite3"
    store = await SqliteStore.open(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        table, _ = play(4)
        acts = actions_of(table)[:2]
        await store.create_room("LK", SETTINGS, header_of(table))
        await store.append_action("LK", 0, acts[0])
        trips = count_trips(store, monkeypatch)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the file
        append = asyncio.create_task(store.append_action("LK", 1, acts[1]))
        ticks = 0
        for _ in range(20):  # the loop goes on: nothing waits for the lock on it
            await asyncio.sleep(0.01)
            ticks += 1
        assert not append.done() and ticks == 20
        assert store.loop_busy >= 1 and trips[0] == 1  # tried on the loop, then the thread
        other.execute("COMMIT")
        await asyncio.wait_for(append, 5)
        assert list((await store.load_room("LK")).actions) == acts  # stored once
        monkeypatch.undo()
        on_loop = store.loop_batches
        await store.append_action("LK", 2, acts[0])  # back on the loop
        assert store.loop_batches == on_loop + 1
    finally:
        other.close()
        await store.close()


async def test_a_commit_that_may_sync_the_wal_goes_to_the_thread(
    sqlite_store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new WAL, a running checkpoint and a complete one send the next batch to
    the thread (its first frame restarts the WAL and syncs the header)."""
    store = sqlite_store
    table, _ = play(5)
    acts = actions_of(table)
    await store.create_room("CK", SETTINGS, header_of(table))  # a write in the thread
    assert not store._restart_due
    trips = count_trips(store, monkeypatch)
    for i in range(5):
        await store.append_action("CK", i, acts[i])
    assert trips[0] == 0
    # A checkpoint that copies every frame: the next commit restarts the WAL.
    store._start_checkpoint()
    assert store._checkpointing
    assert store._checkpoint is not None
    await store._checkpoint
    assert not store._checkpointing and store._restart_due
    await store.append_action("CK", 5, acts[5])
    await store._drain()  # its caller is answered a moment before the writer moves on
    assert trips[0] == 1, "the batch after it (the checkpoint has a connection of its own)"
    assert not store._restart_due
    await store.append_action("CK", 6, acts[6])
    assert trips[0] == 1, "and the next batch is on the loop again"
    # While a checkpoint runs, batches go to the thread.
    store._start_checkpoint()
    await store.append_action("CK", 7, acts[7])
    assert store._checkpoint is not None
    await store._checkpoint
    assert trips[0] == 2
    monkeypatch.undo()
    assert list((await store.load_room("CK")).actions) == acts[:8]


async def test_only_a_file_whose_commits_do_not_sync_commits_on_the_loop(tmp_path: Path) -> None:
    cases = [
        ({"synchronous": "NORMAL"}, "a.sqlite3", True),
        ({"synchronous": "OFF"}, "b.sqlite3", True),
        ({"synchronous": "FULL"}, "c.sqlite3", False),  # every commit fsyncs
        ({"synchronous": "EXTRA"}, "d.sqlite3", False),
        ({"loop_commits": False}, "e.sqlite3", False),
    ]
    table, _ = play(6)
    for kw, name, on_loop in cases:
        store = await SqliteStore.open(tmp_path / name, **kw)
        try:
            assert (store._loop_conn is not None) is on_loop, kw
            await store.create_room("S", SETTINGS, header_of(table))
            await store.append_action("S", 0, actions_of(table)[0])
            assert store.loop_batches == (1 if on_loop else 0), kw
            if on_loop:
                assert store._loop_conn is not None
                (sync,) = store._loop_conn.execute("PRAGMA synchronous").fetchone()
                assert sync == await store.pragma("synchronous"), "the writer's setting"
        finally:
            await store.close()
        assert store._loop_conn is None
    memory = await SqliteStore.open(":memory:")  # a second connection would be another database
    try:
        assert memory._loop_conn is None
    finally:
        await memory.close()


async def test_loop_commits_need_no_writer_task_and_close_writes_what_is_queued(
    tmp_path: Path,
) -> None:
    path = tmp_path / "flush.sqlite3"
    store = await SqliteStore.open(path)
    table, _ = play(7)
    acts = actions_of(table)[:3]
    await store.create_room("FL", SETTINGS, header_of(table))
    await asyncio.gather(*(store.append_action("FL", i, a) for i, a in enumerate(acts[:2])))
    assert store._writer is None, "a callback at the loop's next turn wrote them"
    assert store.loop_batches == 1 and store.appends_written == 2
    # Queued, its callback not run yet: close() still writes it.
    last = asyncio.create_task(store.append_action("FL", 2, acts[2]))
    await asyncio.sleep(0)
    assert store._pending and store._flush_due
    await store.close()
    await last
    reopened = await SqliteStore.open(path)
    try:
        assert list((await reopened.load_room("FL")).actions) == acts
    finally:
        await reopened.close()


async def grow_wal(path: Path, monkeypatch: pytest.MonkeyPatch, limit: int) -> tuple[int, int]:
    """20 rooms appending 120 actions each at once, a checkpoint every 5
    commits: the WAL's biggest size, and how often it was reset at ``limit``;
    every append is there afterwards."""
    monkeypatch.setattr(sq, "CHECKPOINT_EVERY", 5)
    monkeypatch.setattr(sq, "WAL_LIMIT_BYTES", limit)
    store = await SqliteStore.open(path)
    table, _ = play(8)
    acts = actions_of(table)
    rooms = [f"G{i}" for i in range(20)]
    # Unpaced (as many commits as the loop could make, 40 each), a checkpoint
    # slower than that flood (a loaded machine) let the capped WAL grow about
    # as far as the free one: a flaky test.
    n = 120
    biggest = 0
    try:
        for code in rooms:
            await store.create_room(code, SETTINGS, header_of(table))

        async def room(code: str) -> None:
            nonlocal biggest
            for i in range(n):
                action = acts[i % len(acts)] | {"n": i, "pad": "x" * 400}
                await store.append_action(code, i, action)
                biggest = max(biggest, store._wal_size())
                await asyncio.sleep(0.002)  # a steady load, not a flood: see below

        await asyncio.gather(*(room(code) for code in rooms))
        if store._checkpoint is not None:
            await store._checkpoint
        truncations = store.wal_truncations
    finally:
        await store.close()
    reopened = await SqliteStore.open(path)
    try:
        for code in rooms:
            loaded = (await reopened.load_room(code)).actions
            assert [a["n"] for a in loaded] == list(range(n))
    finally:
        await reopened.close()
    return biggest, truncations


@pytest.mark.parametrize("mode", sq.WAL_RESETS)
async def test_a_wal_grown_past_its_limit_is_reset_under_a_steady_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Commits that never stop keep the checkpoints beside the writer from
    resetting the WAL; past WAL_LIMIT_BYTES a checkpoint under the store's lock
    resets it, again and again (without a limit none runs)."""
    monkeypatch.setattr(sq, "WAL_RESET", mode)
    unbounded, none = await grow_wal(tmp_path / "free.sqlite3", monkeypatch, 1 << 40)
    bounded, truncations = await grow_wal(tmp_path / "capped.sqlite3", monkeypatch, 64 * 1024)
    assert none == 0 and truncations >= 3, (none, truncations)
    # The capped WAL peaked at 1.4-3.3 MB (a checkpoint's growth past 64 KB on a
    # loaded machine); the free one at 2-13 MB: it restarts by itself whenever a
    # PASSIVE checkpoint happens to find no commit behind it, so the two maxima
    # are not compared (that was flaky), and 20 x 120 appends would make 13 MB.
    assert bounded < 6 * 1024 * 1024, (bounded, unbounded)


# ------------------------------------------------ commits that know their rooms


def statements_on_loop(store: SqliteStore) -> list[str]:
    """Every statement the loop's connection runs from now on."""
    seen: list[str] = []
    assert store._loop_conn is not None
    store._loop_conn.set_trace_callback(seen.append)
    return seen


async def test_a_commit_of_rooms_it_knows_reads_no_room_row(sqlite_store: SqliteStore) -> None:
    store = sqlite_store
    table, _ = play(6)
    acts = actions_of(table)[:4]
    for code in ("KA", "KB"):
        await store.create_room(code, SETTINGS, header_of(table))
    seen = statements_on_loop(store)
    await asyncio.gather(
        store.append_action("KA", 0, acts[0]), store.append_action("KB", 0, acts[0])
    )
    assert sum("FROM rooms" in s for s in seen) == 1, "the first commit reads both rows"
    seen.clear()
    await store.append_action("KA", 1, acts[1])  # one room
    await asyncio.gather(
        store.append_action("KA", 2, acts[2]), store.append_action("KB", 1, acts[1])
    )
    assert store._loop_conn is not None
    store._loop_conn.set_trace_callback(None)
    assert not [s for s in seen if "FROM rooms" in s], seen
    assert sum(s.startswith("INSERT INTO room_actions") for s in seen) == 2
    assert sum("FROM room_guard" in s for s in seen) == 2, "each commit checks the guard"
    assert not [s for s in seen if s.startswith("UPDATE")], "an append writes its actions only"
    assert len(seen) == 2, "each commit of known rooms is one statement (its own transaction)"
    assert list((await store.load_room("KA")).actions) == acts[:3]
    assert list((await store.load_room("KB")).actions) == acts[:2]
    assert store._known.rows["KA"][0] == 3 and store._known.rows["KB"][0] == 2
    await store.close_room("KB")
    assert "KB" not in store._known.rows


async def test_a_row_another_connection_moved_is_read_again(tmp_path: Path) -> None:
    """Another writer appended to a room the store knows: the store's guess
    fails in its own transaction (the insert collides, or the row's index is
    not the one planned on) and the batch is judged on the row as read."""
    path = tmp_path / "moved.sqlite3"
    store = await SqliteStore.open(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        table, _ = play(7)
        acts = actions_of(table)[:5]
        for code in ("MA", "MB"):
            await store.create_room(code, SETTINGS, header_of(table))
            await store.append_action(code, 0, acts[0])
        assert store._known.rows["MA"][0] == 1
        # The other writer appends action 1 of MA (an append moves no guard).
        other.execute(
            "INSERT INTO room_actions (code, idx, action) VALUES ('MA', 1, ?)",
            (json.dumps(acts[1]),),
        )
        with pytest.raises(ActionConflict):
            await store.append_action("MA", 1, acts[2])
        await store.append_action("MA", 1, acts[1])  # the same action: stored already
        # A batch of two rooms, one of them reset by another process's store
        # (which moves the guard): each append judged on its row.
        assert store._known.rows["MB"][0] == 1
        second = await SqliteStore.open(path)
        await second.reset_room("MB", header_of(table))
        await second.close()
        results = await asyncio.gather(
            store.append_action("MA", 2, acts[2]),
            store.append_action("MB", 1, acts[1]),
            return_exceptions=True,
        )
        assert results[0] is None
        assert isinstance(results[1], ActionGap)  # MB's row says 0 now, not 1
        assert list((await store.load_room("MA")).actions) == acts[:3]
        assert list((await store.load_room("MB")).actions) == []
        assert store._known.rows["MA"][0] == 3 and store._known.rows["MB"][0] == 0
    finally:
        other.close()
        await store.close()


async def test_a_claim_or_a_new_room_of_the_same_code_is_seen_by_a_commit_that_knew_the_room(
    tmp_path: Path,
) -> None:
    path = tmp_path / "claimed.sqlite3"
    store = await SqliteStore.open(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        table, _ = play(8)
        acts = actions_of(table)[:3]
        await store.create_room("CL", SETTINGS, header_of(table))
        old = await store.claim_room("CL", "node-a")
        await store.append_action("CL", 0, acts[0], epoch=old)
        await store.create_room("KEEP", SETTINGS, header_of(table))
        await store.append_action("KEEP", 0, acts[0])
        assert store._known.rows["CL"][1] == old and "KEEP" in store._known.rows
        new = await store.claim_room("CL", "node-b", expected_epoch=old)
        # Its own claim: the store forgets that room and knows the others still.
        assert "CL" not in store._known.rows and "KEEP" in store._known.rows
        with pytest.raises(StaleOwner):
            await store.append_action("CL", 1, acts[1], epoch=old)
        await store.append_action("CL", 1, acts[1], epoch=new)
        assert list((await store.load_room("CL")).actions) == acts[:2]
        # The room is deleted by another connection (moving no guard) and made
        # again, empty, by the store: making a room forgets what it knew of it.
        assert store._known.rows["CL"][0] == 2
        other.execute("DELETE FROM room_actions WHERE code = 'CL'")
        other.execute("DELETE FROM room_seats WHERE code = 'CL'")
        other.execute("DELETE FROM rooms WHERE code = 'CL'")
        await store.create_room("CL", SETTINGS, header_of(table))
        assert "CL" not in store._known.rows
        with pytest.raises(ActionGap):
            await store.append_action("CL", 2, acts[2])
        await store.append_action("CL", 0, acts[0])
        assert list((await store.load_room("CL")).actions) == acts[:1]
        # Closed by another connection and not made again: no such room.
        other.execute("DELETE FROM room_actions WHERE code = 'CL'")
        other.execute("DELETE FROM rooms WHERE code = 'CL'")
        with pytest.raises(UnknownRoom):
            await store.append_action("CL", 1, acts[1])
    finally:
        other.close()
        await store.close()


def test_what_a_store_knows_of_its_rooms_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    known = Known()
    monkeypatch.setattr(Known, "MOST", 3)
    known.learn({"A": (1, 0, None), "B": (1, 0, None)}, 7)
    known.learn({"C": (1, 0, None)}, 7)
    assert len(known.rows) == 3
    known.learn({"D": (4, 2, "n")}, 7)
    assert known.rows == {"D": (4, 2, "n")}
    known.forget("D")
    known.forget("D")
    assert known.rows == {}


def test_what_a_store_knows_holds_while_the_guard_has_not_moved_behind_it() -> None:
    known = Known()
    known.learn({"A": (1, 0, None), "B": (2, 0, None)}, 7)
    known.moved("A", 8)  # its own change, committed: B still holds
    assert known.rows == {"B": (2, 0, None)} and known.guard == 8
    known.moved("B", 10)  # somebody else moved it too (9): nothing holds
    assert known.rows == {} and known.guard is None
    known.learn({"C": (0, 0, None)}, 10)
    known.learn({"D": (0, 0, None)}, 12)  # read after another change: C is dropped
    assert known.rows == {"D": (0, 0, None)} and known.guard == 12


async def test_a_change_that_failed_forgets_every_room(sqlite_store: SqliteStore) -> None:
    """A write that moved the guard and then failed (rolled back) leaves the
    store not knowing where the guard is: it reads every room again."""
    store = sqlite_store
    table, _ = play(9)
    acts = actions_of(table)[:3]
    await store.create_room("FA", SETTINGS, header_of(table))
    await store.append_action("FA", 0, acts[0])
    assert "FA" in store._known.rows
    with pytest.raises(UnknownRoom):
        await store.close_room("NOPE")
    assert store._known.rows == {} and store._known.guard is None
    seen = statements_on_loop(store)
    await store.append_action("FA", 1, acts[1])
    await store.append_action("FA", 2, acts[2])
    assert sum("FROM rooms" in s for s in seen) == 1, "read once, then known again"
    assert list((await store.load_room("FA")).actions) == acts


async def test_a_claim_by_another_process_is_seen_by_the_next_commit(tmp_path: Path) -> None:
    """Another process's store claims a room this store knows: the moved guard
    makes this store's next commit read its rooms, and the old owner's
    appends are refused."""
    path = tmp_path / "two.sqlite3"
    mine = await SqliteStore.open(path)
    theirs = await SqliteStore.open(path)
    try:
        table, _ = play(10)
        acts = actions_of(table)[:3]
        epoch = await mine.create_room("TW", SETTINGS, header_of(table), owner="node-a")
        await mine.append_action("TW", 0, acts[0], epoch=epoch)
        assert mine._known.rows["TW"] == (1, epoch, "node-a")
        taken = await theirs.claim_room("TW", "node-b", expected_epoch=epoch)
        with pytest.raises(StaleOwner):
            await mine.append_action("TW", 1, acts[1], epoch=epoch)
        await theirs.append_action("TW", 1, acts[1], epoch=taken)
        await mine.append_action("TW", 2, acts[2], epoch=taken)
        assert list((await theirs.load_room("TW")).actions) == acts
    finally:
        await mine.close()
        await theirs.close()


async def test_the_writing_connections_keep_statement_journals_in_memory(
    sqlite_store: SqliteStore, thread_store: SqliteStore
) -> None:
    """A multi-row statement inside a transaction may need a statement journal:
    with SQLite's default ``temp_store`` that is a file made in ``/var/tmp`` and
    unlinked again, on the event loop's thread (several a second under load,
    seen with strace); both writing connections keep it in memory (2)."""
    for store in (sqlite_store, thread_store):
        assert await store.pragma("temp_store") == 2
    loop_conn = sqlite_store._loop_conn
    assert loop_conn is not None
    assert loop_conn.execute("PRAGMA temp_store").fetchone()[0] == 2
