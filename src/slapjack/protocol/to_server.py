"""Client → server: the frames a client sends on ``/ws/{code}``.

Every frame is validated at the edge with :data:`CLIENT_MESSAGE` before
anything reaches a room. Strict (see :class:`~slapjack.protocol.base.Strict`):
``v`` is the integer 1, ``flip_id`` a whole number, ``call`` a boolean, no
unknown field. A refusal names the field: ``slap.reaction_ms: Input should be
a valid number``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, TypeAdapter
from pydantic import ValidationError as _ValidationError
from pydantic_core import PydanticCustomError

from .base import PROTOCOL_VERSION, FrameId, Stamp, Strict, frame_id
from .codes import ErrorCode

Token = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]
"""A seat token: what ``join`` answered."""
FlipId = Annotated[int, Field(ge=0, le=1_000_000)]
"""The number of flips so far, as in the latest view (``flip_id``)."""


def _protocol_version(value: int) -> int:
    if value != PROTOCOL_VERSION:
        raise PydanticCustomError(
            "bad_version",
            "v must be {version} (the protocol version)",
            {"version": PROTOCOL_VERSION},
        )
    return value


Version = Annotated[StrictInt, AfterValidator(_protocol_version)]


class _ClientBase(Strict):
    v: Version
    id: FrameId | None = None
    """Any value to find in the ``error`` (or ``welcome``) that answers this frame."""


class Hello(_ClientBase):
    """The first frame: binds the socket to a seat (``token``) or makes it a spectator's."""

    type: Literal["hello"]
    token: Token | None = None
    lang: Annotated[str, Field(max_length=16)] = "en"


class FlipMsg(_ClientBase):
    """Flip your top card."""

    type: Literal["flip"]
    token: Token
    flip_id: FlipId


class SlapMsg(_ClientBase):
    """Slap the card of flip ``flip_id``: ``reaction_ms = input_at - shown_at``."""

    type: Literal["slap"]
    token: Token
    flip_id: FlipId
    reaction_ms: Annotated[float, Field(allow_inf_nan=False, ge=0, le=600_000)]
    shown_at: Stamp | None = None
    input_at: Stamp | None = None
    call: bool = False


class CallMsg(_ClientBase):
    """Say-it: the "Slapjack!" call for flip ``flip_id``."""

    type: Literal["call"]
    token: Token
    flip_id: FlipId


class Pong(_ClientBase):
    """The answer to a ``ping``, at once, stamped on the client's clock."""

    type: Literal["pong"]
    id: Annotated[int, Field(ge=0, le=2**53)]
    """The ``id`` of the ``ping`` it answers."""
    client_time: Stamp


class RematchMsg(_ClientBase):
    """After the end: ask for a rematch with the same seats."""

    type: Literal["rematch"]
    token: Token


class LeaveMsg(_ClientBase):
    """Give up the seat: a bot takes it, the socket becomes a spectator's."""

    type: Literal["leave"]
    token: Token


class StartMsg(_ClientBase):
    """While the room waits: start now, bots take the free seats."""

    type: Literal["start"]
    token: Token


ClientMessage = Annotated[
    Hello | FlipMsg | SlapMsg | CallMsg | Pong | RematchMsg | LeaveMsg | StartMsg,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
"""Validates a client frame: ``CLIENT_MESSAGE.validate_json(text)``."""

CLIENT_MESSAGES: tuple[type[_ClientBase], ...] = (
    Hello,
    FlipMsg,
    SlapMsg,
    CallMsg,
    Pong,
    RematchMsg,
    LeaveMsg,
    StartMsg,
)


_PONG_ID_MAX = 2**53
_STAMP_MAX = 1e15


def fast_pong(text: str) -> tuple[int, float] | None:
    """``(id, client_time)`` of ``text`` when it is a well-formed ``pong``
    (the client's most common frame, one a second): what
    ``CLIENT_MESSAGE.validate_json(text)`` would accept as a :class:`Pong`,
    checked by hand at a fraction of its cost. ``None`` for anything else,
    a ``pong`` it would refuse included: validate that text with
    :data:`CLIENT_MESSAGE`, which gives the refusal. (orjson and pydantic
    both keep the last of a repeated key; orjson refuses what is not JSON,
    infinities and integers beyond 64 bits, which then go to pydantic.)"""
    if '"pong"' not in text:
        return None
    d: Any
    try:
        d = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(d) is not dict or len(d) != 4 or d.get("type") != "pong":
        return None
    v: Any = d.get("v")
    ping: Any = d.get("id")
    at: Any = d.get("client_time")
    if type(v) is not int or v != PROTOCOL_VERSION:
        return None
    if type(ping) is not int or not 0 <= ping <= _PONG_ID_MAX:
        return None
    kind = type(at)
    if kind is int:
        if not -_STAMP_MAX <= at <= _STAMP_MAX:
            return None
        at = float(at)
    elif kind is not float or not -_STAMP_MAX <= at <= _STAMP_MAX:  # NaN fails too
        return None
    return ping, at


class _IdProbe(BaseModel):
    """Only the ``id`` of a frame that did not validate (to answer it)."""

    model_config = ConfigDict(extra="ignore")
    id: Any = None


def answer_id(text: str) -> int | str | None:
    """The valid ``id`` of a frame that failed validation, else ``None``."""
    try:
        raw = _IdProbe.model_validate_json(text).id
        return frame_id(raw) if raw is not None else None
    except (_ValidationError, PydanticCustomError):
        return None


def refusal(exc: _ValidationError) -> tuple[ErrorCode, str]:
    """The ``(code, message)`` of the ``error`` frame for a frame that did not
    validate: ``bad_json``, or ``bad_message`` naming the first bad field
    (``slap.reaction_ms: Input should be a valid number``), at most 200 characters."""
    errors = exc.errors()
    if any(e["type"] == "json_invalid" for e in errors):
        return ErrorCode.BAD_JSON, "not valid JSON"
    first = errors[0]
    # (no location: the frame's ``type`` names no message, or it is no object)
    where = ".".join(str(p) for p in first["loc"]) or (
        "type" if first["type"].startswith("union_tag") else "frame"
    )
    return ErrorCode.BAD_MESSAGE, f"{where}: {first['msg']}"[:200]
