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
GUARDED_ONE_SQL: Final = (
    "UPDATE rooms SET next_index = ? WHERE code = ? AND next_index = ? AND epoch = ? AND owner IS ?"
)
"""The fast path's update of one room: it moves ``next_index`` only if the
room's row is still what the batch was planned on (see :class:`Known`)."""

TEMP_STORE: Final = "MEMORY"
"""Where the writing connections keep SQLite's temporary files: a statement
journal (the pages a multi-row statement changed, in case it fails halfway)
in memory, not a file made in ``/var/tmp`` and unlinked again on the event
loop's thread (several a second under load). They are small: a statement
writes a few pages."""
ROWS_PER_STATEMENT: Final = 300
"""Rows per multi-row INSERT/UPDATE (3 parameters each, far below SQLite's
limit of 32,766 parameters)."""
GUARDED_PER_STATEMENT: Final = 200
"""Rooms per guarded multi-row UPDATE (5 parameters each)."""

RoomRow = tuple[int, int, str | None]
"""A room's ``next_index``, fencing ``epoch`` and ``owner``."""


class Known:
    """The rooms' rows as this store's own group commits left them
    (``next_index``, ``epoch``, ``owner``): a commit whose rooms are all known
    plans its batch on them and skips reading the rooms (a ``SELECT`` per
    commit, with several rooms a JSON aggregate over them).

    What is known is only a guess, checked in the same transaction: each
    room's ``UPDATE`` of ``next_index`` holds only if the row still has the
    values the plan used (``next_index``, ``epoch`` and ``owner``; the write
    lock of ``BEGIN IMMEDIATE`` keeps anybody from changing them until the
    commit). A row that changed since (another connection or process
    appended, a claim moved the epoch, the room was closed, or closed and
    made again), or an ``INSERT`` that collides with a stored action or finds
    no room, rolls the transaction back and the batch is planned again on the
    rows as read, as without this. A plan that would refuse an append or
    read a stored action takes the read path too: every outcome of the fast
    path is an append stored on a row it checked."""

    __slots__ = ("rows",)

    MOST: Final = 100_000
    """Rooms remembered at most (then forgotten all at once: closed rooms'
    rows would otherwise stay for the life of the process)."""

    def __init__(self) -> None:
        self.rows: dict[str, RoomRow] = {}

    def forget(self, code: str) -> None:
        self.rows.pop(code, None)

    def learn(self, rows: dict[str, RoomRow]) -> None:
        if len(self.rows) + len(rows) > self.MOST:
            self.rows.clear()
        self.rows.update(rows)


class _Stale(Exception):
    """The fast path's guess was wrong: plan the batch on the rows as read."""


def _write_batch_on(
    conn: sqlite3.Connection, batch: list[_Pending], known: Known | None = None
) -> tuple[list[StoreError | None], bool]:
    """``SqliteStore._write_batch``'s transaction, on the event loop or in the
    SQLite thread: the outcomes, and whether it inserted anything.

    Few statements, each one step: the sqlite3 module lets go of the GIL for
    every step (every row fetched or inserted) and may wait up to the switch
    interval to get it back from a busy event loop (in the thread). So the
    rooms' indices come back as one JSON object, and the inserts and updates
    are multi-row statements. With ``known``, a batch whose rooms' rows it
    knows skips reading them (:class:`Known`)."""
    codes = sorted({p.code for p in batch})
    if known is not None:
        fast = _fast_plan(batch, codes, known)
        if fast is not None:
            plan, guess = fast
            conn.execute("BEGIN IMMEDIATE")
            try:
                _write_plan(conn, plan, guess)
                conn.execute("COMMIT")
            except _Stale:
                conn.execute("ROLLBACK")
            except sqlite3.IntegrityError:  # a stored action at that index, or no room
                conn.execute("ROLLBACK")
            except BaseException:
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                for code in codes:
                    known.forget(code)
                raise
            else:
                known.learn({c: (plan.nxt[c], r[1], r[2]) for c, r in guess.items()})
                return plan.outcomes, True
            for code in codes:
                known.forget(code)
    conn.execute("BEGIN IMMEDIATE")
    try:
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
        _insert_actions(conn, inserts)
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
        if known is not None:
            for code in codes:
                known.forget(code)
        raise
    if known is not None:
        for code in codes:
            known.forget(code)
        known.learn(
            {
                str(c): (plan.nxt[str(c)], int(v[1]), v[2])
                for c, v in rooms.items()
                if v[2] is None or isinstance(v[2], str)
            }
        )
    return plan.outcomes, bool(inserts)


def _insert_actions(conn: sqlite3.Connection, rows: list[tuple[str, int, str]]) -> None:
    """The accepted actions, in multi-row ``INSERT``s of :data:`ROWS_PER_STATEMENT`."""
    for k in range(0, len(rows), ROWS_PER_STATEMENT):
        chunk = rows[k : k + ROWS_PER_STATEMENT]
        conn.execute(
            "INSERT INTO room_actions (code, idx, action) VALUES "
            + ", ".join(["(?, ?, ?)"] * len(chunk)),
            [value for row in chunk for value in row],
        )


def _fast_plan(
    batch: list[_Pending], codes: list[str], known: Known
) -> tuple[BatchPlan, dict[str, RoomRow]] | None:
    """The batch planned on the known rows, and those rows, if every room is
    known and every append would be stored (else ``None``: the read path)."""
    rows = known.rows
    guess: dict[str, RoomRow] = {}
    for code in codes:
        row = rows.get(code)
        if row is None:
            return None
        guess[code] = row
    plan = BatchPlan(
        batch, {c: r[0] for c, r in guess.items()}, {c: (r[1], r[2]) for c, r in guess.items()}
    )
    if plan.to_check or len(plan.accepted) != len(batch) or any(plan.outcomes):
        return None
    return plan, guess


def _write_plan(conn: sqlite3.Connection, plan: BatchPlan, guess: dict[str, RoomRow]) -> None:
    """The fast path's statements: the inserts, then each room's guarded
    update (:class:`_Stale` if a row was not as guessed)."""
    _insert_actions(conn, plan.insert_rows())
    codes = list(guess)
    if len(codes) == 1:
        code = codes[0]
        n, epoch, owner = guess[code]
        if conn.execute(GUARDED_ONE_SQL, (plan.nxt[code], code, n, epoch, owner)).rowcount != 1:
            raise _Stale
        return
    for k in range(0, len(codes), GUARDED_PER_STATEMENT):
        some = codes[k : k + GUARDED_PER_STATEMENT]
        values: list[Any] = []
        for code in some:
            n, epoch, owner = guess[code]
            values += (code, plan.nxt[code], n, epoch, owner)
        changed = conn.execute(
            "UPDATE rooms SET next_index = v.column2 FROM (VALUES "
            + ", ".join(["(?, ?, ?, ?, ?)"] * len(some))
            + ") AS v WHERE rooms.code = v.column1 AND rooms.next_index = v.column3"
            " AND rooms.epoch = v.column4 AND rooms.owner IS v.column5",
            values,
        ).rowcount
        if changed != len(some):
            raise _Stale


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
        conn.execute(f"PRAGMA temp_store = {TEMP_STORE}")
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"journal mode {mode}, not wal")
    except BaseException:
        conn.close()
        raise
    return conn
