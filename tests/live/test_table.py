"""The live table: what a game played in real time adds to the rules.

Time is data here: every input carries ``now`` (ms) and the table says when
to wake it. Scripted bots make each race happen exactly as a test needs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slapjack.bots import SlapIntent, make_bot
from slapjack.core import FULL_DECK, Card, Rules, Table, View, is_jack, parse_card, replay
from slapjack.core.events import (
    Eliminated,
    Forfeit,
    GameOver,
    NoSlap,
    PileReturned,
    RaceTied,
    RaceWon,
    Slapped,
    TimeIsUp,
    WrongSlap,
)
from slapjack.live import LiveError, LiveTable, LiveTiming, LocalReferee, TimingError

INF = float("inf")


@dataclass
class Scripted:
    """A bot that slaps what the test says: ``jack`` ms on every Jack (or Irish
    match), ``cards`` by name, ``rounds`` for reslap rounds, flipping after ``flip``."""

    jack: float | None = None
    cards: Mapping[str, float] = field(default_factory=dict)
    rounds: list[float] = field(default_factory=list)
    flip: float = 100.0
    call: bool = True
    level: str = "scripted"

    def react(self, view: View) -> SlapIntent | None:
        top = view.top
        if top is None:
            return None
        if view.reslap_among is not None:
            return SlapIntent(self.rounds.pop(0), self.call) if self.rounds else None
        from slapjack.core import card_name

        if card_name(top) in self.cards:
            return SlapIntent(self.cards[card_name(top)], self.call)
        hit = view.is_match if view.rules.is_irish else is_jack(top)
        return SlapIntent(self.jack, self.call) if hit and self.jack is not None else None

    def flip_delay_ms(self, view: View) -> float:
        return self.flip


def deck(*first: str) -> tuple[Card, ...]:
    head = [parse_card(n) for n in first]
    return tuple(head + [c for c in FULL_DECK if c not in head])


def table(
    cards: tuple[Card, ...],
    *,
    levels: Sequence[str | None] = (None, None),
    bots: Mapping[int, Scripted] | None = None,
    timing: LiveTiming | None = None,
    window: float = 200.0,
    **options: object,
) -> LiveTable:
    names = [f"P{i}" for i in range(len(levels))]
    rules = Rules.from_options({"preset": "classic", **options})
    tab = Table.new(rules, names, deck=cards)
    live = LiveTable(
        tab,
        levels=list(levels),
        bots=bots,
        timing=timing or LiveTiming(turn_ms=None),
        referee=LocalReferee(window),
    )
    live.start(0.0)
    return live


def of(kind: type, events: Sequence[object]) -> list[object]:
    return [e for e in events if isinstance(e, kind)]


# ------------------------------------------------------------------ races


def test_a_race_closes_the_referees_window_after_its_first_slap() -> None:
    live = table(deck("JC"))
    live.flip(0, 0.0)
    assert live.game.race_open and live.next_deadline == 2500.0  # the no-slap timeout
    live.slap(0, 300.0)  # measured from the card shown at 0: 300 ms
    assert live.next_deadline == 500.0  # the first slap + the window (200)
    live.wake(499.0)
    assert live.game.race_open
    live.wake(500.0)
    assert not live.game.race_open
    won = of(RaceWon, live.take())
    assert won == [RaceWon(0, 1, ((0, 300.0),))]
    assert live.table is not None and live.table.record.actions[-1].t == 500  # type: ignore[union-attr]


def test_a_race_closes_as_soon_as_every_seat_slapped() -> None:
    live = table(deck("JC"), levels=(None, None, None))
    live.flip(0, 0.0)
    live.slap(1, 250.0)
    live.slap(0, 260.0)
    assert live.game.race_open
    live.slap(2, 270.0)
    assert not live.game.race_open
    assert of(RaceWon, live.take())[0].winner == 1  # type: ignore[attr-defined]


def test_a_jack_nobody_slaps_is_buried_at_the_timeout() -> None:
    live = table(deck("JC", "5D"))
    live.flip(0, 0.0)
    live.wake(2500.0)
    assert of(NoSlap, live.take()) == [NoSlap(parse_card("JC"))]
    with pytest.raises(LiveError, match="stale"):
        live.slap(0, 2600.0, flip_id=0)  # the client still saw the flip before


def test_a_late_wake_changes_nothing() -> None:
    """Deadlines run at their own times: a host that wakes the table late gets
    the same record as one that wakes it on time."""

    def play(lag: float) -> list[object]:
        bots = {0: Scripted(jack=300.0, flip=120.0), 1: Scripted(jack=310.0, flip=90.0)}
        live = table(deck("5C", "KD", "JS"), levels=(None, None), bots=bots)
        for _ in range(300):
            if live.game.over or live.next_deadline == INF:
                break
            live.wake(live.next_deadline + lag)
        assert live.table is not None
        return list(live.table.record.actions)

    assert play(0.0) == play(37.5) == play(400.0)


def test_reslap_rounds_then_seat_order() -> None:
    """Exact ties under tie=reslap: two reslap rounds, then seat order from the Jack's player."""
    bots = {
        0: Scripted(jack=200.0, rounds=[180.0, 150.0]),
        1: Scripted(jack=200.0, rounds=[180.0, 150.0]),
    }
    live = table(deck("5C", "JS"), bots=bots)
    live.wake(live.next_deadline)  # P0 flips 5C
    live.wake(live.next_deadline)  # P1 flips JS
    cue = live.cue
    while live.game.race_open:
        live.wake(live.next_deadline)
    events = live.take()
    assert [e.reaction_ms for e in of(RaceTied, events)] == [200.0, 180.0]  # type: ignore[attr-defined]
    assert live.cue == cue + 2  # a fresh cue for each reslap round
    won = of(RaceWon, events)[0]
    assert won.winner == 1  # type: ignore[attr-defined]  # seat order from P1, the Jack's player
    assert live.table is not None
    settles = [a for a in live.table.record.actions if type(a).__name__ == "Settle"]
    assert [s.final for s in settles] == [False, False, True]  # type: ignore[attr-defined]


