"""The store interface and the values it returns.

A :class:`Store` keeps two things:

* **live rooms**: a room's settings, its seats and the record of the game it
  plays, header first and then every action appended as it happens, so a
  server killed with ``kill -9`` rebuilds every live room exactly;
* **finished games**: the whole ``slapjack-record/1`` JSON with summary
  columns, and per-player figures (wins, jacks, reaction times) computed once
  at finish time by replaying the record, so history and stats are queries.

Two adapters implement it: :class:`~slapjack.store.sqlite.SqliteStore` (the
default) and :class:`~slapjack.store.postgres.PostgresStore`. See
``docs/storage.md``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Protocol, runtime_checkable

import orjson

from slapjack.core import Record, SlapjackError

from .errors import BadInput, CorruptRow, InvalidRecord

MAX_CODE_LENGTH: Final = 32
MAX_NAME_LENGTH: Final = 100
MAX_SEATS: Final = 52
MAX_JSON_BYTES: Final = 4_000_000


@dataclass(frozen=True, slots=True)
class Seat:
    """One taken seat of a live room. ``token_hash`` is what :func:`hash_token` made."""

    seat: int
    name: str
    token_hash: str | None
    is_bot: bool = False
    bot_level: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "is_bot": self.is_bot,
            "bot_level": self.bot_level,
        }


@dataclass(frozen=True, slots=True)
class RoomState:
    """Everything stored about a live room, actions in index order."""

    code: str
    settings: dict[str, Any]
    seats: tuple[Seat, ...]
    header: dict[str, Any]
    actions: tuple[dict[str, Any], ...]
    created_at: datetime
    game_started_at: datetime

    def record_dict(self) -> dict[str, Any]:
        """The current game as ``slapjack-record/1`` JSON (header plus actions)."""
        return {**self.header, "actions": list(self.actions)}

    def record(self) -> Record:
        """The current game as a :class:`~slapjack.core.Record`, ready for ``Table``."""
        try:
            return Record.from_dict(self.record_dict())
        except SlapjackError as exc:
            raise CorruptRow(f"room {self.code}: stored record is invalid: {exc}") from None


@dataclass(frozen=True, slots=True)
class Ownership:
    """Who owns a live room and at which fencing epoch (docs/storage.md).

    ``owner`` is None for a room no node has claimed (the single-node default);
    ``since`` is when the current owner created or claimed it."""

    code: str
    owner: str | None
    epoch: int
    since: datetime | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "owner": self.owner,
            "epoch": self.epoch,
            "since": self.since.isoformat() if self.since else None,
        }


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One finished game, as the history page lists it."""

    id: int
    room: str | None
    game: str
    preset: str
    players: tuple[str, ...]
    winners: tuple[str, ...]
    loser: str | None
    started_at: datetime
    finished_at: datetime
    flips: int
    actions: int
    complete: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "room": self.room,
            "game": self.game,
            "preset": self.preset,
            "players": list(self.players),
            "winners": list(self.winners),
            "loser": self.loser,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat(),
            "flips": self.flips,
            "actions": self.actions,
            "complete": self.complete,
        }


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A name's figures over every stored game it played in."""

    name: str
    games: int = 0
    wins: int = 0
    jacks: int = 0
    slaps: int = 0
    wrong_slaps: int = 0
    median_reaction_ms: float | None = None
    last_played: datetime | None = field(default=None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "jacks": self.jacks,
            "slaps": self.slaps,
            "wrong_slaps": self.wrong_slaps,
            "median_reaction_ms": self.median_reaction_ms,
            "last_played": self.last_played.isoformat() if self.last_played else None,
        }


SeatWrite = tuple[int, str, str | None, bool, str | None]
"""A seat as :meth:`Store.create_room` and :meth:`Store.reset_room` write it: ``(seat, name, token_hash,
is_bot, bot_level)``, the arguments of :meth:`Store.set_seat`."""


