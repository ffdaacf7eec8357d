"""Room ownership: a lease per room, held by one node, renewed while it lives.

In Redis a lease is one key, ``{prefix}:lease:{room}``, set with
``SET key "{node}#{epoch}" NX PX ttl``: only one node can set it, and it
vanishes ``ttl`` ms after its last renewal if the owner dies. Renewal and
release are small Lua scripts that act only if the key still holds *this*
lease's value, so a node never extends or deletes a lease it lost. ``epoch``
comes from ``INCR {prefix}:epoch:{room}`` and grows with every acquisition
attempt: a fencing number that tells a newer owner from an older one.

The owner stops trusting its lease *before* Redis can expire it: a lease is
``held`` only until ``ttl * SAFETY`` after the moment its last successful
renewal was *sent*. So by the time another node can take the room, the old
owner has already seen ``lost`` (unless its clock stalls, which no lease can
cure; the epoch is there for that).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .errors import BadClusterInput, ClusterUnavailable, LeaseLost

SAFETY: Final = 0.8
MIN_TTL_MS: Final = 50
MAX_NAME: Final = 100

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Owner:
    """Who holds a room's lease now."""

    node: str
    epoch: int


def check_name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_NAME:
        raise BadClusterInput(f"{what} is 1 to {MAX_NAME} characters, got {value!r}")
    if "#" in value or any(c.isspace() for c in value) or not value.isprintable():
        raise BadClusterInput(f"{what} has no spaces, control characters or '#': {value!r}")
    return value


def parse_value(value: str) -> Owner | None:
    node, sep, epoch = value.rpartition("#")
    if not sep or not epoch.isdigit():
        return None
    return Owner(node, int(epoch))


class Leases(ABC):
    """Acquire and inspect room leases for one node (``node`` is its unique id)."""

    def __init__(self, node: str, ttl_ms: int = 5000, *, clock: Clock = time.monotonic) -> None:
        self.node = check_name(node, "a node id")
        if isinstance(ttl_ms, bool) or not isinstance(ttl_ms, int) or ttl_ms < MIN_TTL_MS:
            raise BadClusterInput(f"ttl_ms is a whole number >= {MIN_TTL_MS}, got {ttl_ms!r}")
        self.ttl_ms = ttl_ms
        self.clock = clock

    # -------------------------------------------------------------- backend

    @abstractmethod
    async def _try_acquire(self, room: str, ttl_ms: int) -> int | None:
        """Set the lease if free: the new epoch, or None if another node holds it."""

    @abstractmethod
    async def _renew(self, room: str, value: str, ttl_ms: int) -> bool: ...

    @abstractmethod
    async def _release(self, room: str, value: str) -> bool: ...

    @abstractmethod
    async def _owner(self, room: str) -> str | None: ...

    # --------------------------------------------------------------- public

    async def acquire(self, room: str, *, renew: bool = True) -> Lease | None:
        """Take the room if nobody holds it: a :class:`Lease` (renewing itself
        unless ``renew=False``), or None if another node owns it."""
        room = check_name(room, "a room")
        sent = self.clock()
        epoch = await self._try_acquire(room, self.ttl_ms)
        if epoch is None:
            return None
        lease = Lease(self, room, epoch, sent)
        if renew:
            lease.start()
        return lease

    async def owner(self, room: str) -> Owner | None:
        value = await self._owner(check_name(room, "a room"))
        return parse_value(value) if value is not None else None

    async def close(self) -> None:  # noqa: B027 - an optional hook
        """Release backend resources (leases are left to expire or be released)."""


class Lease:
    """One held room. Check :attr:`held` (or call :meth:`check`) before acting as owner."""

    def __init__(self, leases: Leases, room: str, epoch: int, sent: float) -> None:
        self.leases = leases
        self.room = room
        self.epoch = epoch
        self.node = leases.node
        self.value = f"{leases.node}#{epoch}"
        self.lost = asyncio.Event()
        self._valid_until = sent + leases.ttl_ms / 1000 * SAFETY
        self._released = False
        self._task: asyncio.Task[None] | None = None
        self.renewals = 0

    def __repr__(self) -> str:
        return f"<Lease {self.room} {self.value} held={self.held}>"

    @property
    def held(self) -> bool:
        if self._released or self.lost.is_set():
            return False
        if self.leases.clock() > self._valid_until:
            self.lost.set()
            return False
        return True

    def check(self) -> None:
        """Raise :class:`LeaseLost` unless this node still owns the room."""
        if not self.held:
            raise LeaseLost(f"node {self.node} no longer owns room {self.room}")

    async def renew(self) -> bool:
        """Extend the lease once; False (and ``lost`` set) if it is gone."""
        if not self.held:
            return False
        sent = self.leases.clock()
        if await self.leases._renew(self.room, self.value, self.leases.ttl_ms):
            self._valid_until = sent + self.leases.ttl_ms / 1000 * SAFETY
            self.renewals += 1
            return True
        self.lost.set()
        return False

    def start(self) -> None:
        """Renew every third of the TTL in the background until released or lost."""
        if self._task is None:
            self._task = asyncio.create_task(self._keep(), name=f"lease:{self.room}")

    async def _keep(self) -> None:
        interval = self.leases.ttl_ms / 1000 / 3
        while self.held:
            await asyncio.sleep(interval)
            if self._released:
                return
            # On a Redis error try again; ``held`` turns false when the lease may expire.
            with contextlib.suppress(ClusterUnavailable):
                await self.renew()
        self.lost.set()

    async def release(self) -> None:
        """Give the room up (only if this lease still holds it)."""
        if self._released:
            return
        self._released = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if not self.lost.is_set():
            await self.leases._release(self.room, self.value)

    async def __aenter__(self) -> Lease:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.release()