def test_a_reslap_round_nobody_slaps_is_decided_by_seat_order_at_once() -> None:
    bots = {0: Scripted(jack=200.0), 1: Scripted(jack=200.0)}
    live = table(deck("5C", "JS"), bots=bots)
    while not of(RaceTied, live.take()):
        live.wake(live.next_deadline)
    live.wake(live.next_deadline)  # the round's no-slap timeout
    assert of(RaceWon, live.take())[0].winner == 1  # type: ignore[attr-defined]


def test_max_rounds_is_a_timing() -> None:
    bots = {0: Scripted(jack=200.0, rounds=[180.0]), 1: Scripted(jack=200.0, rounds=[180.0])}
    live = table(deck("5C", "JS"), bots=bots, timing=LiveTiming(turn_ms=None, max_rounds=1))
    while live.game.race_open or live.game.flips < 2:
        live.wake(live.next_deadline)
    assert not of(RaceTied, live.take())  # one round: the tie is decided by seat order


# ------------------------------------------------------------------ say it


def test_say_it_a_slap_waits_for_its_call() -> None:
    live = table(deck("JC"), preset="say-it")
    live.flip(0, 0.0)
    live.slap(0, 200.0)
    assert not of(Slapped, live.take()) and live.waiting_for_call() == (0,)
    live.call(0, 300.0)  # within the wait (350 ms)
    assert of(Slapped, live.take()) == [Slapped(0, 200.0, True)]


def test_say_it_without_the_call_the_slap_goes_in_bare_and_forfeits() -> None:
    live = table(deck("JC"), preset="say-it")
    live.flip(0, 0.0)
    live.slap(0, 200.0)
    live.wake(550.0)  # the wait ends: in without the call
    assert of(Slapped, live.take()) == [Slapped(0, 200.0, False)]
    live.wake(live.next_deadline)
    assert of(Forfeit, live.take())[0].seat == 0  # type: ignore[attr-defined]


def test_say_it_the_race_waits_for_a_call_still_to_come() -> None:
    """P0 slaps first without the call, P1 just after with it; P0's call comes
    after the race's window but within its wait: the race waited for it, and
    P0, the faster, wins (not a forfeit at the window's end)."""
    live = table(deck("JC"), preset="say-it", levels=(None, None, None), window=20.0)
    live.flip(0, 0.0)
    live.slap(0, 250.0, claimed_ms=250.0)
    live.slap(1, 261.0, claimed_ms=261.0, call=True)
    assert live.next_deadline > 281.0  # not the window's end while P0 waits
    live.wake(290.0)
    assert live.game.race_open and not of(Forfeit, live.take())
    live.call(0, 302.0)
    while live.game.race_open:
        live.wake(live.next_deadline)
    events = live.take()
    assert of(Slapped, events) == [Slapped(0, 250.0, True)]
    assert of(RaceWon, events)[0].winner == 0  # type: ignore[attr-defined]
    assert not of(Forfeit, events)


