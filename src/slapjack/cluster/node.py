"""This server process as a member of the cluster: heartbeats, its rooms in the
room → node map, its public rooms in the lobby, draining, and what it does
when Redis goes away.

This module holds the node's life (start, close), its heartbeat and the
mirroring of its state into Redis (flush, resync), and draining; the rooms
it owns and lists, and what it asks the cluster about rooms, are in
:mod:`slapjack.cluster.ownership` (:class:`~slapjack.cluster.ownership.RoomOwnership`,
the base class of :class:`Node`).

The node keeps its own state (the rooms it owns and their epochs, its public
listings) in memory and mirrors it into Redis: calls that change it
(:meth:`Node.own`, :meth:`Node.list_room` …) return at once and a background
task writes them (``await node.flush()`` waits for that). When Redis is
down, live rooms are not held up: the changes wait, and when Redis answers
again (or comes back empty after a failover) the node writes all of its state
again. New rooms and moves need Redis and get :class:`ClusterUnavailable`,
which they can wait on with :meth:`Node.wait_available`.

Without Redis (``Node(None, …)``, one process, the default) the same calls
work on the node's own state alone: placement is this node, every room is
here.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from .errors import BadClusterInput, ClusterUnavailable
from .ownership import RoomOwnership
from .view import (
    NODES_KEPT_MS,
    OP_TIMEOUT_S,
    RESERVATION_MS,
    ClusterView,
    Listing,
    NodeInfo,
    check_id,
    guard,
    wall_ms,
)

log = logging.getLogger("slapjack.cluster")

Clock = Callable[[], float]

MIN_INTERVAL_S: Final = 0.02
HEARTBEAT_S: Final = 0.5
"""A node's heartbeat period by default."""
TTL_S: Final = 2.0
"""By default a node whose heartbeat counter stood still this long is dead (its
rooms are taken over 2 to 2.5 s after it stopped: the issue's target is play
resuming within 5 s), and its key and listings expire."""


@dataclass(frozen=True, slots=True)
class NodeLoad:
    """What the server tells its heartbeat: players connected, rooms running
    (None: the rooms this node owns)."""

    players: int = 0
    rooms: int | None = None


def _installed_version() -> str:
    try:
        return importlib.metadata.version("slapjack")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


class CpuMeter:
    """The share of one core this process used since the last sample."""

    def __init__(
        self, clock: Clock = time.monotonic, cpu: Callable[[], float] = time.process_time
    ) -> None:
        self._clock = clock
        self._cpu = cpu
        self._last = (clock(), cpu())

    def sample(self) -> float:
        now, used = self._clock(), self._cpu()
        wall = now - self._last[0]
        share = (used - self._last[1]) / wall if wall > 0 else 0.0
        self._last = (now, used)
        return round(max(0.0, share), 3)


