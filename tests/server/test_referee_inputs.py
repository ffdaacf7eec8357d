"""The referee's pings and pongs in the room's order (server/handover.py
``RefereeInputs``, ``Actor.run_or_batch``): at once when the room's task is
idle, behind every input that came first otherwise."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial

import pytest

from slapjack.core import card_name, parse_card
from slapjack.protocol import FlipMsg, SlapMsg
from slapjack.server.actor import Actor
from slapjack.server.connection import Conn
from slapjack.server.metrics import METRICS
from slapjack.server.referee import ArrivalReferee
from slapjack.server.room import Room
from slapjack.store import open_store
from slapjack.store.base import Store

from .roomkit import CONNS, TOKENS, FakeClock, new_room


class Recording(ArrivalReferee):
    """The arrival referee, with a log of what it was told in which order."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[str] = []

    def on_ping_sent(self, seat: int, ping_id: int, now_ms: float) -> None:
        self.log.append(f"ping {seat} {ping_id}")

    def on_pong(self, seat: int, ping_id: int, client_time_ms: float, now_ms: float) -> None:
        self.log.append(f"pong {seat} {ping_id}")

    def on_transport_rtt(
        self,
        seat: int,
        srtt_ms: float,
        rttvar_ms: float,
        min_rtt_ms: float | None,
        now_ms: float,
    ) -> None:
        self.log.append(f"rtt {seat} {srtt_ms:g}")

    def bound_reaction(
        self,
        seat: int,
        flip_id: int,
        claimed_ms: float,
        shown_at: float | None,
        input_at: float | None,
        now_ms: float,
    ) -> float:
        self.log.append(f"slap {seat}")
        return super().bound_reaction(seat, flip_id, claimed_ms, shown_at, input_at, now_ms)


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    st = await open_store("sqlite:///:memory:", ".")
    yield st
    await st.close()


def jack_first() -> list[int]:
    return [parse_card("JS"), *(c for c in range(52) if card_name(c) != "JS")]


async def playing(store: Store, clock: FakeClock) -> tuple[Room, Recording]:
    """A started game of two (a Jack on top) with its task running and idle."""
    room = await new_room(store, clock, seats=2, deck=jack_first(), referee=Recording)
    room.start()
    await room.call(lambda: None)
    assert isinstance(room.referee, Recording)
    return room, room.referee


def queue_flip_and_slap(room: Room, clock: FakeClock) -> list[Conn]:
    """As the socket tasks would: seat 0's flip and seat 1's slap queued for
    the room's task, which has not run them; returns the room's connections."""
    conns, tokens = CONNS[id(room)], TOKENS[id(room)]
    flip = FlipMsg(v=1, type="flip", token=tokens[0], flip_id=0)
    slap = SlapMsg(v=1, type="slap", token=tokens[1], flip_id=1, reaction_ms=250.0)
    room.submit(partial(room.handle, conns[0], flip, clock()))
    room.submit(partial(room.handle, conns[1], slap, clock()))
    return conns


async def test_a_pong_never_overtakes_a_queued_slap(store: Store) -> None:
    clock = FakeClock()
    room, ref = await playing(store, clock)
    try:
        conns = queue_flip_and_slap(room, clock)
        room.on_ping_sent(conns[1], 1, clock())
        room.on_pong(conns[1], 1, 5.0, clock())
        room.on_transport_rtt(conns[1], (20.0, 5.0, 18.0), clock())
        assert ref.log == []  # nothing ran before the slap
        await room.call(lambda: None)
        assert ref.log == ["slap 1", "ping 1 1", "pong 1 1", "rtt 1 20"]
        assert room.live is not None and room.live.game.race_open
    finally:
        await room.stop()


async def test_a_pong_waits_for_the_input_whose_writes_are_under_way(store: Store) -> None:
    clock = FakeClock()
    room, ref = await playing(store, clock)
    started, release = asyncio.Event(), asyncio.Event()

    async def slow_write() -> None:
        started.set()
        await release.wait()

    try:
        conn = CONNS[id(room)][1]
        room.submit(lambda: room._ops.append(slow_write))
        await started.wait()  # the input ran; its store write is awaited: nothing is queued
        assert not room._queue
        room.on_pong(conn, 1, 5.0, clock())
        assert ref.log == []
        release.set()
        await room.call(lambda: None)
        assert ref.log == ["pong 1 1"]
    finally:
        release.set()
        await room.stop()


async def test_an_idle_room_applies_a_pong_at_once_without_an_input(store: Store) -> None:
    clock = FakeClock()
    room, ref = await playing(store, clock)
    try:
        conn = CONNS[id(room)][0]
        inputs = METRICS.inputs
        room.on_ping_sent(conn, 1, clock())
        room.on_pong(conn, 1, 5.0, clock())
        assert ref.log == ["ping 0 1", "pong 0 1"]
        assert not room._queue and METRICS.inputs == inputs
        spectator = Conn()  # no seat: nothing for the referee
        room.on_pong(spectator, 1, 5.0, clock())
        assert ref.log == ["ping 0 1", "pong 0 1"]
    finally:
        await room.stop()