def test_say_it_a_wait_that_ends_closes_the_race_with_the_slap_in_bare() -> None:
    live = table(deck("JC"), preset="say-it", levels=(None, None, None), window=20.0)
    live.flip(0, 0.0)
    live.slap(0, 250.0, claimed_ms=250.0)
    live.slap(1, 261.0, claimed_ms=261.0, call=True)
    assert live.next_deadline == 600.0  # P0's wait: 350 ms after the slap
    live.wake(600.0)
    events = live.take()
    assert Slapped(0, 250.0, False) in events and of(Forfeit, events)[0].seat == 0  # type: ignore[attr-defined]


def test_say_it_a_call_before_the_slap_on_the_same_card_counts() -> None:
    live = table(deck("JC"), preset="say-it")
    live.flip(0, 0.0)
    live.call(1, 150.0)
    live.slap(1, 220.0)
    assert of(Slapped, live.take()) == [Slapped(1, 220.0, True)]
    assert not live.holds_calls() or live.waiting_for_call() == ()


# ------------------------------------------------------------------ turns, time, seats


def test_an_idle_human_is_flipped_for_and_a_fixed_tempo_refuses_flips() -> None:
    live = table(deck("5C"), timing=LiveTiming(turn_ms=1000.0))
    assert live.next_deadline == 1000.0
    live.wake(1000.0)
    assert live.game.flips == 1 and live.game.turn == 1
    fixed = table(deck("5C"), timing=LiveTiming(turn_ms=700.0, tempo="fixed"))
    with pytest.raises(LiveError) as refused:
        fixed.flip(0, 10.0)
    assert refused.value.code == "not_your_turn"
    fixed.wake(700.0)
    assert fixed.game.flips == 1


def test_the_time_limit_ends_the_game_at_its_time() -> None:
    live = table(deck("5C"), time_limit=2)
    assert live.deadlines()["time_limit"] == 2000.0
    live.flip(0, 100.0)
    live.wake(2000.0)
    events = live.take()
    assert of(TimeIsUp, events) and live.game.over
    assert live.next_deadline == INF


def test_nobody_can_flip_the_pile_goes_back_after_a_pause() -> None:
    """Two seats, every card flipped, no Jack slapped: the pile goes back."""
    live = table(deck(), timing=LiveTiming(turn_ms=None, deadlock_ms=800.0))
    t = 0.0
    while live.game.turn is not None or live.game.race_open:
        if live.game.race_open:
            t = live.next_deadline  # the Jack's no-slap timeout
            live.wake(t)
            continue
        t += 10.0
        live.flip(live.game.turn, t)
    assert live.deadlines()["deadlock"] == t + 800.0
    live.wake(t + 800.0)
    assert of(PileReturned, live.take()) == [PileReturned(1, 52)]
    assert live.game.turn == 1


def test_an_absent_human_is_covered_after_the_grace_and_freed_on_return() -> None:
    timing = LiveTiming(turn_ms=5000.0, grace_ms=1000.0, cover_level="perfect")
    live = table(deck("5C"), timing=timing)
    live.disconnected(0, 0.0)
    assert live.grace_until(0) == 1000.0 and live.seating.level(0) is None
    live.wake(1000.0)
    assert live.seating.covered[0] and live.seating.level(0) == "perfect"
    assert live.next_deadline == 1500.0  # the perfect bot flips after 500 ms
    live.connected(0, 1100.0)
    assert not live.seating.covered[0] and live.next_deadline == 6100.0  # the human's turn timer


def test_a_human_who_leaves_is_a_bot_for_good() -> None:
    live = table(deck("5C"), timing=LiveTiming(turn_ms=5000.0, cover_level="perfect"))
    live.leave(0, 50.0)
    assert (
        live.seating.level(0) is not None
        and live.seating.level(0) == "perfect"
        and live.next_deadline == 550.0
    )


def test_once_every_human_is_out_the_bots_play_quickly() -> None:
    bots = {1: Scripted(flip=1000.0), 2: Scripted(flip=1000.0)}
    live = table(
        deck("5C", "6C", "7C"), levels=(None, "a", "b"), bots=bots, empty_stack="until_turn"
    )
    game = live.game
    game.stacks[1].extend(list(game.stacks[0])[1:])  # set up: P0 holds one card, the 5C
    del list(game.stacks[0])[1:]
    while len(game.stacks[0]) > 1:
        game.stacks[0].pop()
    live.flip(0, 0.0)
    assert live.next_deadline == 1000.0  # a human is in: the bots take their time
    live.wake(1000.0)  # P1 flips
    live.wake(2000.0)  # P2 flips; P0's turn comes with no card: out
    assert of(Eliminated, live.take()) == [Eliminated(0, "turn")]
    assert live.next_deadline == 2200.0  # bots_only_pace 0.2: the rest plays out quickly
    game.check_invariant()


