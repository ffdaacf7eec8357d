"""The pinger: every socket's clock-sync pings on one timer (server/pings.py)."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import pytest

import slapjack.server.pings as pings_module
from slapjack.server.connection import CLOSE_NOT_READING, Conn, Welcome
from slapjack.server.pings import Pinger


class FakeRoom:
    """What the pinger asks of a room: its clock, its code, the pings it sent."""

    def __init__(self, code: str = "ROOM") -> None:
        self.code = code
        self.sent: list[tuple[Conn, int, float]] = []

    def now(self) -> float:
        return asyncio.get_running_loop().time() * 1000.0

    def on_ping_sent(self, conn: Conn, ping_id: int, at: float) -> None:
        self.sent.append((conn, ping_id, at))

    def on_ping_written(self, conn: Conn, ping_id: int, at: float) -> None:
        self.sent.append((conn, ping_id, at))


def greeted() -> Conn:
    """A socket whose ``welcome`` is queued (the pinger's frames may follow)."""
    conn = Conn()
    conn.greeted = True
    conn.send(Welcome('{"type":"welcome"}'))
    return conn


def pings_of(conn: Conn) -> list[dict[str, Any]]:
    frames = [json.loads(item[0]) for item in conn._queue if isinstance(item, tuple)]
    return [f for f in frames if f["type"] == "ping"]


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pings_module, "PING_FIRST_S", 0.02)
    monkeypatch.setattr(pings_module, "PING_EVERY_S", 0.1)


async def test_quick_pings_then_one_a_period_each_stamped_and_told_to_its_room(
    quick: None,
) -> None:
    pinger = Pinger(tick_s=0.01)
    rooms = [FakeRoom("A"), FakeRoom("B")]
    conns = [greeted() for _ in range(4)]
    for i, conn in enumerate(conns):
        pinger.add(rooms[i % 2], conn)  # type: ignore[arg-type]
    await asyncio.sleep(0.5)
    for i, conn in enumerate(conns):
        got = pings_of(conn)
        # eight quick pings 20 ms apart, then every 100 ms: about 8 + 3 in 0.5 s
        assert 9 <= len(got) <= 13, len(got)
        assert [p["id"] for p in got] == list(range(1, len(got) + 1))
        told = [(ping_id, at) for c, ping_id, at in rooms[i % 2].sent if c is conn]
        assert [ping_id for ping_id, _ in told] == [p["id"] for p in got]
        assert [round(at, 3) for _, at in told] == [p["server_time"] for p in got]
    assert not any(c is conns[1] for c, _, _ in rooms[0].sent)
    for conn in conns:
        pinger.discard(conn)
    assert len(pinger) == 0


async def test_a_socket_is_pinged_once_welcomed_and_not_after_it_is_discarded(quick: None) -> None:
    pinger = Pinger(tick_s=0.01)
    room = FakeRoom()
    waiting, gone = Conn(), greeted()
    pinger.add(room, waiting)  # type: ignore[arg-type]
    pinger.add(room, gone)  # type: ignore[arg-type]
    await asyncio.sleep(0.1)
    assert pings_of(waiting) == []
    pinger.discard(gone)
    before = len(pings_of(gone))
    # said hello, but its welcome waits for the write-ahead step: no ping may go first
    waiting.greeted = True
    await asyncio.sleep(0.1)
    assert pings_of(waiting) == []
    waiting.send(Welcome('{"type":"welcome"}'))
    await asyncio.sleep(0.1)
    assert pings_of(waiting), "a welcomed socket is pinged"
    first = json.loads(waiting._queue[0][0])  # type: ignore[index]
    assert first["type"] == "welcome", "the welcome is the socket's first frame"
    assert len(pings_of(gone)) == before
    pinger.discard(waiting)


async def test_a_socket_that_does_not_read_is_closed_and_aborted(
    quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pings_module, "ABORT_AFTER_S", 0.05)
    pinger = Pinger(tick_s=0.01)
    room = FakeRoom()
    conn = greeted()
    aborted: list[bool] = []
    stuck = [False]
    pinger.add(room, conn, lambda: stuck[0], lambda: aborted.append(True))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    assert pings_of(conn) and not conn.closed
    conn._queue.clear()
    conn._sending_since = 0.0  # a frame has been on its way since the clock began
    stuck[0] = True
    await asyncio.sleep(0.2)
    assert conn.closed and conn.close_code == CLOSE_NOT_READING
    assert aborted == [True]
    assert len(pinger) == 0


async def test_one_timer_for_every_socket(quick: None) -> None:
    """No task per socket: a thousand sockets add one task to the loop."""
    before = len(asyncio.all_tasks())
    pinger = Pinger(tick_s=0.01)
    room = FakeRoom()
    conns = [greeted() for _ in range(1000)]
    for conn in conns:
        pinger.add(room, conn)  # type: ignore[arg-type]
    # Every socket's first ping is due 20 ms on; a loaded machine (CI's, with
    # the suite beside it) may take a few ticks more to write them all.
    deadline = time.monotonic() + 3.0
    while not all(pings_of(conn) for conn in conns) and time.monotonic() < deadline:
        assert len(asyncio.all_tasks()) == before + 1
        await asyncio.sleep(0.01)
    assert len(asyncio.all_tasks()) == before + 1
    assert all(pings_of(conn) for conn in conns)
    for conn in conns:
        pinger.discard(conn)
    await asyncio.sleep(0.02)
    assert len(asyncio.all_tasks()) == before


