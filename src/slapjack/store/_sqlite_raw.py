"""The SQLite adapter's work on a raw ``sqlite3`` connection: code that runs
in aiosqlite's database thread (a whole transaction driven there without a
round trip per statement) or on the event loop (group commits of appends on a
connection of their own, see :meth:`SqliteStore._write_batch
<slapjack.store.sqlite.SqliteStore._write_batch>`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, Final

import aiosqlite

from ._sql import SELECT_ACTION_SQL, BatchPlan, Conn, Row, T, _Pending, next_index
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
    with _transaction(raw, "BEGIN IMMEDIATE" if write else "BEGIN"):
        coro = body(_ThreadConn(raw))
        try:
            coro.send(None)  # type: ignore[attr-defined]
        except StopIteration as done:
            result: T = done.value
        else:
            coro.close()  # type: ignore[attr-defined]
            raise RuntimeError("a store transaction awaited something besides its connection")
    return result


@contextmanager
def _transaction(conn: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> Iterator[None]:
    """``begin`` … ``COMMIT`` around the block; ``ROLLBACK`` on any error."""
    conn.execute(begin)
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


SELECT_ROOM_SQL: Final = (
    "SELECT epoch, owner, (SELECT max(idx) FROM room_actions WHERE code = ?1),"
    " (SELECT changes FROM room_guard WHERE id = 1) FROM rooms WHERE code = ?1"
)
"""A batch of one room: its fencing row, its last stored index and the guard
(plain columns, not the JSON object that several rooms need)."""
GUARD_SQL: Final = "SELECT changes FROM room_guard WHERE id = 1"
"""The guard row's count of changes (see :class:`Known`)."""
MOVE_GUARD_SQL: Final = "UPDATE room_guard SET changes = changes + 1 WHERE id = 1 RETURNING changes"

TEMP_STORE: Final = "MEMORY"
"""Where the writing connections keep SQLite's temporary files: a statement
journal (the pages a multi-row statement changed, in case it fails halfway)
in memory, not a file made in ``/var/tmp`` and unlinked again on the event
loop's thread (several a second under load). They are small: a statement
writes a few pages."""
ROWS_PER_STATEMENT: Final = 300
"""Rows per multi-row INSERT (3 parameters each, far below SQLite's limit of
32,766 parameters)."""

RoomRow = tuple[int, int, str | None]
"""A room's next action index, fencing ``epoch`` and ``owner``."""


class Known:
    """The rooms as this store's own group commits left them (next action
    index, ``epoch``, ``owner``): a commit whose rooms are all known plans its
    batch on them and skips reading the rooms (their rows and last indices;
    with several rooms a JSON aggregate over them).

    What is known holds while nobody changed a room otherwise than by an
    append: every claim, reset and close moves the one guard row
    (``room_guard``, schema version 5) in its transaction, and the fast path
    reads that row after ``BEGIN IMMEDIATE`` (whose write lock keeps anybody
    from changing it until the commit). The count as this store last read or
    moved it is :attr:`guard`; if the row says otherwise another connection
    or process changed some room, everything known is dropped and the batch
    is planned on the rows as read. This store's own changes keep the rest
    (:meth:`moved`). What the guard does not cover are appends by another
    writer to a known room: they took the index this plan would insert at
    (appends are contiguous), so the ``INSERT`` collides with the stored
    action, rolls back and the batch is planned again on the rows as read.
    An ``INSERT`` that finds no room (foreign key) does the same. A plan that
    would refuse an append or read a stored action takes the read path too:
    every outcome of the fast path is an append stored on a room checked this
    way, in the one page it writes for it (its leaf of actions)."""

    __slots__ = ("guard", "rows")

    MOST: Final = 100_000
    """Rooms remembered at most (then forgotten all at once: closed rooms'
    rows would otherwise stay for the life of the process)."""

    def __init__(self) -> None:
        self.rows: dict[str, RoomRow] = {}
        #: The guard row's count when :attr:`rows` were read (None: unknown).
        self.guard: int | None = None

    def forget(self, code: str) -> None:
        self.rows.pop(code, None)

    def clear(self) -> None:
        self.rows.clear()
        self.guard = None

    def learn(self, rows: dict[str, RoomRow], guard: int) -> None:
        """``rows`` as read or written in a transaction that saw ``guard``."""
        if guard != self.guard:
            self.rows.clear()
            self.guard = guard
        if len(self.rows) + len(rows) > self.MOST:
            self.rows.clear()
        self.rows.update(rows)

    def moved(self, code: str, guard: int) -> None:
        """This store changed room ``code`` and moved the guard to ``guard``
        (committed): the other rooms stay known if nobody else moved it."""
        self.rows.pop(code, None)
        if self.guard is not None and self.guard + 1 == guard:
            self.guard = guard
        else:
            self.clear()


