"""One client's WebSocket: its outgoing queue, its sequence numbers, its flood limit."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Final

from starlette.websockets import WebSocket, WebSocketState

from .metrics import METRICS

log = logging.getLogger(__name__)

MAX_PENDING: Final = 1000
"""Frames queued for a client that does not read: beyond this it is dropped."""

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class RateLimit:
    """A token bucket: ``rate`` frames a second, bursts up to ``burst``."""

    __slots__ = ("_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float = 30.0, burst: float = 30.0) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = burst
        self._last: float | None = None

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        if self._last is not None:
            elapsed = max(0.0, now - self._last)
            self._tokens = min(self.burst, self._tokens + elapsed * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class Conn:
    """A client socket as rooms see it: ``send`` queues a text frame, never blocks.

    ``seat`` is ``None`` for a spectator (and before ``hello``); ``seq`` counts
    the ``update`` frames sent to this socket.
    """

    def __init__(self, ws: WebSocket | None = None) -> None:
        self.id = next(_ids)
        self.ws = ws
        self.seat: int | None = None
        self.greeted = False
        self.seq = 0
        self.closed = False
        self.limit = RateLimit()
        self._queue: asyncio.Queue[tuple[str, float] | _Close] = asyncio.Queue()

    def __repr__(self) -> str:
        return f"Conn({self.id}, seat={self.seat})"

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self._queue.qsize() >= MAX_PENDING:
            log.warning("%r does not read its frames: closing it", self)
            self.close(1013, "too slow")
            return
        self._queue.put_nowait((text, time.perf_counter()))

    def send_json(self, message: dict[str, Any]) -> None:
        self.send(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def error(self, code: str, message: str) -> None:
        self.send_json({"type": "error", "code": code, "message": message})

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close with ``code``."""
        if self.closed:
            return
        self.closed = True
        self._queue.put_nowait(_Close(code, reason))

    async def writer(self) -> None:
        """Drain the queue onto the socket (one task per connection)."""
        ws = self.ws
        assert ws is not None
        lags = METRICS.send_lag_ms
        try:
            while True:
                item = await self._queue.get()
                if isinstance(item, _Close):
                    if ws.application_state is WebSocketState.CONNECTED:
                        await ws.close(item.code, item.reason)
                    return
                text, queued = item
                await ws.send_text(text)
                lags.append((time.perf_counter() - queued) * 1000.0)
        except Exception as exc:  # the peer went away: the reader notices too
            log.debug("%r: send failed: %s", self, exc)
            self.closed = True
