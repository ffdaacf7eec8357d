"""The rooms of one server: codes, creation, lookup, resume after a restart,
and the end of rooms nobody uses (empty rooms expire; a full server makes way).

With several nodes (``node``: this process in the cluster) the lobby's rooms
are this node's: each is stored as its own with a fencing epoch, its code
is reserved across the cluster, its public listing is mirrored into Redis;
rooms another node gave up come in through :meth:`Lobby.adopt`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Final

from slapjack.cluster import Node
from slapjack.protocol import CreateRoom
from slapjack.store.base import RoomState, Store

from .metrics import METRICS
from .referee import RefereeFactory
from .room import Room, RoomError, RoomSetup, RoomTiming

log = logging.getLogger(__name__)

CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Room code letters: no I, L, O, 0 or 1 (easy to confuse when read aloud)."""
CODE_LENGTH: Final = 6
MAX_ROOMS: Final = 20_000
EMPTY_ROOM_S: Final = 120.0


def is_empty(room: Room) -> bool:
    """A room still waiting for its players in which no seated human has ever
    connected (a seat taken over HTTP but never used counts as nobody;
    spectators do not count): such a room expires, and makes way first when
    the server is full."""
    return room.status == "waiting" and not any(seat.human and seat.seen for seat in room.seats)


def _age_s(state: RoomState) -> float:
    """Seconds since a stored room was made."""
    return max(0.0, (datetime.now(UTC) - state.created_at).total_seconds())


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    return code.strip().upper()