@runtime_checkable
class Store(Protocol):
    """The record store. Every method raises only :class:`~slapjack.store.StoreError`s."""

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        ...

    async def close(self) -> None:
        """Write what is pending and release the database."""
        ...

    async def schema_version(self) -> int: ...

    # ---------------------------------------------------------------- live rooms

    async def create_room(
        self,
        code: str,
        settings: Mapping[str, Any],
        record_header: Mapping[str, Any],
        *,
        owner: str | None = None,
        seats: Sequence[SeatWrite] = (),
    ) -> int:
        """A new live room; ``record_header`` is ``Record.to_dict()`` without actions,
        ``seats`` (each as :meth:`set_seat` takes it, e.g. its bots) are taken in
        the same transaction. Returns the room's first fencing epoch (``owner``
        holds it)."""
        ...

    async def reset_room(
        self,
        code: str,
        record_header: Mapping[str, Any],
        *,
        epoch: int | None = None,
        settings: Mapping[str, Any] | None = None,
        seats: Sequence[SeatWrite] = (),
    ) -> None:
        """A new game in the same room (its first, or a rematch): new header, no
        actions, seats and settings kept; with ``settings`` and ``seats``
        (each as :meth:`set_seat` takes it) those are written too, in the same
        transaction: a crash never leaves the new game's header under the
        settings of the game before."""
        ...

    async def update_settings(
        self, code: str, settings: Mapping[str, Any], *, epoch: int | None = None
    ) -> None: ...

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
        """Take or replace a seat."""
        ...

    async def clear_seat(self, code: str, seat: int, *, epoch: int | None = None) -> None: ...

    async def append_action(
        self, code: str, index: int, action: Mapping[str, Any], *, epoch: int | None = None
    ) -> None:
        """Store action ``index`` (0, 1, 2 …) of the room's game. Returns once it is
        durable (see docs/storage.md). The same content again is a no-op; other
        content at a stored index raises ActionConflict; a skipped index ActionGap.
        With ``epoch``, StaleOwner unless the room's stored epoch is that one."""
        ...

    async def load_room(self, code: str) -> RoomState: ...

    async def live_rooms(self) -> list[str]:
        """Codes of every live room, oldest first: what to resume after a restart."""
        ...

    async def close_room(self, code: str, *, epoch: int | None = None) -> None:
        """Forget a live room (its finished games stay)."""
        ...

    # ------------------------------------------------------- ownership (fencing)

    async def claim_room(self, code: str, owner: str, *, expected_epoch: int | None = None) -> int:
        """Make ``owner`` the room's owner with a new, higher epoch and return it.
        With ``expected_epoch``, only if the room is still at that epoch
        (StaleOwner otherwise: another node claimed it first)."""
        ...

    async def room_owner(self, code: str) -> Ownership: ...

    def fenced(self, code: str, epoch: int) -> FencedRoom:
        """The room's writes, each carrying ``epoch``."""
        ...

    async def owned_rooms(self, owner: str) -> list[Ownership]:
        """The live rooms ``owner`` holds, oldest first."""
        ...

    async def room_owners(self) -> dict[str | None, int]:
        """How many live rooms each owner holds (None: unclaimed rooms)."""
        ...

    # ----------------------------------------------------------- finished games

    async def finish_game(
        self,
        code: str | None,
        record: Mapping[str, Any],
        result: Mapping[str, Any] | None = None,
        *,
        epoch: int | None = None,
    ) -> int:
        """Store a finished (or abandoned) game; returns its id. Idempotent per record."""
        ...

    async def list_games(
        self, limit: int = 50, offset: int = 0, player: str | None = None
    ) -> list[GameSummary]: ...

    async def count_games(self, player: str | None = None) -> int: ...

    async def get_game(self, game_id: int) -> dict[str, Any]:
        """The stored ``slapjack-record/1`` JSON of a finished game."""
        ...

    async def get_summary(self, game_id: int) -> GameSummary: ...

    async def get_result(self, game_id: int) -> dict[str, Any]: ...

    async def player_stats(self, name: str) -> PlayerStats: ...


