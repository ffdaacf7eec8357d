"""The frames a room sends, built with the protocol's encoders
(:mod:`slapjack.protocol.encode`; docs/protocol.md).

An ``update`` differs from socket to socket of one seat only by its ``seq``,
and from seat to seat only by the view's ``seat`` (every seat sees the same
public facts): the events, the room's status and the view are encoded once
per change, each seat's body is those parts with its seat number, and every
socket's frame is its own ``seq`` in front of its seat's body.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from slapjack.core import Event, observe
from slapjack.protocol import (
    RoomInfo,
    SeatInfo,
    dumps,
    events_json,
    seat_view,
    update_body,
    update_frame,
    view_parts,
)

from .connection import Conn

if TYPE_CHECKING:
    from .room import Room


def updates(room: Room, events: list[Event]) -> list[tuple[Conn, str]]:
    """One ``update`` frame per socket of ``room``: ``events``, its seat's view,
    the room's status (the view encoded once for all seats)."""
    game = room.table.game if room.table is not None and room.status != "waiting" else None
    events_text = events_json(events)
    room_text = dumps(room_status(room))
    parts = view_parts(observe(game, None), game.flips) if game is not None else None
    bodies: dict[int | None, str] = {}
    out: list[tuple[Conn, str]] = []
    for conn in room.conns:
        seat = conn.seat
        body = bodies.get(seat)
        if body is None:
            view = seat_view(parts, seat) if parts is not None else "null"
            body = bodies[seat] = update_body(events_text, view, room_text)
        out.append((conn, update_frame(conn.next_seq(), body)))
    return out


def room_status(room: Room) -> dict[str, Any]:
    """The ``room`` part of an update: timers, grace periods, who is connected or covered."""
    live = room.live
    timers: dict[str, float | None] = {"start": room.deadline("start")}
    deadlines = live.deadlines() if live is not None and room.status == "playing" else {}
    for name in ("turn", "race", "deadlock", "time_limit"):
        timers[name] = deadlines.get(name)
    timers["resume"] = room.deadline("resume")  # the models' order: the same bytes
    grace: dict[str, float] = {}
    bots: dict[str, str] = {}
    for s, seat in enumerate(room.seats):
        level = seat.bot if live is None or not seat.taken else live.seating.level(s)
        if level is not None:
            bots[str(s)] = level
        until = live.grace_until(s) if live is not None else None
        if until is not None:
            grace[str(s)] = round(until, 1)
    return {
        "code": room.code,
        "status": room.status,
        "game_no": room.game_no,
        "now": round(room.now(), 1),
        "timers": {k: None if v is None else round(v, 1) for k, v in timers.items()},
        "grace": grace,
        "names": [seat.name for seat in room.seats],
        "connected": [seat.conns > 0 for seat in room.seats],
        "bots": bots,
        "covered": [
            s for s in range(len(room.seats)) if live is not None and live.seating.covered[s]
        ],
        "rematch": [s for s, seat in enumerate(room.seats) if seat.rematch],
        "spectators": sum(1 for c in room.conns if c.seat is None),
        "game_id": room.last_game_id,
    }


def room_info(room: Room) -> RoomInfo:
    """What the lobby and a ``welcome`` say about ``room``."""
    seats = [
        SeatInfo(seat=s, name=seat.name, bot=seat.bot, connected=seat.conns > 0)
        for s, seat in enumerate(room.seats)
    ]
    return RoomInfo(
        code=room.code,
        name=room.settings.name or f"Room {room.code}",
        game=room.rules.game.value,
        preset=room.rules.preset,
        rules=room.rules.to_options(),
        tempo=room.settings.tempo,
        turn_seconds=room.settings.turn_seconds,
        time_limit=room.rules.time_limit,
        public=room.settings.public,
        status=room.status,
        seats=seats,
        free_seats=room.free_seats(),
        spectators=sum(1 for c in room.conns if c.seat is None),
        url=f"/r/{room.code}",
        game_no=room.game_no,
    )
