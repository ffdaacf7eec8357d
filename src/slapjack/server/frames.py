"""The text of the frames a room sends (docs/protocol.md).

An ``update`` differs from socket to socket of one seat only by its ``seq``:
the body after it is encoded once per seat (and once for all spectators) and
every socket's frame is its own ``seq`` plus that shared text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from slapjack.core import Event, Game, event_to_dict, observe

from .connection import Conn
from .models import PROTOCOL_VERSION, RoomInfo, SeatInfo

if TYPE_CHECKING:
    from .room import Room

SEPARATORS: Final = (",", ":")


def dumps(value: Any) -> str:
    return json.dumps(value, separators=SEPARATORS, ensure_ascii=False)


def welcome(room: dict[str, Any], seat: int | None, name: str | None, answer: Any) -> str:
    """The answer to ``hello`` (``answer``: the ``id`` of the frame it answers)."""
    return dumps(
        {
            "type": "welcome",
            "v": PROTOCOL_VERSION,
            "room": room,
            "seat": seat,
            "name": name,
            "id": answer,
        }
    )


def error(code: str, message: str, answer: Any = None) -> str:
    return dumps({"type": "error", "code": code, "message": message, "id": answer})


def view_json(game: Game, seat: int | None) -> str:
    """What ``seat`` (``None``: a spectator) may see of ``game``, with its flip id."""
    view = observe(game, seat).to_dict()
    view["flip_id"] = game.flips
    return dumps(view)


def updates(room: Room, events: list[Event]) -> list[tuple[Conn, str]]:
    """One ``update`` frame per socket of ``room``: ``events``, its seat's view,
    the room's status (each view encoded once per seat)."""
    game = room.table.game if room.table is not None and room.status != "waiting" else None
    events_json = dumps([event_to_dict(e) for e in events])
    room_json = dumps(room_status(room))
    bodies: dict[int | None, str] = {}
    out: list[tuple[Conn, str]] = []
    for conn in room.conns:
        seat = conn.seat
        body = bodies.get(seat)
        if body is None:
            view = view_json(game, seat) if game is not None else "null"
            body = bodies[seat] = f',"events":{events_json},"view":{view},"room":{room_json}}}'
        out.append((conn, f'{{"type":"update","seq":{conn.next_seq()}{body}'))
    return out


def room_status(room: Room) -> dict[str, Any]:
    """The ``room`` part of an update: timers, grace periods, who is connected or covered."""
    live = room.live
    timers: dict[str, float | None] = {"start": room.deadline("start")}
    deadlines = live.deadlines() if live is not None and room.status == "playing" else {}
    for name in ("turn", "race", "deadlock", "time_limit"):
        timers[name] = deadlines.get(name)
    grace: dict[str, float] = {}
    bots: dict[str, str] = {}
    for s, seat in enumerate(room.seats):
        level = seat.bot if live is None or not seat.taken else live.level(s)
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
        "covered": [s for s in range(len(room.seats)) if live is not None and live.is_covered(s)],
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
