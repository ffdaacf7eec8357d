"""Every message of the wire protocol (docs/protocol.md) as a pydantic model.

Client frames are validated at the edge with :data:`CLIENT_MESSAGE` before
anything reaches a room; HTTP bodies with :class:`CreateRoom` and :class:`JoinRoom`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 4096
MAX_SEATS = 10
BOT_LEVELS = ("beginner", "casual", "pro", "matched", "perfect")

Token = Annotated[str, Field(min_length=1, max_length=128)]
FlipId = Annotated[int, Field(ge=0, le=1_000_000, strict=True)]
Stamp = Annotated[float, Field(allow_inf_nan=False, ge=-1e15, le=1e15)]
Name = Annotated[str, Field(min_length=1, max_length=24)]
BotLevel = Literal["beginner", "casual", "pro", "matched", "perfect"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ----------------------------------------------------------- client -> server


class _ClientBase(_Strict):
    v: Literal[1]


class Hello(_ClientBase):
    type: Literal["hello"]
    token: Token | None = None
    lang: Annotated[str, Field(max_length=16)] = "en"


class FlipMsg(_ClientBase):
    type: Literal["flip"]
    token: Token
    flip_id: FlipId


class SlapMsg(_ClientBase):
    type: Literal["slap"]
    token: Token
    flip_id: FlipId
    reaction_ms: Annotated[float, Field(allow_inf_nan=False, ge=0, le=600_000)]
    shown_at: Stamp | None = None
    input_at: Stamp | None = None
    call: bool = False


class CallMsg(_ClientBase):
    type: Literal["call"]
    token: Token
    flip_id: FlipId


class Pong(_ClientBase):
    type: Literal["pong"]
    id: Annotated[int, Field(ge=0, strict=True)]
    client_time: Stamp


class RematchMsg(_ClientBase):
    type: Literal["rematch"]
    token: Token


class LeaveMsg(_ClientBase):
    type: Literal["leave"]
    token: Token


class StartMsg(_ClientBase):
    type: Literal["start"]
    token: Token


ClientMessage = Annotated[
    Hello | FlipMsg | SlapMsg | CallMsg | Pong | RematchMsg | LeaveMsg | StartMsg,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# ------------------------------------------------------------------ HTTP bodies


class CreateRoom(_Strict):
    """``POST /api/rooms``. ``bots`` maps seat numbers (as strings) to levels."""

    name: Annotated[str, Field(max_length=40)] = ""
    game: Literal["slapjack", "irish-snap"] = "slapjack"
    rules: dict[str, Any] = Field(default_factory=dict)
    seats: Annotated[int, Field(ge=2, le=MAX_SEATS, strict=True)] = 4
    bots: dict[str, BotLevel] = Field(default_factory=dict)
    tempo: Literal["turn_timer", "fixed"] = "turn_timer"
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


class JoinRoom(_Strict):
    name: Name


class PlayNow(_Strict):
    name: Name = "You"


class Joined(BaseModel):
    code: str
    seat: int
    token: str
    name: str
    url: str


class SeatInfo(BaseModel):
    seat: int
    name: str | None
    bot: str | None
    connected: bool


class RoomInfo(BaseModel):
    code: str
    name: str
    game: str
    preset: str
    rules: dict[str, Any]
    tempo: str
    turn_seconds: float
    time_limit: int
    public: bool
    status: Literal["waiting", "playing", "over", "closed"]
    seats: list[SeatInfo]
    free_seats: int
    spectators: int
    url: str
    game_no: int


class ErrorBody(BaseModel):
    code: str
    message: str