def _write_batch_on(
    conn: sqlite3.Connection, batch: list[_Pending], known: Known | None = None
) -> tuple[list[StoreError | None], bool]:
    """``SqliteStore._write_batch``'s transaction, on the event loop or in the
    SQLite thread: the outcomes, and whether it inserted anything.

    Few statements, each one step: the sqlite3 module lets go of the GIL for
    every step (every row fetched or inserted) and may wait up to the switch
    interval to get it back from a busy event loop (in the thread). So the
    rooms come back as one JSON object and the inserts are multi-row
    statements. With ``known``, a batch whose rooms it knows skips reading
    them (:class:`Known`)."""
    codes = sorted({p.code for p in batch})
    if known is not None:
        fast = _fast_plan(batch, codes, known)
        if fast is not None:
            plan, guess, guard = fast
            try:
                stored = _fast_write(conn, plan.insert_rows(), guard)
            except BaseException as exc:
                for code in codes:
                    known.forget(code)
                if not isinstance(exc, sqlite3.IntegrityError):
                    raise  # (an IntegrityError: another writer appended, or no room)
            else:
                if stored:
                    known.learn({c: (plan.nxt[c], r[1], r[2]) for c, r in guess.items()}, guard)
                    return plan.outcomes, True
                known.clear()  # another connection changed some room
    try:
        with _transaction(conn):
            plan, rooms, guard = _read_and_insert(conn, batch, codes)
    except BaseException:
        if known is not None:
            for code in codes:
                known.forget(code)
        raise
    if known is not None:
        known.learn(
            {
                c: (plan.nxt[c], r[1], r[2])
                for c, r in rooms.items()
                if r[2] is None or isinstance(r[2], str)
            },
            int(guard),
        )
    return plan.outcomes, bool(plan.accepted)


def _read_and_insert(
    conn: sqlite3.Connection, batch: list[_Pending], codes: list[str]
) -> tuple[BatchPlan, dict[str, RoomRow], Any]:
    """The read path, inside its transaction: the rooms as read, the batch
    planned on them and its accepted appends inserted; the plan, the rooms
    and the guard's count."""
    rooms: dict[str, RoomRow] = {}
    if len(codes) == 1:  # a commit of one room's appends (most below ~6,000 players)
        row = conn.execute(SELECT_ROOM_SQL, codes).fetchone()
        if row is not None:
            epoch, owner, last, guard = row
            rooms[codes[0]] = (next_index(last), int(epoch), owner)
        else:
            (guard,) = conn.execute(GUARD_SQL).fetchone()
    else:
        marks = ", ".join("?" * len(codes))
        guard, found = conn.execute(
            "SELECT (SELECT changes FROM room_guard WHERE id = 1),"
            " json_group_object(code, json_array(epoch, owner,"
            " (SELECT max(idx) FROM room_actions AS a WHERE a.code = rooms.code)))"
            f" FROM rooms WHERE code IN ({marks})",
            codes,
        ).fetchone()
        for c, v in json.loads(found).items():
            rooms[str(c)] = (next_index(v[2]), int(v[0]), v[1])
    plan = BatchPlan(
        batch, {c: r[0] for c, r in rooms.items()}, {c: r[1:] for c, r in rooms.items()}
    )
    for i in plan.to_check:
        p = batch[i]
        plan.check_stored(i, conn.execute(SELECT_ACTION_SQL, (p.code, p.index)).fetchone())
    _insert_actions(conn, plan.insert_rows())
    return plan, rooms, guard


def _insert_actions(conn: sqlite3.Connection, rows: list[tuple[str, int, str]]) -> None:
    """The accepted actions, in multi-row ``INSERT``s of :data:`ROWS_PER_STATEMENT`."""
    for k in range(0, len(rows), ROWS_PER_STATEMENT):
        chunk = rows[k : k + ROWS_PER_STATEMENT]
        conn.execute(
            "INSERT INTO room_actions (code, idx, action) VALUES "
            + ", ".join(["(?, ?, ?)"] * len(chunk)),
            [value for row in chunk for value in row],
        )


def _fast_write(conn: sqlite3.Connection, rows: list[tuple[str, int, str]], guard: int) -> bool:
    """The fast path's insert of ``rows`` if the guard row still counts
    ``guard`` (True; False: it moved, nothing written). Up to
    :data:`ROWS_PER_STATEMENT` rows it is one statement in a transaction of
    its own (SQLite's autocommit: the write lock is taken as the statement
    starts, as ``BEGIN IMMEDIATE`` would; no ``BEGIN`` and ``COMMIT`` to run,
    about 7 % of an append's CPU in bench/storelayout.py's setting); more
    rows take an explicit transaction."""
    if len(rows) <= ROWS_PER_STATEMENT:
        inserted = conn.execute(
            "INSERT INTO room_actions (code, idx, action) SELECT * FROM (VALUES "
            + ", ".join(["(?, ?, ?)"] * len(rows))
            + f") WHERE ({GUARD_SQL}) = ?",
            [*(value for row in rows for value in row), guard],
        ).rowcount
        return bool(inserted == len(rows))
    with _transaction(conn):
        (now,) = conn.execute(GUARD_SQL).fetchone()
        if now != guard:
            return False  # nothing written: its commit only lets go of the lock
        _insert_actions(conn, rows)
    return True


def _fast_plan(
    batch: list[_Pending], codes: list[str], known: Known
) -> tuple[BatchPlan, dict[str, RoomRow], int] | None:
    """The batch planned on the known rows, those rows and the guard's count
    they hold at, if every room is known and every append would be stored
    (else ``None``: the read path)."""
    if known.guard is None:
        return None
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
    return plan, guess, known.guard


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