class Wire:
    """A socket's direct writer as :func:`.sockets.direct_writer` is: each
    call is one write of the frame and, when ``ride`` gives one, a ping first."""

    def __init__(self, room: FakeRoom) -> None:
        self.room = room
        self.writes: list[tuple[float, list[dict[str, Any]]]] = []
        """(the room's clock at the write, the frames it carried)."""
        self.spans: list[tuple[float, float]] = []
        """The room's clock just before and just after each write."""

    def __call__(self, text: str, ride: Any = None) -> bool:
        before = self.room.now()
        ping = ride() if ride is not None else None
        frames = [json.loads(text)] if ping is None else [json.loads(ping), json.loads(text)]
        self.writes.append((before, frames))
        self.spans.append((before, self.room.now()))
        return True

    def pings(self) -> list[tuple[float, int, dict[str, Any]]]:
        """(when, how many frames in that write, the ping) for every ping written."""
        return [(at, len(fs), f) for at, fs in self.writes for f in fs if f["type"] == "ping"]


def wired(room: FakeRoom) -> tuple[Conn, Wire]:
    conn = Conn()
    wire = Wire(room)
    conn.direct = wire
    conn.greeted = True
    conn.send(Welcome('{"type":"welcome"}'))
    return conn, wire


UPDATE = '{"type":"update","seq":1}'


async def past_quick_pings(wire: Wire) -> None:
    while len(wire.pings()) < pings_module.PING_FIRST_COUNT:
        await asyncio.sleep(0.005)


async def test_a_due_ping_rides_on_an_update_in_one_write_stamped_when_written(
    quick: None,
) -> None:
    """Within ``ride_s`` of its time the ping goes in the update's write
    (first), stamped with the room's clock of that write and told to the room
    with that stamp; its own tick then sends nothing, and the next ping is
    due a period after the one it replaced (so one ping a period still)."""
    pinger = Pinger(tick_s=0.01, ride_s=0.05)
    room = FakeRoom()
    conn, wire = wired(room)
    pinger.add(room, conn, ride=True)  # type: ignore[arg-type]
    await past_quick_pings(wire)
    last = wire.pings()[-1][0]
    await asyncio.sleep(0.07)  # 70 ms into a 100 ms period: inside the last 50 ms
    conn.send(UPDATE)
    frames = wire.writes[-1][1]
    before, after = wire.spans[-1]
    assert [f["type"] for f in frames] == ["ping", "update"], "one write, both frames"
    ping = frames[0]
    assert ping["id"] == pings_module.PING_FIRST_COUNT + 1 == conn.pinged
    told_conn, told_id, told_at = room.sent[-1]
    assert (told_conn, told_id) == (conn, ping["id"])
    assert before <= told_at <= after, "stamped in the write, not before"
    assert ping["server_time"] == round(told_at, 3)
    await asyncio.sleep(0.06)  # past the ping's own time: no second ping for it
    assert len(wire.pings()) == pings_module.PING_FIRST_COUNT + 1
    await asyncio.sleep(0.1)
    after = wire.pings()
    assert len(after) == pings_module.PING_FIRST_COUNT + 2
    alone_at, n, alone = after[-1]
    assert n == 1 and alone["id"] == ping["id"] + 1, "no update to ride on: the next goes alone"
    assert 180 <= alone_at - last <= 230, "on the grid of the ping it replaced"
    pinger.discard(conn)
    assert conn.ride is None


async def test_an_update_long_before_the_ping_carries_none(quick: None) -> None:
    pinger = Pinger(tick_s=0.01, ride_s=0.03)
    room = FakeRoom()
    conn, wire = wired(room)
    pinger.add(room, conn, ride=True)  # type: ignore[arg-type]
    await past_quick_pings(wire)
    await asyncio.sleep(0.02)  # 20 ms into the period: the ping is 80 ms away
    conn.send(UPDATE)
    assert [f["type"] for f in wire.writes[-1][1]] == ["update"]
    pinger.discard(conn)


async def test_the_quick_pings_never_ride(quick: None) -> None:
    pinger = Pinger(tick_s=0.01, ride_s=1.0)  # any time would do, but not for these
    room = FakeRoom()
    conn, wire = wired(room)
    pinger.add(room, conn, ride=True)  # type: ignore[arg-type]
    while len(wire.pings()) < pings_module.PING_FIRST_COUNT:
        conn.send(UPDATE)
        await asyncio.sleep(0.002)
    quick_pings = wire.pings()[: pings_module.PING_FIRST_COUNT]
    assert all(n == 1 for _, n, _ in quick_pings), "each quick ping in a write of its own"
    spacing = [b[0] - a[0] for a, b in itertools.pairwise(quick_pings)]
    assert min(spacing) >= 8, spacing  # (a tick of 10 ms either way)
    conn.send(UPDATE)  # the first once-a-second ping may ride
    assert [f["type"] for f in wire.writes[-1][1]] == ["ping", "update"]
    pinger.discard(conn)


