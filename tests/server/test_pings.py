"""The pinger: every socket's clock-sync pings on one timer (server/pings.py)."""

from __future__ import annotations

import asyncio
import json
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
    await asyncio.sleep(0.05)
    assert len(asyncio.all_tasks()) == before + 1
    assert all(pings_of(conn) for conn in conns)
    for conn in conns:
        pinger.discard(conn)
    await asyncio.sleep(0.02)
    assert len(asyncio.all_tasks()) == before
