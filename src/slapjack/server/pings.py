"""Every socket's clock-sync pings on one timer (not one task per socket).

The fair referee needs a ping a second from every connection (and eight
quick ones after ``hello``); each ping is also when the server checks that
the client still reads its frames. With a task per socket that is a task
wake-up per socket per second, and one input per ping for the socket's room.
Here one task ticks every :data:`TICK_S` and serves only the sockets whose
ping is due, kept on a timing wheel (a slot per tick); each ping reaches its
room's referee at once when the room's task is idle, else the pings of one
tick for one room are one input (:meth:`Actor.run_or_batch`).

A ping is stamped with the room's clock when it is queued, as before, so
the tick's granularity does not blur the referee's round trips.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from slapjack.protocol import ping_frame

from .connection import CLOSE_NOT_READING, Conn
from .metrics import METRICS

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger(__name__)

TICK_S: Final = 0.05
"""How often the pinger wakes (a ping goes out within one tick of its time)."""
PING_FIRST_S = 0.25
PING_FIRST_COUNT = 8
"""Clock-sync pings sent quickly after hello (the fair referee needs a few samples)."""
PING_EVERY_S = 1.0
"""Then one a second: the referee's shift tests compare a seat's slaps with its
pings, and a phone's jitter needs many pings for a small forgery to show
(measured in docs/benchmarks.md: a ping every 2 s let a 30 ms forger on a 4G
seat keep its gain twice as long). A ping is a few dozen bytes each way."""
ABORT_AFTER_S: Final = 2.0
"""A socket closed as not reading whose close frame cannot even be written
after this long is dropped (TCP abort)."""


class _Socket:
    __slots__ = ("abort", "conn", "not_reading", "ping_id", "room")

    def __init__(
        self,
        room: Room,
        conn: Conn,
        not_reading: Callable[[], bool],
        abort: Callable[[], None],
    ) -> None:
        self.room = room
        self.conn = conn
        self.not_reading = not_reading
        self.abort = abort
        self.ping_id = 0


class Pinger:
    """The clock-sync pings (and the not-reading check) of every socket of a
    server: :meth:`add` a socket when it opens, :meth:`discard` it when it
    closes. The task starts with the first socket of its event loop."""

    def __init__(self, tick_s: float = TICK_S) -> None:
        self.tick_s = tick_s
        self._wheel: dict[int, list[_Socket]] = {}
        self._sockets: dict[Conn, _Socket] = {}
        self._task: asyncio.Task[None] | None = None
        self._tick = 0

    def __len__(self) -> int:
        return len(self._sockets)

    def add(
        self,
        room: Room,
        conn: Conn,
        not_reading: Callable[[], bool] = lambda: False,
        abort: Callable[[], None] = lambda: None,
    ) -> None:
        """Ping ``conn`` (``not_reading()``: has the client stopped reading?
        ``abort()``: drop its connection) from :data:`PING_FIRST_S` on."""
        entry = _Socket(room, conn, not_reading, abort)
        self._sockets[conn] = entry
        self._schedule(entry, PING_FIRST_S)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="pinger")

    def discard(self, conn: Conn) -> None:
        self._sockets.pop(conn, None)
        if not self._sockets:
            self._wheel.clear()
            if self._task is not None:
                self._task.cancel()
                self._task = None

    def _now_tick(self) -> int:
        return math.floor(time.monotonic() / self.tick_s)

    def _schedule(self, entry: _Socket, delay_s: float) -> None:
        at = self._now_tick() + max(1, round(delay_s / self.tick_s))
        self._wheel.setdefault(at, []).append(entry)

    async def _run(self) -> None:
        self._tick = self._now_tick()
        while self._sockets:
            await asyncio.sleep(self.tick_s)
            now = self._now_tick()
            while self._tick < now:
                self._tick += 1
                due = self._wheel.pop(self._tick, None)
                if due:
                    self._ping(due)

    def _ping(self, due: list[_Socket]) -> None:
        for entry in due:
            conn = entry.conn
            if self._sockets.get(conn) is not entry or conn.closed:
                continue
            if entry.not_reading():
                log.warning(
                    "room %s: %r does not read its frames: closing it (1013)", entry.room.code, conn
                )
                METRICS.count(f"close:{CLOSE_NOT_READING}")
                conn.close(CLOSE_NOT_READING, "not reading", drop=True)
                self.discard(conn)
                asyncio.get_running_loop().call_later(ABORT_AFTER_S, _abort_if_stuck, entry)
                continue
            if not conn.welcomed:
                self._schedule(entry, PING_FIRST_S)
                continue
            entry.ping_id += 1
            conn.pinged = entry.ping_id
            now = entry.room.now()
            conn.send(ping_frame(entry.ping_id, round(now, 3)))
            entry.room.on_ping_sent(conn, entry.ping_id, now)
            self._schedule(
                entry, PING_FIRST_S if entry.ping_id < PING_FIRST_COUNT else PING_EVERY_S
            )


def _abort_if_stuck(entry: _Socket) -> None:
    """Not even the close frame went out: drop the connection."""
    if entry.conn.waiting_s() >= ABORT_AFTER_S:
        with contextlib.suppress(Exception):
            entry.abort()
