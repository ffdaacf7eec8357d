"""The PostgreSQL adapter, through an asyncpg connection pool.

Tables live in the first schema of the connection's ``search_path``; a URL
may choose it: ``postgresql://user@host/db?search_path=slapjack``. Writes run
in transactions; the rooms a batch of appends touches are locked
(``SELECT … FOR UPDATE``), so two processes never interleave one room's
actions. A commit returns after PostgreSQL made it durable
(``synchronous_commit`` on, its default).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, ClassVar, Final

import asyncpg  # type: ignore[import-untyped]

from ._sql import Conn, Row, SqlStore
from .errors import BadDatabaseUrl, StoreUnavailable
from .migrations import POSTGRES, Migration

log = logging.getLogger(__name__)

IDLE_IN_TRANSACTION_MS: Final = 2000
"""How long a session may sit idle inside a transaction (see :meth:`PostgresStore.open`)."""
CLOSE_TIMEOUT_S: Final = 5.0
"""How long ``close()`` waits for the pool to close gracefully before terminating it."""
CLAIM_LOCK_TIMEOUT_MS: Final = 3000
"""A claim waits at most this long for a room row another session holds locked
(StoreUnavailable then; the takeover watcher tries again at its next scan)."""


STORE_BATCH_SQL: Final = (
    "INSERT INTO room_actions (code, idx, action)"
    " SELECT * FROM unnest(?::text[], ?::int[], ?::text[])"
)
"""A group commit's inserts in one statement (one round trip, not an
``executemany``)."""


@functools.lru_cache(maxsize=256)
def _numbered(sql: str) -> str:
    """``?`` placeholders become ``$1, $2, …`` (our SQL has no ``?`` elsewhere)."""
    counter = 0

    def number(_: re.Match[str]) -> str:
        nonlocal counter
        counter += 1
        return f"${counter}"

    return re.sub(r"\?", number, sql)


class _PgConn:
    __slots__ = ("_c",)

    def __init__(self, connection: Any) -> None:
        self._c = connection

    async def execute(self, sql: str, *args: Any) -> int:
        status: str = await self._c.execute(_numbered(sql), *args)
        last = status.rsplit(" ", 1)[-1]
        return int(last) if last.isdigit() else 0

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await self._c.executemany(_numbered(sql), rows)

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        return list(await self._c.fetch(_numbered(sql), *args))

    async def fetchone(self, sql: str, *args: Any) -> Row | None:
        row: Row | None = await self._c.fetchrow(_numbered(sql), *args)
        return row


class PostgresStore(SqlStore):
    """The store in a PostgreSQL database."""

    dialect: ClassVar[str] = "postgresql"
    lock_rows_sql: ClassVar[str] = " FOR UPDATE"
    new_epoch_sql: ClassVar[str] = "nextval('room_epochs')"
    claim_prelude_sql: ClassVar[str | None] = f"SET LOCAL lock_timeout = {CLAIM_LOCK_TIMEOUT_MS}"

    def __init__(self, pool: Any, url: str) -> None:
        super().__init__()
        self._pool = pool
        self.url = url

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 5,
        server_settings: dict[str, str] | None = None,
        migrations: Sequence[Migration] = POSTGRES,
        timeout: float = 10.0,
        idle_in_transaction_ms: int = IDLE_IN_TRANSACTION_MS,
    ) -> PostgresStore:
        """Connect, check the schema and migrate it.

        ``idle_in_transaction_ms``: PostgreSQL ends a session of this store that
        sits inside a transaction doing nothing that long (our transactions
        never wait for anything but their own statements, so only a paused or
        starved process does), which releases the room rows it had locked: a
        node frozen mid-commit cannot hold up the node taking its rooms over.
        0 leaves the server's setting."""
        settings = dict(server_settings or {})
        if idle_in_transaction_ms:
            settings.setdefault(
                "idle_in_transaction_session_timeout", str(int(idle_in_transaction_ms))
            )
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=min_size,
                max_size=max_size,
                server_settings=settings or None,
                timeout=timeout,
            )
        except ValueError as exc:
            raise BadDatabaseUrl(f"bad PostgreSQL URL: {exc}") from None
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise StoreUnavailable(f"cannot connect to PostgreSQL: {exc}") from exc
        store = cls(pool, url)
        try:
            await store._migrate(migrations)
        except BaseException:
            await pool.close()
            raise
        return store

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Conn]:
        # READ COMMITTED whatever the server's default: a group commit reads its
        # rooms' last indices in a statement after it locked their rows, and
        # that statement must see what the commits before the lock stored.
        async with (
            self._pool.acquire() as connection,
            connection.transaction(isolation="read_committed"),
        ):
            yield _PgConn(connection)

    @asynccontextmanager
    async def _reader(self) -> AsyncIterator[Conn]:
        async with (
            self._pool.acquire() as connection,
            connection.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield _PgConn(connection)

    def _in_list(self, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return "= ANY(?::text[])", [list(values)]

    async def _store_batch(self, conn: Conn, inserts: list[tuple[str, int, str]]) -> None:
        await conn.execute(
            STORE_BATCH_SQL,
            [c for c, _, _ in inserts],
            [i for _, i, _ in inserts],
            [t for _, _, t in inserts],
        )

    async def _migration_lock(self, conn: Conn) -> None:
        row = await conn.fetchone("SELECT current_schema()")
        if row is None or row[0] is None:
            raise StoreUnavailable("the search_path names no existing schema to create tables in")
        await conn.fetchone("SELECT pg_advisory_xact_lock(hashtext(?))", f"slapjack:{row[0]}")

    async def _close_connection(self) -> None:
        # asyncpg's close waits for every connection to be given back and
        # closed gracefully; one whose session the server ended (see
        # idle_in_transaction_ms) can keep it waiting: then cut them all.
        try:
            await asyncio.wait_for(self._pool.close(), CLOSE_TIMEOUT_S)
        except TimeoutError:
            log.warning("PostgreSQL pool did not close within %.0f s; terminated", CLOSE_TIMEOUT_S)
            self._pool.terminate()
