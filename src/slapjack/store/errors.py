"""Typed errors of the record store.

Every error the store raises on bad input, a bad stored row or an unreachable
database is a :class:`StoreError` with a stable ``code``, so the server can turn
it into an error frame or an HTTP status without parsing messages.
"""

from __future__ import annotations

from slapjack.core.errors import SlapjackError


class StoreError(SlapjackError):
    """Base class of every error the store raises. (A :class:`~slapjack.core.SlapjackError`:
    one hierarchy, a stable ``code`` and a ``message`` for every error.)"""

    code = "store_error"


class BadInput(StoreError, ValueError):
    """An argument is malformed (not a JSON object, a bad room code, a bad seat …)."""

    code = "bad_input"


class InvalidRecord(BadInput):
    """A record or a record header does not check or does not replay."""

    code = "bad_record"


class BadDatabaseUrl(BadInput):
    """``--database-url`` names no supported database."""

    code = "bad_database_url"


class UnknownRoom(StoreError, LookupError):
    """No live room has this code (never created, or closed)."""

    code = "unknown_room"


class RoomExists(StoreError):
    """A live room with this code exists already."""

    code = "room_exists"


class UnknownGame(StoreError, LookupError):
    """No finished game has this id."""

    code = "unknown_game"


class ActionConflict(StoreError):
    """An action index is stored already, with different content."""

    code = "action_conflict"

    def __init__(self, room: str, index: int) -> None:
        super().__init__(f"room {room}: action {index} is stored already with different content")
        self.room = room
        self.index = index


class ActionGap(StoreError):
    """An action index skips ahead: ``expected`` is the next index the room takes."""

    code = "action_gap"

    def __init__(self, room: str, index: int, expected: int) -> None:
        super().__init__(f"room {room}: action {index} given, but the next index is {expected}")
        self.room = room
        self.index = index
        self.expected = expected


class StaleOwner(StoreError):
    """A fenced write of a room whose ownership moved on: the room's stored
    epoch is not the writer's. The writer no longer owns the room and must stop
    acting for it (docs/storage.md, "Ownership and fencing")."""

    code = "stale_owner"

    def __init__(self, room: str, epoch: int, current: int, owner: str | None) -> None:
        by = f" by {owner}" if owner is not None else ""
        super().__init__(
            f"room {room}: epoch {epoch} is stale, the room is owned{by} at epoch {current}"
        )
        self.room = room
        self.epoch = epoch
        self.current = current
        self.owner = owner


class CorruptRow(StoreError):
    """A stored row cannot be read back (bad JSON, a wrong type, a hole in the actions)."""

    code = "corrupt_row"


class SchemaTooNew(StoreError):
    """The database was migrated by a newer version of this program."""

    code = "schema_too_new"


class StoreUnavailable(StoreError):
    """The database could not be reached or failed underneath us."""

    code = "store_unavailable"


class StoreClosed(StoreError):
    """The store was closed."""

    code = "store_closed"
