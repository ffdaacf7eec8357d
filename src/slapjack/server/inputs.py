"""A client's frame at its room: authenticate, check, apply, answer.

Every frame reaches this after the edge validated it (:mod:`slapjack.protocol`): ``hello``
connects the socket (as a seat with its token, or as a spectator); every
other frame must carry its seat's token and goes to the room's live table or
to the room itself. A refusal is an ``error`` frame that carries the ``id``
of the frame it answers; it never changes anything.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from slapjack.core import SlapjackError
from slapjack.protocol import (
    CallMsg,
    FlipMsg,
    Hello,
    LeaveMsg,
    RematchMsg,
    SlapMsg,
    StartMsg,
    error_frame,
)

from .connection import Conn
from .errors import RoomError

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger(__name__)


def handle(room: Room, conn: Conn, msg: Any, at: float) -> None:
    """A validated client frame ``msg`` that arrived at ``at`` (room task)."""
    try:
        if isinstance(msg, Hello):
            hello(room, conn, msg)
            return
        if not conn.greeted:
            raise RoomError("say hello first", code="bad_message")
        seat = authenticate(room, conn, msg.token)
        if isinstance(msg, FlipMsg):
            play(room, room.game().flip, seat, at, flip_id=msg.flip_id)
        elif isinstance(msg, SlapMsg):
            play(room, room.game().slap, seat, at, flip_id=msg.flip_id,
                 claimed_ms=msg.reaction_ms, shown_at=msg.shown_at, input_at=msg.input_at,
                 call=msg.call)  # fmt: skip
        elif isinstance(msg, CallMsg):
            play(room, room.game().call, seat, at, flip_id=msg.flip_id)
        elif isinstance(msg, RematchMsg):
            room.rematch(seat)
        elif isinstance(msg, LeaveMsg):
            room.leave(seat, msg.id)
        elif isinstance(msg, StartMsg):
            room.start_now(seat)
        else:
            raise RoomError(f"unexpected message {type(msg).__name__}", code="bad_message")
    except SlapjackError as exc:
        log.info("room %s: %r: refused %s: %s", room.code, conn, exc.code, exc.message)
        room.send(conn, error_frame(exc.code, exc.message, msg.id))


def hello(room: Room, conn: Conn, msg: Hello) -> None:
    """A socket says who it is: a seat's token, or none for a spectator. A closed
    room or a token of no seat ends the socket (close 4004, 4001)."""
    if conn.greeted:
        raise RoomError("hello was already said on this socket", code="bad_message")
    if room.status == "closed":
        conn.error("room_closed", "this room is closed", msg.id)
        conn.close(4004, "room closed")
        return
    seat = None if msg.token is None else room.seats.of_token(msg.token)
    if msg.token is not None and seat is None:
        conn.error("bad_token", "this token belongs to no seat of this room", msg.id)
        conn.close(4001, "bad token")
        return
    room.connect(conn, seat, msg.id)


def play(room: Room, action: Any, seat: int, at: float, **details: Any) -> None:
    """A player's flip, slap or call on the live table. What changed goes out
    also when it is refused: the deadlines due by ``at`` ran first."""
    try:
        action(seat, at, **details)
    finally:
        room.after()


def authenticate(room: Room, conn: Conn, token: str) -> int:
    """The seat ``conn`` acts for, if ``token`` is that seat's."""
    if room.status == "closed":
        raise RoomError("this room is closed", code="room_closed")
    if conn.seat is None:
        raise RoomError("spectators cannot act", code="spectator")
    if not room.seats.owns(conn.seat, token):
        raise RoomError("wrong token for this seat", code="bad_token")
    return conn.seat
