"""The HTTP bodies of the room API (docs/protocol.md, "HTTP"): what a client
sends (:class:`CreateRoom`, :class:`JoinRoom`, :class:`PlayNow`,
:class:`Practice`; strict, like
every frame) and what the server answers (:class:`RoomCreated`,
:class:`Joined`, :class:`RoomInfo`, :class:`RoomPage`, :class:`ErrorBody`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from .base import MAX_SEATS, BotLevel, Count, Seat, Strict
from .codes import ErrorCode, HttpStatusCode
from .names import Name, RoomName

GameName = Literal["slapjack", "irish-snap"]
Tempo = Literal["turn_timer", "fixed"]
RoomStatusName = Literal["waiting", "playing", "over", "closed"]
RoomCode = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Z0-9]+$")]


# ------------------------------------------------------------- client -> server


class CreateRoom(Strict):
    """``POST /api/rooms``. ``bots`` maps seat numbers (as strings) to levels."""

    name: RoomName = ""
    game: GameName = "slapjack"
    rules: dict[str, Any] = Field(default_factory=dict)
    seats: Annotated[int, Field(ge=2, le=MAX_SEATS, strict=True)] = 4
    bots: dict[str, BotLevel] = Field(default_factory=dict)
    tempo: Tempo = "turn_timer"
    turn_seconds: Annotated[float, Field(ge=0.5, le=60)] = 5.0
    time_limit: Annotated[int, Field(ge=0, le=24 * 3600, strict=True)] = 0
    public: bool = True

    @field_validator("bots")
    @classmethod
    def _seats_in_range(cls, bots: dict[str, str]) -> dict[str, str]:
        for key in bots:
            if not key.isdigit() or not 0 <= int(key) < MAX_SEATS:
                raise ValueError(f"bot seat {key!r} is not a seat number")
        return bots


class JoinRoom(Strict):
    """``POST /api/rooms/{code}/join``."""

    name: Name


class PlayNow(Strict):
    """``POST /api/play-now``: you and three bots of one ``level`` (default
    ``casual``, which a typical newcomer beats; ``matched`` plays at your speed);
    ``lang`` names the room ("Anna vs bots", "Anna gegen Bots")."""

    name: Name = "You"
    level: BotLevel = "casual"
    lang: Literal["en", "de"] = "en"


class Practice(Strict):
    """``POST /api/practice``: a guided first game, you and two slow bots on a
    stacked deck (docs/protocol.md, "Practice"); ``lang`` names the room."""

    name: Name = "You"
    lang: Literal["en", "de"] = "en"


# ------------------------------------------------------------- server -> client


class RoomCreated(Strict):
    """The answer to ``POST /api/rooms``."""

    code: RoomCode
    url: str
    ws: str | None = None
    """The WebSocket URL of the node that runs the room (scale-out: the owner's)."""


class Joined(Strict):
    """The answer to a join (and to play-now): your seat and its token."""

    code: RoomCode
    seat: Seat
    token: str
    name: str
    url: str
    ws: str | None = None
    """The WebSocket URL of the node that runs the room (scale-out: the owner's)."""


class Invite(Strict):
    """``GET /api/rooms/{code}/invite``: the link to send to friends."""

    url: str
    local_only: bool
    """True when the link can only be opened on the server's own machine
    (it listens on loopback: start it with ``--lan`` or ``--public-url``)."""


class SeatInfo(Strict):
    seat: Seat
    name: str | None
    """``None``: the seat is free."""
    bot: BotLevel | None
    """The level of the bot in this seat (also one that took over a departed player)."""
    connected: bool


class RoomInfo(Strict):
    """A room as the lobby lists it (``GET /api/rooms/{code}``, ``welcome.room``)."""

    code: RoomCode
    name: str
    game: GameName
    preset: str
    rules: dict[str, Any]
    tempo: Tempo
    turn_seconds: float
    time_limit: Count
    public: bool
    status: RoomStatusName
    seats: list[SeatInfo]
    free_seats: Count
    spectators: Count
    url: str
    game_no: Count


class RoomPage(Strict):
    """``GET /api/rooms``: one page of the public rooms."""

    rooms: list[RoomInfo]
    total: Count
    limit: Count
    offset: Count


class ErrorBody(Strict):
    """Every HTTP error, the framework's own too."""

    code: ErrorCode | HttpStatusCode
    message: str
