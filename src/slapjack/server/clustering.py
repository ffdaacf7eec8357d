"""This server as a node of a cluster (``slapjack serve --redis-url …``):
heartbeats, takeover of the rooms of a dead node, giving up rooms another node
fenced off, draining, and where a room a client asks for runs.

A :class:`Member` is made by the app's lifespan when a Redis URL is given;
without one there is none and nothing here runs (one process, SQLite).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

from slapjack.cluster import (
    Claim,
    ClusterUnavailable,
    ClusterView,
    Location,
    Node,
    NodeLoad,
    Watcher,
    claim_rooms,
    cluster_status,
    connect,
    heir,
)
from slapjack.protocol import Moved
from slapjack.store import StaleOwner, StoreError, UnknownRoom
from slapjack.store.base import Store

from .lobby import Lobby
from .metrics import METRICS

log = logging.getLogger("slapjack.cluster")

RETRY_MS: Final = 250
"""What a ``moved`` without a target tells the client to wait before trying again."""


def ws_url(base: str, code: str) -> str:
    """``https://host/n/a`` → ``wss://host/n/a/ws/CODE``."""
    parts = urlsplit(base.rstrip("/"))
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urlunsplit((scheme, parts.netloc, f"{parts.path}/ws/{code}", "", ""))


def moved(code: str, where: Location | None, reason: str = "elsewhere") -> Moved:
    """The ``moved`` frame for a room that runs at ``where`` (``None``, or an
    owner that is gone: retry later)."""
    if where is None or not where.live or not where.url:
        return Moved(
            code=code,
            node=None,
            url=None,
            ws=None,
            retry_ms=RETRY_MS,
            reason="takeover" if reason == "elsewhere" else reason,  # type: ignore[arg-type]
        )
    return Moved(
        code=code,
        node=where.node,
        url=where.url,
        ws=ws_url(where.url, code),
        retry_ms=0,
        reason="elsewhere",
    )


