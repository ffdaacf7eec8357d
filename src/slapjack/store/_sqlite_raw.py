"""The SQLite adapter's work on a raw ``sqlite3`` connection: code that runs
in aiosqlite's database thread (a whole transaction driven there without a
round trip per statement) or on the event loop (group commits of appends on a
connection of their own, see :meth:`SqliteStore._write_batch
<slapjack.store.sqlite.SqliteStore._write_batch>`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from typing import Any, Final

import aiosqlite

from ._sql import SELECT_ACTION_SQL, BatchPlan, Conn, Row, T, _Pending
from .errors import StoreError


class _ThreadConn:
    """The :class:`Conn` calls straight on the ``sqlite3`` connection, for code
    already in aiosqlite's thread: its coroutines finish without suspending."""

    __slots__ = ("_raw",)

    def __init__(self, raw: sqlite3.Connection) -> None:
        self._raw = raw

    async def execute(self, sql: str, *args: Any) -> int:
        return max(self._raw.execute(sql, args).rowcount, 0)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._raw.executemany(sql, rows)

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        return list(self._raw.execute(sql, args).fetchall())

    async def fetchone(self, sql: str, *args: Any) -> Row | None:
        row: Row | None = self._raw.execute(sql, args).fetchone()
        return row


def _run_in_thread(
    db: aiosqlite.Connection, body: Callable[[Conn], Awaitable[T]], write: bool
) -> T:
    """``SqliteStore._run`` in the SQLite thread: BEGIN, drive ``body`` to its
    end (it must not suspend), COMMIT; ROLLBACK on any error."""
    raw: sqlite3.Connection = db._conn
    raw.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        coro = body(_ThreadConn(raw))
        try:
            coro.send(None)  # type: ignore[attr-defined]
        except StopIteration as done:
            result: T = done.value
        else:
            coro.close()  # type: ignore[attr-defined]
            raise RuntimeError("a store transaction awaited something besides its connection")
        raw.execute("COMMIT")
    except BaseException:
        with suppress(sqlite3.Error):
            raw.execute("ROLLBACK")
        raise
    return result


SELECT_ROOM_SQL: Final = "SELECT next_index, epoch, owner FROM rooms WHERE code = ?"
UPDATE_ONE_SQL: Final = "UPDATE rooms SET next_index = ? WHERE code = ?"
"""A batch of one room: plain statements, not the JSON object and the join
of VALUES that several rooms need (about 20 µs less a commit of one)."""

ROWS_PER_STATEMENT: Final = 300
"""Rows per multi-row INSERT/UPDATE (3 parameters each, far below SQLite's
limit of 32,766 parameters)."""


def _write_batch_on(
    conn: sqlite3.Connection, batch: list[_Pending]
) -> tuple[list[StoreError | None], bool]:
    """``SqliteStore._write_batch``'s transaction, on the event loop or in the
    SQLite thread: the outcomes, and whether it inserted anything.

    Few statements, each one step: the sqlite3 module lets go of the GIL for
    every step (every row fetched or inserted) and may wait up to the switch
    interval to get it back from a busy event loop (in the thread). So the
    rooms' indices come back as one JSON object, and the inserts and updates
    are multi-row statements."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        codes = sorted({p.code for p in batch})
        if len(codes) == 1:  # a commit of one room's appends (most below ~6,000 players)
            row = conn.execute(SELECT_ROOM_SQL, codes).fetchone()
            rooms = {} if row is None else {codes[0]: row}
        else:
            marks = ", ".join("?" * len(codes))
            (found,) = conn.execute(
                "SELECT json_group_object(code, json_array(next_index, epoch, owner))"
                f" FROM rooms WHERE code IN ({marks})",
                codes,
            ).fetchone()
            rooms = json.loads(found)
        plan = BatchPlan(
            batch,
            {str(c): int(v[0]) for c, v in rooms.items()},
            {str(c): (int(v[1]), v[2]) for c, v in rooms.items()},
        )
        for i in plan.to_check:
            p = batch[i]
            plan.check_stored(i, conn.execute(SELECT_ACTION_SQL, (p.code, p.index)).fetchone())
        inserts = plan.insert_rows()
        for k in range(0, len(inserts), ROWS_PER_STATEMENT):
            chunk = inserts[k : k + ROWS_PER_STATEMENT]
            conn.execute(
                "INSERT INTO room_actions (code, idx, action) VALUES "
                + ", ".join(["(?, ?, ?)"] * len(chunk)),
                [value for row in chunk for value in row],
            )
        updates = plan.update_rows()
        if len(updates) == 1:
            conn.execute(UPDATE_ONE_SQL, updates[0])
            updates = []
        for k in range(0, len(updates), ROWS_PER_STATEMENT):
            pairs = updates[k : k + ROWS_PER_STATEMENT]
            conn.execute(
                "UPDATE rooms SET next_index = v.column2 FROM (VALUES "
                + ", ".join(["(?, ?)"] * len(pairs))
                + ") AS v WHERE rooms.code = v.column1",
                [value for n, c in pairs for value in (c, n)],
            )
        conn.execute("COMMIT")
    except BaseException:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    return plan.outcomes, bool(inserts)


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Did SQLite refuse because another connection holds the file locked?"""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(exc)  # pragma: no cover - Python before 3.11


def _open_loop_conn(path: str, sync: str) -> sqlite3.Connection:
    """The appends' connection for the event loop (opened in the SQLite thread):
    the writer's settings, and a busy timeout of 0 (never wait on the loop)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=0)
    try:
        conn.execute(f"PRAGMA synchronous = {sync}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"journal mode {mode}, not wal")
    except BaseException:
        conn.close()
        raise
    return conn
