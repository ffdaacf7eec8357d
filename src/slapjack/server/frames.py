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
    view_head,
    view_parts,
)

from .connection import Conn

if TYPE_CHECKING:
    from .room import Room


def updates(room: Room, events: list[Event]) -> list[tuple[Conn, str]]:
    """One ``update`` frame per socket of ``room``: ``events``, its seat's view,
    the room's status (the view encoded once for all seats, its head once a
    game: ``room.view_head``, kept while the game's rules and players are the
    same objects, both immutable)."""
    game = room.table.game if room.table is not None and room.status != "waiting" else None
    events_text = events_json(events)
    room_text = dumps(room_status(room))
    parts = None
    if game is not None:
        view = observe(game, None)
        head = room.view_head
        if head is None or head[0] is not game.rules or head[1] is not game.players:
            head = room.view_head = (game.rules, game.players, view_head(view))
        parts = view_parts(view, game.flips, head[2])
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
    """The ``room`` part of an update: timers, grace periods, who is connected or covered.

    Built once per change of a room (every flip): one pass over the seats."""
    live = room.live
    deadline = room.deadline
    start, resume = deadline("start"), deadline("resume")
    if live is not None and room.status == "playing":
        due = live.deadlines()
        turn, race, deadlock, limit = due["turn"], due["race"], due["deadlock"], due["time_limit"]
    else:
        turn = race = deadlock = limit = None
    names: list[str | None] = []
    connected: list[bool] = []
    grace: dict[str, float] = {}
    bots: dict[str, str] = {}
    covered: list[int] = []
    rematch: list[int] = []
    spectators = 0
    if live is None:
        for s, seat in enumerate(room.seats):
            names.append(seat.name)
            connected.append(seat.conns > 0)
            if seat.bot is not None:
                bots[str(s)] = seat.bot
            if seat.rematch:
                rematch.append(s)
    else:
        seating = live.seating
        level_of, is_covered, grace_until = seating.level, seating.covered, live.grace_until
        for s, seat in enumerate(room.seats):
            names.append(seat.name)
            connected.append(seat.conns > 0)
            level = seat.bot if seat.name is None else level_of(s)
            if level is not None:
                bots[str(s)] = level
            until = grace_until(s)
            if until is not None:
                grace[str(s)] = round(until, 1)
            if is_covered[s]:
                covered.append(s)
            if seat.rematch:
                rematch.append(s)
    for conn in room.conns:
        if conn.seat is None:
            spectators += 1
    return {
        "code": room.code,
        "status": room.status,
        "game_no": room.game_no,
        "now": round(room.now(), 1),
        "timers": {  # the models' order: the same bytes
            "start": None if start is None else round(start, 1),
            "turn": None if turn is None else round(turn, 1),
            "race": None if race is None else round(race, 1),
            "deadlock": None if deadlock is None else round(deadlock, 1),
            "time_limit": None if limit is None else round(limit, 1),
            "resume": None if resume is None else round(resume, 1),
        },
        "grace": grace,
        "names": names,
        "connected": connected,
        "bots": bots,
        "covered": covered,
        "rematch": rematch,
        "spectators": spectators,
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
