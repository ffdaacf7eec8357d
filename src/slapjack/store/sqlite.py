"""The SQLite adapter (the default): one file, WAL mode, through aiosqlite.

One connection serves the whole process; an asyncio lock keeps its
transactions apart. Durability: with ``synchronous=NORMAL`` in WAL mode a
commit is written to the WAL file (the operating system has it) before it
returns, so a killed process (``kill -9``) loses nothing that was committed;
a power cut or an OS crash may lose the last commits since the last
checkpoint, never corrupt the file. ``synchronous=FULL`` fsyncs every commit
and survives power cuts too, at a cost per commit. See docs/storage.md.

Group commits of appends run on the event loop itself when their commit never
waits for the disk (WAL with ``synchronous`` NORMAL or OFF: a commit writes to
the WAL file and returns; only checkpoints and a restart of the WAL sync), on
a second connection of their own: a round trip to the database thread costs
more CPU than the commit. See :meth:`SqliteStore._write_batch`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, ClassVar, Final, cast

import aiosqlite

from ._sql import (
    Conn,
    Row,
    SqlStore,
    T,
    _not_stored,
    _Pending,
)
from ._sqlite_raw import (
    MOVE_GUARD_SQL,
    TEMP_STORE,
    Known,
    _busy,
    _open_loop_conn,
    _run_in_thread,
    _write_batch_on,
)
from .errors import BadInput, StoreError, StoreUnavailable
from .migrations import SQLITE, Migration

log = logging.getLogger(__name__)

SYNCHRONOUS: Final = ("OFF", "NORMAL", "FULL", "EXTRA")
CHECKPOINT_EVERY: Final = 1000
"""Commits between two WAL checkpoints (SQLite's own would run inside a commit
every 1,000 pages, about 250 of our commits, and stall it for the copy and its
fsync; ours runs on a second connection, beside the writer). A checkpoint
copies each page once however often the commits since the last one wrote it
(a room's leaf of actions), so fewer, larger ones cost less per commit:
1,000 rather than 200 took 8 % off an append's CPU with 2,000 rooms
(docs/benchmarks.md, "Young collections only when they find something, fewer
full ones while players arrive, checkpoints every 1,000 commits"). The WAL
grows a few MB a second under load either way; :data:`WAL_LIMIT_BYTES` bounds it."""
BUSY_TIMEOUT_MS: Final = 5000
LOOP_SYNCHRONOUS: Final = frozenset({"OFF", "NORMAL"})
"""The settings under which a WAL commit does not sync (no fsync): the group
commits of appends may run on the event loop (see :meth:`SqliteStore._write_batch`)."""

WAL_LIMIT_BYTES: Final = 64 * 1024 * 1024
"""The WAL's size (its frames since it last restarted, as the checkpoint
beside the writer counts them) beyond which a checkpoint resets it, under the
store's lock, so no commit runs meanwhile (see :data:`WAL_RESET`). The
checkpoints beside the writer copy the WAL into the database but cannot reset
it while commits keep coming (each finds new frames behind it): under a steady
load the WAL grew without end (about 3 MB a second at 2,000 players)."""
WAL_RESET: Final = "RESTART"
"""How the WAL is reset past :data:`WAL_LIMIT_BYTES`: ``RESTART`` copies the
frames written since the last checkpoint and makes the next commit write the
WAL from its start again (the file keeps its size, at most the limit and one
checkpoint's growth); ``TRUNCATE`` also cuts the file to 0 bytes, and that
``ftruncate`` of 64 MB held the lock for 26-68 ms at 2,000 players, RESTART
for 1.5-14 ms (docs/benchmarks.md, "WAL resets under load (issue 14)")."""
WAL_RESETS: Final = ("RESTART", "TRUNCATE")
WAL_LOG: Final = 64
"""Recent WAL resets kept with their start and duration (``/api/metrics``)."""


class _SqliteConn:
    __slots__ = ("_db",)

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def execute(self, sql: str, *args: Any) -> int:
        cursor = await self._db.execute(sql, args)
        return max(cursor.rowcount, 0)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await self._db.executemany(sql, rows)

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        return list(await self._db.execute_fetchall(sql, args))

    async def fetchone(self, sql: str, *args: Any) -> Row | None:
        rows = await self._db.execute_fetchall(sql, args)
        for row in rows:
            return row
        return None


class SqliteStore(SqlStore):
    """The store in one SQLite file (``:memory:`` for a throwaway one)."""

    dialect: ClassVar[str] = "sqlite"
    bump_epoch_sql: ClassVar[str | None] = "UPDATE room_epochs SET last = last + 1 WHERE id = 1"
    new_epoch_sql: ClassVar[str] = "(SELECT last FROM room_epochs WHERE id = 1)"

    def __init__(
        self, db: aiosqlite.Connection, path: str, loop_conn: sqlite3.Connection | None = None
    ) -> None:
        super().__init__()
        self._db = db
        #: The appends' connection on the event loop (None: every batch goes to the thread).
        self._loop_conn = loop_conn
        #: The next commit may sync the WAL's header (a new WAL, or one whose
        #: checkpoint backfilled it all: the next commit restarts it): a batch
        #: goes to the thread until a write there cleared this.
        self._restart_due = True
        self._checkpointing = False
        self._flush_due = False
        #: Group commits run on the event loop, and those the loop handed to the
        #: thread because another connection held the file's write lock.
        self.loop_batches = 0
        self.loop_busy = 0
        self._conn = _SqliteConn(db)
        #: The rooms' rows as the group commits left them (they skip reading them).
        self._known = Known()
        #: Rooms changed, and the guard's count after, by the write ``_run`` runs.
        self._moves: list[tuple[str, int]] = []
        self._lock = asyncio.Lock()
        self.path = path
        #: Recent group commits: (appends, ms to reach the thread, ms in it, ms back to the loop).
        self.batch_timings: deque[tuple[int, float, float, float]] = deque(maxlen=20_000)
        self._commits = 0
        self._checkpointer: aiosqlite.Connection | None = None
        self._checkpoint: asyncio.Task[None] | None = None
        #: WAL checkpoints run beside the writer (see :data:`CHECKPOINT_EVERY`).
        self.checkpoints = 0
        #: Checkpoints that reset a WAL grown past :data:`WAL_LIMIT_BYTES`.
        self.wal_truncations = 0
        #: Those SQLite refused (another connection read or wrote: the WAL stays).
        self.wal_truncations_busy = 0
        #: Recent resets: (``time.monotonic()`` at its start, ms it held the
        #: store's lock), every attempt, refused or not (see :meth:`wal_summary`).
        self.wal_truncation_log: deque[tuple[float, float]] = deque(maxlen=WAL_LOG)
        self.wal_truncation_last_ms: float | None = None
        self.wal_truncation_max_ms: float | None = None
        #: The WAL's frames at the last checkpoint, in bytes (None: none ran yet).
        self.wal_log_bytes: int | None = None
        self._frame_bytes = 4096 + 24  # a WAL frame: a page and its header (see open)

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        synchronous: str = "NORMAL",
        migrations: Sequence[Migration] = SQLITE,
        loop_commits: bool = True,
    ) -> SqliteStore:
        """Open (creating it and its directory if needed) and migrate the file.

        ``loop_commits``: with a ``synchronous`` in :data:`LOOP_SYNCHRONOUS`
        and a file (not ``:memory:``), group commits of appends run on the
        event loop (False: in the database thread, as every other call)."""
        sync = synchronous.upper() if isinstance(synchronous, str) else ""
        if sync not in SYNCHRONOUS:
            raise BadInput(f"synchronous must be one of {', '.join(SYNCHRONOUS)}")
        where = str(path)
        try:
            if where != ":memory:":
                Path(where).parent.mkdir(parents=True, exist_ok=True)
            db = await aiosqlite.connect(where, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise StoreUnavailable(f"cannot open SQLite file {where}: {exc}") from exc
        store = cls(db, where)
        try:
            await db.create_function("slapjack_fold", 1, _fold, deterministic=True)
            await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await _wal_mode(db)
            await db.execute(f"PRAGMA synchronous = {sync}")
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute(f"PRAGMA temp_store = {TEMP_STORE}")
            if where != ":memory:":
                await db.execute("PRAGMA wal_autocheckpoint = 0")  # see _committed
            await store._migrate(migrations)
            cursor = await db.execute("PRAGMA page_size")
            row = await cursor.fetchone()
            await cursor.close()
            if row is not None:
                store._frame_bytes = int(row[0]) + 24
            if loop_commits and sync in LOOP_SYNCHRONOUS and where != ":memory:":
                store._loop_conn = await db._execute(  # type: ignore[no-untyped-call]
                    _open_loop_conn, where, sync
                )
        except BaseException as exc:
            await db.close()
            if isinstance(exc, sqlite3.Error):
                raise StoreUnavailable(f"cannot use SQLite file {where}: {exc}") from exc
            raise
        return store

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Conn]:
        # A cancelled await does not stop a statement already queued to the
        # connection's thread, so ROLLBACK is queued behind whatever ran: the
        # connection never stays inside a half-done transaction.
        async with self._lock:
            try:
                await self._db.execute("BEGIN IMMEDIATE")
                yield self._conn
                await self._db.execute("COMMIT")
            except BaseException:
                with suppress(sqlite3.Error):
                    await asyncio.shield(self._db.execute("ROLLBACK"))
                raise

    async def _run(self, body: Callable[[Conn], Awaitable[T]], *, write: bool) -> T:
        """Run the whole of ``body`` in the connection's thread: one hop instead
        of one per statement while the lock is held (appends wait for that
        lock). ``body`` awaits only its connection's calls, which here never
        suspend; anything else is a bug and fails loudly (rolled back)."""
        self._check_open()
        async with self._guard(), self._lock:
            self._moves.clear()
            try:
                result: T = await self._db._execute(  # type: ignore[no-untyped-call]
                    _run_in_thread, self._db, body, write
                )
            except BaseException:
                if self._moves:  # perhaps committed (a cancelled wait), perhaps not
                    self._known.clear()
                    self._moves.clear()
                raise
            for code, guard in self._moves:
                self._known.moved(code, guard)
            self._moves.clear()
        if write:
            self._committed(in_thread=True)
        return result

    def _committed(self, *, in_thread: bool, wrote: bool = True) -> None:
        """Every :data:`CHECKPOINT_EVERY` commits, checkpoint the WAL on a second
        connection (its own thread): the writer goes on meanwhile (a PASSIVE
        checkpoint takes no write lock), durability is the WAL's either way.

        A commit in the thread that wrote something (``wrote``) did any restart
        of the WAL that was due (see ``_restart_due``), unless a checkpoint
        runs: then the restart may come due again when it ends."""
        if in_thread and wrote and not self._checkpointing:
            self._restart_due = False
        self._commits += 1
        if self.path == ":memory:" or self._commits < CHECKPOINT_EVERY:
            return
        if self._checkpoint is None or self._checkpoint.done():
            self._commits = 0
            self._start_checkpoint()

    def _start_checkpoint(self) -> None:
        self._checkpointing = True
        self._checkpoint = asyncio.create_task(self._run_checkpoint())

    async def _run_checkpoint(self) -> None:
        """While it runs, and after it when it backfilled the whole WAL, group
        commits go to the thread: the first commit after a complete checkpoint
        restarts the WAL and syncs its header (an fsync, off the event loop)."""
        complete = True
        try:
            if self._checkpointer is None:
                self._checkpointer = await aiosqlite.connect(self.path, isolation_level=None)
                await self._checkpointer.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            cursor = await self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
            row = await cursor.fetchone()
            await cursor.close()
            self.checkpoints += 1
            if row is not None and int(row[1]) > int(row[2]) >= 0:
                complete = False  # frames are left: the next commit appends, no restart
            frames = int(row[1]) if row is not None else -1
            self.wal_log_bytes = frames * self._frame_bytes if frames >= 0 else self._wal_size()
            if self.wal_log_bytes > WAL_LIMIT_BYTES:
                await self._reset_wal()
                complete = True
        except (sqlite3.Error, ValueError) as exc:
            log.warning("SQLite checkpoint of %s failed: %s", self.path, exc)
        finally:
            self._checkpointing = False
            if complete:
                self._restart_due = True

    def _wal_size(self) -> int:
        try:
            return os.path.getsize(f"{self.path}-wal")
        except OSError:
            return 0

    async def _reset_wal(self) -> None:
        """Copy what is left of the WAL into the database and reset the WAL
        (see :data:`WAL_LIMIT_BYTES`, :data:`WAL_RESET`), on the writer's
        connection under the store's lock: group commits wait (those on the
        loop see the lock held and go to the thread, which waits for it)."""
        mode = _reset_mode()
        async with self._lock:
            if self._closed:
                return
            at, began = time.monotonic(), time.perf_counter()
            try:
                cursor = await self._db.execute(f"PRAGMA wal_checkpoint({mode})")
                row = await cursor.fetchone()
                await cursor.close()
            finally:
                self._timed_truncation(at, (time.perf_counter() - began) * 1000.0)
        if row is not None and int(row[0]) == 0:
            self.wal_truncations += 1
        else:
            self.wal_truncations_busy += 1

    def _timed_truncation(self, at: float, ms: float) -> None:
        self.wal_truncation_log.append((at, ms))
        self.wal_truncation_last_ms = ms
        if self.wal_truncation_max_ms is None or ms > self.wal_truncation_max_ms:
            self.wal_truncation_max_ms = ms

    def wal_summary(self, *, recent: bool = False) -> dict[str, Any]:
        """The WAL's figures for ``/api/metrics`` (``store_wal``): resets so far
        (``truncations``; ``busy``: refused by SQLite), the last and the longest
        reset's time under the store's lock (ms; appends wait that long), the
        WAL file's size now (one ``stat``), its frames at the last checkpoint
        (``log_bytes``), the limit and the reset's mode; ``recent``: the last
        :data:`WAL_LOG` resets as ``[monotonic s at its start, ms]``."""
        last, longest = self.wal_truncation_last_ms, self.wal_truncation_max_ms
        out: dict[str, Any] = {
            "truncations": self.wal_truncations,
            "busy": self.wal_truncations_busy,
            "last_ms": None if last is None else round(last, 3),
            "max_ms": None if longest is None else round(longest, 3),
            "wal_bytes": None if self.path == ":memory:" else self._wal_size(),
            "log_bytes": self.wal_log_bytes,
            "limit_bytes": WAL_LIMIT_BYTES,
            "mode": _reset_mode(),
            "checkpoints": self.checkpoints,
        }
        if recent:
            out["recent"] = [[round(at, 4), round(ms, 3)] for at, ms in self.wal_truncation_log]
        return out

    def _on_loop_now(self) -> bool:
        """May the next group commit run on the event loop? (See :meth:`_write_batch`.)"""
        return (
            self._loop_conn is not None
            and not (self._restart_due or self._checkpointing or self._closed)
            and not self._lock.locked()
        )

    def _commit_on_loop(self, batch: list[_Pending]) -> list[StoreError | None] | None:
        """The group commit on the loop's connection; None when another
        connection held the file locked (rolled back: the thread's turn)."""
        conn = self._loop_conn
        assert conn is not None
        # No await from here to the commit: nothing else takes the store's lock.
        began = time.perf_counter()
        try:
            outcomes, _ = _write_batch_on(conn, batch, self._known)
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise StoreUnavailable(f"{self.dialect}: {type(exc).__name__}: {exc}") from exc
            self.loop_busy += 1
            return None
        except StoreError:
            raise
        except Exception as exc:
            raise StoreUnavailable(f"{self.dialect}: {type(exc).__name__}: {exc}") from exc
        self.loop_batches += 1
        self.batch_timings.append((len(batch), 0.0, (time.perf_counter() - began) * 1000, 0.0))
        self._committed(in_thread=False)
        return outcomes

    def _wake_writer(self) -> None:
        """With the loop's connection: write the queued appends in a callback at
        the loop's next turn (every append queued until then joins the batch),
        not in a new writer task each time; the task when a batch must go to
        the thread."""
        if self._loop_conn is None or (self._writer is not None and not self._writer.done()):
            super()._wake_writer()
        elif not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_due = False
        while self._pending and (self._writer is None or self._writer.done()):
            if not self._on_loop_now():
                break
            batch = self._take_batch()
            try:
                outcomes = self._commit_on_loop(batch)
            except Exception as exc:
                outcomes = _not_stored(batch, exc)
            if outcomes is None:  # the file is locked: the thread waits for it
                self._pending.extendleft(reversed(batch))
                break
            self._settle(batch, outcomes)
        if self._pending:
            super()._wake_writer()

    async def _room_changed(self, conn: Conn, code: str) -> None:
        """Move the guard row (see :class:`~slapjack.store._sqlite_raw.Known`);
        what this store knows follows once the write committed (``_run``)."""
        row = await conn.fetchone(MOVE_GUARD_SQL)
        if row is not None:
            self._moves.append((code, int(row[0])))

    async def _write_batch(self, batch: list[_Pending]) -> list[StoreError | None]:
        """One group commit: on the event loop when it can, else in one hop to
        the connection's thread.

        **On the loop** (``_loop_conn``: WAL with ``synchronous`` NORMAL or OFF)
        the commit writes the WAL file and returns without syncing it, tens of
        microseconds (bench/storecost.py measures it), less than the hop to
        the thread and back costs the process. Not on the loop, but in the
        thread: while the store's lock is held (another call is running); a
        commit that may sync (``_restart_due``: the first into a new WAL or
        after a complete checkpoint, and while a checkpoint runs); and a batch
        whose file another connection holds locked: the loop's connection
        never waits for a lock (busy timeout 0), it rolls back and the batch
        goes to the thread, whose connection waits (:data:`BUSY_TIMEOUT_MS`).

        **In the thread**, statement by statement it would take five round
        trips between the event loop and the thread (BEGIN, SELECT, two
        inserts, COMMIT), each waiting for a busy loop while the file's write
        lock is held; here the thread runs the whole transaction and the loop
        is woken once, after the commit (write-ahead rooms wait for exactly
        that). A cancelled caller does not stop it: the transaction commits or
        rolls back whole. The callers are answered from the thread's wake-up
        call itself, one turn of the event loop before this coroutine resumes
        (the base class skips answered futures)."""
        self._check_open()
        if self._on_loop_now():
            outcomes = self._commit_on_loop(batch)
            if outcomes is not None:
                return outcomes
        loop = asyncio.get_running_loop()

        def work() -> tuple[list[StoreError | None], bool, float, float]:
            began = time.perf_counter()
            outcomes, wrote = _write_batch_on(self._db._conn, batch, self._known)
            loop.call_soon_threadsafe(_answer, batch, outcomes)
            return outcomes, wrote, began, time.perf_counter()

        async with self._guard(), self._lock:
            # aiosqlite runs ``fn`` in its thread, in order with every other call
            # on this connection (its documented ``execute`` calls go this way too).
            sent = time.perf_counter()
            outcomes, wrote, began, ended = await self._db._execute(  # type: ignore[no-untyped-call]
                work
            )
            back = time.perf_counter()
        self._committed(in_thread=True, wrote=wrote)
        self.batch_timings.append(
            (len(batch), (began - sent) * 1000.0, (ended - began) * 1000.0, (back - ended) * 1000.0)
        )
        return cast(list[StoreError | None], outcomes)

    def batch_summary(self) -> dict[str, Any]:
        """p50/p99 of the recent group commits' sizes and times (for ``/api/metrics``)."""
        rows = list(self.batch_timings)
        out: dict[str, Any] = {
            "n": len(rows),
            "on_loop": self.loop_batches,
            "loop_busy": self.loop_busy,
        }
        for k, name in enumerate(("size", "to_thread_ms", "in_thread_ms", "to_loop_ms")):
            ordered = sorted(row[k] for row in rows)
            if ordered:
                out[name] = {
                    "p50": round(ordered[len(ordered) // 2], 3),
                    "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
                    "max": round(ordered[-1], 3),
                }
        return out

    @asynccontextmanager
    async def _reader(self) -> AsyncIterator[Conn]:
        async with self._lock:
            yield self._conn

    def _in_list(self, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return "IN (" + ", ".join("?" * len(values)) + ")", list(values)

    async def _migration_lock(self, conn: Conn) -> None:
        """``BEGIN IMMEDIATE`` holds the file's write lock already."""

    async def _close_connection(self) -> None:
        if self._loop_conn is not None:
            self._loop_conn.close()
            self._loop_conn = None
        if self._checkpoint is not None:
            with suppress(asyncio.CancelledError):
                await self._checkpoint
        if self._checkpointer is not None:
            await self._checkpointer.close()
        await self._db.close()

    async def pragma(self, name: str) -> Any:
        """Read one PRAGMA (for tests and diagnostics)."""
        if not name.replace("_", "").isalpha():
            raise BadInput(f"not a pragma name: {name!r}")
        async with self._read() as conn:
            row = await conn.fetchone(f"PRAGMA {name}")
        return row[0] if row is not None else None


def _reset_mode() -> str:
    """:data:`WAL_RESET`, or ``RESTART`` when it names no mode of :data:`WAL_RESETS`."""
    return WAL_RESET if WAL_RESET in WAL_RESETS else "RESTART"


def _answer(batch: list[_Pending], outcomes: list[StoreError | None]) -> None:
    """Wake the appends of a committed batch (in the event loop)."""
    for pending, outcome in zip(batch, outcomes, strict=True):
        if not pending.future.done():
            if outcome is None:
                pending.future.set_result(None)
            else:
                pending.future.set_exception(outcome)


def _fold(value: object) -> object:
    """SQL ``slapjack_fold(x)``: a text in lower case (as PostgreSQL's ``lower``),
    else as is (migration 4 folds the names stored before it with it)."""
    return value.lower() if isinstance(value, str) else value


async def _wal_mode(db: aiosqlite.Connection) -> None:
    """``PRAGMA journal_mode = WAL``, retried while another connection holds
    the file: switching the journal mode takes an exclusive lock and answers
    "database is locked" at once, without SQLite's busy handler (several
    processes opening a new file together); give up after the busy timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BUSY_TIMEOUT_MS / 1000.0
    pause = 0.002
    while True:
        try:
            await db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or loop.time() + pause > deadline:
                raise
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.1)
