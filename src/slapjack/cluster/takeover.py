"""Takeover: notice that a node died and claim its rooms with new epochs.

Every node runs a :class:`Watcher`. A node counts as dead when its heartbeat
counter has not moved for ``dead_after_s`` **by the watcher's own clock**
while the watcher could read Redis the whole time. Key expiry alone is not
trusted: after a Redis failover that lost every key, all nodes would look
dead at once, but their counters move again within one heartbeat and nobody
is declared dead. A watcher that was itself paused, or blind (Redis down),
starts its count again.

Which rooms a dead node owned comes from the store (PostgreSQL), the
authority, not from the room map. Each room is claimed with
``store.claim_room(code, me, expected_epoch=old)``: only one node can win
it (the others get ``StaleOwner`` and skip it), and from that commit on every
write of the old owner is refused. To spread a dead node's rooms, each room
has a preferred heir among the live nodes that are not draining (rendezvous
hashing on the room code); the others claim it only if it is still unclaimed
``backup_after_s`` later.

The caller then rebuilds each claimed room from the store
(``store.load_room(code)``; the load comes after the claim, so it holds every
action the old owner had committed and the old owner can add none).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from slapjack.store import StaleOwner, Store, StoreError, UnknownRoom

from .errors import ClusterUnavailable
from .node import Clock, Node
from .view import guard, wall_ms

log = logging.getLogger("slapjack.cluster")


@dataclass(frozen=True, slots=True)
class Claim:
    """A room this node now owns, taken from ``previous_owner``."""

    code: str
    epoch: int
    previous_owner: str | None
    previous_epoch: int
    silent_s: float  #: how long the previous owner had been silent, by this node's clock

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "epoch": self.epoch,
            "previous_owner": self.previous_owner,
            "previous_epoch": self.previous_epoch,
            "silent_s": round(self.silent_s, 3),
        }


def heir(code: str, candidates: Iterable[str]) -> str | None:
    """The candidate that should take room ``code`` (rendezvous hashing: the same
    answer on every node that sees the same candidates; one node's death moves
    only its own rooms)."""
    best: tuple[bytes, str] | None = None
    for node in candidates:
        score = hashlib.blake2b(f"{node}\x00{code}".encode(), digest_size=8).digest()
        if best is None or score > best[0]:
            best = (score, node)
    return best[1] if best else None


async def claim_rooms(
    store: Store, node: Node, rooms: Iterable[tuple[str, str | None, int]], silent_s: float = 0.0
) -> list[Claim]:
    """Claim each ``(code, owner, epoch)`` for ``node`` if it is still at that
    epoch; return the claims won (a room another node claimed first, or that
    closed meanwhile, is skipped). Each claimed room is put into the node's
    owned rooms and the room map."""
    claims: list[Claim] = []
    for code, owner, epoch in rooms:
        try:
            new = await store.claim_room(code, node.node, expected_epoch=epoch)
        except (StaleOwner, UnknownRoom):
            continue
        node.own(code, new)
        claims.append(Claim(code, new, owner, epoch, silent_s))
    return claims


class Watcher:
    """Finds dead nodes and claims their rooms for ``node`` (see the module doc)."""

    def __init__(
        self,
        node: Node,
        store: Store,
        *,
        dead_after_s: float | None = None,
        backup_after_s: float | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        if node.view is None:
            raise ValueError("a takeover watcher needs a node with Redis")
        self.node = node
        self.view = node.view
        self.store = store
        self.dead_after_s = node.ttl_s if dead_after_s is None else float(dead_after_s)
        self.backup_after_s = self.dead_after_s if backup_after_s is None else float(backup_after_s)
        self.clock = clock
        #: node id → (last heartbeat counter seen, when it last moved, by our clock)
        self.seen: dict[str, tuple[int | None, float]] = {}
        self._last_scan: float | None = None
        self.scans = 0
        self.claimed = 0
        self._task: asyncio.Task[None] | None = None

    def _restart_counts(self, now: float) -> None:
        self.seen = {n: (beat, now) for n, (beat, _) in self.seen.items()}

    async def scan(self) -> list[Claim]:
        """One look: who is silent, and which of their rooms this node claims now."""
        now = self.clock()
        last, self._last_scan = self._last_scan, now
        self.scans += 1
        gap_limit = max(3 * self.node.interval_s, self.dead_after_s / 2)
        if last is not None and now - last > gap_limit:
            log.info(
                "takeover: watcher of %s was away %.1f s; counting afresh",
                self.node.node,
                now - last,
            )
            self._restart_counts(now)
        if not self.node.available.is_set() or self.node.suspect.is_set():
            self._restart_counts(now)  # blind, or maybe dead ourselves: no verdicts
            return []
        try:
            beats = await self._beats()
            owners = await self.store.room_owners()
        except (ClusterUnavailable, StoreError) as exc:
            log.info("takeover: watcher of %s cannot look (%s)", self.node.node, exc)
            self._restart_counts(now)
            return []
        live: set[str] = set()
        for other, (beat, draining) in beats.items():
            before = self.seen.get(other)
            if before is None or before[0] != beat:
                self.seen[other] = (beat, now)
            if now - self.seen[other][1] < self.dead_after_s and not draining:
                live.add(other)
        for owner in owners:
            if owner is not None and owner not in self.seen:
                self.seen[owner] = (None, now)  # never heard of: give it a full count
        if self.node.draining:
            return []  # a draining node takes no rooms
        live.add(self.node.node)
        claims: list[Claim] = []
        for owner in owners:
            if owner is None or owner == self.node.node:
                continue
            silent = now - self.seen[owner][1]
            if silent < self.dead_after_s:
                continue
            late = silent >= self.dead_after_s + self.backup_after_s
            try:
                rooms = await self.store.owned_rooms(owner)
            except StoreError as exc:
                log.info("takeover: cannot list the rooms of %s: %s", owner, exc)
                continue
            mine = [
                (r.code, r.owner, r.epoch)
                for r in rooms
                if late or heir(r.code, live) == self.node.node
            ]
            if not mine:
                continue
            try:
                won = await claim_rooms(self.store, self.node, mine, silent)
            except StoreError as exc:
                log.info("takeover: claiming rooms of %s failed: %s", owner, exc)
                continue
            for claim in won:
                log.warning(
                    "takeover: node %s claimed room %s from %s (silent %.1f s), epoch %d -> %d",
                    self.node.node,
                    claim.code,
                    owner,
                    silent,
                    claim.previous_epoch,
                    claim.epoch,
                )
            claims += won
        if claims:
            self.claimed += len(claims)
            await self._record(claims)
        return claims

    async def _beats(self) -> dict[str, tuple[int, bool]]:
        """The heartbeat counter (and draining flag) of every node whose key is there."""
        view = self.view
        ids = await view.node_ids()
        if not ids:
            return {}
        async with guard("beats"), view.client.pipeline(transaction=False) as pipe:
            for other in ids:
                pipe.hmget(view.node_key(other), "beat", "draining")
            rows = await pipe.execute()
        out: dict[str, tuple[int, bool]] = {}
        for other, (beat, draining) in zip(ids, rows, strict=True):
            if beat is not None and beat.isdigit():
                out[other] = (int(beat), draining == "1")
        return out

    async def _record(self, claims: list[Claim]) -> None:
        at = wall_ms()
        try:
            await self.node.flush()
            for claim in claims:
                await self.view.record_takeover(
                    {**claim.to_dict(), "node": self.node.node, "at_ms": at}
                )
        except ClusterUnavailable as exc:
            log.info("takeover: could not record the takeover in Redis: %s", exc)

    async def recover_own(self, *, include_unowned: bool = False) -> list[Claim]:
        """At start: the rooms the store says this node id owns (from before a
        restart), claimed again with new epochs so any older process with
        the same id is fenced off; with ``include_unowned``, also the rooms
        nobody owns (a store that was used by a single node)."""
        owned = await self.store.owned_rooms(self.node.node)
        rooms = [(r.code, r.owner, r.epoch) for r in owned]
        if include_unowned:
            for code in await self.store.live_rooms():
                current = await self.store.room_owner(code)
                if current.owner is None:
                    rooms.append((code, None, current.epoch))
        return await claim_rooms(self.store, self.node, rooms)

    async def run(self, on_claims: Callable[[list[Claim]], Awaitable[None]]) -> None:
        """Scan every heartbeat interval; hand each batch of claims to ``on_claims``
        (which rebuilds the rooms). Runs until cancelled."""
        while True:
            await asyncio.sleep(self.node.interval_s)
            claims = await self.scan()
            if claims:
                try:
                    await on_claims(claims)
                except Exception:  # the rooms are ours: the caller logs and retries
                    log.exception("takeover: rebuilding claimed rooms failed")

    def start(self, on_claims: Callable[[list[Claim]], Awaitable[None]]) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(on_claims), name=f"takeover:{self.node.node}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
