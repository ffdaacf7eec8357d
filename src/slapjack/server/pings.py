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

A once-a-second ping may *ride*: when a frame the socket gets anyway (an
update) is written to it directly within :data:`RIDE_S` before the ping is
due, the ping is stamped then and goes in the same write, just before that
frame (two WebSocket frames, one ``transport.write``; first, so the client
answers it before it handles the update), and costs no write of its own
(:meth:`Pinger.add` with ``ride``; the direct writer of :mod:`.sockets` asks
:meth:`Conn.ride`). Its due time stays where it was: the tick there only
checks that the socket reads and schedules the next ping a period on, so the
socket still gets one ping a period, each at most :data:`RIDE_S` early. Pings
with no frame to ride on go out alone on time, as before. A ping that rides
is written in its room's task, while the room sends its frames: the referee
is told there at once (:meth:`Room.on_ping_written`), not with an input.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable
from functools import partial
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
RIDE_S = 0.7
"""How early a once-a-second ping may leave to ride on a frame written to its
socket anyway (0: never; less than :data:`PING_EVERY_S`). At 0.7 about three
pings in four ride at human pace, at 0.4 two in five (docs/benchmarks.md,
"Pings that ride on updates")."""
CHUNK: Final = 64
"""Sockets served in one go: a tick with more due lets the event loop run
its other callbacks (the clients' frames) between chunks, so that no tick
stalls the loop for long (at 6,000 players one tick had 2,065 sockets due
and took 36 ms in one piece; docs/benchmarks.md). A ping is stamped when it
is written, so the chunks do not blur the referee's round trips."""
ABORT_AFTER_S: Final = 2.0
"""A socket closed as not reading whose close frame cannot even be written
after this long is dropped (TCP abort)."""


class _Socket:
    __slots__ = (
        "abort",
        "conn",
        "early",
        "keepalive",
        "not_reading",
        "ping_id",
        "ridden",
        "room",
    )

    def __init__(
        self,
        room: Room,
        conn: Conn,
        not_reading: Callable[[], bool],
        abort: Callable[[], None],
        keepalive: Callable[[float], object] | None = None,
    ) -> None:
        self.room = room
        self.conn = conn
        self.not_reading = not_reading
        self.abort = abort
        self.keepalive = keepalive
        self.ping_id = 0
        self.early = math.inf
        """From this time (``time.monotonic()``) on the next ping may ride."""
        self.ridden = False
        """The ping due next has gone out early, on another frame."""


class Pinger:
    """The clock-sync pings (and the not-reading check) of every socket of a
    server: :meth:`add` a socket when it opens, :meth:`discard` it when it
    closes. The task starts with the first socket of its event loop."""

    def __init__(self, tick_s: float = TICK_S, ride_s: float | None = None) -> None:
        self.tick_s = tick_s
        self.ride_s = RIDE_S if ride_s is None else ride_s
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
        *,
        ride: bool = False,
        keepalive: Callable[[float], object] | None = None,
    ) -> None:
        """Ping ``conn`` (``not_reading()``: has the client stopped reading?
        ``abort()``: drop its connection) from :data:`PING_FIRST_S` on.
        ``ride``: its once-a-second pings may ride on its other frames
        (``conn.direct`` takes a second frame: :func:`.sockets.direct_writer`).
        ``keepalive(now)``: called at each of the socket's ticks after the
        not-reading check (the WebSocket layer's ping, when one is due:
        :meth:`.wsframes.Keepalive.tick`)."""
        entry = _Socket(room, conn, not_reading, abort, keepalive)
        self._sockets[conn] = entry
        self._schedule(entry, PING_FIRST_S)
        if ride and self.ride_s > 0:
            conn.ride = partial(self._ride, entry)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="pinger")

    def discard(self, conn: Conn) -> None:
        if self._sockets.pop(conn, None) is not None:
            conn.ride = None
        if not self._sockets:
            self._wheel.clear()
            if self._task is not None:
                self._task.cancel()
                self._task = None

    def _now_tick(self) -> int:
        return math.floor(time.monotonic() / self.tick_s)

    def _schedule(self, entry: _Socket, delay_s: float, base: int | None = None) -> None:
        """Put ``entry`` in the slot ``delay_s`` after the tick ``base`` (the
        one being served; ``None``: now). A socket served late keeps its place
        in the second: were it put after *now*, every socket of the ticks a
        late pinger catches up on would land in one slot, the next tick would
        be that much longer and later still, and the slots would keep merging
        (at 6,000 players one tick had 2,065 sockets of the 300 a tick should)."""
        at = (self._now_tick() if base is None else base) + max(1, round(delay_s / self.tick_s))
        slot = self._wheel.get(at)
        if slot is None:
            self._wheel[at] = [entry]
        else:
            slot.append(entry)
        entry.early = at * self.tick_s - self.ride_s

    async def _run(self) -> None:
        self._tick = self._now_tick()
        while self._sockets:
            await asyncio.sleep(self.tick_s)
            now = self._now_tick()
            while self._tick < now:
                self._tick += 1
                due = self._wheel.pop(self._tick, None) or []
                for start in range(0, len(due), CHUNK):
                    if start:
                        await asyncio.sleep(0)
                    self._ping(due[start : start + CHUNK])

    def _ping(self, due: list[_Socket]) -> None:
        tick = self._tick
        sockets = self._sockets
        monotonic = time.monotonic
        alone = 0
        for entry in due:
            conn = entry.conn
            if sockets.get(conn) is not entry or conn.closed:
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
            if entry.keepalive is not None:
                entry.keepalive(monotonic())
            if not conn.welcomed:
                self._schedule(entry, PING_FIRST_S, tick)
                continue
            if entry.ridden:  # this one went out early, on an update
                entry.ridden = False
                self._schedule(entry, PING_EVERY_S, tick)
                continue
            ping_id = entry.ping_id = entry.ping_id + 1
            self._schedule(
                entry, PING_FIRST_S if ping_id < PING_FIRST_COUNT else PING_EVERY_S, tick
            )
            alone += 1
            room = entry.room
            now = room.now()
            conn.pinged = ping_id
            ride, conn.ride = conn.ride, None  # a ping carries no other ping
            conn.send(ping_frame(ping_id, round(now, 3)))
            if conn.ride is None and sockets.get(conn) is entry:
                conn.ride = ride
            room.on_ping_sent(conn, ping_id, now)
        if alone:
            METRICS.count("pings_alone", alone)

    def _ride(self, entry: _Socket) -> str | None:
        """The ping for ``entry``'s socket, stamped now, if its next ping is a
        once-a-second one due within :attr:`ride_s` (and has not gone yet):
        the caller writes it at once, with the frame it is writing anyway."""
        if entry.ridden or entry.ping_id < PING_FIRST_COUNT or time.monotonic() < entry.early:
            return None
        entry.ridden = True
        entry.ping_id += 1
        METRICS.count("pings_rode")
        now = entry.room.now()
        entry.conn.pinged = entry.ping_id
        entry.room.on_ping_written(entry.conn, entry.ping_id, now)
        return ping_frame(entry.ping_id, round(now, 3))


def _abort_if_stuck(entry: _Socket) -> None:
    """Not even the close frame went out: drop the connection."""
    if entry.conn.waiting_s() >= ABORT_AFTER_S:
        with contextlib.suppress(Exception):
            entry.abort()
