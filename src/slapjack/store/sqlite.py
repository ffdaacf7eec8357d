"""The SQLite adapter (the default): one file, WAL mode, through aiosqlite.

One connection serves the whole process; an asyncio lock keeps its
transactions apart. Durability: with ``synchronous=NORMAL`` in WAL mode a
commit is written to the WAL file (the operating system has it) before it
returns, so a killed process (``kill -9``) loses nothing that was committed;
a power cut or an OS crash may lose the last commits since the last
checkpoint, never corrupt the file. ``synchronous=FULL`` fsyncs every commit
and survives power cuts too, at a cost per commit. See docs/storage.md.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, ClassVar, Final

import aiosqlite

from ._sql import Conn, Row, SqlStore
from .errors import BadInput, StoreUnavailable
from .migrations import SQLITE, Migration

SYNCHRONOUS: Final = ("OFF", "NORMAL", "FULL", "EXTRA")
BUSY_TIMEOUT_MS: Final = 5000


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

    def __init__(self, db: aiosqlite.Connection, path: str) -> None:
        super().__init__()
        self._db = db
        self._conn = _SqliteConn(db)
        self._lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        synchronous: str = "NORMAL",
        migrations: Sequence[Migration] = SQLITE,
    ) -> SqliteStore:
        """Open (creating it and its directory if needed) and migrate the file."""
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
            await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await db.execute("PRAGMA journal_mode = WAL")
            await db.execute(f"PRAGMA synchronous = {sync}")
            await db.execute("PRAGMA foreign_keys = ON")
            await store._migrate(migrations)
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

    @asynccontextmanager
    async def _reader(self) -> AsyncIterator[Conn]:
        async with self._lock:
            yield self._conn

    def _in_list(self, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return "IN (" + ", ".join("?" * len(values)) + ")", list(values)

    async def _migration_lock(self, conn: Conn) -> None:
        """``BEGIN IMMEDIATE`` holds the file's write lock already."""

    async def _close_connection(self) -> None:
        await self._db.close()

    async def pragma(self, name: str) -> Any:
        """Read one PRAGMA (for tests and diagnostics)."""
        if not name.replace("_", "").isalpha():
            raise BadInput(f"not a pragma name: {name!r}")
        async with self._read() as conn:
            row = await conn.fetchone(f"PRAGMA {name}")
        return row[0] if row is not None else None
