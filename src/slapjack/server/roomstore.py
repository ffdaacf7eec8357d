"""What a room writes to the store, as operations its task awaits in order.

Each method returns a :data:`~slapjack.server.actor.StoreOp` (an awaitable
factory) the room queues after an input; the room's task writes them before
it sends the input's frames (write-ahead), or right after (write-behind).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from slapjack.core import Record
from slapjack.core.record import action_to_dict
from slapjack.store.base import Store

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
    ) -> None:
        self.store = store
        self.code = code
        self._game_id = game_id
        self._on_finished = on_finished

    def create(
        self, snap: RoomSnapshot, header: dict[str, Any], seats: Sequence[SeatState]
    ) -> StoreOp:
        """The room's first game: the room, its header and every seat."""
        settings, taken = snap.to_dict(), [(s.name or "", s.token_hash, s.bot) for s in seats]

        async def create() -> None:
            await self.store.create_room(self.code, settings, header)
            for i, (name, token_hash, bot) in enumerate(taken):
                await self.store.set_seat(self.code, i, name, token_hash, bot is not None, bot)

        return create

    def reset(self, snap: RoomSnapshot, header: dict[str, Any]) -> StoreOp:
        """A rematch: the new game's header, then the settings."""

        async def reset() -> None:
            await self.store.reset_room(self.code, header)
            await self.settings(snap)()

        return reset

    def actions(self, record: Record, start: int) -> list[StoreOp]:
        """The record's actions from index ``start`` on, one append each."""
        players = record.players
        return [
            partial(self.store.append_action, self.code, i, action_to_dict(a, players))
            for i, a in enumerate(record.actions[start:], start)
        ]

    def settings(self, snap: RoomSnapshot) -> StoreOp:
        """``snap``, with the finished game's id as it is when written
        (write-behind: the finish may be written after the op was made)."""

        async def write() -> None:
            data = snap.to_dict()
            game_id = self._game_id()
            if game_id is not None:
                data["game_id"] = game_id
            await self.store.update_settings(self.code, data)

        return write

    def finish(self, record: Record, snap: RoomSnapshot) -> StoreOp:
        """A game that ended: into the history, then the settings that say so."""
        data = record.to_dict()

        async def finish() -> None:
            self._on_finished(await self.store.finish_game(self.code, data))
            await self.settings(snap)()

        return finish

    def seat(self, seat: int, state: SeatState) -> StoreOp:
        bot = state.bot
        return partial(
            self.store.set_seat,
            self.code,
            seat,
            state.name or "",
            state.token_hash,
            bot is not None,
            bot,
        )

    def close(self, record: Record | None, finished: bool, stored: bool) -> StoreOp:
        """The room closes: an unfinished game is kept in the history as it stood."""

        async def close() -> None:
            if record is not None and not finished and record.actions:
                await self.store.finish_game(self.code, record.to_dict())
            if stored:
                await self.store.close_room(self.code)

        return close
