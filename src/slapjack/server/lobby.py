"""The rooms of one server: codes, creation, lookup, resume after a restart."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Final

from slapjack.store.base import Store

from .models import CreateRoom
from .referee import RefereeFactory
from .room import Room, RoomError, RoomSetup, RoomTiming

log = logging.getLogger(__name__)

CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Room code letters: no I, L, O, 0 or 1 (easy to confuse when read aloud)."""
CODE_LENGTH: Final = 6
MAX_ROOMS: Final = 20_000


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
    ) -> None:
        self.write_ahead = write_ahead
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
    ) -> Room:
        """A new room with its task running. Bad rules raise ``RulesError``."""
        if len(self.rooms) >= MAX_ROOMS:
            raise RoomError("this server has too many rooms", code="server_full")
        code = new_code()
        while code in self.rooms:
            code = new_code()
        room = Room(
            code,
            settings,
            store=self.store,
            referee=referee or self.referee,
            timing=timing or (RoomTiming(**vars(self.timing)) if self.timing else None),
            setup=setup,
            clock=self.clock,
            on_close=self._closed,
        )
        room.write_ahead = self.write_ahead
        self.rooms[code] = room
        room.start()
        return room

    def _closed(self, room: Room) -> None:
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]

    async def resume(self) -> int:
        """Rebuild every live room the store holds; returns how many."""
        count = 0
        for code in await self.store.live_rooms():
            try:
                state = await self.store.load_room(code)
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
            room.start()
            count += 1
        return count

    async def shutdown(self) -> None:
        for room in list(self.rooms.values()):
            await room.stop()
        self.rooms.clear()