class FencedRoom:
    """One room's writes as its owner at ``epoch`` makes them: every call is the
    store's call with this room's code and ``epoch=epoch``, so each one raises
    :class:`~slapjack.store.StaleOwner` once another node has claimed the room."""

    __slots__ = ("code", "epoch", "store")

    def __init__(self, store: Store, code: str, epoch: int) -> None:
        self.store = store
        self.code = check_code(code)
        self.epoch = check_epoch(epoch)

    def __repr__(self) -> str:
        return f"<FencedRoom {self.code} epoch {self.epoch}>"

    async def append_action(self, index: int, action: Mapping[str, Any]) -> None:
        await self.store.append_action(self.code, index, action, epoch=self.epoch)

    async def reset_room(
        self,
        record_header: Mapping[str, Any],
        *,
        settings: Mapping[str, Any] | None = None,
        seats: Sequence[SeatWrite] = (),
    ) -> None:
        await self.store.reset_room(
            self.code, record_header, epoch=self.epoch, settings=settings, seats=seats
        )

    async def update_settings(self, settings: Mapping[str, Any]) -> None:
        await self.store.update_settings(self.code, settings, epoch=self.epoch)

    async def set_seat(
        self,
        seat: int,
        name: str,
        token_hash: str | None,
        is_bot: bool = False,
        bot_level: str | None = None,
    ) -> None:
        await self.store.set_seat(
            self.code, seat, name, token_hash, is_bot, bot_level, epoch=self.epoch
        )

    async def clear_seat(self, seat: int) -> None:
        await self.store.clear_seat(self.code, seat, epoch=self.epoch)

    async def finish_game(
        self, record: Mapping[str, Any], result: Mapping[str, Any] | None = None
    ) -> int:
        return await self.store.finish_game(self.code, record, result, epoch=self.epoch)

    async def close_room(self) -> None:
        await self.store.close_room(self.code, epoch=self.epoch)

    async def load(self) -> RoomState:
        return await self.store.load_room(self.code)

    async def still_owned(self) -> bool:
        """Is the room still at this epoch? (A read: a later write may still be refused.)"""
        return (await self.store.room_owner(self.code)).epoch == self.epoch


# ------------------------------------------------------------------- helpers


