"""In-process leases and relay: the single-node default, and a model for tests.

Several :class:`MemoryLeases` (one per simulated node) share one
:class:`LeaseTable`; several :class:`MemoryRelay` share one :class:`Hub`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from .lease import Clock, Leases
from .relay import Relay, Subscription, check_channel, decode, encode


class LeaseTable:
    """The shared state of in-memory leases: room → (value, expires at)."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.leases: dict[str, tuple[str, float]] = {}
        self.epochs: dict[str, int] = {}

    def get(self, room: str) -> str | None:
        entry = self.leases.get(room)
        if entry is None:
            return None
        if self.clock() >= entry[1]:
            del self.leases[room]
            return None
        return entry[0]


class MemoryLeases(Leases):
    def __init__(
        self,
        node: str,
        ttl_ms: int = 5000,
        *,
        table: LeaseTable | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.table = table if table is not None else LeaseTable(clock or time.monotonic)
        super().__init__(node, ttl_ms, clock=clock or self.table.clock)

    async def _try_acquire(self, room: str, ttl_ms: int) -> int | None:
        epoch = self.table.epochs.get(room, 0) + 1
        self.table.epochs[room] = epoch
        if self.table.get(room) is not None:
            return None
        self.table.leases[room] = (f"{self.node}#{epoch}", self.table.clock() + ttl_ms / 1000)
        return epoch

    async def _renew(self, room: str, value: str, ttl_ms: int) -> bool:
        if self.table.get(room) != value:
            return False
        self.table.leases[room] = (value, self.table.clock() + ttl_ms / 1000)
        return True

    async def _release(self, room: str, value: str) -> bool:
        if self.table.get(room) != value:
            return False
        del self.table.leases[room]
        return True

    async def _owner(self, room: str) -> str | None:
        return self.table.get(room)


class Hub:
    """The shared state of in-memory relays: channel → subscriber queues."""

    def __init__(self) -> None:
        self.queues: dict[str, set[asyncio.Queue[tuple[str, str]]]] = {}


class _MemorySubscription(Subscription):
    def __init__(self, hub: Hub, channels: tuple[str, ...]) -> None:
        super().__init__(channels)
        self._hub = hub
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    async def __aenter__(self) -> Subscription:
        for channel in self.channels:
            self._hub.queues.setdefault(channel, set()).add(self._queue)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for channel in self.channels:
            subscribers = self._hub.queues.get(channel)
            if subscribers is not None:
                subscribers.discard(self._queue)
                if not subscribers:
                    del self._hub.queues[channel]

    async def get(self) -> tuple[str, dict[str, Any]]:
        while True:
            channel, text = await self._queue.get()
            message = decode(text)
            if message is not None:
                return channel, message
            self.dropped += 1


class MemoryRelay(Relay):
    def __init__(self, hub: Hub | None = None) -> None:
        self.hub = hub if hub is not None else Hub()

    async def publish(self, channel: str, message: Mapping[str, Any]) -> int:
        return self.publish_raw(check_channel(channel), encode(message))

    def publish_raw(self, channel: str, text: str) -> int:
        subscribers = self.hub.queues.get(channel, set())
        for queue in subscribers:
            queue.put_nowait((channel, text))
        return len(subscribers)

    def subscribe(self, *channels: str) -> Subscription:
        return _MemorySubscription(self.hub, tuple(check_channel(c) for c in channels))
