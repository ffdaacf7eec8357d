"""A node's rooms: which rooms it owns and at which epoch, its public
listings, its reserved codes, and what it asks the cluster about rooms
(placement, a room's location, the lobby).

:class:`RoomOwnership` is a part of :class:`~slapjack.cluster.node.Node` (its
base class), split from it to keep the heartbeat and the mirroring into Redis
(``node.py``) apart from the bookkeeping of rooms (here). The calls that
change the state return at once; the node's flush task writes them to Redis.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from slapjack.store import Store, UnknownRoom

from .errors import BadClusterInput, ClusterUnavailable, CodesExhausted
from .view import ClusterView, Listing, Location, Page, check_id, wall_ms

log = logging.getLogger("slapjack.cluster")


class RoomOwnership:
    """The rooms of one node (see the module). The state it works on is made
    by :class:`~slapjack.cluster.node.Node`'s ``__init__``."""

    view: ClusterView | None
    node: str
    url: str
    #: The rooms this node owns: code → fencing epoch.
    owned: dict[str, int]
    _listings: dict[str, Listing]
    _reserved: set[str]
    _held: set[str]
    _room_ops: dict[str, tuple[str, int]]
    _listing_ops: dict[str, Listing | None]
    superseded: set[str]
    suspect: asyncio.Event

    if TYPE_CHECKING:

        def _changed(self) -> None: ...

        def _went_down(self, exc: ClusterUnavailable) -> None: ...

    # ------------------------------------------------------------------ rooms

    def own(self, code: str, epoch: int) -> None:
        """This node runs room ``code`` at ``epoch`` (after ``create_room`` or a claim)."""
        code = check_id(code, "a room code")
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
            raise BadClusterInput(f"an owner's epoch is a whole number >= 1, got {epoch!r}")
        self.owned[code] = epoch
        self._reserved.discard(code)
        self._held.discard(code)
        self.superseded.discard(code)
        self._room_ops[code] = ("own", epoch)
        if code in self._listings:
            old = self._listings[code]
            self._listings[code] = Listing(code, self.node, epoch, old.created_ms, old.info)
            self._listing_ops[code] = self._listings[code]
        self._changed()

    def disown(self, code: str) -> None:
        """This node no longer runs room ``code`` (closed, handed over, or lost)."""
        epoch = self.owned.pop(code, None)
        self.superseded.discard(code)
        if code in self._held:  # a room that never got stored: give its code back
            self._held.discard(code)
            epoch = 0 if epoch is None else epoch
        if code in self._listings:
            del self._listings[code]
            self._listing_ops[code] = None
        if epoch is not None:
            self._room_ops[code] = ("disown", epoch)
        self._changed()

    def list_room(
        self, code: str, info: Mapping[str, Any], *, created_ms: int | None = None
    ) -> None:
        """Show (or update) a public room in the lobby of every node."""
        code = check_id(code, "a room code")
        old = self._listings.get(code)
        created = created_ms if created_ms is not None else (old.created_ms if old else wall_ms())
        listing = Listing(code, self.node, self.owned.get(code, 0), created, dict(info))
        listing.to_json()  # refuse what is not JSON here, not in the flush task
        self._listings[code] = listing
        self._listing_ops[code] = listing
        self._changed()

    def unlist_room(self, code: str) -> None:
        if self._listings.pop(code, None) is not None:
            self._listing_ops[code] = None
            self._changed()

    @property
    def listings(self) -> dict[str, Listing]:
        return dict(self._listings)

    async def verify(self, store: Store) -> list[str]:
        """After a stall: ask the store which of this node's rooms are still at
        their epoch. Drops (and returns) the rooms another node claimed or that
        were closed; clears :attr:`suspect`."""
        lost: list[str] = []
        for code, epoch in list(self.owned.items()):
            try:
                current = (await store.room_owner(code)).epoch
            except UnknownRoom:
                current = None
            if current != epoch:
                lost.append(code)
                self.owned.pop(code, None)
                if self._listings.pop(code, None) is not None:
                    self._listing_ops[code] = None
        if lost:
            log.warning("cluster: node %s lost rooms %s to other nodes", self.node, ", ".join(lost))
            self._changed()
        self.suspect.clear()
        return lost

    # ------------------------------------------------------------------ asking the cluster

    async def _ask(self, call: Awaitable[Any]) -> Any:
        try:
            return await call
        except ClusterUnavailable as exc:
            self._went_down(exc)
            raise

    async def place(self) -> str:
        """The node that should run a new room (see :meth:`ClusterView.place`)."""
        if self.view is None:
            return self.node
        return str(await self._ask(self.view.place()))

    async def reserve_code(self, new_code: Callable[[], str], *, attempts: int = 20) -> str:
        """A room code unique across the cluster, reserved for this node."""
        if self.view is None:
            for _ in range(attempts):
                code = check_id(new_code(), "a room code")
                if code not in self.owned and code not in self._reserved:
                    self._reserved.add(code)
                    return code
            raise CodesExhausted(f"{attempts} room codes drawn, every one in use")
        return str(await self._ask(self.view.reserve_code(new_code, self.node, attempts=attempts)))

    def hold(self, code: str) -> None:
        """Keep the reserved ``code`` reserved (every heartbeat) while its room
        waits for players here, until :meth:`own` (the room is stored) or
        :meth:`disown`. A room waiting here is found by ``locate`` (epoch 0)."""
        self._held.add(check_id(code, "a room code"))

    async def release_code(self, code: str) -> None:
        """Give back a reserved code whose room was not created."""
        self._reserved.discard(code)
        self._held.discard(code)
        if self.view is not None:
            await self._ask(self.view.release_code(code, self.node))

    async def locate(self, code: str) -> Location | None:
        """Where room ``code`` runs: the ``moved`` target for a client."""
        if code in self.owned:
            return Location(code, self.node, self.owned[code], self.url, True, "local")
        if self.view is None:
            return None
        result: Location | None = await self._ask(self.view.locate(code))
        return result

    async def public_rooms(
        self,
        select: Callable[[dict[str, Any]], bool] | None = None,
        *,
        limit: int = 50,
        offset: int = 0,
    ) -> Page:
        """The lobby: the public rooms of every node."""
        if self.view is None:
            chosen = [x for x in self._listings.values() if select is None or select(x.info)]
            chosen.sort(key=lambda x: (x.created_ms, x.code))
            return Page(chosen[offset : offset + limit], len(chosen))
        page: Page = await self._ask(self.view.public_rooms(select, limit=limit, offset=offset))
        return page
