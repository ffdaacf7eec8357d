"""The live-room half of the store contract, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import Any

import pytest

from slapjack.core import Record, Table, final_position, replay
from slapjack.core.record import action_to_dict
from slapjack.store import (
    ActionConflict,
    ActionGap,
    BadInput,
    CorruptRow,
    InvalidRecord,
    RoomExists,
    StaleOwner,
    StoreClosed,
    StoreUnavailable,
    UnknownRoom,
    hash_token,
    token_matches,
)
from slapjack.store._sql import SqlStore

from .conftest import header_of, play

SETTINGS = {"name": "Friday table", "public": True, "seats": 3, "tempo": "turn_timer"}


def actions_of(table: Table) -> list[dict[str, Any]]:
    return [action_to_dict(a, table.record.players) for a in table.record.actions]


async def test_create_and_load_a_room(store: SqlStore) -> None:
    table, _ = play(1)
    await store.create_room("K7Q2PX", SETTINGS, header_of(table))
    room = await store.load_room("K7Q2PX")
    assert room.code == "K7Q2PX"
    assert room.settings == SETTINGS
    assert room.header == header_of(table)
    assert room.seats == ()
    assert room.actions == ()
    assert room.created_at == room.game_started_at
    assert await store.live_rooms() == ["K7Q2PX"]
    with pytest.raises(RoomExists):
        await store.create_room("K7Q2PX", {}, header_of(table))


async def test_seats_are_upserted_and_cleared(store: SqlStore) -> None:
    table, _ = play(1)
    await store.create_room("R1", SETTINGS, header_of(table))
    await store.set_seat("R1", 0, "Anna", hash_token("secret-a"))
    await store.set_seat("R1", 2, "Bot 3", None, is_bot=True, bot_level="pro")
    await store.set_seat("R1", 0, "Anna", hash_token("secret-a2"))  # a new token replaces
    room = await store.load_room("R1")
    assert [(s.seat, s.name, s.is_bot, s.bot_level) for s in room.seats] == [
        (0, "Anna", False, None),
        (2, "Bot 3", True, "pro"),
    ]
    assert token_matches("secret-a2", room.seats[0].token_hash)
    assert not token_matches("secret-a", room.seats[0].token_hash)
    assert not token_matches("anything", room.seats[1].token_hash)
    await store.clear_seat("R1", 2)
    await store.clear_seat("R1", 2)  # clearing an empty seat is fine
    assert [s.seat for s in (await store.load_room("R1")).seats] == [0]
    with pytest.raises(UnknownRoom):
        await store.set_seat("NOPE", 0, "Anna", None)
    with pytest.raises(UnknownRoom):
        await store.clear_seat("NOPE", 0)


async def test_appended_actions_rebuild_the_identical_game(store: SqlStore) -> None:
    table, _ = play(2)
    await store.create_room("R2", SETTINGS, header_of(table))
    for i, action in enumerate(actions_of(table)):
        await store.append_action("R2", i, action)
    room = await store.load_room("R2")
    assert list(room.actions) == actions_of(table)
    rebuilt = room.record()
    assert isinstance(rebuilt, Record)
    assert rebuilt.to_dict() == table.record.to_dict()
    assert final_position(replay(rebuilt)) == final_position(replay(table.record))
    assert Table(rebuilt).game.snapshot() == Table(table.record).game.snapshot()


async def test_duplicates_conflicts_and_gaps(store: SqlStore) -> None:
    table, _ = play(2)
    acts = actions_of(table)
    await store.create_room("R3", SETTINGS, header_of(table))
    await store.append_action("R3", 0, acts[0])
    await store.append_action("R3", 1, acts[1])
    await store.append_action("R3", 1, dict(reversed(list(acts[1].items()))))  # same content
    with pytest.raises(ActionConflict) as conflict:
        await store.append_action("R3", 0, {**acts[0], "t": acts[0]["t"] + 1})
    assert (conflict.value.room, conflict.value.index, conflict.value.code) == (
        "R3",
        0,
        "action_conflict",
    )
    with pytest.raises(ActionGap) as gap:
        await store.append_action("R3", 5, acts[5])
    assert (gap.value.index, gap.value.expected) == (5, 2)
    with pytest.raises(UnknownRoom):
        await store.append_action("NOPE", 0, acts[0])
    assert list((await store.load_room("R3")).actions) == acts[:2]


async def test_concurrent_appends_share_commits_and_fail_alone(store: SqlStore) -> None:
    tables = {f"C{i}": play(10 + i)[0] for i in range(6)}
    for code, table in tables.items():
        await store.create_room(code, SETTINGS, header_of(table))

    async def feed(code: str) -> None:
        for i, action in enumerate(actions_of(tables[code])):
            await store.append_action(code, i, action)

    await asyncio.gather(*(feed(code) for code in tables))
    for code, table in tables.items():
        assert list((await store.load_room(code)).actions) == actions_of(table)
    total = sum(len(actions_of(t)) for t in tables.values())
    assert store.appends_written == total
    assert store.batches_written < total / 2, "concurrent rooms share commits"

    # One batch holding good appends, a repeat, a conflict, a gap and an unknown room.
    acts = actions_of(tables["C0"])
    n = len(acts)
    extra = {"t": 10**9, "time_up": True}
    results = await asyncio.gather(
        store.append_action("C0", n, extra),
        store.append_action("C0", n, extra),
        store.append_action("C0", n, {"t": 10**9 + 1, "time_up": True}),
        store.append_action("C0", n + 5, extra),
        store.append_action("C1", 0, actions_of(tables["C1"])[0]),
        store.append_action("C1", 1, {"t": 0, "flip": "Nobody"}),
        store.append_action("GONE", 0, extra),
        return_exceptions=True,
    )
    kinds = [type(r).__name__ if isinstance(r, BaseException) else None for r in results]
    assert kinds == [
        None,
        None,
        "ActionConflict",
        "ActionGap",
        None,
        "ActionConflict",
        "UnknownRoom",
    ]
    assert (await store.load_room("C0")).actions[-1] == extra


async def test_reset_room_starts_a_new_game_and_keeps_seats(store: SqlStore) -> None:
    first, _ = play(4)
    second, _ = play(5)
    await store.create_room("R4", SETTINGS, header_of(first))
    await store.set_seat("R4", 1, "Ben", hash_token("b"))
    for i, action in enumerate(actions_of(first)[:10]):
        await store.append_action("R4", i, action)
    before = await store.load_room("R4")
    await store.reset_room("R4", header_of(second))
    room = await store.load_room("R4")
    assert room.header == header_of(second)
    assert room.actions == ()
    assert room.seats == before.seats
    assert room.game_started_at >= before.game_started_at
    await store.append_action("R4", 0, actions_of(second)[0])
    await store.update_settings("R4", {**SETTINGS, "public": False})
    assert (await store.load_room("R4")).settings["public"] is False
    with pytest.raises(UnknownRoom):
        await store.reset_room("NOPE", header_of(second))
    with pytest.raises(UnknownRoom):
        await store.update_settings("NOPE", {})


async def test_reset_room_writes_seats_and_settings_with_the_header(store: SqlStore) -> None:
    """A rematch's header, seats and settings are one transaction: all of
    them, or (a seat refused, the room fenced off) none."""
    first, _ = play(4)
    second, _ = play(5)
    await store.create_room("R5", SETTINGS, header_of(first))
    await store.set_seat("R5", 0, "Ann", hash_token("a"))
    for i, action in enumerate(actions_of(first)[:6]):
        await store.append_action("R5", i, action)
    later = {**SETTINGS, "game_no": 2}
    bots = [(1, "Bot 2", None, True, "casual"), (2, "Bot 3", None, True, "expert")]
    await store.reset_room("R5", header_of(second), settings=later, seats=bots)
    room = await store.load_room("R5")
    assert (room.header, room.actions, room.settings) == (header_of(second), (), later)
    assert [(s.seat, s.name, s.is_bot, s.bot_level) for s in room.seats] == [
        (0, "Ann", False, None),
        (1, "Bot 2", True, "casual"),
        (2, "Bot 3", True, "expert"),
    ]
    for i, action in enumerate(actions_of(second)[:3]):
        await store.append_action("R5", i, action)
    with pytest.raises(BadInput):  # a bad seat: checked before anything is written
        await store.reset_room(
            "R5", header_of(first), settings=SETTINGS, seats=[(9, "", None, False, None)]
        )
    epoch = await store.claim_room("R5", "node-a")
    with pytest.raises(StaleOwner):  # fenced off: nothing of it is written
        await store.reset_room("R5", header_of(first), epoch=epoch - 1, settings=SETTINGS)
    kept = await store.load_room("R5")
    assert (kept.header, kept.settings, len(kept.actions)) == (header_of(second), later, 3)


async def test_create_room_takes_its_seats_in_the_same_transaction(store: SqlStore) -> None:
    """A room made with its bots is one transaction: a restart never finds the
    room without them; a code already taken writes none of its seats."""
    table, _ = play(7)
    bots = [(1, "Bot 2", None, True, "casual"), (3, "Bot 4", None, True, "expert")]
    epoch = await store.create_room("C5", SETTINGS, header_of(table), owner="node-a", seats=bots)
    room = await store.load_room("C5")
    assert (room.header, room.settings, room.actions) == (header_of(table), SETTINGS, ())
    assert [(s.seat, s.name, s.token_hash, s.is_bot, s.bot_level) for s in room.seats] == [
        (1, "Bot 2", None, True, "casual"),
        (3, "Bot 4", None, True, "expert"),
    ]
    assert (await store.room_owner("C5")).epoch == epoch
    with pytest.raises(RoomExists):
        await store.create_room(
            "C5", SETTINGS, header_of(table), seats=[(0, "Eve", "h", False, None)]
        )
    assert [s.seat for s in (await store.load_room("C5")).seats] == [1, 3]


async def test_close_room_forgets_it(store: SqlStore) -> None:
    table, _ = play(6)
    for code in ("A1", "B2"):
        await store.create_room(code, SETTINGS, header_of(table))
    await store.set_seat("A1", 0, "Anna", None)
    await store.append_action("A1", 0, actions_of(table)[0])
    await store.close_room("A1")
    assert await store.live_rooms() == ["B2"]
    with pytest.raises(UnknownRoom):
        await store.load_room("A1")
    with pytest.raises(UnknownRoom):
        await store.append_action("A1", 1, actions_of(table)[1])
    with pytest.raises(UnknownRoom):
        await store.close_room("A1")
    # The code can be used again, from scratch.
    await store.create_room("A1", SETTINGS, header_of(table))
    room = await store.load_room("A1")
    assert (room.seats, room.actions) == ((), ())


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda s, h: s.create_room("", {}, h), BadInput),
        (lambda s, h: s.create_room("has space", {}, h), BadInput),
        (lambda s, h: s.create_room("X" * 33, {}, h), BadInput),
        (lambda s, h: s.create_room(17, {}, h), BadInput),
        (lambda s, h: s.create_room("R", [1, 2], h), BadInput),
        (lambda s, h: s.create_room("R", {"x": {1, 2}}, h), BadInput),
        (lambda s, h: s.create_room("R", {"x": math.nan}, h), BadInput),
        (lambda s, h: s.create_room("R", {1: "x"}, h), BadInput),
        (lambda s, h: s.create_room("R", {}, {**h, "format": "other/1"}), InvalidRecord),
        (lambda s, h: s.create_room("R", {}, {**h, "players": ["Solo"]}), InvalidRecord),
        (
            lambda s, h: s.create_room("R", {}, {**h, "actions": [{"t": 0, "flip": "Anna"}]}),
            InvalidRecord,
        ),
        (lambda s, h: s.create_room("R", {}, "not a header"), BadInput),
        (lambda s, h: s.set_seat("OK", -1, "Anna", None), BadInput),
        (lambda s, h: s.set_seat("OK", True, "Anna", None), BadInput),
        (lambda s, h: s.set_seat("OK", 52, "Anna", None), BadInput),
        (lambda s, h: s.set_seat("OK", 0, "", None), BadInput),
        (lambda s, h: s.set_seat("OK", 0, "Anna", 12), BadInput),
        (lambda s, h: s.set_seat("OK", 0, "Anna", None, is_bot="yes"), BadInput),
        (lambda s, h: s.append_action("OK", -1, {"t": 0, "flip": "Anna"}), BadInput),
        (lambda s, h: s.append_action("OK", 1.0, {"t": 0, "flip": "Anna"}), BadInput),
        (lambda s, h: s.append_action("OK", 0, {"flip": "Anna"}), BadInput),
        (lambda s, h: s.append_action("OK", 0, {"t": -5, "flip": "Anna"}), BadInput),
        (
            lambda s, h: s.append_action(
                "OK", 0, {"t": 0, "slap": "Anna", "reaction_ms": math.inf}
            ),
            BadInput,
        ),
        (lambda s, h: s.append_action("OK", 0, ["t", 0]), BadInput),
        (lambda s, h: s.append_action("OK", 0, {"t": 0, "x": object()}), BadInput),
        (lambda s, h: s.reset_room("OK", h, settings={"x": math.nan}), BadInput),
        (lambda s, h: s.reset_room("OK", h, seats=[(0, "Anna", None, False)]), BadInput),
        (lambda s, h: s.reset_room("OK", h, seats=[(0, "", None, False, None)]), BadInput),
        (lambda s, h: s.reset_room("OK", h, seats=[(0, "Anna", None, "no", None)]), BadInput),
        (lambda s, h: s.reset_room("OK", h, seats="Anna"), BadInput),
        (
            lambda s, h: s.create_room("NEW", SETTINGS, h, seats=[(0, "", None, False, None)]),
            BadInput,
        ),
        (lambda s, h: s.create_room("NEW", SETTINGS, h, seats=[(0, "Anna")]), BadInput),
        (
            lambda s, h: s.create_room("NEW", SETTINGS, h, seats=[(99, "Anna", None, False, None)]),
            BadInput,
        ),
    ],
)
async def test_bad_input_is_a_typed_error_and_changes_nothing(
    store: SqlStore, call: Any, error: type[Exception]
) -> None:
    table, _ = play(1)
    header = header_of(table)
    await store.create_room("OK", SETTINGS, header)
    with pytest.raises(error) as info:
        await call(store, header)
    assert isinstance(info.value, ValueError)
    assert await store.live_rooms() == ["OK"]
    room = await store.load_room("OK")
    assert (room.settings, room.seats, room.actions) == (SETTINGS, (), ())


async def test_corrupt_rows_are_typed_errors(store: SqlStore) -> None:
    table, _ = play(1)
    await store.create_room("BAD", SETTINGS, header_of(table))
    await store.append_action("BAD", 0, actions_of(table)[0])
    async with store._tx() as conn:
        await conn.execute("UPDATE room_actions SET action = ? WHERE code = ?", "{not json", "BAD")
    with pytest.raises(CorruptRow, match="action 0"):
        await store.load_room("BAD")
    async with store._tx() as conn:
        await conn.execute("UPDATE room_actions SET action = ? WHERE code = ?", "[1, 2]", "BAD")
    with pytest.raises(CorruptRow):
        await store.load_room("BAD")
    async with store._tx() as conn:
        await conn.execute(
            "UPDATE room_actions SET action = ?, idx = 3 WHERE code = ?", "{}", "BAD"
        )
    with pytest.raises(CorruptRow, match="missing"):
        await store.load_room("BAD")
    async with store._tx() as conn:
        await conn.execute("DELETE FROM room_actions WHERE code = ?", "BAD")
        await conn.execute("UPDATE rooms SET settings = ? WHERE code = ?", "nope", "BAD")
    with pytest.raises(CorruptRow, match="settings"):
        await store.load_room("BAD")
    async with store._tx() as conn:
        await conn.execute("UPDATE rooms SET settings = '{}', header = ?", "{}")
    room = await store.load_room("BAD")
    with pytest.raises(CorruptRow, match="record"):
        room.record()


async def test_a_closed_store_refuses_work(opener: Any) -> None:
    store = await opener()
    table, _ = play(1)
    await store.create_room("Z", SETTINGS, header_of(table))
    pending = [
        asyncio.create_task(store.append_action("Z", i, a))
        for i, a in enumerate(actions_of(table)[:20])
    ]
    await asyncio.sleep(0)
    await store.close()  # writes what is queued first
    await asyncio.gather(*pending)
    await store.close()
    with pytest.raises(StoreClosed):
        await store.append_action("Z", 20, actions_of(table)[20])
    with pytest.raises(StoreClosed):
        await store.live_rooms()
    again = await opener()
    assert list((await again.load_room("Z")).actions) == actions_of(table)[:20]


async def test_cancelled_callers_leave_the_store_usable(store: SqlStore) -> None:
    table, _ = play(1)
    header = header_of(table)
    for i in range(40):
        task = asyncio.create_task(store.create_room(f"X{i}", SETTINGS, header))
        for _ in range(i % 5):
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    await store.create_room("AFTER", SETTINGS, header)
    live = await store.live_rooms()
    assert "AFTER" in live
    for code in live:  # every room that made it is whole
        room = await store.load_room(code)
        assert room.header == header
    appends = [
        asyncio.create_task(store.append_action("AFTER", i, a))
        for i, a in enumerate(actions_of(table)[:30])
    ]
    await asyncio.sleep(0)
    appends[3].cancel()
    results = await asyncio.gather(*appends, return_exceptions=True)
    assert all(r is None or isinstance(r, asyncio.CancelledError) for r in results)
    # The cancelled caller's action was written anyway (the batch was under way),
    # and appending it again is a no-op.
    await store.append_action("AFTER", 3, actions_of(table)[3])
    assert list((await store.load_room("AFTER")).actions) == actions_of(table)[:30]


async def test_two_writers_racing_on_one_room_never_duplicate(opener: Any) -> None:
    """Two store instances (two processes' worth of connections) write one room at once."""
    first, second = await opener(), await opener()
    table, _ = play(15)
    acts = actions_of(table)[:40]
    await first.create_room("RACE", SETTINGS, header_of(table))

    async def write(store: SqlStore, content: list[dict[str, Any]]) -> list[str | None]:
        out: list[str | None] = []
        for i, action in enumerate(content):
            try:
                await store.append_action("RACE", i, action)
                out.append(None)
            except (ActionConflict, ActionGap) as exc:
                out.append(exc.code)
        return out

    same = await asyncio.gather(write(first, acts), write(second, acts))
    assert same == [[None] * len(acts), [None] * len(acts)]
    assert list((await second.load_room("RACE")).actions) == acts

    await first.reset_room("RACE", header_of(table))
    mine = [{**a, "by": "first"} for a in acts]
    theirs = [{**a, "by": "second"} for a in acts]
    results = await asyncio.gather(write(first, mine), write(second, theirs))
    stored = list((await first.load_room("RACE")).actions)
    assert len(stored) == len(acts)
    for i, action in enumerate(stored):
        winner = 0 if action["by"] == "first" else 1
        assert results[winner][i] is None
        assert results[1 - winner][i] in ("action_conflict", "action_gap")


async def test_a_failing_database_fails_the_batch_with_a_typed_error(store: SqlStore) -> None:
    table, _ = play(16)
    acts = actions_of(table)
    await store.create_room("DOWN", SETTINGS, header_of(table))
    await store.append_action("DOWN", 0, acts[0])
    async with store._tx() as conn:  # the table vanishes underneath the store
        await conn.execute("ALTER TABLE room_actions RENAME TO room_actions_gone")
    results = await asyncio.gather(
        *(store.append_action("DOWN", i, acts[i]) for i in (1, 2)), return_exceptions=True
    )
    assert all(isinstance(r, StoreUnavailable) for r in results)
    with pytest.raises(StoreUnavailable):
        await store.load_room("DOWN")
    async with store._tx() as conn:
        await conn.execute("ALTER TABLE room_actions_gone RENAME TO room_actions")
    # Nothing of the failed batch was half-written; the room goes on from index 1.
    assert list((await store.load_room("DOWN")).actions) == acts[:1]
    await store.append_action("DOWN", 1, acts[1])
    assert list((await store.load_room("DOWN")).actions) == acts[:2]
