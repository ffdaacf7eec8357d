"""One client's WebSocket (its outgoing queue, sequence numbers, flood limits)
and the per-client limits of the whole server (:class:`Limits`, :class:`KeyedLimiter`).

Every number here is documented in docs/protocol.md ("Limits").
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import logging
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from starlette.websockets import WebSocket, WebSocketState

from slapjack.protocol import error_frame

from .metrics import METRICS

log = logging.getLogger(__name__)

MAX_PENDING: Final = 1000
"""Frames queued for a client that does not read: beyond this it is closed (1013)."""

CLOSE_NOT_READING: Final = 1013
"""Close code for a socket that does not read its frames (see :meth:`Conn.close`)."""

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Limits:
    """What one client may ask of the server (docs/protocol.md, "Limits").

    HTTP requests that create or take something are limited per client address
    (:func:`client_key`) with token buckets: ``*_burst`` at once, then
    ``*_per_minute``. A socket's frames are limited by the room's
    ``RoomTiming.rate_limit`` (game frames) and ``control_*`` (``hello``/``pong``).
    """

    create_burst: int = 10
    create_per_minute: float = 10.0
    """``POST /api/rooms``."""
    join_burst: int = 30
    join_per_minute: float = 60.0
    """``POST /api/rooms/{code}/join`` (a party on one phone joins up to 10 seats at once)."""
    play_now_burst: int = 6
    play_now_per_minute: float = 6.0
    """``POST /api/play-now`` (each makes a room)."""
    control_per_second: float = 10.0
    control_burst: int = 20
    """``hello`` and ``pong`` frames of one socket (the server pings at most 4 times a second)."""
    token_frames_per_second: float = 30.0
    """Game frames of one seat token, summed over all of its sockets."""
    sockets_per_address: int = 64
    """Open WebSockets from one client address."""
    max_rooms: int = 20_000
    """Live rooms of the server; when full the oldest empty rooms make way."""
    empty_room_s: float = 120.0
    """A waiting room that no seated human has connected to closes after this."""
    rooms_page_max: int = 100
    """The largest page ``GET /api/rooms`` returns."""
    not_reading_s: float = 10.0
    """A socket with a frame it has not taken for this long is closed (1013)."""
    full_retry_after_s: int = 30
    """``Retry-After`` of a ``503 server_full``."""

    @classmethod
    def relaxed(cls) -> Limits:
        """Limits no test of the game itself will meet (the limits' own tests use the defaults)."""
        big = 1_000_000
        return cls(
            create_burst=big,
            create_per_minute=big,
            join_burst=big,
            join_per_minute=big,
            play_now_burst=big,
            play_now_per_minute=big,
            token_frames_per_second=big,
            sockets_per_address=big,
        )


class RateLimit:
    """A token bucket: ``rate`` tokens a second, bursts up to ``burst``."""

    __slots__ = ("_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float = 30.0, burst: float = 30.0) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._last: float | None = None

    def _refill(self, now: float) -> None:
        if self._last is not None:
            elapsed = max(0.0, now - self._last)
            self._tokens = min(self.burst, self._tokens + elapsed * self.rate)
        self._last = now

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self._refill(now)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def retry_after(self, now: float | None = None) -> float:
        """Seconds until a token is there again (0: now)."""
        now = time.monotonic() if now is None else now
        self._refill(now)
        return 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) / self.rate

    def full(self, now: float) -> bool:
        """Refilled to the brim by ``now`` (then it is as good as a new bucket)."""
        if self._last is None:
            return True
        return self._tokens + max(0.0, now - self._last) * self.rate >= self.burst


class KeyedLimiter:
    """One :class:`RateLimit` per key (a client address, a token), kept only
    while it matters: buckets that have refilled are dropped now and then, and
    at most ``max_keys`` are kept (the oldest go first)."""

    def __init__(self, per_second: float, burst: float, *, max_keys: int = 100_000) -> None:
        self.per_second = per_second
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: dict[str, RateLimit] = {}
        self._prune_at = min(1024, max_keys)

    def __len__(self) -> int:
        return len(self._buckets)

    def hit(self, key: str, now: float | None = None) -> float | None:
        """Count one request of ``key``: ``None`` if allowed, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._prune_at:
                self.prune(now)
            bucket = self._buckets[key] = RateLimit(self.per_second, self.burst)
        if bucket.allow(now):
            return None
        return max(bucket.retry_after(now), 1e-3)

    def prune(self, now: float) -> None:
        self._buckets = {k: b for k, b in self._buckets.items() if not b.full(now)}
        while len(self._buckets) >= self.max_keys:
            del self._buckets[next(iter(self._buckets))]
        self._prune_at = min(self.max_keys, max(1024, 2 * len(self._buckets)))


def per_minute(burst: int, per_min: float) -> KeyedLimiter:
    return KeyedLimiter(per_min / 60.0, burst)


def client_key(host: str | None) -> str:
    """The rate-limit key of a client address: an IPv4 address as it is, an
    IPv6 address by its /64 network (one subscriber usually holds a whole /64),
    an IPv4-mapped IPv6 address as its IPv4 address."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def retry_seconds(wait: float) -> int:
    """A ``Retry-After`` value: whole seconds, at least 1."""
    return max(1, math.ceil(wait))


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class Welcome(str):
    """The text of a socket's first ``welcome``: once :meth:`Conn.send` has
    queued it the socket is *welcomed*, and only then may the pinger's frames
    follow (``hello`` is answered after the write-ahead step, so a socket can
    be greeted a while before its welcome goes out)."""

    __slots__ = ()


class Conn:
    """A client socket as rooms see it: ``send`` writes or queues a text frame, never blocks.

    ``seat`` is ``None`` for a spectator (and before ``hello``); ``seq`` counts
    the ``update`` frames sent to this socket. ``limit`` counts its game frames,
    ``control`` its ``hello`` and ``pong`` frames.

    ``direct`` (set by the socket's edge, :func:`.sockets.direct_writer`)
    writes a frame at once when it can; :meth:`send` uses it only while
    nothing is queued or being sent, so frames keep their order, and queues
    the frame for the writer task otherwise (or when ``direct`` refuses).

    ``ride`` (set by the pinger, :meth:`.pings.Pinger.add`) is passed to
    ``direct`` with each frame: it returns a clock-sync ``ping`` to write
    with that frame (just before it, in the same write) when one is due soon.

    The writer task is :meth:`writer`, run by the caller, or (after
    :meth:`write_on_demand`) made by the connection itself only while a frame
    waits: a socket that keeps up holds no task of its own.
    """

    def __init__(
        self,
        ws: WebSocket | None = None,
        *,
        frame_rate: float = 30.0,
        control_rate: float = 10.0,
        control_burst: float = 20.0,
    ) -> None:
        self.id = next(_ids)
        self.ws = ws
        self.seat: int | None = None
        self.greeted = False
        self.welcomed = False
        self.pinged = 0
        """The ``id`` of the last ``ping`` sent (the pinger counts them)."""
        self.ponged = 0
        """The highest ``ping`` ``id`` a ``pong`` has answered."""
        self.seq = 0
        self.closed = False
        self.close_code: int | None = None
        self.limit = RateLimit(frame_rate, frame_rate)
        self.control = RateLimit(control_rate, control_burst)
        self._queue: deque[tuple[str, float] | _Close] = deque()
        self._ready = asyncio.Event()
        self._sending_since: float | None = None
        self.direct: Callable[..., bool] | None = None
        """``direct(text)``, or ``direct(text, ride)`` while ``ride`` is set: write now (or ``False``)."""
        self.ride: Callable[[], str | None] | None = None
        self._on_demand = False
        self.writer_task: asyncio.Task[None] | None = None
        """The writer task made by :meth:`write_on_demand`'s mode, while there is one."""

    def __repr__(self) -> str:
        return f"Conn({self.id}, seat={self.seat})"

    def send(self, text: str) -> None:
        if self.closed:
            return
        if type(text) is Welcome:
            self.welcomed = True
        direct = self.direct
        if direct is not None and not self._queue and self._sending_since is None:
            ride = self.ride
            if direct(text) if ride is None else direct(text, ride):
                METRICS.send_lag_ms.append(0.0)
                return
        if len(self._queue) >= MAX_PENDING:
            log.warning("%r does not read its frames: closing it", self)
            self.close(CLOSE_NOT_READING, "not reading", drop=True)
            return
        self._queue.append((text, time.perf_counter()))
        self._wake()

    def write_on_demand(self) -> None:
        """From now on make the writer task when a frame must wait (or the
        close goes out), and let it end when the queue is empty."""
        self._on_demand = True
        if self._queue:
            self._wake()

    def _wake(self) -> None:
        if self._on_demand and self.writer_task is None:
            self.writer_task = asyncio.get_running_loop().create_task(self.writer())
        self._ready.set()

    def error(self, code: str, message: str, answer: int | str | None = None) -> None:
        """An ``error`` frame (``code``: an :class:`~slapjack.protocol.ErrorCode`);
        ``answer`` is the ``id`` of the frame it answers."""
        self.send(error_frame(code, message, answer))

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def waiting_s(self, now: float | None = None) -> float:
        """How long the oldest frame not yet taken by the socket has waited (seconds)."""
        oldest = self._sending_since
        if oldest is None and not self._queue:  # the common case: nothing waits
            return 0.0
        now = time.perf_counter() if now is None else now
        if self._queue:
            head = self._queue[0]
            if not isinstance(head, _Close):
                oldest = head[1] if oldest is None else min(oldest, head[1])
        return 0.0 if oldest is None else max(0.0, now - oldest)

    def close(self, code: int = 1000, reason: str = "", *, drop: bool = False) -> None:
        """Send what is queued (``drop``: drop it), then close with ``code``."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        if drop:
            METRICS.dropped_frames += sum(1 for item in self._queue if not isinstance(item, _Close))
            self._queue.clear()
        self._queue.append(_Close(code, reason))
        self._wake()

    async def writer(self) -> None:
        """Drain the queue onto the socket (one task per connection)."""
        ws = self.ws
        assert ws is not None
        lags = METRICS.send_lag_ms
        queue = self._queue
        try:
            while True:
                if not queue:
                    if self._on_demand:  # sent all: the next frame goes straight out
                        self.writer_task = None
                        return
                    self._ready.clear()
                    await self._ready.wait()
                    continue
                item = queue.popleft()
                if isinstance(item, _Close):
                    if ws.application_state is WebSocketState.CONNECTED:
                        await ws.close(item.code, item.reason)
                    return
                text, queued = item
                self._sending_since = queued
                await ws.send_text(text)
                self._sending_since = None
                lags.append((time.perf_counter() - queued) * 1000.0)
        except Exception as exc:  # the peer went away: the reader notices too
            log.debug("%r: send failed: %s", self, exc)
            self.closed = True