class Lobby:
    """Every live room of this server process."""

    def __init__(
        self,
        store: Store,
        referee: RefereeFactory,
        *,
        timing: RoomTiming | None = None,
        clock: Callable[[], float] | None = None,
        write_ahead: bool = True,
        max_rooms: int = MAX_ROOMS,
        empty_room_s: float = EMPTY_ROOM_S,
        node: Node | None = None,
    ) -> None:
        self.node = node
        """This process in the cluster (``None``: a single server)."""
        self._listed: dict[str, dict[str, object]] = {}
        self.write_ahead = write_ahead
        self.max_rooms = max_rooms
        self.empty_room_s = empty_room_s
        self._empty_since: dict[str, float] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.store = store
        self.referee = referee
        self.timing = timing
        self.clock = clock
        self.rooms: dict[str, Room] = {}

    def get(self, code: str) -> Room | None:
        return self.rooms.get(normalize_code(code))

    def create(
        self,
        settings: CreateRoom,
        *,
        setup: RoomSetup | None = None,
        timing: RoomTiming | None = None,
        referee: RefereeFactory | None = None,
        code: str | None = None,
    ) -> Room:
        """A new room with its task running. Bad rules raise ``RulesError``; a
        full server first closes its oldest empty rooms (:func:`is_empty`), and
        raises ``RoomError("server_full")`` only if none is empty. ``code``: a
        code reserved across the cluster (:meth:`reserve_code`)."""
        if len(self.rooms) >= self.max_rooms:
            self._make_way()
        if code is None:
            code = new_code()
            while code in self.rooms:
                code = new_code()
        node = self.node
        if node is not None:
            node.hold(code)
        room = Room(
            code,
            settings,
            store=self.store,
            referee=referee or self.referee,
            timing=timing or (RoomTiming(**vars(self.timing)) if self.timing else None),
            setup=setup,
            clock=self.clock,
            on_close=self._closed,
            owner=node.node if node is not None else None,
            on_owned=partial(node.own, code) if node is not None else None,
        )
        room.write_ahead = self.write_ahead
        room.store_new()  # stored as it waits: a restart or a takeover keeps it
        self.rooms[code] = room
        self._empty_since[code] = time.monotonic()
        room.start()
        self.publish(room)
        return room

    async def reserve_code(self) -> str | None:
        """A new room's code, unique across the cluster (``None``: a single
        server draws its own). Raises ``ClusterUnavailable``."""
        if self.node is None:
            return None
        return await self.node.reserve_code(new_code)

    def adopt(self, state: RoomState, epoch: int) -> Room:
        """Run a room this node just claimed at ``epoch`` (a takeover): rebuilt
        from the store as its players last saw it, its timers started afresh."""
        assert self.node is not None
        old = self.rooms.get(state.code)
        if old is not None and not old.gave_up:
            old.writes.epoch = epoch
            return old
        room = Room.restore(
            state,
            store=self.store,
            referee=self.referee,
            clock=self.clock,
            on_close=self._closed,
            owner=self.node.node,
            epoch=epoch,
        )
        room.write_ahead = self.write_ahead
        self.rooms[room.code] = room
        room.start()
        self.publish(room)
        return room

    def publish(self, room: Room) -> None:
        """Mirror a public room's listing into the cluster's lobby (when it changed)."""
        node = self.node
        if node is None:
            return
        if not room.settings.public or room.status == "closed":
            if self._listed.pop(room.code, None) is not None:
                node.unlist_room(room.code)
            return
        info = room.info().model_dump(mode="json")
        if self._listed.get(room.code) != info:
            self._listed[room.code] = info
            node.list_room(room.code, info)

    def _make_way(self) -> None:
        batch = max(1, self.max_rooms // 100)
        oldest = [room for room in self.rooms.values() if is_empty(room)][:batch]
        if not oldest and len(self.rooms) >= self.max_rooms:
            METRICS.count("server_full")
            raise RoomError("this server has too many rooms", code="server_full")
        for room in oldest:
            log.info("room %s: closed to make way (the server is full)", room.code)
            self._drop(room)
            room.submit(room.close)
        METRICS.count("rooms_evicted", len(oldest))

    def connections(self) -> int:
        """Sockets open in the live rooms (``/api/metrics``; the heap keeper's players)."""
        return sum(len(room.conns) for room in list(self.rooms.values()))

    def _drop(self, room: Room) -> None:
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
        self._empty_since.pop(room.code, None)

    def _closed(self, room: Room) -> None:
        self._drop(room)
        self._listed.pop(room.code, None)
        if self.node is not None and room.code not in self.rooms:
            self.node.disown(room.code)

    def start(self) -> None:
        """Start expiring empty rooms (call from the running event loop)."""
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_loop())

    async def _sweep_loop(self) -> None:
        every = max(0.05, min(5.0 if self.node is None else 1.0, self.empty_room_s / 4))
        while True:
            await asyncio.sleep(every)
            self.sweep()
            for room in list(self.rooms.values()):
                self.publish(room)

    def sweep(self, now: float | None = None) -> int:
        """Close rooms that have been empty for ``empty_room_s``; returns how many."""
        now = time.monotonic() if now is None else now
        expired = 0
        for code, room in list(self.rooms.items()):
            if not is_empty(room):
                self._empty_since.pop(code, None)
                continue
            since = self._empty_since.setdefault(code, now)
            if now - since >= self.empty_room_s:
                expired += 1
                self._empty_since.pop(code, None)
                room.submit(partial(self._expire, room))
        return expired

    def _expire(self, room: Room) -> None:
        """In the room's task: close it if it is still empty."""
        if is_empty(room):
            log.info("room %s: nobody joined within %.0f s, closing", room.code, self.empty_room_s)
            METRICS.count("rooms_expired")
            room.close()

    async def resume(self) -> int:
        """Rebuild every live room the store holds; returns how many. (With
        several nodes, a node takes only its own rooms back: the cluster's
        watcher claims them, see :mod:`.clustering`.)"""
        if self.node is not None:
            return 0
        count = 0
        for code in await self.store.live_rooms():
            try:
                state = await self.store.load_room(code)
                if await self._expired(state):
                    continue
                room = Room.restore(
                    state,
                    store=self.store,
                    referee=self.referee,
                    clock=self.clock,
                    on_close=self._closed,
                )
            except Exception:
                log.exception("room %s could not be resumed", code)
                continue
            room.write_ahead = self.write_ahead
            self.rooms[room.code] = room
            if is_empty(room):  # empty since it was made: its expiry counts from then
                self._empty_since[room.code] = time.monotonic() - _age_s(state)
            room.start()
            count += 1
        return count

    async def _expired(self, state: RoomState) -> bool:
        """A stored waiting room nobody came to, older than ``empty_room_s``:
        it would have expired had the server been running; closed in the store."""
        snap = state.settings
        if not snap.get("waiting") or snap.get("seen") or _age_s(state) < self.empty_room_s:
            return False
        log.info("room %s: nobody joined within %.0f s, not resumed", state.code, self.empty_room_s)
        METRICS.count("rooms_expired")
        await self.store.close_room(state.code)
        return True

    async def shutdown(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        for room in list(self.rooms.values()):
            await room.stop()
        self.rooms.clear()
        self._empty_since.clear()
