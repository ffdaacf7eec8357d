"""Room.restore and the room's settle path, one case at a time (in-process, see
``roomkit``): what the property test and the crash tests found."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from slapjack.core import card_name, parse_card
from slapjack.server.actor import StoreOp
from slapjack.server.referee import TrustingReferee
from slapjack.server.room import Room
from slapjack.store import open_store
from slapjack.store.base import Store

from .roomkit import FakeClock, Input, apply, new_room, restored, settle_input, state_of, stop


def deck_with(first: list[str]) -> list[int]:
    rest = [card_name(c) for c in range(52) if card_name(c) not in first]
    return [parse_card(c) for c in [*first, *rest]]


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    st = await open_store("sqlite:///:memory:", ".")
    yield st
    await st.close()


async def ended(store: Store, clock: FakeClock) -> tuple[Room, StoreOp]:
    """A classic game of two, one flip, ended by its time limit: every action
    stored; the finish (storing the game in the history) not yet written."""
    room = await new_room(store, clock, time_limit=5, deck=deck_with(["2C", "3C"]))
    apply(room, Input("flip"), clock)
    await settle_input(room)
    while room.status != "over":  # the turn timer flips for Ben, then time is up
        apply(room, Input("fire"), clock)
        if room.status != "over":
            await settle_input(room)
    *actions, finish = room._ops
    room._ops = actions
    await room.write_ops()
    return room, finish


async def test_a_test_room_keeps_its_referee_and_deck_across_a_restart(store: Store) -> None:
    """The test hooks' room (stacked deck, the referee that takes claimed
    reactions as sent) is the same room after a restart, also for its rematch."""
    clock = FakeClock()
    deck = deck_with(["JS"])
    room = await new_room(store, clock, deck=deck, referee=TrustingReferee)
    back = await restored(room, clock)  # the server's own referee is arrival
    try:
        assert back.referee_factory is TrustingReferee
        assert back.setup.deck == tuple(deck) and back.setup.seed == room.setup.seed
        apply(back, Input("flip"), clock)
        apply(back, Input("slap", 1, 321.0), clock)
        assert back.table is not None
        assert back.table.game.race_slaps == {1: [(321.0, False)]}  # the claim, as sent
    finally:
        await stop(room)
        await stop(back)


async def test_the_finished_games_id_survives_a_restart_during_the_rematch(
    store: Store,
) -> None:
    clock = FakeClock()
    room, finish = await ended(store, clock)
    await finish()
    game_id = room.last_game_id
    assert game_id is not None
    apply(room, Input("rematch", 0), clock)
    apply(room, Input("rematch", 1), clock)
    await settle_input(room)
    assert room.status == "playing" and room.game_no == 2
    back = await restored(room, clock)
    try:
        assert back.last_game_id == game_id  # the room still names the finished game
        assert state_of(back) == state_of(room)
    finally:
        await stop(room)
        await stop(back)


async def test_the_finish_stores_the_settings_of_the_game_that_finished(store: Store) -> None:
    """Write-behind: the rematch can start before the finish is written; the
    finish still stores game 1's settings (not game 2's with game 1's record)."""
    clock = FakeClock()
    room, finish = await ended(store, clock)
    apply(room, Input("rematch", 0), clock)
    apply(room, Input("rematch", 1), clock)
    assert room.game_no == 2
    reset = room._ops
    room._ops = []
    await finish()  # the server dies after this write, before the reset
    back = await restored(room, clock)
    try:
        assert back.status == "over" and back.game_no == 1
        assert back.last_game_id == room.last_game_id is not None
    finally:
        await stop(back)
    for op in reset:
        await op()
    again = await restored(room, clock)
    try:
        assert again.status == "playing" and again.game_no == 2
        assert again.last_game_id == room.last_game_id
    finally:
        await stop(room)
        await stop(again)


async def test_a_rematch_request_before_the_finish_is_written_keeps_the_game_id(
    store: Store,
) -> None:
    """Write-behind: Anna asks for a rematch before the finish was written; the
    stored request must not drop the finished game's id."""
    clock = FakeClock()
    room, finish = await ended(store, clock)
    apply(room, Input("rematch", 0), clock)
    ask = room._ops
    room._ops = []
    await finish()
    for op in ask:
        await op()
    back = await restored(room, clock)
    try:
        assert [s.rematch for s in back.seats] == [True, False]
        assert back.last_game_id == room.last_game_id is not None
    finally:
        await stop(room)
        await stop(back)


async def test_a_tie_found_when_the_timeout_ends_the_call_waits_opens_the_reslap_round(
    store: Store,
) -> None:
    """Say-it: both seats slapped the Jack at the same speed without calling;
    the race's timeout ends both call waits, the slaps tie, and the reslap
    round must open (not be settled in the same breath by seat order)."""
    clock = FakeClock()
    room = await new_room(store, clock, rules={"preset": "say-it"}, deck=deck_with(["JS"]))
    try:
        apply(room, Input("flip"), clock)
        apply(room, Input("wait", value=2300.0), clock)  # the slaps come late in the race
        apply(room, Input("slap", 0, 200.0), clock)
        apply(room, Input("slap", 1, 200.0), clock)
        assert room.live is not None and room.live.waiting_for_call() == (0, 1)
        apply(room, Input("fire"), clock)  # the race's timeout (2500 ms) before the waits end
        await settle_input(room)
        assert room.table is not None
        game = room.table.game
        assert game.race_open and game.reslap_among == (0, 1), game.snapshot()
        assert room.live.deadlines()["race"] is not None
        apply(room, Input("slap", 1, 180.0, call=True), clock)
        apply(room, Input("slap", 0, 190.0, call=True), clock)
        assert not game.race_open and game.stack_sizes() == (25, 27)
    finally:
        await stop(room)
