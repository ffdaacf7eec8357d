"""The SQLite adapter's WAL resets (``PRAGMA wal_checkpoint(TRUNCATE)`` past
``WAL_LIMIT_BYTES``): counted, timed, and summed up for ``/api/metrics``."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

import slapjack.store.sqlite as sq
from slapjack.store import SqliteStore

from .conftest import header_of, play
from .test_rooms import SETTINGS, actions_of


async def fill(store: SqliteStore, rooms: int = 10, n: int = 30) -> None:
    """``rooms`` rooms appending ``n`` padded actions each, all at once."""
    table, _ = play(8)
    acts = actions_of(table)
    codes = [f"W{i}" for i in range(rooms)]
    for code in codes:
        await store.create_room(code, SETTINGS, header_of(table))

    async def room(code: str) -> None:
        for i in range(n):
            await store.append_action(code, i, acts[i % len(acts)] | {"n": i, "pad": "x" * 400})

    await asyncio.gather(*(room(code) for code in codes))


def log_frames(path: Path) -> int:
    """The WAL's frames since it last restarted (a PASSIVE checkpoint's count)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        return int(conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
    finally:
        conn.close()


@pytest.mark.parametrize("mode", sq.WAL_RESETS)
async def test_a_reset_is_counted_timed_and_restarts_the_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """RESTART: the next commit writes the WAL from its start (its frames
    count from 0 again, the file does not grow); TRUNCATE: the file is cut."""
    monkeypatch.setattr(sq, "CHECKPOINT_EVERY", 10**9)  # no checkpoint but ours
    monkeypatch.setattr(sq, "WAL_RESET", mode)
    path = tmp_path / "wal.sqlite3"
    store = await SqliteStore.open(path)
    try:
        fresh = store.wal_summary(recent=True)
        assert fresh["truncations"] == 0 and fresh["busy"] == 0 and fresh["mode"] == mode
        assert fresh["last_ms"] is None and fresh["max_ms"] is None and fresh["recent"] == []
        assert fresh["log_bytes"] is None
        await fill(store)
        before = store._wal_size()
        assert before > 200_000 and log_frames(path) > 100
        assert store.wal_summary()["wal_bytes"] == before
        t0 = time.monotonic()
        await store._reset_wal()
        t1 = time.monotonic()
        got = store.wal_summary(recent=True)
        assert got["truncations"] == 1 and got["busy"] == 0
        assert got["limit_bytes"] == sq.WAL_LIMIT_BYTES
        assert 0 <= got["last_ms"] == got["max_ms"] <= (t1 - t0) * 1000 + 1
        ((at, ms),) = got["recent"]
        assert t0 - 0.001 <= at <= t1 and ms == got["last_ms"]
        if mode == "TRUNCATE":
            assert store._wal_size() == got["wal_bytes"] == 0
        await fill_more(store, 30)  # the reset really happened: the WAL starts over
        assert log_frames(path) <= 40
        if mode == "RESTART":
            assert store._wal_size() == before
        else:
            assert store._wal_size() < 200_000 < before
    finally:
        await store.close()


@pytest.mark.parametrize("mode", sq.WAL_RESETS)
async def test_resets_past_a_small_limit_under_load_keep_last_and_longest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The store's own path (a checkpoint every few commits, the reset past
    the limit): every reset is logged, the longest is the log's maximum, the
    last its last entry, and every append is still there."""
    monkeypatch.setattr(sq, "CHECKPOINT_EVERY", 5)
    monkeypatch.setattr(sq, "WAL_LIMIT_BYTES", 64 * 1024)
    monkeypatch.setattr(sq, "WAL_RESET", mode)
    path = tmp_path / "load.sqlite3"
    store = await SqliteStore.open(path)
    try:
        await fill(store, rooms=20, n=40)
        if store._checkpoint is not None:
            await store._checkpoint
        got = store.wal_summary(recent=True)
    finally:
        await store.close()
    assert got["truncations"] >= 1, got
    assert got["log_bytes"] is not None and got["log_bytes"] >= 0
    durations = [ms for _, ms in store.wal_truncation_log]
    assert len(durations) == got["truncations"] + got["busy"]
    assert all(ms >= 0 for ms in durations)
    assert got["max_ms"] >= got["last_ms"] >= 0
    assert got["max_ms"] == round(max(durations), 3)
    assert got["last_ms"] == round(durations[-1], 3)
    starts = [at for at, _ in store.wal_truncation_log]
    assert starts == sorted(starts)
    reopened = await SqliteStore.open(path)
    try:
        assert [a["n"] for a in (await reopened.load_room("W7")).actions] == list(range(40))
    finally:
        await reopened.close()


async def test_a_reset_refused_by_a_reader_is_counted_busy_and_timed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another connection reading the WAL: SQLite gives up after the busy
    timeout, the WAL stays, the attempt's time under the lock is still logged."""
    monkeypatch.setattr(sq, "CHECKPOINT_EVERY", 10**9)
    monkeypatch.setattr(sq, "BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "busy.sqlite3"
    store = await SqliteStore.open(path)
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        await fill(store, rooms=4, n=10)
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM room_actions").fetchone()
        await fill_more(store, 10)
        size = store._wal_size()
        await store._reset_wal()
        got = store.wal_summary()
        assert got["truncations"] == 0 and got["busy"] == 1
        assert store._wal_size() >= size > 0
        assert got["last_ms"] is not None and got["last_ms"] >= 40  # it waited for the reader
        assert got["max_ms"] == got["last_ms"]
    finally:
        reader.close()
        await store.close()


async def fill_more(store: SqliteStore, start: int) -> None:
    """Ten more appends to room W0, from index ``start``, one commit each."""
    table, _ = play(8)
    acts = actions_of(table)
    for i in range(start, start + 10):
        await store.append_action("W0", i, acts[i % len(acts)] | {"n": i})


async def test_an_in_memory_store_has_no_wal_file() -> None:
    store = await SqliteStore.open(":memory:")
    try:
        got = store.wal_summary()
        assert got["wal_bytes"] is None and got["truncations"] == 0 and got["last_ms"] is None
    finally:
        await store.close()
