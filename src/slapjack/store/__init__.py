"""Persistence: live rooms and finished games, in SQLite (default) or PostgreSQL.

``store = await open_store(database_url, data_dir)`` gives a :class:`Store`;
see ``docs/storage.md`` for the contract, the schema and what survives a crash.
"""

from __future__ import annotations

from .base import (
    FencedRoom,
    GameSummary,
    Ownership,
    PlayerStats,
    RoomState,
    Seat,
    Store,
    hash_token,
    token_matches,
)
from .errors import (
    ActionConflict,
    ActionGap,
    BadDatabaseUrl,
    BadInput,
    CorruptRow,
    InvalidRecord,
    RoomExists,
    SchemaTooNew,
    StaleOwner,
    StoreClosed,
    StoreError,
    StoreUnavailable,
    UnknownGame,
    UnknownRoom,
)
from .factory import DEFAULT_FILE, open_store
from .postgres import PostgresStore
from .sqlite import SqliteStore

__all__ = [
    "DEFAULT_FILE",
    "ActionConflict",
    "ActionGap",
    "BadDatabaseUrl",
    "BadInput",
    "CorruptRow",
    "FencedRoom",
    "GameSummary",
    "InvalidRecord",
    "Ownership",
    "PlayerStats",
    "PostgresStore",
    "RoomExists",
    "RoomState",
    "SchemaTooNew",
    "Seat",
    "SqliteStore",
    "StaleOwner",
    "Store",
    "StoreClosed",
    "StoreError",
    "StoreUnavailable",
    "UnknownGame",
    "UnknownRoom",
    "hash_token",
    "open_store",
    "token_matches",
]