class Member:
    """This node in the cluster: its :class:`~slapjack.cluster.Node`, its
    takeover :class:`~slapjack.cluster.Watcher`, and what they do to the lobby."""

    def __init__(
        self,
        lobby: Lobby,
        store: Store,
        redis_url: str,
        node_id: str,
        public_url: str,
        *,
        prefix: str = "slapjack",
        interval_s: float | None = None,
        ttl_s: float | None = None,
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.view = ClusterView(connect(redis_url), prefix=prefix, store=store)
        timing: dict[str, Any] = {}
        if interval_s is not None:
            timing["interval_s"] = interval_s
        if ttl_s is not None:
            timing["ttl_s"] = ttl_s
        self.node = Node(self.view, node_id, public_url, load=self._load, **timing)
        self.watcher = Watcher(self.node, store)
        self.node.on_stall.append(self._stalled)
        lobby.node = self.node
        self.last_takeover: dict[str, Any] | None = None
        self._adopting: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self.leave: Callable[[], Awaitable[None]] | None = None
        """What this node does when asked through Redis to leave (``slapjack
        cluster drain NODE``): ``slapjack serve`` drains and shuts down, as at
        SIGTERM; without it (an app in a test), :meth:`drain`."""
        self.leaving = False
        self._leaving_task: asyncio.Task[None] | None = None

    def _load(self) -> NodeLoad:
        players = sum(
            1 for room in self.lobby.rooms.values() for c in room.conns if c.seat is not None
        )
        return NodeLoad(players=players, rooms=len(self.lobby.rooms))

    async def start(self) -> None:
        """Heartbeats from now on; the rooms the store still lists as this
        node's (from before a restart) come back with new epochs; the watcher
        takes over the rooms of nodes that die."""
        if not await self.node.start():
            log.warning("cluster: node %s starts without Redis; it keeps trying", self.node.node)
        try:
            await self.rebuild(await self.watcher.recover_own())
        except StoreError as exc:
            log.warning("cluster: could not take this node's rooms back: %s", exc)
        self.watcher.start(self.rebuild)
        self._tasks.append(asyncio.create_task(self._adopt_loop(), name="cluster-adopt"))
        log.info("cluster: node %s at %s", self.node.node, self.node.url)

    async def rebuild(self, claims: list[Claim]) -> None:
        """Run each claimed room here, rebuilt from the store."""
        for claim in claims:
            try:
                state = await self.store.load_room(claim.code)
            except UnknownRoom:
                self.node.disown(claim.code)
                continue
            room = self.lobby.adopt(state, claim.epoch)
            METRICS.count("takeovers")
            self.last_takeover = {**claim.to_dict(), "node": self.node.node}
            log.warning(
                "cluster: node %s runs room %s now (epoch %d, from %s), %d actions",
                self.node.node,
                room.code,
                claim.epoch,
                claim.previous_owner,
                len(state.actions),
            )

    async def _adopt_loop(self) -> None:
        """Rooms handed to this node by a draining node: the store names this
        node their owner but it does not run them yet."""
        while True:
            await asyncio.sleep(self.node.interval_s)
            if self.node.leave_asked and not self.leaving:
                self.leaving = True
                log.warning("cluster: node %s was asked to drain and leave", self.node.node)
                # not one of self._tasks: it ends with the server's shutdown, which it starts
                self._leaving_task = asyncio.create_task(self._leave(), name="cluster-leave")
            if self.node.draining:
                continue
            try:
                mine = await self.store.owned_rooms(self.node.node)
            except StoreError:
                continue
            missing = [
                (r.code, r.owner, r.epoch)
                for r in mine
                if r.code not in self.lobby.rooms and r.code not in self._adopting
            ]
            if not missing:
                continue
            try:
                claims = await claim_rooms(self.store, self.node, missing)
                await self.rebuild(claims)
            except StoreError as exc:
                log.info("cluster: adopting handed-over rooms failed: %s", exc)

    async def _leave(self) -> None:
        try:
            await (self.leave() if self.leave is not None else self.drain())
        except Exception:  # the node goes on draining at shutdown
            log.exception("cluster: draining node %s failed", self.node.node)

    async def _stalled(self, gap: float) -> None:
        """This node was silent longer than its ttl: give up the rooms another
        node claimed meanwhile (their writes would be refused anyway)."""
        try:
            lost = await self.node.verify(self.store)
        except StoreError as exc:
            log.warning("cluster: cannot check ownership after a stall: %s", exc)
            return
        for code in lost:
            room = self.lobby.rooms.get(code)
            if room is not None:
                room.submit(lambda room=room: room.give_up("stopped"))  # type: ignore[misc]

    async def locate(self, code: str) -> Location | None:
        """Where room ``code`` runs (``ClusterUnavailable`` when Redis is down)."""
        return await self.node.locate(code)

    async def status(self) -> dict[str, Any]:
        """``GET /api/cluster``."""
        result = await cluster_status(self.view, self.store, rooms=False)
        result["this_node"] = self.node.node
        result["metrics"] = dict(self.node.metrics)
        result["last_takeover_here"] = self.last_takeover
        return result

    async def drain(self) -> None:
        """Stop taking rooms, hand every room here to another live node (its
        store ownership moves to the heir with a new epoch; the heir runs it
        within a heartbeat), and tell the clients where it went."""
        node = self.node
        with contextlib.suppress(ClusterUnavailable):
            await node.drain()
        try:
            others = [n.node for n in await node.nodes() if n.accepts_rooms and n.node != node.node]
        except ClusterUnavailable:
            others = []
        for code, room in list(self.lobby.rooms.items()):
            epoch = room.writes.epoch
            target = heir(code, others)
            if epoch is None or target is None:
                continue  # never stored, or nobody to hand it to: it ends with us
            await room.call(lambda room=room: room.give_up("takeover", 500))  # type: ignore[misc]
            await room.stop()
            try:
                await self.store.claim_room(code, target, expected_epoch=epoch)
            except (StaleOwner, UnknownRoom):
                pass
            except StoreError as exc:
                log.warning("cluster: could not hand room %s to %s: %s", code, target, exc)
                continue
            self.lobby.rooms.pop(code, None)
            node.disown(code)
            log.info("cluster: room %s handed to node %s", code, target)
        with contextlib.suppress(ClusterUnavailable):
            await node.flush()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.watcher.stop()
        await self.node.close()
        with contextlib.suppress(Exception):
            await self.view.client.aclose()
