"""Versioned schema migrations, as ordered SQL steps per dialect.

A database remembers the steps applied to it in ``schema_version``. Opening a
store applies every newer step in one transaction (so an upgrade is all or
nothing), under a lock so two processes opening at once do not both migrate.
Never edit a released step: add a new one.

Times are whole milliseconds since the Unix epoch (UTC) in ``BIGINT`` columns;
JSON is stored as canonical text (sorted keys), exactly as given, in both
dialects; flags are 0/1 integers. Keeping the two dialects alike lets one body
of SQL serve both adapters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


SCHEMA_VERSION_TABLE: Final = (
    "CREATE TABLE IF NOT EXISTS schema_version ("
    " version INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL,"
    " applied_ms BIGINT NOT NULL)"
)


def _live_rooms(action_table_suffix: str) -> tuple[str, ...]:
    return (
        """CREATE TABLE rooms (
            code TEXT PRIMARY KEY,
            settings TEXT NOT NULL,
            header TEXT NOT NULL,
            next_index INTEGER NOT NULL DEFAULT 0,
            created_ms BIGINT NOT NULL,
            game_started_ms BIGINT NOT NULL
        )""",
        """CREATE TABLE room_seats (
            code TEXT NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            token_hash TEXT,
            is_bot INTEGER NOT NULL DEFAULT 0,
            bot_level TEXT,
            PRIMARY KEY (code, seat)
        )""",
        f"""CREATE TABLE room_actions (
            code TEXT NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            action TEXT NOT NULL,
            PRIMARY KEY (code, idx)
        ){action_table_suffix}""",
    )


def _finished_games(id_column: str, real: str) -> tuple[str, ...]:
    return (
        f"""CREATE TABLE games (
            id {id_column},
            record_sha TEXT NOT NULL UNIQUE,
            room TEXT,
            game TEXT NOT NULL,
            preset TEXT NOT NULL,
            players TEXT NOT NULL,
            winners TEXT NOT NULL,
            loser TEXT,
            started_ms BIGINT NOT NULL,
            finished_ms BIGINT NOT NULL,
            flips INTEGER NOT NULL,
            actions INTEGER NOT NULL,
            complete INTEGER NOT NULL,
            record TEXT NOT NULL,
            result TEXT NOT NULL
        )""",
        """CREATE TABLE game_players (
            game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            place INTEGER NOT NULL,
            is_winner INTEGER NOT NULL,
            is_loser INTEGER NOT NULL,
            is_bot INTEGER NOT NULL,
            cards INTEGER NOT NULL,
            jacks INTEGER NOT NULL,
            slaps INTEGER NOT NULL,
            wrong_slaps INTEGER NOT NULL,
            PRIMARY KEY (game_id, seat)
        )""",
        "CREATE INDEX game_players_by_name ON game_players (name, game_id)",
        f"""CREATE TABLE reactions (
            game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            reaction_ms {real} NOT NULL
        )""",
        "CREATE INDEX reactions_by_name ON reactions (name, reaction_ms)",
    )


def _ownership(epoch_counter: tuple[str, ...]) -> tuple[str, ...]:
    """Version 3: who owns each live room and its fencing epoch.

    ``owner`` is a node id (NULL: no node claimed it, the single-node default);
    ``epoch`` comes from one counter for the whole database, so it only grows,
    also across a room closed and created again under the same code;
    rooms from before this step keep epoch 0 until a node claims them."""
    return (
        "ALTER TABLE rooms ADD COLUMN owner TEXT",
        "ALTER TABLE rooms ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE rooms ADD COLUMN owner_since_ms BIGINT",
        "CREATE INDEX rooms_by_owner ON rooms (owner)",
        *epoch_counter,
    )


def _name_keys(fold: str) -> tuple[str, ...]:
    """Version 4: each name also kept folded (``name_key``, lower case, as
    :func:`name_key` makes it), so that a case-insensitive lookup of a player
    is an index lookup; ``fold``: the dialect's lower-case function, for the
    rows stored before this step."""
    return (
        "ALTER TABLE game_players ADD COLUMN name_key TEXT",
        f"UPDATE game_players SET name_key = {fold}(name)",
        "CREATE INDEX game_players_by_key ON game_players (name_key, game_id)",
        "ALTER TABLE reactions ADD COLUMN name_key TEXT",
        f"UPDATE reactions SET name_key = {fold}(name)",
        "CREATE INDEX reactions_by_key ON reactions (name_key, reaction_ms)",
    )


def _next_from_actions(guard: tuple[str, ...]) -> tuple[str, ...]:
    """Version 5: a room's next action index is read from its actions
    (``max(idx) + 1``, 0 without any) instead of kept in its row: a group
    commit of appends then writes only the rooms' leaves of actions, not
    also each room's row (one page fewer per room in a commit; issue 14).
    ``guard``: SQLite's change counter of the rooms (``room_guard``), moved by
    every write that changes a room other than an append (see
    :class:`slapjack.store._sqlite_raw.Known`)."""
    return ("ALTER TABLE rooms DROP COLUMN next_index", *guard)


def name_key(name: str) -> str:
    """A player's name as the ``name_key`` columns keep it: Python's lower
    case (the mapping of PostgreSQL's ``lower`` in a UTF-8 database, and of
    the ``slapjack_fold`` the SQLite adapter registers)."""
    return name.lower()


SQLITE: Final[tuple[Migration, ...]] = (
    Migration(1, "live rooms", _live_rooms(" WITHOUT ROWID")),
    Migration(
        2, "finished games and player figures", _finished_games("INTEGER PRIMARY KEY", "REAL")
    ),
    Migration(
        3,
        "room owners and fencing epochs",
        _ownership(
            (
                "CREATE TABLE room_epochs (id INTEGER PRIMARY KEY CHECK (id = 1),"
                " last BIGINT NOT NULL)",
                "INSERT INTO room_epochs (id, last) VALUES (1, 0)",
            )
        ),
    ),
    Migration(4, "folded player names", _name_keys("slapjack_fold")),
    Migration(
        5,
        "next action index from the actions",
        _next_from_actions(
            (
                "CREATE TABLE room_guard (id INTEGER PRIMARY KEY CHECK (id = 1),"
                " changes BIGINT NOT NULL)",
                "INSERT INTO room_guard (id, changes) VALUES (1, 0)",
            )
        ),
    ),
)

POSTGRES: Final[tuple[Migration, ...]] = (
    Migration(1, "live rooms", _live_rooms("")),
    Migration(
        2,
        "finished games and player figures",
        _finished_games("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "DOUBLE PRECISION"),
    ),
    Migration(3, "room owners and fencing epochs", _ownership(("CREATE SEQUENCE room_epochs",))),
    Migration(4, "folded player names", _name_keys("lower")),
    Migration(5, "next action index from the actions", _next_from_actions(())),
)


def check_migrations(steps: tuple[Migration, ...]) -> None:
    """Versions must run 1, 2, 3 … without holes (a programming error otherwise)."""
    for i, step in enumerate(steps, start=1):
        if step.version != i:
            raise RuntimeError(f"migration {step.name!r} has version {step.version}, expected {i}")
