"""Room.restore from a stored room, without a server around it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from slapjack.core import Flip, Record, Rules, Slap, Table
from slapjack.core.record import action_to_dict
from slapjack.protocol import CreateRoom
from slapjack.server.room import Room, RoomTiming
from slapjack.store import hash_token, open_store


def finished_table() -> Table:
    table = Table.new(Rules(), ["A", "B", "C"], seed=9)
    game = table.game
    while not game.over:
        if game.needs_settle:
            table.settle(final=True)
            continue
        assert game.turn is not None
        table.apply(Flip(game.turn, game.t + 10))
        if game.race_open:
            for s in game.in_seats():
                table.apply(Slap(s, 100.0 + 50 * s, False, game.t + 1))
    return table


async def test_a_finished_game_not_yet_in_the_history_is_stored_on_restore(
    tmp_path: Path,
) -> None:
    store = await open_store(None, tmp_path)
    try:
        table = finished_table()
        record = table.record
        header = record.to_dict()
        header.pop("actions")
        settings = {
            "create": CreateRoom(seats=3).model_dump(),
            "timing": {},
            "game_no": 1,
            "bot_seed": 1,
        }
        await store.create_room("RSTR22", settings, header)
        for s, name in enumerate(record.players):
            await store.set_seat("RSTR22", s, name, hash_token(f"tok{s}"))
        for i, action in enumerate(record.actions):
            await store.append_action("RSTR22", i, action_to_dict(action, record.players))
        # the server "died" before finish_game: the history is empty
        assert await store.list_games() == []
        room = Room.restore(await store.load_room("RSTR22"), store=store)
        room.start()
        for _ in range(100):
            if await store.list_games():
                break
            await asyncio.sleep(0.02)
        games = await store.list_games()
        assert [g.room for g in games] == ["RSTR22"]
        assert room.status == "over" and room.table is not None
        assert room.table.game.snapshot() == table.game.snapshot()
        stored = Record.from_dict(await store.get_game(games[0].id))
        assert stored.actions == record.actions
        # restoring again does not store it twice
        again = Room.restore(await store.load_room("RSTR22"), store=store)
        again.start()
        await asyncio.sleep(0.1)
        assert len(await store.list_games()) == 1
        await room.stop()
        await again.stop()
    finally:
        await store.close()


async def test_restore_keeps_seats_and_tokens(tmp_path: Path) -> None:
    store = await open_store(None, tmp_path)
    try:
        table = Table.new(Rules(), ["Anna", "Bot"], seed=1)
        table.apply(Flip(0, 5))
        header = table.record.to_dict()
        header.pop("actions")
        settings = {"create": CreateRoom(seats=2).model_dump(), "timing": {}, "game_no": 1}
        await store.create_room("SEATS2", settings, header)
        await store.set_seat("SEATS2", 0, "Anna", hash_token("secret"))
        await store.set_seat("SEATS2", 1, "Bot", None, True, "pro")
        await store.append_action("SEATS2", 0, {"t": 5, "flip": "Anna"})
        room = Room.restore(await store.load_room("SEATS2"), store=store)
        assert room.timing == RoomTiming()
        assert [s.name for s in room.seats] == ["Anna", "Bot"]
        assert room.seats[1].bot == "pro" and room.seats[0].bot is None
        assert room.seats.of_token("secret") == 0 and room.seats.of_token("nope") is None
        assert room.table is not None and room.table.game.flips == 1
        # held: its players see a countdown (the start delay) before it goes on
        assert room.status == "playing" and room.live is None
        resume = room.deadline("resume")
        assert resume is not None and 1400 < resume - room.now() <= 1500
        assert room.status_dict()["timers"]["resume"] == round(resume, 1)
        room.start()
        await asyncio.sleep(1.6)
        live = await room.call(lambda: room.live)
        assert live is not None and room.deadline("resume") is None
        assert live.grace_until(0) is not None  # Anna is waited for, then covered
        await room.stop()
    finally:
        await store.close()
