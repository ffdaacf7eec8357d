"""The store's logic over SQL, shared by both adapters.

The adapters give a connection with four calls (``execute``, ``executemany``,
``fetch``, ``fetchone``; parameters written ``?``), a write transaction and a
reader. Everything else, the SQL included, is here and is the same for SQLite
and PostgreSQL.

Appends are **group-committed**: ``append_action`` queues the action and
waits; one writer task (the SQLite adapter: a callback at the loop's next
turn, when it commits on the event loop) takes everything queued, checks and
inserts it in one transaction, commits once, and only then wakes the callers. An append that
returned is committed; many rooms appending at once share one commit. What a
batch does is planned in :mod:`slapjack.store._batch`.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, ClassVar, Final, Protocol, TypeVar

from ._batch import BatchPlan as BatchPlan  # re-exported: the adapters import them here
from ._batch import Row as Row
from ._batch import _Pending as _Pending
from ._batch import next_index as next_index
from ._history import HistorySql, _epoch
from .base import (
    FencedRoom,
    Ownership,
    RoomState,
    Seat,
    SeatWrite,
    check_action,
    check_code,
    check_epoch,
    check_header,
    check_index,
    check_object,
    check_owner,
    check_seat,
    dump_json,
    from_ms,
    load_json,
    now_ms,
    seat_row,
    seat_rows,
)
from .errors import (
    CorruptRow,
    RoomExists,
    SchemaTooNew,
    StaleOwner,
    StoreClosed,
    StoreError,
    StoreUnavailable,
    UnknownRoom,
)
from .migrations import SCHEMA_VERSION_TABLE, Migration, check_migrations

MAX_BATCH: Final = 500

T = TypeVar("T")


class Conn(Protocol):
    """A database connection as the shared logic sees it (``?`` placeholders)."""

    async def execute(self, sql: str, *args: Any) -> int:
        """Run one statement; return the number of rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    async def fetch(self, sql: str, *args: Any) -> list[Row]: ...

    async def fetchone(self, sql: str, *args: Any) -> Row | None: ...


SELECT_ACTION_SQL: Final = "SELECT action FROM room_actions WHERE code = ? AND idx = ?"
INSERT_ACTION_SQL: Final = "INSERT INTO room_actions (code, idx, action) VALUES (?, ?, ?)"
NEXT_INDEX_SQL: Final = (
    "SELECT code, (SELECT max(idx) FROM room_actions AS a WHERE a.code = rooms.code)"
    " FROM rooms WHERE code {where}"
)
"""Each room's last stored index (None: none yet), one index seek per room:
its next index is one more (schema version 5 keeps it nowhere else). Run
after the rooms are locked: under READ COMMITTED it sees every commit before."""
UPSERT_SEAT_SQL: Final = (
    "INSERT INTO room_seats (code, seat, name, token_hash, is_bot, bot_level)"
    " VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (code, seat) DO UPDATE SET name = excluded.name,"
    " token_hash = excluded.token_hash, is_bot = excluded.is_bot,"
    " bot_level = excluded.bot_level"
)


