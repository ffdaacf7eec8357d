"""Property: after ANY prefix of a room's inputs, ``Room.restore`` from what the
store holds gives the room the live one had at that point.

A room (``roomkit``: in-process, fake clock, SQLite in memory) is driven through
random inputs across presets, seat counts and decks: flips (also out of turn),
slaps with tied and untied reactions, with or without the say-it call, calls,
stale frames, the live table's deadlines (race, turn, deadlock, time limit, call waits),
waits and rematch requests. After every input the store is written as the room
task writes it and a second room is restored from it: ``roomkit.state_of`` must
be equal (the whole engine position, every view, status, game_no, game_id,
rematch requests, referee, deck, armed timers, the race's round). Then the
next input is applied to that restored room as well (one step of play on
after a restart): the two must still agree (all but the game clock, which a
restart resumes from the last action). That step is a player's frame: a
restarted room's timers start afresh (a race gets its full window again), so
a deadline is not the same input there. A say-it slap still waiting for its
call is not stored (nobody has seen it), so that step is skipped while one waits.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from slapjack.server.room import Room
from slapjack.store import open_store

from .roomkit import (
    FakeClock,
    Input,
    apply,
    differences,
    new_room,
    restored,
    settle_input,
    state_of,
    stop,
    timeless,
)

GAMES = [
    ("slapjack", {"preset": "classic"}),
    ("slapjack", {"preset": "classic", "tie": "split"}),
    ("slapjack", {"preset": "classic", "empty_stack": "until_turn", "wrong_slap": "pay_pile"}),
    ("slapjack", {"preset": "klatsch-bube"}),
    ("slapjack", {"preset": "say-it"}),
    ("irish-snap", {"preset": "irish-snap"}),
    ("irish-snap", {"preset": "irish-snap-winner"}),
]
REACTIONS = (90.0, 150.0, 150.0, 200.0, 260.0)
WAITS = (10.0, 300.0, 2000.0)


def input_kinds(room: Room, lively: bool) -> list[str]:
    """Input kinds to draw from, weighted; a game that is not ``lively`` has no
    slaps (every card gets flipped: in the end nobody can flip)."""
    assert room.table is not None
    game = room.table.game
    if room.status == "over":
        return ["rematch", "rematch", "slap", "wait"]
    kinds = ["slap", "slap", "wait", "flip_wrong"] if lively else ["wait"]
    if game.turn is not None and not game.needs_settle:
        kinds += ["flip"] * 6
    if game.race_open and lively:
        kinds += ["slap"] * 4
    if room.rules.say_it and lively:
        kinds += ["call"]
    assert room.live is not None
    if room.live.next_deadline != float("inf"):
        kinds += ["fire"] * 3
    return kinds


def draw_input(data: st.DataObject, room: Room, lively: bool) -> Input:
    kind = data.draw(st.sampled_from(input_kinds(room, lively)), label="kind")
    if kind == "wait":
        return Input(kind, value=data.draw(st.sampled_from(WAITS), label="ms"))
    if kind == "fire":
        return Input(kind)  # time runs to the next deadline: no seat's
    seat = data.draw(st.integers(0, len(room.seats) - 1), label="seat")
    if kind == "slap":
        return Input(
            kind,
            seat,
            data.draw(st.sampled_from(REACTIONS), label="reaction"),
            call=data.draw(st.booleans(), label="call"),
            stale=data.draw(st.integers(0, 9), label="stale") == 0,
        )
    return Input(kind, seat)


def note_where(room: Room) -> None:
    """Statistics (``--hypothesis-show-statistics``): which moments were restored."""
    assert room.table is not None
    game = room.table.game
    if game.reslap_among is not None:
        event("restored in a reslap round")
    if game.race_open and game.race_slaps:
        event("restored in a race with slaps")
    assert room.live is not None
    if room.live.waiting_for_call():
        event("restored with a call wait")
    if room.status == "over":
        event("restored after the end")
    if room.game_no > 1:
        event("restored in a rematch game")
    if game.turn is None and not game.race_open and not game.over:
        event("restored with nobody able to flip")


async def play(data: st.DataObject, steps: int) -> None:
    game, rules = data.draw(st.sampled_from(GAMES), label="game")
    seats = data.draw(st.integers(2, 4), label="seats")
    time_limit = 20 if game == "slapjack" and data.draw(st.booleans(), label="limit") else 0
    deck = data.draw(st.permutations(range(52)), label="deck")
    lively = data.draw(st.integers(0, 4), label="lively") > 0
    clock = FakeClock()
    store = await open_store("sqlite:///:memory:", ".")
    live: Room | None = None
    back: Room | None = None
    try:
        live = await new_room(
            store, clock, game=game, rules=rules, seats=seats, deck=deck, time_limit=time_limit
        )
        back = await restored(live, clock)
        # the live room's state after the last input: nothing but an input
        # changes it (the restored rooms share only the store, and only read it)
        now = state_of(live)
        assert state_of(back) == now
        for step in range(steps):
            inp = draw_input(data, live, lively)
            assert live.live is not None
            waiting = live.live.holds_calls()
            before = now
            apply(live, inp, clock)
            await settle_input(live)
            now = state_of(live)
            if inp.kind == "flip_wrong" and before["actions"] == now["actions"]:
                assert now == before, f"step {step}: {inp} changed {differences(before, now)}"
            if not waiting and inp.kind not in ("wait", "fire"):
                # one step of play on the room restored before this input
                apply(back, inp, clock)
                back._ops.clear()
                ahead, want = state_of(back, with_time=False), timeless(now)
                assert ahead == want, (
                    f"step {step}: {inp} after a restart went otherwise: {differences(want, ahead)}"
                )
            await stop(back)
            back = None
            back = await restored(live, clock)
            note_where(live)
            got = state_of(back)
            assert got == now, f"step {step}: restored after {inp}: {differences(now, got)}"
    finally:
        for room in (live, back):
            if room is not None:
                await stop(room)
        await store.close()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_restore_after_any_prefix_is_the_live_room(data: st.DataObject) -> None:
    asyncio.run(play(data, steps=120))


@pytest.mark.slow
@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_restore_after_any_prefix_is_the_live_room_long(data: st.DataObject) -> None:
    asyncio.run(play(data, steps=200))