def test_bad_timings_are_refused() -> None:
    with pytest.raises(TimingError):
        LiveTiming(jack_timeout_ms=-1)
    with pytest.raises(TimingError):
        LiveTiming(tempo="fixed", turn_ms=None)
    with pytest.raises(TimingError):
        LiveTiming(max_rounds=0)


# ------------------------------------------------------------------ a restart


def test_a_table_resumed_from_a_record_mid_race_keeps_its_slaps_and_round() -> None:
    bots = {0: Scripted(jack=200.0, rounds=[150.0]), 1: Scripted(jack=200.0, rounds=[170.0])}
    live = table(deck("5C", "JS"), bots=bots)
    while not of(RaceTied, live.take()):
        live.wake(live.next_deadline)
    assert live.table is not None
    record = live.table.record
    again = LiveTable(
        Table(record),
        bots={0: Scripted(rounds=[150.0]), 1: Scripted(rounds=[170.0])},
        timing=LiveTiming(turn_ms=None),
        referee=LocalReferee(200.0),
    )
    again.start(10_000.0)
    assert again.round == 2 and again.game.reslap_among == (1, 0)
    while again.game.race_open:
        again.wake(again.next_deadline)
    assert of(RaceWon, again.take())[0].winner == 0  # type: ignore[attr-defined]


# ------------------------------------------------------------------ whole games


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    preset=st.sampled_from(
        ["classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"]
    ),
    lag=st.floats(0, 300),
)
def test_bot_games_end_keep_the_cards_and_replay(seed: int, preset: str, lag: float) -> None:
    rng = random.Random(seed)
    levels = [
        rng.choice(["beginner", "casual", "pro", "matched"]) for _ in range(rng.randint(2, 6))
    ]
    game = "irish-snap" if preset.startswith("irish") else "slapjack"
    rules = Rules.from_options({"preset": preset}, game=game)
    tab = Table.new(rules, [f"B{i}" for i in range(len(levels))], seed=seed)
    live = LiveTable(tab, levels=levels, bot_seed=seed, referee=LocalReferee(300.0))
    live.start(0.0)
    steps = 0
    while not tab.game.over and steps < 60_000:
        due = live.next_deadline
        assert due != INF, "a bot table always has something due"
        live.wake(due + rng.random() * lag)  # a host whose timer is late by up to ``lag``
        tab.game.check_invariant()
        steps += 1
    assert tab.game.over
    events = live.take()
    assert of(GameOver, events)
    assert replay(tab.record).game.snapshot() == tab.game.snapshot()
    assert all(a.t <= b.t for a, b in zip(tab.record.actions, tab.record.actions[1:], strict=False))


def test_a_penalty_for_a_wrong_slap_and_the_turn_goes_on() -> None:
    bots = {1: Scripted(cards={"KD": 300.0}, flip=1000.0)}
    live = table(deck("KD"), levels=(None, "b"), bots=bots)
    live.flip(0, 0.0)
    live.wake(300.0)
    assert of(WrongSlap, live.take()) == [WrongSlap(1, "pay_player", 0)]


def test_an_out_seat_slapping_is_refused_in_its_own_words() -> None:
    live = table(deck("KD"), levels=(None, None, None), empty_stack="next_jack")
    live.game.stacks[2].clear()
    live.game.is_out[2] = True  # set up: P2 is out
    live.flip(0, 0.0)
    with pytest.raises(Exception) as refused:
        live.slap(2, 10.0)
    assert getattr(refused.value, "code", None) == "player_out"


def test_real_bots_come_from_the_factory_with_their_seat_seeds() -> None:
    from slapjack.live import seat_bot_seed

    tab = Table.new(Rules(), ["A", "B"], seed=5)
    live = LiveTable(tab, levels=["pro", "casual"], bot_seed=9, game_no=2)
    bot = live.seating.bots.get(1)
    twin = make_bot("casual", seat_bot_seed(9, 1, 2))
    assert bot is not None and bot.flip_delay_ms(None) == twin.flip_delay_ms(None)  # type: ignore[arg-type]