async def test_an_idle_socket_gets_its_pings_alone_on_time(quick: None) -> None:
    pinger = Pinger(tick_s=0.01, ride_s=0.05)
    room = FakeRoom()
    conn, wire = wired(room)
    pinger.add(room, conn, ride=True)  # type: ignore[arg-type]
    await past_quick_pings(wire)
    await asyncio.sleep(0.45)
    slow = wire.pings()[pings_module.PING_FIRST_COUNT - 1 :]
    assert 4 <= len(slow) - 1 <= 5
    assert all(n == 1 for _, n, _ in slow)
    spacing = [b[0] - a[0] for a, b in itertools.pairwise(slow)]
    assert all(90 <= s <= 130 for s in spacing), spacing
    pinger.discard(conn)


async def test_a_socket_that_does_not_read_is_closed_though_its_pings_ride(quick: None) -> None:
    """The ping's tick still checks that the socket reads when the ping
    itself went out early on an update."""
    pinger = Pinger(tick_s=0.01, ride_s=0.09)
    room = FakeRoom()
    conn, wire = wired(room)
    stuck = [False]
    pinger.add(room, conn, lambda: stuck[0], ride=True)  # type: ignore[arg-type]
    await past_quick_pings(wire)
    for _ in range(30):  # an update every 10 ms: every ping rides
        conn.send(UPDATE)
        await asyncio.sleep(0.01)
    rode = [p for p in wire.pings()[pings_module.PING_FIRST_COUNT :] if p[1] == 2]
    assert len(rode) >= 2 and len(rode) == len(wire.pings()) - pings_module.PING_FIRST_COUNT
    stuck[0] = True
    for _ in range(20):
        conn.send(UPDATE)
        await asyncio.sleep(0.01)
    assert conn.closed and conn.close_code == CLOSE_NOT_READING
    assert len(pinger) == 0
    assert conn.ride is None


def _slots(pinger: Pinger, period_ticks: int) -> set[int]:
    """Where in the period the pinger's sockets are due (slot modulo the period)."""
    return {at % period_ticks for at, due in pinger._wheel.items() for _ in due}


async def test_a_late_pinger_keeps_each_socket_in_its_place_in_the_period(quick: None) -> None:
    """A pinger that wakes late serves the ticks it missed; each socket stays
    in its own slot (not all of them in the slot after *now*: those would
    merge, stall by stall, into a few long ticks)."""
    pinger = Pinger(tick_s=0.01)
    room = FakeRoom()
    conns = [greeted() for _ in range(6)]
    for conn in conns:
        pinger.add(room, conn)  # type: ignore[arg-type]
        await asyncio.sleep(0.021)  # a slot or two apart
    await asyncio.sleep(0.3)  # the quick pings are over: one a period (10 ticks) each
    before = _slots(pinger, 10)
    assert len(before) >= 2  # (a loaded machine's sleeps may land two in one slot)
    for _ in range(5):
        time.sleep(0.045)  # the event loop is blocked: the pinger wakes 4-5 ticks late
        await asyncio.sleep(0.03)
    await asyncio.sleep(0.2)
    assert _slots(pinger, 10) == before
    assert all(len(pings_of(conn)) >= 10 for conn in conns)
    for conn in conns:
        pinger.discard(conn)


async def test_a_tick_with_many_sockets_due_lets_the_loop_run_between_chunks(
    quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    pinger = Pinger(tick_s=0.01)
    room = FakeRoom()
    turns = 0

    async def count_turns() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    served: list[tuple[int, int]] = []  # (sockets in one go, loop turns so far)
    serve = pinger._ping

    def recording(due: list[Any]) -> None:
        served.append((len(due), turns))
        serve(due)

    monkeypatch.setattr(pinger, "_ping", recording)
    counter = asyncio.get_running_loop().create_task(count_turns())
    conns = [greeted() for _ in range(3 * pings_module.CHUNK + 5)]
    for conn in conns:
        pinger.add(room, conn)  # type: ignore[arg-type]
    slots = sorted(pinger._wheel)  # all in one slot (the adds may straddle a tick)
    for at in slots[1:]:
        pinger._wheel[slots[0]].extend(pinger._wheel.pop(at))
    try:
        await asyncio.sleep(0.1)
    finally:
        counter.cancel()
    first = served[:4]  # the first tick of them all: 64, 64, 64, 5
    assert [n for n, _ in first] == [pings_module.CHUNK] * 3 + [5]
    assert all(b > a for (_, a), (_, b) in itertools.pairwise(first))  # other work ran between
    assert all(len(pings_of(conn)) >= 1 for conn in conns)
    for conn in conns:
        pinger.discard(conn)
