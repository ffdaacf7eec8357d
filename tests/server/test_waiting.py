"""A waiting room in the store (server/waiting.py), in-process through the
lobby on a real SQLite file: what is stored at each join, leave and first
connection, what a resume brings back (seats, tokens, the start timer), and
that an expired waiting room is closed in the store and never resumed.
(tests/server/test_waiting_restart.py does it with ``kill -9``.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest

from slapjack.protocol import CreateRoom, Hello
from slapjack.server.connection import Conn
from slapjack.server.lobby import Lobby
from slapjack.server.referee import TrustingReferee
from slapjack.server.room import Room, RoomTiming
from slapjack.store import open_store
from slapjack.store.base import Store, token_matches

TIMING = RoomTiming(start_delay_ms=60_000.0, grace_ms=60_000.0, turn_ms=60_000.0)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    st = await open_store(None, tmp_path)
    yield st
    await st.close()


def lobby(store: Store, empty_room_s: float = 120.0) -> Lobby:
    return Lobby(store, TrustingReferee, timing=TIMING, empty_room_s=empty_room_s)


async def crash(lobby: Lobby) -> None:
    """The process dies: the rooms' tasks end and nothing more is written."""
    for room in list(lobby.rooms.values()):
        await room.stop()
    lobby.rooms.clear()


async def hello(room: Room, token: str) -> Conn:
    conn = Conn()
    await room.call(partial(room.handle, conn, Hello(v=1, type="hello", token=token), room.now()))
    return conn


async def test_each_step_of_a_waiting_room_is_stored_before_it_is_answered(store: Store) -> None:
    first = lobby(store)
    room = first.create(CreateRoom(seats=3, bots={"2": "pro"}))
    await room.call(lambda: None)  # the answer to POST /api/rooms waits for this
    state = await store.load_room(room.code)
    assert state.settings["waiting"] is True and state.settings["seen"] == []
    assert [(s.seat, s.name, s.bot_level) for s in state.seats] == [(2, "Pro bot 3", "pro")]

    seat, token, _ = await room.call(partial(room.join, "Anna"))  # answered after its write
    state = await store.load_room(room.code)
    assert [s.seat for s in state.seats] == [seat, 2]
    assert token_matches(token, state.seats[0].token_hash)

    await hello(room, token)
    assert (await store.load_room(room.code)).settings["seen"] == [seat]
    await room.call(partial(room.leave, seat))
    state = await store.load_room(room.code)
    assert [s.seat for s in state.seats] == [2] and state.settings["seen"] == []
    await crash(first)


async def test_a_resumed_full_room_re_arms_its_start_timer_and_plays(store: Store) -> None:
    first = lobby(store)
    room = first.create(CreateRoom(seats=2))
    tokens = []
    for name in ("Anna", "Ben"):
        _, token, _ = await room.call(partial(room.join, name))
        tokens.append(token)
    await hello(room, tokens[0])  # Ben took his seat but has not connected: no start yet
    assert room.deadline("start") is None
    await crash(first)

    second = lobby(store)
    assert await second.resume() == 1
    back = second.rooms[room.code]
    assert back.status == "waiting" and back.deadline("start") is None
    assert [s.name for s in back.seats] == ["Anna", "Ben"]
    assert [back.seats.of_token(t) for t in tokens] == [0, 1]
    await hello(back, tokens[1])  # Ben arrives: every seat taken and seen
    assert back.deadline("start") is not None
    await crash(second)

    third = lobby(store)  # killed while the start timer ran: it runs again
    assert await third.resume() == 1
    again = third.rooms[room.code]
    assert again.deadline("start") is not None
    await again.call(partial(again.start_now, 0))
    assert again.status == "playing" and again.table is not None
    assert again.table.record.players == ("Anna", "Ben")
    state = await store.load_room(room.code)
    assert "waiting" not in state.settings and state.header["players"] == ["Anna", "Ben"]
    await crash(third)


async def test_a_waiting_room_that_expired_is_closed_in_the_store(store: Store) -> None:
    first = lobby(store, empty_room_s=0.05)
    room = first.create(CreateRoom(seats=2))
    await room.call(lambda: None)
    assert room.code in await store.live_rooms()
    await asyncio.sleep(0.06)
    assert first.sweep() == 1
    for _ in range(100):
        if room.code not in await store.live_rooms():
            break
        await asyncio.sleep(0.01)
    assert room.code not in await store.live_rooms()
    assert await lobby(store).resume() == 0


async def test_a_waiting_room_that_expired_while_the_server_was_down_is_not_resumed(
    store: Store,
) -> None:
    first = lobby(store)
    empty = first.create(CreateRoom(seats=2))
    used = first.create(CreateRoom(seats=2))
    _, token, _ = await used.call(partial(used.join, "Anna"))
    await hello(used, token)
    await crash(first)
    await asyncio.sleep(0.15)

    second = lobby(store, empty_room_s=0.1)
    assert await second.resume() == 1  # the room its player had connected to waits for her
    assert set(second.rooms) == {used.code}
    assert await store.live_rooms() == [used.code]
    await crash(second)

    third = lobby(store, empty_room_s=60.0)  # not expired yet: resumed, its expiry counts on
    assert await third.resume() == 1
    await crash(third)
    assert empty.code not in await store.live_rooms()