def hash_token(token: str) -> str:
    """What to store for a seat's secret token (SHA-256, hex)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, token_hash: str | None) -> bool:
    """Does ``token`` belong to a seat stored with ``token_hash``? (constant time)"""
    if token_hash is None:
        return False
    return hmac.compare_digest(hash_token(token), token_hash)


_CANONICAL: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
"""One encoder for :func:`dump_json` (``json.dumps`` with these options builds a
new one per call, a third of its time for an action)."""


_FLAT: Final = frozenset({str, int, bool, type(None)})
"""The value types of an object :func:`dump_json` gives to orjson (an action's)."""


def dump_json(value: Any, what: str) -> str:
    """Canonical JSON text (sorted keys, no NaN): equal values give equal text.

    An object of text, whole numbers, booleans and nulls (every action) is
    encoded by orjson, in under half the time, the same text (no floats: the two
    write some differently); whatever orjson refuses (keys that are not text,
    numbers beyond 64 bits, lone surrogates) and everything else by
    :data:`_CANONICAL`, as before."""
    text: str | None = None
    if type(value) is dict and all(type(v) in _FLAT for v in value.values()):
        try:
            text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
        except orjson.JSONEncodeError:
            text = None
    if text is None:
        try:
            text = _CANONICAL.encode(value)
        except (TypeError, ValueError) as exc:
            raise BadInput(f"{what} is not JSON: {exc}") from None
    if len(text) > MAX_JSON_BYTES:
        raise BadInput(f"{what} is larger than {MAX_JSON_BYTES} characters")
    return text


def load_json(text: Any, what: str, *, kind: type = dict) -> Any:
    """Parse a stored JSON column; a bad row raises :class:`CorruptRow`."""
    if not isinstance(text, str):
        raise CorruptRow(f"{what}: stored value is not text")
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise CorruptRow(f"{what}: stored JSON is invalid: {exc}") from None
    if not isinstance(value, kind):
        raise CorruptRow(f"{what}: stored JSON is not a {kind.__name__}")
    return value


def check_object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise BadInput(f"{what} must be a JSON object, got {type(value).__name__}")
    if not all(isinstance(k, str) for k in value):
        raise BadInput(f"{what} must have text keys")
    return dict(value)


def check_code(code: Any) -> str:
    if not isinstance(code, str) or not 1 <= len(code) <= MAX_CODE_LENGTH:
        raise BadInput(f"a room code is 1 to {MAX_CODE_LENGTH} characters, got {code!r}")
    if not code.isprintable() or any(c.isspace() for c in code):
        raise BadInput(f"a room code has no spaces or control characters, got {code!r}")
    return code


def check_seat(seat: Any) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < MAX_SEATS:
        raise BadInput(f"a seat is a whole number from 0 to {MAX_SEATS - 1}, got {seat!r}")
    return seat


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise BadInput(f"a name is 1 to {MAX_NAME_LENGTH} characters, got {name!r}")
    return name


def seat_row(
    code: str,
    seat: int,
    name: str,
    token_hash: str | None,
    is_bot: bool,
    bot_level: str | None,
) -> tuple[str, int, str, str | None, int, str | None]:
    """A seat checked (``BadInput``): the row ``room_seats`` keeps of it
    (``is_bot`` as 0 or 1)."""
    seat, name = check_seat(seat), check_name(name)
    if token_hash is not None and (not isinstance(token_hash, str) or len(token_hash) > 200):
        raise BadInput("token_hash is text of at most 200 characters, or None")
    if not isinstance(is_bot, bool):
        raise BadInput(f"is_bot must be true or false, got {is_bot!r}")
    if bot_level is not None and (not isinstance(bot_level, str) or len(bot_level) > 40):
        raise BadInput("bot_level is a short text or None")
    return code, seat, name, token_hash, int(is_bot), bot_level


def seat_rows(
    code: str, seats: Sequence[SeatWrite]
) -> list[tuple[str, int, str, str | None, int, str | None]]:
    """``seats`` (:data:`SeatWrite` tuples) checked as :func:`seat_row` checks one."""
    if not isinstance(seats, Sequence) or not all(
        isinstance(seat, tuple) and len(seat) == 5 for seat in seats
    ):
        raise BadInput("seats are (seat, name, token_hash, is_bot, bot_level) tuples")
    return [seat_row(code, *seat) for seat in seats]


def check_owner(owner: Any) -> str:
    """A node id: 1 to 100 printable characters, no spaces, no '#'."""
    if not isinstance(owner, str) or not 1 <= len(owner) <= MAX_NAME_LENGTH:
        raise BadInput(f"an owner is 1 to {MAX_NAME_LENGTH} characters, got {owner!r}")
    if not owner.isprintable() or any(c.isspace() for c in owner) or "#" in owner:
        raise BadInput(f"an owner has no spaces, control characters or '#', got {owner!r}")
    return owner


def check_epoch(epoch: Any) -> int:
    if isinstance(epoch, bool) or not isinstance(epoch, int) or not 0 <= epoch < 2**63:
        raise BadInput(f"an epoch is a whole number >= 0, got {epoch!r}")
    return epoch


def check_index(index: Any) -> int:
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 2**31:
        raise BadInput(f"an action index is a whole number >= 0, got {index!r}")
    return index


def check_paging(limit: Any, offset: Any) -> tuple[int, int]:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise BadInput(f"limit must be 1 to 1000, got {limit!r}")
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset < 2**31:
        raise BadInput(f"offset must be a whole number >= 0, got {offset!r}")
    return limit, offset


def check_game_id(game_id: Any) -> int:
    if isinstance(game_id, bool) or not isinstance(game_id, int) or not 0 < game_id < 2**63:
        raise BadInput(f"a game id is a whole number > 0, got {game_id!r}")
    return game_id


def check_header(header: Any) -> dict[str, Any]:
    """A record header: a valid record with no actions (``actions`` absent or empty)."""
    data = check_object(header, "record_header")
    if data.get("actions"):
        raise InvalidRecord("a record header has no actions: append them one by one")
    data.pop("actions", None)
    try:
        Record.from_dict({**data, "actions": []})
    except SlapjackError as exc:
        raise InvalidRecord(f"record_header: {exc}") from None
    return data


def check_action(action: Any) -> dict[str, Any]:
    """An action in its record form: an object with whole-millisecond ``t``."""
    data = check_object(action, "action")
    t = data.get("t")
    if isinstance(t, bool) or not isinstance(t, int) or t < 0:
        raise BadInput(f"an action has a whole-millisecond t >= 0, got {t!r}")
    for value in data.values():
        if isinstance(value, float) and not math.isfinite(value):
            raise BadInput("an action has only finite numbers")
    return data


def now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def from_ms(ms: Any, what: str) -> datetime:
    if isinstance(ms, bool) or not isinstance(ms, int):
        raise CorruptRow(f"{what}: stored time is not a whole number")
    try:
        return datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        raise CorruptRow(f"{what}: stored time {ms} is out of range") from None