async def test_a_room_not_started_queues_its_pongs(store: Store) -> None:
    clock = FakeClock()
    room = await new_room(store, clock, seats=2, deck=jack_first(), referee=Recording)
    assert isinstance(room.referee, Recording)
    room.on_pong(CONNS[id(room)][0], 1, 5.0, clock())
    assert room.referee.log == []
    room.start()
    try:
        await room.call(lambda: None)
        assert room.referee.log == ["pong 0 1"]
    finally:
        await room.stop()


async def test_run_or_batch_errors_frames_and_writes_as_the_task_would() -> None:
    actor = Actor("test")
    actor.start()
    await actor.call(lambda: None)
    wrote: list[str] = []

    async def write() -> None:
        wrote.append("op")

    conn = Conn()
    try:
        actor.run_or_batch(lambda: 1 / 0)  # logged, not raised into the caller
        actor.run_or_batch(lambda: 1 / 0)
        # an input run at once that prepared writes and frames anyway: the task
        # writes them, then sends the frames, as the next input
        actor.run_or_batch(lambda: (actor._ops.append(write), actor._frames.append((conn, "x"))))
        assert wrote == [] and list(conn._queue) == []
        await actor.call(lambda: None)
        assert wrote == ["op"]
        assert [item[0] for item in conn._queue if isinstance(item, tuple)] == ["x"]
    finally:
        await actor.stop()


async def test_a_ping_written_in_the_rooms_send_step_is_told_at_once_without_an_input(
    store: Store,
) -> None:
    """A ping that rides on a frame of the room (server/pings.py) is written
    in the room's task, while it sends its frames: the referee has it at
    once, and no input is queued for it (``on_ping_sent`` from there would
    queue one: the task is not idle)."""
    clock = FakeClock()
    room, ref = await playing(store, clock)
    try:
        conn, spectator = CONNS[id(room)][0], Conn()
        told: list[int] = []

        def write(text: str, ride: object = None) -> bool:
            assert callable(ride)
            ride()
            return True

        def ride() -> None:
            room.on_ping_written(conn, 7, clock())
            room.on_ping_written(spectator, 8, clock())  # no seat: nothing to tell
            told.append(len(ref.log))

        conn._queue.clear()  # (its frames so far were taken)
        conn.direct, conn.ride = write, ride
        inputs = METRICS.inputs
        await room.call(lambda: room.send(conn, '{"type":"update"}'))
        assert told == [1] and ref.log == ["ping 0 7"]
        assert not room._queue and METRICS.inputs == inputs + 1
        conn.direct = conn.ride = None
        inputs = METRICS.inputs
        await room.call(lambda: room.on_ping_sent(conn, 9, clock()))  # (for contrast)
        await room.call(lambda: None)
        assert ref.log == ["ping 0 7", "ping 0 9"] and METRICS.inputs == inputs + 3
    finally:
        await room.stop()


async def test_a_ping_written_elsewhere_waits_behind_what_came_first(store: Store) -> None:
    clock = FakeClock()
    room, ref = await playing(store, clock)
    try:
        conns = queue_flip_and_slap(room, clock)
        room.on_ping_written(conns[1], 1, clock())
        assert ref.log == []
        await room.call(lambda: None)
        assert ref.log == ["slap 1", "ping 1 1"]
    finally:
        await room.stop()


async def test_a_pong_and_its_kernel_round_trip_are_one_input(store: Store) -> None:
    """The socket reads ``TCP_INFO`` when a pong comes and hands both over in
    one call: the referee hears the pong, then the round trip, in one input
    of a busy room (at once in an idle one), after what was queued before."""
    clock = FakeClock()
    room, ref = await playing(store, clock)
    try:
        conns = queue_flip_and_slap(room, clock)
        inputs = METRICS.inputs
        room.on_pong(conns[1], 1, 5.0, clock(), (20.0, 5.0, 18.0))
        room.on_pong(conns[0], 2, 5.0, clock(), None)  # no estimate: the pong alone
        assert ref.log == []
        await room.call(lambda: None)
        assert ref.log == ["slap 1", "pong 1 1", "rtt 1 20", "pong 0 2"]
        assert METRICS.inputs - inputs == 4  # flip, slap, the two pongs' batch, the call
        ref.log.clear()
        room.on_pong(conns[0], 3, 5.0, clock(), (30.0, 5.0, None))  # idle: at once
        assert ref.log == ["pong 0 3", "rtt 0 30"]
    finally:
        await room.stop()
