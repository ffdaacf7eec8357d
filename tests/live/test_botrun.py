"""The bots-only run loop (``slapjack.live.botrun``) plays the same games as the
general path: a table run with ``run()`` (the loop) and the same table woken
deadline by deadline with ``wake()`` (the general path, ``LiveTable._fire``)
give the same record, the same events and the same final state."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from slapjack.bots import SlapIntent, make_bot
from slapjack.core import PRESETS, Rules, Table, View, shuffled_deck
from slapjack.live import LiveTable, LiveTiming, LocalReferee
from slapjack.live.botrun import bots_only
from slapjack.sim import game_seed

MIXES = (
    ("pro", "casual", "casual", "beginner"),
    ("perfect", "perfect", "perfect"),
    ("beginner", "human:260", "pro", "pro", "casual", "beginner"),
)
TIMINGS = (
    LiveTiming(),
    LiveTiming(result_pause_ms=400.0, bot_pace=0.5, max_bot_flip_ms=450.0),
    LiveTiming(turn_ms=300.0, call_wait_ms=0.0, max_rounds=1),
)


class _Referee(LocalReferee):
    """A referee the loop knows only by its protocol (not a LocalReferee's own class)."""

    def bound_reaction(
        self,
        seat: int,
        flip_id: int,
        claimed_ms: float,
        shown_at: float | None,
        input_at: float | None,
        now_ms: float,
    ) -> float:
        return super().bound_reaction(seat, flip_id, claimed_ms, shown_at, input_at, now_ms) + seat

    def window_ms(self, seats: Sequence[int]) -> float:
        return 120.0 + 40.0 * len(seats)


def _table(
    rules: Rules,
    levels: tuple[str, ...],
    seed: int,
    timing: LiveTiming,
    referee: type[LocalReferee] = LocalReferee,
) -> tuple[Table, LiveTable]:
    names = [f"S{s}" for s in range(len(levels))]
    table = Table.new(rules, names, deck=shuffled_deck(seed))
    bots = {s: make_bot(lv, game_seed(seed, s)) for s, lv in enumerate(levels)}
    live = LiveTable(table, bots=bots, timing=timing, referee=referee(300.0))
    live.start(0.0)
    return table, live


def _state(table: Table, live: LiveTable) -> tuple[object, ...]:
    return (
        table.record.to_json(),
        live.cue,
        live.cue_shown,
        live.next_deadline,
        live.deadlines(),
        live.round,
        live.round_slaps,
    )


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("timing", TIMINGS, ids=("served", "paused", "short"))
def test_the_loop_plays_the_games_the_general_path_plays(preset: str, timing: LiveTiming) -> None:
    rules = Rules.from_options({"preset": preset})
    games = 0
    for levels in MIXES:
        for i in range(4):
            seed = game_seed(5, i + 10 * len(levels))
            fast_table, fast = _table(rules, levels, seed, timing)
            assert bots_only(fast) is not None
            fast.run(max_flips=3000)
            slow_table, slow = _table(rules, levels, seed, timing)
            slow_events = []
            while not slow.game.over and slow.game.flips != 3000:
                if slow.next_deadline == math.inf:
                    break
                slow.wake(slow.next_deadline)
                slow_events += slow.take()
            assert fast.take() == slow_events
            assert _state(fast_table, fast) == _state(slow_table, slow)
            games += 1
    assert games == 12


@pytest.mark.parametrize("preset", ["classic", "irish-snap", "say-it"])
def test_the_loop_plays_learning_bots_and_other_referees_as_the_general_path(preset: str) -> None:
    rules = Rules.from_options({"preset": preset})
    for levels, referee in (
        (("matched", "pro", "casual"), LocalReferee),  # a bot that learns from the table
        (("pro", "casual", "casual", "beginner"), _Referee),
        (("perfect", "perfect", "beginner"), _Referee),
    ):
        for i in range(3):
            seed = game_seed(11, i + 10 * len(levels))
            fast_table, fast = _table(rules, levels, seed, LiveTiming(), referee)
            fast.run(max_flips=3000)
            slow_table, slow = _table(rules, levels, seed, LiveTiming(), referee)
            while not slow.game.over and slow.game.flips != 3000:
                slow.wake(slow.next_deadline)
            assert fast.take() == slow.take()
            assert _state(fast_table, fast) == _state(slow_table, slow)
            assert fast.game.over or fast.game.flips == 3000


def test_the_loop_stops_where_run_is_told_to_and_goes_on_from_there() -> None:
    rules = Rules()
    levels = ("pro", "casual", "beginner")
    a_table, a = _table(rules, levels, 3, LiveTiming())
    b_table, b = _table(rules, levels, 3, LiveTiming())
    a.run(max_flips=40)
    assert a.game.flips == 40
    a.run(until=a.next_deadline + 5000.0)
    assert a.game.flips > 40
    while not b.game.over and b.next_deadline <= a.next_deadline - 1 and b.game.flips < 3000:
        b.wake(b.next_deadline)
    a.run()
    b.run()
    assert a.game.over and b.game.over
    assert a_table.record.to_json() == b_table.record.to_json()


def test_the_loop_takes_only_tables_of_fast_bots_shown_at_once() -> None:
    rules = Rules()
    game_bots = {s: make_bot("casual", s) for s in range(3)}
    assert (
        bots_only(LiveTable(Table.new(rules, ["a", "b", "c"], seed=1), bots=game_bots)) is not None
    )
    human = LiveTable(Table.new(rules, ["a", "b", "c"], seed=1), levels=["casual", None, "pro"])
    assert bots_only(human) is None
    fixed = LiveTiming(tempo="fixed", turn_ms=500.0)
    assert (
        bots_only(LiveTable(Table.new(rules, ["a", "b"], seed=1), levels=["pro"] * 2, timing=fixed))
        is None
    )
    shown = LiveTable(Table.new(rules, ["a", "b"], seed=1), levels=["pro"] * 2, auto_shown=False)
    assert bots_only(shown) is None
    matched = LiveTable(Table.new(rules, ["a", "b"], seed=1), levels=["matched", "pro"])
    assert bots_only(matched) is not None  # a learning bot, and a FastBot

    class ViewOnly:  # a Bot without the fast path: decides from views
        level = "view"

        def react(self, view: View) -> SlapIntent | None:
            return None

        def flip_delay_ms(self, view: View) -> float:
            return 300.0

    plain = LiveTable(Table.new(rules, ["a", "b"], seed=1), bots={0: ViewOnly(), 1: game_bots[1]})
    assert bots_only(plain) is None
    plain.start(0.0)
    plain.run(max_flips=30)  # the general path plays it
    assert plain.game.flips == 30


def test_the_loop_knows_the_tables_deadline_kinds() -> None:
    from slapjack.live import botrun, table

    assert (botrun._BOT, botrun._RACE, botrun._TURN, botrun._LIMIT) == (
        table._BOT,
        table._RACE,
        table._TURN,
        table._LIMIT,
    )