class SqlStore(HistorySql, ABC):
    """The :class:`~slapjack.store.Store` contract over a SQL database."""

    dialect: ClassVar[str]
    #: Appended to the SELECT that reads the rooms a batch of appends touches.
    lock_rows_sql: ClassVar[str] = ""
    #: A statement run before a new epoch is taken (SQLite moves its counter row).
    bump_epoch_sql: ClassVar[str | None] = None
    #: The SQL expression of the new epoch (after ``bump_epoch_sql``).
    new_epoch_sql: ClassVar[str]
    #: Run first in a claim's transaction (PostgreSQL: a lock timeout).
    claim_prelude_sql: ClassVar[str | None] = None

    def __init__(self) -> None:
        self._pending: deque[_Pending] = deque()
        self._writer: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = False
        #: Appends written and the transactions (batches) they took: see docs/storage.md.
        self.appends_written = 0
        self.batches_written = 0

    # ------------------------------------------------------- adapter primitives

    @abstractmethod
    def _transaction(self) -> AbstractAsyncContextManager[Conn]:
        """A write transaction (committed on success, rolled back on error)."""

    @abstractmethod
    def _reader(self) -> AbstractAsyncContextManager[Conn]:
        """A consistent read of several statements."""

    @abstractmethod
    def _in_list(self, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """``IN (…)`` for ``values``: the SQL after the column and its parameters."""

    @abstractmethod
    async def _migration_lock(self, conn: Conn) -> None:
        """Make concurrent migrations of one database wait for each other."""

    @abstractmethod
    async def _close_connection(self) -> None: ...

    # ------------------------------------------------------------------ helpers

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed("the store is closed")

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Conn]:
        self._check_open()
        async with self._guard(), self._transaction() as conn:
            yield conn

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Conn]:
        self._check_open()
        async with self._guard(), self._reader() as conn:
            yield conn

    async def _run(self, body: Callable[[Conn], Awaitable[T]], *, write: bool) -> T:
        """``body(conn)`` in one write transaction (``write``) or one consistent read.

        ``body`` awaits nothing but ``conn``'s calls, so an adapter may run it
        anywhere: the SQLite one runs it whole in its database thread (one hop
        instead of one per statement, while the store's lock is held)."""
        if write:
            async with self._tx() as conn:
                return await body(conn)
        async with self._read() as conn:
            return await body(conn)

    @asynccontextmanager
    async def _guard(self) -> AsyncIterator[None]:
        """Driver errors become :class:`StoreUnavailable`; our own pass through."""
        try:
            yield
        except StoreError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise StoreUnavailable(f"{self.dialect}: {type(exc).__name__}: {exc}") from exc

    # ------------------------------------------------------------------ schema

    async def _migrate(self, steps: Sequence[Migration]) -> None:
        check_migrations(tuple(steps))
        async with self._tx() as conn:
            await self._migration_lock(conn)
            await conn.execute(SCHEMA_VERSION_TABLE)
            row = await conn.fetchone("SELECT MAX(version) FROM schema_version")
            current = int(row[0]) if row is not None and row[0] is not None else 0
            if current > len(steps):
                raise SchemaTooNew(
                    f"the database has schema version {current}; this program knows up to "
                    f"{len(steps)}: upgrade slapjack"
                )
            for step in steps[current:]:
                for statement in step.statements:
                    await conn.execute(statement)
                await conn.execute(
                    "INSERT INTO schema_version (version, name, applied_ms) VALUES (?, ?, ?)",
                    step.version,
                    step.name,
                    now_ms(),
                )

    async def schema_version(self) -> int:
        async with self._read() as conn:
            row = await conn.fetchone("SELECT MAX(version) FROM schema_version")
        return int(row[0]) if row is not None and row[0] is not None else 0

    async def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        await self._drain()
        self._closed = True
        await self._close_connection()

    # --------------------------------------------------------------- live rooms

    async def create_room(
        self,
        code: str,
        settings: Mapping[str, Any],
        record_header: Mapping[str, Any],
        *,
        owner: str | None = None,
        seats: Sequence[SeatWrite] = (),
    ) -> int:
        code = check_code(code)
        if owner is not None:
            owner = check_owner(owner)
        settings_text = dump_json(check_object(settings, "settings"), "settings")
        header_text = dump_json(check_header(record_header), "record_header")
        taken = seat_rows(code, seats)
        now = now_ms()

        async def body(conn: Conn) -> int:
            if self.bump_epoch_sql is not None:
                await conn.execute(self.bump_epoch_sql)
            row = await conn.fetchone(
                "INSERT INTO rooms (code, settings, header, created_ms,"
                " game_started_ms, owner, epoch, owner_since_ms)"
                f" VALUES (?, ?, ?, ?, ?, ?, {self.new_epoch_sql}, ?)"
                " ON CONFLICT (code) DO NOTHING RETURNING epoch",
                code,
                settings_text,
                header_text,
                now,
                now,
                owner,
                now,
            )
            if row is None:
                raise RoomExists(f"a live room {code} exists already")
            await self._room_changed(conn, code)
            for seat in taken:
                await conn.execute(UPSERT_SEAT_SQL, *seat)
            return int(row[0])

        return await self._run(body, write=True)

    async def _room_changed(self, conn: Conn, code: str) -> None:
        """Inside a write that changes room ``code`` otherwise than by an
        append (makes it, claims, resets or closes it): the SQLite adapter
        moves its guard row there, so every writer's knowledge of the rooms
        is checked (see :class:`slapjack.store._sqlite_raw.Known`). Nothing by
        default."""

    # ----------------------------------------------------- ownership (fencing)

    async def _fence(self, conn: Conn, code: str, epoch: int | None) -> None:
        """Inside a write: the room exists and, for a fenced write, is at ``epoch``.
        The row stays locked to the commit (PostgreSQL ``FOR UPDATE``; SQLite
        holds the whole file's write lock), so no claim lands in between."""
        row = await conn.fetchone(
            f"SELECT owner, epoch FROM rooms WHERE code = ?{self.lock_rows_sql}", code
        )
        if row is None:
            raise UnknownRoom(f"no live room {code}")
        if epoch is not None and int(row[1]) != epoch:
            raise StaleOwner(code, epoch, int(row[1]), row[0])

    def fenced(self, code: str, epoch: int) -> FencedRoom:
        return FencedRoom(self, code, epoch)

    async def claim_room(self, code: str, owner: str, *, expected_epoch: int | None = None) -> int:
        code, owner = check_code(code), check_owner(owner)
        if expected_epoch is not None:
            expected_epoch = check_epoch(expected_epoch)

        async def body(conn: Conn) -> int:
            if self.claim_prelude_sql is not None:
                await conn.execute(self.claim_prelude_sql)
            await self._fence(conn, code, expected_epoch)
            await self._room_changed(conn, code)
            if self.bump_epoch_sql is not None:
                await conn.execute(self.bump_epoch_sql)
            row = await conn.fetchone(
                f"UPDATE rooms SET owner = ?, epoch = {self.new_epoch_sql}, owner_since_ms = ?"
                " WHERE code = ? RETURNING epoch",
                owner,
                now_ms(),
                code,
            )
            if row is None:  # pragma: no cover - the row is locked above
                raise UnknownRoom(f"no live room {code}")
            return int(row[0])

        return await self._run(body, write=True)

    async def room_owner(self, code: str) -> Ownership:
        code = check_code(code)

        async def body(conn: Conn) -> Ownership:
            row = await conn.fetchone(
                "SELECT code, owner, epoch, owner_since_ms FROM rooms WHERE code = ?", code
            )
            if row is None:
                raise UnknownRoom(f"no live room {code}")
            return _ownership(row)

        return await self._run(body, write=False)

    async def owned_rooms(self, owner: str) -> list[Ownership]:
        owner = check_owner(owner)

        async def body(conn: Conn) -> list[Ownership]:
            rows = await conn.fetch(
                "SELECT code, owner, epoch, owner_since_ms FROM rooms WHERE owner = ?"
                " ORDER BY created_ms, code",
                owner,
            )
            return [_ownership(r) for r in rows]

        return await self._run(body, write=False)

    async def room_owners(self) -> dict[str | None, int]:
        async def body(conn: Conn) -> dict[str | None, int]:
            rows = await conn.fetch("SELECT owner, COUNT(*) FROM rooms GROUP BY owner")
            return {r[0]: int(r[1]) for r in rows}

        return await self._run(body, write=False)

    # --------------------------------------------------------------- room writes

    async def reset_room(
        self,
        code: str,
        record_header: Mapping[str, Any],
        *,
        epoch: int | None = None,
        settings: Mapping[str, Any] | None = None,
        seats: Sequence[SeatWrite] = (),
    ) -> None:
        code = check_code(code)
        epoch = _epoch(epoch)
        header_text = dump_json(check_header(record_header), "record_header")
        settings_text = (
            None if settings is None else dump_json(check_object(settings, "settings"), "settings")
        )
        taken = seat_rows(code, seats)

        async def body(conn: Conn) -> None:
            if epoch is not None:
                await self._fence(conn, code, epoch)
            changed = await conn.execute(
                "UPDATE rooms SET header = ?, game_started_ms = ? WHERE code = ?",
                header_text,
                now_ms(),
                code,
            )
            if not changed:
                raise UnknownRoom(f"no live room {code}")
            await self._room_changed(conn, code)
            await conn.execute("DELETE FROM room_actions WHERE code = ?", code)
            for seat in taken:
                await conn.execute(UPSERT_SEAT_SQL, *seat)
            if settings_text is not None:
                await conn.execute(
                    "UPDATE rooms SET settings = ? WHERE code = ?", settings_text, code
                )

        await self._run(body, write=True)

    async def update_settings(
        self, code: str, settings: Mapping[str, Any], *, epoch: int | None = None
    ) -> None:
        code = check_code(code)
        epoch = _epoch(epoch)
        text = dump_json(check_object(settings, "settings"), "settings")

        async def body(conn: Conn) -> None:
            if epoch is not None:
                await self._fence(conn, code, epoch)
            if not await conn.execute("UPDATE rooms SET settings = ? WHERE code = ?", text, code):
                raise UnknownRoom(f"no live room {code}")

        await self._run(body, write=True)

    async def set_seat(
        self,
        code: str,
        seat: int,
        name: str,
        token_hash: str | None,
        is_bot: bool = False,
        bot_level: str | None = None,
        *,
        epoch: int | None = None,
    ) -> None:
        row = seat_row(check_code(code), seat, name, token_hash, is_bot, bot_level)
        epoch = _epoch(epoch)

        async def body(conn: Conn) -> None:
            await self._require_room(conn, row[0], epoch)
            await conn.execute(UPSERT_SEAT_SQL, *row)

        await self._run(body, write=True)

    async def clear_seat(self, code: str, seat: int, *, epoch: int | None = None) -> None:
        code, seat = check_code(code), check_seat(seat)
        epoch = _epoch(epoch)

        async def body(conn: Conn) -> None:
            await self._require_room(conn, code, epoch)
            await conn.execute("DELETE FROM room_seats WHERE code = ? AND seat = ?", code, seat)

        await self._run(body, write=True)

    async def _require_room(self, conn: Conn, code: str, epoch: int | None) -> None:
        if epoch is not None:
            await self._fence(conn, code, epoch)
        elif await conn.fetchone("SELECT 1 FROM rooms WHERE code = ?", code) is None:
            raise UnknownRoom(f"no live room {code}")

    async def append_action(
        self, code: str, index: int, action: Mapping[str, Any], *, epoch: int | None = None
    ) -> None:
        await self.start_append(code, index, action, epoch=epoch)

    def start_append(
        self, code: str, index: int, action: Mapping[str, Any], *, epoch: int | None = None
    ) -> asyncio.Future[None]:
        """:meth:`append_action` begun now, without awaiting it: the append
        joins the next group commit (on SQLite the loop's next turn) and the
        future it returns is answered when that commit is done. Bad input
        raises here, as ``append_action`` would."""
        if self._closing:
            raise StoreClosed("the store is closed")
        code, index = check_code(code), check_index(index)
        epoch = _epoch(epoch)
        text = dump_json(check_action(action), "action")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(_Pending(code, index, text, future, epoch))
        self._wake_writer()
        return future

    def _wake_writer(self) -> None:
        """Make sure something writes the queued appends: the writer task."""
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_loop(), name="slapjack-store-writer")

    async def _drain(self) -> None:
        """Wait until every queued append is written (or failed); used by ``close``."""
        while True:
            if self._writer is not None and not self._writer.done():
                await asyncio.shield(self._writer)
            elif self._pending:  # queued for a writer that has not started yet
                self._writer = asyncio.create_task(self._write_loop(), name="slapjack-store-writer")
            else:
                return

    async def _write_loop(self) -> None:
        while self._pending:
            batch = self._take_batch()
            try:
                outcomes = await self._write_batch(batch)
            except Exception as exc:
                outcomes = _not_stored(batch, exc)
            self._settle(batch, outcomes)

    def _take_batch(self) -> list[_Pending]:
        return [self._pending.popleft() for _ in range(min(len(self._pending), MAX_BATCH))]

    def _settle(self, batch: list[_Pending], outcomes: list[StoreError | None]) -> None:
        """Count a written batch and answer its callers (those still waiting)."""
        self.batches_written += 1
        self.appends_written += sum(1 for outcome in outcomes if outcome is None)
        for pending, outcome in zip(batch, outcomes, strict=True):
            if pending.future.done():
                continue  # the caller gave up waiting (or the thread answered it)
            if outcome is None:
                pending.future.set_result(None)
            else:
                pending.future.set_exception(outcome)

    async def _write_batch(self, batch: list[_Pending]) -> list[StoreError | None]:
        async with self._tx() as conn:
            codes = sorted({p.code for p in batch})
            where, params = self._in_list(codes)
            rows = await conn.fetch(
                f"SELECT code, epoch, owner FROM rooms WHERE code {where}"
                f" ORDER BY code{self.lock_rows_sql}",
                *params,
            )
            found = await conn.fetch(NEXT_INDEX_SQL.format(where=where), *params)
            last = {r[0]: r[1] for r in found}
            plan = BatchPlan(
                batch,
                {str(r[0]): next_index(last.get(r[0])) for r in rows},
                {str(r[0]): (int(r[1]), r[2]) for r in rows},
            )
            for i in plan.to_check:
                p = batch[i]
                row = await conn.fetchone(SELECT_ACTION_SQL, p.code, p.index)
                plan.check_stored(i, row)
            if plan.accepted:
                await self._store_batch(conn, plan.insert_rows())
        return plan.outcomes

    async def _store_batch(self, conn: Conn, inserts: list[tuple[str, int, str]]) -> None:
        """Insert a batch's accepted actions."""
        await conn.executemany(INSERT_ACTION_SQL, inserts)

    async def load_room(self, code: str) -> RoomState:
        code = check_code(code)

        async def body(conn: Conn) -> RoomState:
            row = await conn.fetchone(
                "SELECT settings, header, created_ms, game_started_ms FROM rooms WHERE code = ?",
                code,
            )
            if row is None:
                raise UnknownRoom(f"no live room {code}")
            seat_rows = await conn.fetch(
                "SELECT seat, name, token_hash, is_bot, bot_level FROM room_seats"
                " WHERE code = ? ORDER BY seat",
                code,
            )
            action_rows = await conn.fetch(
                "SELECT idx, action FROM room_actions WHERE code = ? ORDER BY idx", code
            )
            where = f"room {code}"
            actions: list[dict[str, Any]] = []
            for expected, (idx, text) in enumerate(action_rows):
                if idx != expected:
                    raise CorruptRow(f"{where}: action {expected} is missing")
                actions.append(load_json(text, f"{where} action {idx}"))
            seats = tuple(Seat(int(s[0]), str(s[1]), s[2], bool(s[3]), s[4]) for s in seat_rows)
            return RoomState(
                code=code,
                settings=load_json(row[0], f"{where} settings"),
                seats=seats,
                header=load_json(row[1], f"{where} header"),
                actions=tuple(actions),
                created_at=from_ms(row[2], where),
                game_started_at=from_ms(row[3], where),
            )

        return await self._run(body, write=False)

    async def live_rooms(self) -> list[str]:
        async def body(conn: Conn) -> list[str]:
            rows = await conn.fetch("SELECT code FROM rooms ORDER BY created_ms, code")
            return [str(r[0]) for r in rows]

        return await self._run(body, write=False)

    async def close_room(self, code: str, *, epoch: int | None = None) -> None:
        code = check_code(code)
        epoch = _epoch(epoch)

        async def body(conn: Conn) -> None:
            if epoch is not None:
                await self._fence(conn, code, epoch)
            await self._room_changed(conn, code)
            await conn.execute("DELETE FROM room_actions WHERE code = ?", code)
            await conn.execute("DELETE FROM room_seats WHERE code = ?", code)
            if not await conn.execute("DELETE FROM rooms WHERE code = ?", code):
                raise UnknownRoom(f"no live room {code}")

        await self._run(body, write=True)


def _not_stored(batch: list[_Pending], exc: Exception) -> list[StoreError | None]:
    """Every append of a batch whose transaction failed: StoreUnavailable (with
    the store error's code when it was one)."""
    code = exc.code if isinstance(exc, StoreError) else StoreUnavailable.code
    return [StoreUnavailable(f"append not stored: {exc}", code=code) for _ in batch]


def _ownership(row: Row) -> Ownership:
    code = str(row[0])
    since = from_ms(row[3], f"room {code} owner_since") if row[3] is not None else None
    return Ownership(code, row[1], int(row[2]), since)