class Node(RoomOwnership):
    """One node: its id, its public URL and its view of the cluster.

    ``view`` is None for a single process without Redis. ``interval_s`` is the
    heartbeat period, ``ttl_s`` how long a heartbeat keeps the node listed
    (and, for the takeover watchers, how long a silent node counts as alive).
    ``load()`` is called at every heartbeat.
    """

    def __init__(
        self,
        view: ClusterView | None,
        node_id: str,
        public_url: str,
        *,
        interval_s: float = HEARTBEAT_S,
        ttl_s: float = TTL_S,
        load: Callable[[], NodeLoad] | None = None,
        clock: Clock = time.monotonic,
        version: str | None = None,
    ) -> None:
        self.view = view
        self.node = check_id(node_id)
        if not isinstance(public_url, str) or not public_url.startswith(("http://", "https://")):
            raise BadClusterInput(
                f"a public URL starts with http:// or https://, got {public_url!r}"
            )
        self.url = public_url.rstrip("/")
        if not MIN_INTERVAL_S <= interval_s <= 60 or ttl_s < 2 * interval_s:
            raise BadClusterInput(
                f"interval_s is {MIN_INTERVAL_S} to 60 and ttl_s at least twice it,"
                f" got {interval_s} and {ttl_s}"
            )
        self.interval_s = float(interval_s)
        self.ttl_s = float(ttl_s)
        self._load = load or (lambda: NodeLoad())
        self._clock = clock
        self.version: str = _installed_version() if version is None else version
        self.started_ms = wall_ms()
        self._cpu = CpuMeter(clock)
        self.cpu = 0.0

        #: The rooms this node owns: code → fencing epoch.
        self.owned: dict[str, int] = {}
        self._listings: dict[str, Listing] = {}
        self._reserved: set[str] = set()  # codes reserved without Redis
        self._held: set[str] = set()  # reserved codes of rooms still waiting for players
        self._room_ops: dict[str, tuple[str, int]] = {}
        self._listing_ops: dict[str, Listing | None] = {}
        self._flush_lock = asyncio.Lock()
        self._wake = asyncio.Event()

        #: Set while Redis answers (always, without Redis).
        self.available = asyncio.Event()
        #: Set when the node went longer than ``ttl_s`` without a heartbeat
        #: (paused, starved or cut off): other nodes may have taken its rooms;
        #: call :meth:`verify` before acting as their owner again.
        self.suspect = asyncio.Event()
        #: Rooms whose map entry names a newer epoch: another node owns them.
        self.superseded: set[str] = set()
        self.draining = False
        #: Asked through Redis (``slapjack cluster drain``) to hand its rooms
        #: over and shut down; the server acts on it (``Member``).
        self.leave_asked = False
        self._drain_self = False
        self.beat = 0
        self._last_ok: float | None = None
        self._down_since: float | None = None
        self._synced = False
        self._tasks: list[asyncio.Task[None]] = []
        self._closed = False
        self.on_stall: list[Callable[[float], Awaitable[None] | None]] = []
        self.metrics: dict[str, Any] = {
            "redis_up": view is None,
            "redis_outages": 0,
            "redis_down_s": 0.0,
            "redis_last_error": None,
            "beats": 0,
            "beat_failures": 0,
            "resyncs": 0,
            "stalls": 0,
            "flush_failures": 0,
        }
        if view is None:
            self.available.set()

    def __repr__(self) -> str:
        return f"<Node {self.node} {self.url} rooms={len(self.owned)}>"

    # ------------------------------------------------------------------ life

    async def start(self) -> bool:
        """Send the first heartbeat and start the heartbeat and flush tasks.
        Returns whether Redis answered; if not, the node keeps trying (and
        :attr:`available` is set once it does)."""
        if self.view is None or self._tasks:
            return self.available.is_set()
        ok = await self._beat_safely()
        self._tasks = [
            asyncio.create_task(self._beat_loop(), name=f"cluster-heartbeat:{self.node}"),
            asyncio.create_task(self._flush_loop(), name=f"cluster-flush:{self.node}"),
        ]
        return ok

    async def close(self, *, deregister: bool = True) -> None:
        """Stop heartbeating. With ``deregister``, remove the node's key and
        listings at once (placement stops choosing it); its rooms stay owned
        in the store until another node takes them over or they close."""
        if self._closed:
            return
        self._closed = True
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            _, stuck = await asyncio.wait(self._tasks, timeout=OP_TIMEOUT_S)
            if stuck:  # pragma: no cover - a task that will not stop: leave it, say so
                log.warning("cluster: node %s: %d tasks did not stop", self.node, len(stuck))
        self._tasks = []
        if self.view is None:
            return
        with contextlib.suppress(ClusterUnavailable):
            await self.flush()
            if deregister:
                view = self.view
                async with guard("deregister"), view.client.pipeline(transaction=True) as pipe:
                    pipe.delete(view.node_key(self.node))
                    pipe.delete(view.lobby_key(self.node))
                    pipe.delete(view.placed_key(self.node))
                    await pipe.execute()

    async def wait_available(self, timeout: float | None = None) -> bool:
        """Wait until Redis answers again; False if ``timeout`` passed first."""
        if self.available.is_set():
            return True
        try:
            await asyncio.wait_for(self.available.wait(), timeout)
        except TimeoutError:
            return False
        return True

    # ------------------------------------------------------------------ heartbeat

    def info(self) -> NodeInfo:
        """This node as its next heartbeat describes it."""
        load = self._load()
        return NodeInfo(
            node=self.node,
            url=self.url,
            state="draining" if self.draining else "live",
            players=load.players,
            rooms=len(self.owned) if load.rooms is None else load.rooms,
            cpu=self.cpu,
            cores=os.cpu_count() or 1,
            beat=self.beat,
            started_ms=self.started_ms,
            last_seen_ms=wall_ms(),
            interval_ms=int(self.interval_s * 1000),
            ttl_ms=int(self.ttl_s * 1000),
            version=self.version,
            host=socket.gethostname(),
            pid=os.getpid(),
        )

    async def heartbeat(self) -> None:
        """One heartbeat now (the loop sends one every ``interval_s``).
        Raises :class:`ClusterUnavailable`."""
        assert self.view is not None
        view = self.view
        self.cpu = self._cpu.sample()
        self.beat += 1
        info = self.info()
        fields = {
            k: str(v) for k, v in info.to_dict().items() if k not in ("state", "last_seen_ms")
        }
        fields["sent_ms"] = str(info.last_seen_ms)
        if self._drain_self:
            fields["draining"] = "1"
        key = view.node_key(self.node)
        ttl_ms = int(self.ttl_s * 1000)
        async with guard("heartbeat"), view.client.pipeline(transaction=True) as pipe:
            pipe.exists(key)
            pipe.hset(key, mapping=fields)  # type: ignore[arg-type]
            pipe.hsetnx(key, "draining", "0")
            pipe.hget(key, "draining")
            pipe.pexpire(key, ttl_ms)
            pipe.zadd(view.nodes_key, {self.node: info.last_seen_ms})
            pipe.delete(view.placed_key(self.node))
            pipe.pexpire(view.lobby_key(self.node), ttl_ms)
            pipe.zremrangebyscore(view.nodes_key, "-inf", info.last_seen_ms - NODES_KEPT_MS)
            for code in self._held:  # rooms still waiting: keep their codes reserved
                pipe.set(view.room_key(code), f"{self.node}#0", px=RESERVATION_MS, nx=True)
                pipe.pexpire(view.room_key(code), RESERVATION_MS)
            pipe.hget(key, "leave")
            result = await pipe.execute()
        existed, draining, lobby_kept = bool(result[0]), result[3] == "1", bool(result[7])
        now = self._clock()
        self.metrics["beats"] += 1
        self.draining = draining or self._drain_self
        self.leave_asked = draining and result[-1] == "1"
        gap = None if self._last_ok is None else now - self._last_ok
        self._last_ok = now
        was_down = self._down_since is not None
        if was_down:
            assert self._down_since is not None
            down = now - self._down_since
            self._down_since = None
            self.metrics["redis_down_s"] = round(self.metrics["redis_down_s"] + down, 3)
            log.warning(
                "cluster: Redis answers again after %.1f s; node %s writes its %d rooms"
                " and %d listings again",
                down,
                self.node,
                len(self.owned),
                len(self._listings),
            )
        self.metrics["redis_up"] = True
        self.available.set()
        lost_keys = not existed and self._synced
        if not self._synced or was_down or lost_keys or (not lobby_kept and self._listings):
            if lost_keys and not was_down:
                log.warning(
                    "cluster: node %s found its heartbeat key gone (Redis restarted or"
                    " failed over, or the node was silent too long); writing its state again",
                    self.node,
                )
            await self.resync()
        if gap is not None and gap > self.ttl_s:
            await self._stalled(gap)

    async def _stalled(self, gap: float) -> None:
        self.metrics["stalls"] += 1
        self.suspect.set()
        log.warning(
            "cluster: node %s went %.1f s without a heartbeat (more than its ttl of %.1f s):"
            " other nodes may have taken its rooms; checking ownership before writing",
            self.node,
            gap,
            self.ttl_s,
        )
        for callback in list(self.on_stall):
            outcome = callback(gap)
            if outcome is not None:
                await outcome

    async def _beat_safely(self) -> bool:
        try:
            await self.heartbeat()
        except ClusterUnavailable as exc:
            self.metrics["beat_failures"] += 1
            self._went_down(exc)
            return False
        return True

    async def _beat_loop(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.interval_s)
            await self._beat_safely()

    def _went_down(self, exc: ClusterUnavailable) -> None:
        self.metrics["redis_last_error"] = exc.message
        if self._down_since is not None:
            return
        self._down_since = self._clock()
        self.metrics["redis_outages"] += 1
        self.metrics["redis_up"] = False
        self.available.clear()
        log.warning(
            "cluster: Redis unreachable (%s); node %s keeps its live rooms playing,"
            " new rooms and moves wait; retrying every %.1f s",
            exc.message,
            self.node,
            self.interval_s,
        )

    # ------------------------------------------------------------------ state → Redis

    def _changed(self) -> None:
        self._wake.set()

    async def _flush_loop(self) -> None:
        while not self._closed:
            await self._wake.wait()
            self._wake.clear()
            with contextlib.suppress(ClusterUnavailable):
                await self.flush()

    async def flush(self) -> None:
        """Write the pending changes to Redis now. Raises :class:`ClusterUnavailable`
        (the changes stay pending and are written when Redis is back)."""
        if self.view is None:
            self._room_ops.clear()
            self._listing_ops.clear()
            return
        view = self.view
        async with self._flush_lock:
            room_ops, self._room_ops = self._room_ops, {}
            listing_ops, self._listing_ops = self._listing_ops, {}
            if not room_ops and not listing_ops:
                return
            lobby = view.lobby_key(self.node)
            try:
                async with guard("flush"), view.client.pipeline(transaction=False) as pipe:
                    for code, (op, epoch) in room_ops.items():
                        if op == "own":
                            await view._own(
                                keys=[view.room_key(code)], args=[self.node, epoch], client=pipe
                            )
                        else:
                            await view._disown(
                                keys=[view.room_key(code)],
                                args=[f"{self.node}#{epoch}"],
                                client=pipe,
                            )
                    for code, listing in listing_ops.items():
                        if listing is None:
                            pipe.hdel(lobby, code)
                        else:
                            pipe.hset(lobby, code, listing.to_json())
                    if listing_ops:
                        pipe.pexpire(lobby, int(self.ttl_s * 1000))
                    results = await pipe.execute()
            except ClusterUnavailable as exc:
                for code, pending in room_ops.items():
                    self._room_ops.setdefault(code, pending)
                for code, listing in listing_ops.items():
                    self._listing_ops.setdefault(code, listing)
                self.metrics["flush_failures"] += 1
                self._went_down(exc)
                raise
        for (code, (op, epoch)), done in zip(room_ops.items(), results, strict=False):
            if op == "own" and not done:
                self._superseded(code, epoch)

    async def resync(self) -> None:
        """Write all of this node's state again: every owned room into the map
        (never over a newer epoch), the whole lobby listing."""
        if self.view is None:
            return
        view = self.view
        async with self._flush_lock:
            owned = dict(self.owned)
            listings = dict(self._listings)
            room_ops, self._room_ops = self._room_ops, {}
            self._listing_ops.clear()
            lobby = view.lobby_key(self.node)
            try:
                async with guard("resync"), view.client.pipeline(transaction=True) as pipe:
                    for code, (op, epoch) in room_ops.items():
                        if op == "disown":
                            await view._disown(
                                keys=[view.room_key(code)],
                                args=[f"{self.node}#{epoch}"],
                                client=pipe,
                            )
                    for code, epoch in owned.items():
                        await view._own(
                            keys=[view.room_key(code)], args=[self.node, epoch], client=pipe
                        )
                    pipe.delete(lobby)
                    if listings:
                        pipe.hset(lobby, mapping={c: x.to_json() for c, x in listings.items()})
                        pipe.pexpire(lobby, int(self.ttl_s * 1000))
                    results = await pipe.execute()
            except ClusterUnavailable as exc:
                for code, pending in room_ops.items():
                    self._room_ops.setdefault(code, pending)
                self._went_down(exc)
                raise
        self._synced = True
        self.metrics["resyncs"] += 1
        disowns = sum(1 for op, _ in room_ops.values() if op == "disown")
        for (code, epoch), done in zip(owned.items(), results[disowns:], strict=False):
            if not done:
                self._superseded(code, epoch)

    def _superseded(self, code: str, epoch: int) -> None:
        if self.owned.get(code) == epoch:
            self.superseded.add(code)
            log.warning(
                "cluster: room %s is mapped to a newer epoch than this node's %d:"
                " another node owns it",
                code,
                epoch,
            )

    async def nodes(self) -> list[NodeInfo]:
        if self.view is None:
            return [self.info()]
        result: list[NodeInfo] = await self._ask(self.view.nodes())
        return result

    # ------------------------------------------------------------------ draining

    async def drain(self, on: bool = True) -> None:
        """Stop (or resume) taking new rooms here; other nodes see it at once."""
        self._drain_self = on
        self.draining = on
        if self.view is not None:
            await self._ask(self.view.set_draining(self.node, on))
