"""The frames a room builds (:mod:`slapjack.server.frames`): the ``room`` part
of an update says what the room's parts say, in the model's order, in every
state a room goes through (waiting with bots, playing, a seat away and then
covered, spectators, rematch requests, the game over)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from slapjack.core import Rules, observe
from slapjack.protocol import CreateRoom, dumps, view_json
from slapjack.protocol.to_client import RoomStatus
from slapjack.server import frames
from slapjack.server.connection import Conn
from slapjack.server.room import Room, RoomTiming
from slapjack.store import open_store
from slapjack.store.base import Store

from .roomkit import CONNS, FakeClock, Input, apply, new_room, settle_input


def status_by_the_book(room: Room) -> dict[str, Any]:
    """The ``room`` status written plainly from the room's public parts (the
    oracle :func:`frames.room_status` is held to)."""
    live = room.live
    timers: dict[str, float | None] = {"start": room.deadline("start")}
    due = live.deadlines() if live is not None and room.status == "playing" else {}
    for name in ("turn", "race", "deadlock", "time_limit"):
        timers[name] = due.get(name)
    timers["resume"] = room.deadline("resume")
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


def check(room: Room) -> dict[str, Any]:
    status = frames.room_status(room)
    assert status == status_by_the_book(room)
    text = dumps(status)
    # the model's fields, in the model's order: the same bytes as its own encoder
    assert text == RoomStatus.model_validate_json(text).model_dump_json()
    return status


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    store = await open_store(None, tmp_path)
    yield store
    await store.close()


async def test_the_room_status_says_what_the_room_holds_in_every_state(
    clock: FakeClock, store: Store
) -> None:
    room = await new_room(store, clock, seats=3, rules={"preset": "classic"})
    seen = [check(room)]
    assert seen[0]["status"] == "playing" and seen[0]["timers"]["turn"] is not None
    # a spectator watches
    watcher = Conn()
    room.connect(watcher, None, None)
    assert check(room)["spectators"] == 1
    # seat 2 goes away: its grace period runs, then a bot covers it
    room.disconnect(CONNS[id(room)][2])
    await settle_input(room)
    away = check(room)
    assert away["connected"] == [True, True, False] and "2" in away["grace"]
    for _ in range(400):
        apply(room, Input("fire"), clock)
        await settle_input(room)
        status = check(room)
        if 2 in status["covered"]:
            break
    else:
        raise AssertionError("the seat was never covered")
    assert status["bots"].get("2") is not None and status["grace"] == {}
    # play on to the end, then ask for a rematch
    for _ in range(5000):
        if room.status != "playing":
            break
        apply(room, Input("flip"), clock)
        apply(room, Input("wait", value=2000.0), clock)
        await settle_input(room)
        check(room)
    assert room.status == "over"
    apply(room, Input("rematch", seat=0), clock)
    await settle_input(room)
    over = check(room)
    assert over["rematch"] == [0] and over["game_id"] is not None
    json.dumps(over)  # plain JSON values only


async def test_a_waiting_room_lists_its_bots_and_its_start_timer(
    clock: FakeClock, store: Store
) -> None:
    room = Room(
        "WAIT01",
        CreateRoom(seats=3, bots={"1": "casual"}),
        store=store,
        timing=RoomTiming(start_delay_ms=5000.0),
        clock=clock,
    )
    status = check(room)
    assert status["status"] == "waiting" and status["timers"]["turn"] is None
    assert status["bots"] == {"1": "casual"} and status["timers"]["start"] is None


async def test_every_update_carries_its_seats_whole_view_across_games(
    clock: FakeClock, store: Store
) -> None:
    room = await new_room(store, clock, seats=2)

    def views_checked() -> int:
        assert room.table is not None
        game = room.table.game
        n = 0
        for conn, text in frames.updates(room, []):
            view = json.loads(text)["view"]
            assert view == json.loads(view_json(observe(game, conn.seat), game.flips))
            n += 1
        return n

    assert views_checked() == 2
    first = room.view_head
    assert first is not None
    for _ in range(5000):  # seat 0 slaps every Jack: seat 1 runs out of cards
        if room.status != "playing":
            break
        assert room.table is not None
        if room.table.game.race_open:
            apply(room, Input("slap", seat=0, value=200.0), clock)
        else:
            apply(room, Input("flip"), clock)
        apply(room, Input("wait", value=500.0), clock)
        await settle_input(room)
        views_checked()
    assert room.status == "over"
    for seat in (0, 1):
        apply(room, Input("rematch", seat=seat), clock)
        await settle_input(room)
    assert room.game_no == 2 and room.status == "playing"
    assert views_checked() == 2
    # a head kept for other rules or other players is never used
    room.view_head = (
        Rules(),
        ("X", "Y"),
        '{"game":"slapjack","rules":{},"players":["X","Y"],"seat":',
    )
    assert views_checked() == 2
    assert room.view_head[1] == ("P0", "P1")
