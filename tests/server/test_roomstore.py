"""A room's store writes (:mod:`slapjack.server.roomstore`): what each op asks
of the store, against a real SQLite store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from slapjack.core import Record, Rules
from slapjack.protocol import CreateRoom
from slapjack.server.roomstore import RoomWrites
from slapjack.server.seats import SeatState
from slapjack.server.settings import RoomSnapshot
from slapjack.store import open_store
from slapjack.store.base import Store


class Counting:
    """A store that counts the calls made through it (each is a transaction)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return await method(*args, **kwargs)

        return call


def _header(game_no: int) -> dict[str, Any]:
    record = Record.new(Rules(), ["Ann", "Ben", "Cy"], seed=game_no, meta={"game_no": game_no})
    header = record.to_dict()
    header.pop("actions", None)
    return header


async def test_a_rematch_is_one_write_of_header_seats_and_settings(tmp_path: Path) -> None:
    """A game that starts in a stored room writes its header, the seats and the
    settings (its game number) in one call, one transaction: a crash between
    them left the new game's header under the settings of the game before, and
    a restart showed a game nobody had seen under the old number."""
    store = await open_store(None, tmp_path)
    try:
        create = CreateRoom(seats=3)
        seats = [
            SeatState(name="Ann", token_hash="h0"),
            SeatState(name="Bot 2", bot="casual"),
            SeatState(),
        ]
        counting = Counting(store)
        writes = RoomWrites(counting, "RM1", lambda: 7, lambda game_id: None)  # type: ignore[arg-type]
        await writes.create(RoomSnapshot(create=create), _header(1), seats)()
        assert counting.calls == ["create_room"]  # the room and its bot: one transaction
        made = await store.load_room("RM1")
        assert [(s.seat, s.name, s.is_bot) for s in made.seats] == [
            (0, "Ann", False),
            (1, "Bot 2", True),
        ]
        counting.calls.clear()
        await writes.reset(RoomSnapshot(create=create, game_no=2), _header(2), seats)()
        assert counting.calls == ["reset_room"]
        room = await store.load_room("RM1")
        assert room.header == _header(2) and room.actions == ()
        assert room.settings["game_no"] == 2 and room.settings["game_id"] == 7
        assert [(s.seat, s.name, s.is_bot) for s in room.seats] == [
            (0, "Ann", False),
            (1, "Bot 2", True),
        ]
    finally:
        await store.close()
