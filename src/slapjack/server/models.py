"""Every message of the wire protocol (docs/protocol.md) as a pydantic model.

Client frames are validated at the edge with :data:`CLIENT_MESSAGE` before
anything reaches a room; HTTP bodies with :class:`CreateRoom` and :class:`JoinRoom`.
Every model is strict: no coercion (``"5"`` is not a number, ``1.0`` and
``true`` are not the integer 1, ``"true"`` is not a boolean), unknown fields
are refused. Player and room names go through :func:`clean_name`.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StrictInt,
    TypeAdapter,
    field_validator,
)
from pydantic_core import PydanticCustomError

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 4096
MAX_SEATS = 10
BOT_LEVELS = ("beginner", "casual", "pro", "matched", "perfect")
MAX_PLAYER_NAME: Final = 24
MAX_ROOM_NAME: Final = 40

NAME_FORM: Final = "NFKC"
"""Names are stored and compared in Unicode NFKC: compatibility forms that look
alike fold into one (fullwidth ``Ａｎｎａ`` is ``Anna``, the ligature ``ﬁ`` is
``fi``, a no-break space is a space), so two players cannot hold names that
look the same and ``/api/stats/{name}`` finds a player however the name was typed."""

REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories never allowed in a name: controls (NUL, tab, newline…),
format characters (zero-width space and joiner, bidi overrides such as U+202E,
soft hyphen, BOM), surrogates, private use, unassigned, line/paragraph separators."""

INVISIBLE: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
"""Characters that are letters, marks or symbols by category but show nothing
(Hangul fillers, the blank Braille pattern, the combining grapheme joiner,
the Khmer inherent vowels): refused anywhere in a name."""

MAX_MARKS: Final = 4
"""At most this many combining marks on one character, counted in the
decomposed form (NFKD: ``ệ`` is ``e`` and two marks): no "Zalgo" names."""


_KINDS: Final = {
    "Cc": "a control character",
    "Cf": "a format character: invisible, or it turns the text direction",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


def _refuse_characters(text: str, what: str) -> None:
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category in REFUSED_CATEGORIES or ch in INVISIBLE:
            kind = "an invisible character" if ch in INVISIBLE else _KINDS[category]
            label = unicodedata.name(ch, "")
            raise PydanticCustomError(
                "bad_name",
                "{what} may not contain U+{code}{label} ({kind}, at position {index})",
                {
                    "what": what,
                    "code": f"{ord(ch):04X}",
                    "label": f" {label}" if label else "",
                    "kind": kind,
                    "index": i,
                },
            )


def clean_name(value: str, *, what: str = "name", max_length: int = MAX_PLAYER_NAME) -> str:
    """``value`` in NFKC with runs of spaces made one and the ends stripped;
    raises ``PydanticCustomError`` (type ``bad_name``) for a control, format or
    invisible character, a run of more than :data:`MAX_MARKS` combining marks,
    a name that shows nothing (only spaces, fillers or marks), a leading
    combining mark, or one longer than ``max_length`` characters. An empty
    string stays empty (the caller decides whether that is allowed)."""
    _refuse_characters(value, what)
    name = unicodedata.normalize(NAME_FORM, value)
    _refuse_characters(name, what)
    name = " ".join(name.split())
    marks = 0
    visible = False
    for ch in unicodedata.normalize("NFKD", name):  # marks counted decomposed
        category = unicodedata.category(ch)
        if category[0] == "M":
            marks += 1
            if marks > MAX_MARKS:
                raise PydanticCustomError(
                    "bad_name",
                    "{what} has more than {most} combining marks on one character",
                    {"what": what, "most": MAX_MARKS},
                )
        else:
            marks = 0
            visible = visible or category[0] in "LNPS"
    if name and not visible:
        raise PydanticCustomError(
            "bad_name", "{what} shows nothing: it needs a letter, digit or symbol", {"what": what}
        )
    if name and unicodedata.category(name[0])[0] == "M":
        raise PydanticCustomError(
            "bad_name", "{what} may not start with a combining mark", {"what": what}
        )
    if len(name) > max_length:
        raise PydanticCustomError(
            "bad_name",
            "{what} is longer than {most} characters",
            {"what": what, "most": max_length},
        )
    return name


def _player_name(value: str) -> str:
    name = clean_name(value)
    if not name:
        raise PydanticCustomError("bad_name", "name is empty", {})
    return name


def _room_name(value: str) -> str:
    return clean_name(value, what="room name", max_length=MAX_ROOM_NAME)


def _protocol_version(value: int) -> int:
    if value != PROTOCOL_VERSION:
        raise PydanticCustomError(
            "bad_version",
            "v must be {version} (the protocol version)",
            {"version": PROTOCOL_VERSION},
        )
    return value


Token = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]
FlipId = Annotated[int, Field(ge=0, le=1_000_000)]
Stamp = Annotated[float, Field(allow_inf_nan=False, ge=-1e15, le=1e15)]
Name = Annotated[str, Field(max_length=4 * MAX_PLAYER_NAME), AfterValidator(_player_name)]
"""A player name: 1–24 characters after :func:`clean_name` (the raw text may be
longer, e.g. NFKC folds or spaces to collapse, up to 96 characters)."""
RoomName = Annotated[str, Field(max_length=4 * MAX_ROOM_NAME), AfterValidator(_room_name)]
MAX_FRAME_ID: Final = 2**31 - 1
_FRAME_ID_CHARS: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-"
)


def _frame_id(value: Any) -> int | str:
    if type(value) is int and 0 <= value <= MAX_FRAME_ID:
        return value
    if type(value) is str and 1 <= len(value) <= 32 and set(value) <= _FRAME_ID_CHARS:
        return value
    raise PydanticCustomError(
        "bad_id",
        "id must be a whole number 0-{most} or 1-32 letters, digits or ._:-",
        {"most": MAX_FRAME_ID},
    )


FrameId = Annotated[int | str, PlainValidator(_frame_id)]
"""The optional ``id`` a client may put on any frame: an integer 0–2^31-1 or a
string of 1–32 letters, digits and ``._:-``; error frames answering it carry it."""
BotLevel = Literal["beginner", "casual", "pro", "matched", "perfect"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# ----------------------------------------------------------- client -> server


class _ClientBase(_Strict):
    v: Annotated[StrictInt, AfterValidator(_protocol_version)]
    id: FrameId | None = None


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
    id: Annotated[int, Field(ge=0, le=2**53)]
    """The ``id`` of the ``ping`` it answers."""
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

    name: RoomName = ""
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
