"""What a room writes to the store, as operations its task awaits in order.

Each method returns a :data:`~slapjack.server.actor.StoreOp` (an awaitable
factory) the room queues after an input; the room's task writes them before
it sends the input's frames (write-ahead), or right after (write-behind).

With several nodes (scale-out) the room has an ``owner`` (this node's id):
it is created in the store as that owner's, and every later write carries
the room's fencing ``epoch``, so a node that lost the room (another node
took it over) has its writes refused with ``StaleOwner``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from slapjack.core import Record
from slapjack.core.record import action_to_dict
from slapjack.store.base import SeatWrite, Store

from .actor import StoreOp
from .seats import SeatState
from .settings import RoomSnapshot


class RoomWrites:
    """The store writes of room ``code``. ``game_id()`` is the room's last
    finished game id as it is when a write runs; ``on_finished(id)`` is told
    the id a finished game was stored under."""

    def __init__(
        self,
        store: Store,
        code: str,
        game_id: Callable[[], int | None],
        on_finished: Callable[[int], None],
        *,
        owner: str | None = None,
        epoch: int | None = None,
        on_owned: Callable[[int], None] | None = None,
    ) -> None:
        self.store = store
        self.code = code
        self._game_id = game_id
        self._on_finished = on_finished
        self.owner = owner
        self.epoch = epoch
        """The fencing epoch every write carries (``None``: a single server's room)."""
        self._on_owned = on_owned

    def create(
        self, snap: RoomSnapshot, header: dict[str, Any], seats: Sequence[SeatState]
    ) -> StoreOp:
        """The room as it is made (``snap.waiting``: a placeholder header until
        its first game starts, see :meth:`reset`): the room, its header and
        every taken seat (its bots), in one transaction (a restart never meets
        the room without its bots)."""
        settings, taken = snap.to_dict(), _taken(seats)

        async def create() -> None:
            epoch = await self.store.create_room(
                self.code, settings, header, owner=self.owner, seats=taken
            )
            if self.owner is not None:
                self.epoch = epoch
                if self._on_owned is not None:
                    self._on_owned(epoch)

        return create

    def reset(
        self, snap: RoomSnapshot, header: dict[str, Any], seats: Sequence[SeatState] = ()
    ) -> StoreOp:
        """A game starts in a stored room (the first one, or a rematch): the
        new game's header, ``seats`` (bots that filled the free seats) and the
        settings, in one transaction (a restart never meets the new game under
        the settings, the game number, of the one before)."""
        taken = _taken(seats)

        async def reset() -> None:
            await self.store.reset_room(
                self.code, header, epoch=self.epoch, settings=self._settings(snap), seats=taken
            )

        return reset

    def actions(self, record: Record, start: int) -> list[StoreOp]:
        """The record's actions from index ``start`` on, one append each
        (each may be begun at once: :class:`Append`)."""
        players = record.players
        return [
            Append(self, i, action_to_dict(a, players))
            for i, a in enumerate(record.actions[start:], start)
        ]

    async def _append(self, index: int, action: dict[str, Any]) -> None:
        await self.store.append_action(self.code, index, action, epoch=self.epoch)

    def settings(self, snap: RoomSnapshot) -> StoreOp:
        """``snap``, with the finished game's id as it is when written
        (write-behind: the finish may be written after the op was made)."""

        async def write() -> None:
            await self.store.update_settings(self.code, self._settings(snap), epoch=self.epoch)

        return write

    def _settings(self, snap: RoomSnapshot) -> dict[str, Any]:
        data = snap.to_dict()
        game_id = self._game_id()
        if game_id is not None:
            data["game_id"] = game_id
        return data

    def finish(self, record: Record, snap: RoomSnapshot) -> StoreOp:
        """A game that ended: into the history, then the settings that say so."""
        data = record.to_dict()

        async def finish() -> None:
            self._on_finished(await self.store.finish_game(self.code, data, epoch=self.epoch))
            await self.settings(snap)()

        return finish

    def seat(self, seat: int, state: SeatState) -> StoreOp:
        name, token_hash, bot = state.name or "", state.token_hash, state.bot

        async def write() -> None:
            await self.store.set_seat(
                self.code, seat, name, token_hash, bot is not None, bot, epoch=self.epoch
            )

        return write

    def clear_seat(self, seat: int) -> StoreOp:
        """A player left a seat of a waiting room: free again."""

        async def clear() -> None:
            await self.store.clear_seat(self.code, seat, epoch=self.epoch)

        return clear

    def close(self, record: Record | None, finished: bool, stored: bool) -> StoreOp:
        """The room closes: an unfinished game is kept in the history as it stood."""

        async def close() -> None:
            if record is not None and not finished and record.actions:
                await self.store.finish_game(self.code, record.to_dict(), epoch=self.epoch)
            if stored:
                await self.store.close_room(self.code, epoch=self.epoch)

        return close


def _taken(seats: Sequence[SeatState]) -> list[SeatWrite]:
    """The taken seats as the store writes them."""
    return [
        (i, s.name, s.token_hash, s.bot is not None, s.bot) for i, s in enumerate(seats) if s.name
    ]


class Append:
    """The op of one action's append (awaited as any :data:`StoreOp`), which
    can also be begun at once (:meth:`start`) where the store can do that."""

    __slots__ = ("action", "index", "writes")

    def __init__(self, writes: RoomWrites, index: int, action: dict[str, Any]) -> None:
        self.writes = writes
        self.index = index
        self.action = action

    def __call__(self) -> Awaitable[None]:
        return self.writes._append(self.index, self.action)

    def start(self) -> Awaitable[None] | None:
        """The append begun now (it joins the store's next group commit) and
        what to await for it; ``None`` where the store cannot begin one
        without a task (it is then written when the op is awaited)."""
        writes = self.writes
        begin = getattr(writes.store, "start_append", None)
        if begin is None:
            return None
        started: Awaitable[None] = begin(writes.code, self.index, self.action, epoch=writes.epoch)
        return started
