"""What every message shares: the protocol version, the strict base model, the
limits a message's fields are checked against, the optional frame ``id``."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator
from pydantic_core import PydanticCustomError

PROTOCOL_VERSION: Final = 1
"""The ``v`` of every client frame and of ``welcome``; the browser's
``connection.js`` carries the same number (a test compares them)."""

MAX_FRAME_BYTES: Final = 4096
"""A client frame is at most this many bytes (UTF-8), else ``too_large``."""

MAX_SEATS: Final = 10
"""Seats of a room at most (``CreateRoom.seats``)."""

BOT_LEVELS: Final = ("beginner", "casual", "pro", "matched", "perfect")
BotLevel = Literal["beginner", "casual", "pro", "matched", "perfect"]

MAX_FRAME_ID: Final = 2**31 - 1
_FRAME_ID_CHARS: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-"
)


def frame_id(value: Any) -> int | str:
    """``value`` if it is a valid frame ``id``, else ``PydanticCustomError`` ``bad_id``."""
    if type(value) is int and 0 <= value <= MAX_FRAME_ID:
        return value
    if type(value) is str and 1 <= len(value) <= 32 and set(value) <= _FRAME_ID_CHARS:
        return value
    raise PydanticCustomError(
        "bad_id",
        "id must be a whole number 0-{most} or 1-32 letters, digits or ._:-",
        {"most": MAX_FRAME_ID},
    )


FrameId = Annotated[int | str, PlainValidator(frame_id)]
"""The optional ``id`` a client may put on any frame: an integer 0–2^31-1 or a
string of 1–32 letters, digits and ``._:-``; error frames answering it carry it."""

Seat = Annotated[int, Field(ge=0, lt=MAX_SEATS)]
"""A seat number."""
Count = Annotated[int, Field(ge=0)]
"""A number of cards, flips, games… (a whole number >= 0)."""
Stamp = Annotated[float, Field(allow_inf_nan=False, ge=-1e15, le=1e15)]
"""A time in milliseconds on someone's clock (finite)."""


class Strict(BaseModel):
    """Every message: no coercion (``"5"`` is not a number, ``1.0`` and ``true``
    are not the integer 1, ``"true"`` is not a boolean), no unknown field."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
