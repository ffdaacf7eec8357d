"""One simulated game: invariants, records that replay, the fast path, caps, time limits."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slapjack.bots import LEVELS, SlapIntent, make_bot
from slapjack.core import PRESETS, Rules, View, replay, shuffled_deck
from slapjack.sim import SimConfig, SimulationError, play_game, play_indexed

MIXED = ("pro", "casual", "casual", "beginner")

VARIANTS = [{"preset": p} for p in PRESETS] + [
    {"preset": "classic", "tie": "split"},
    {"preset": "classic", "wrong_slap": "pay_pile"},
    {"preset": "classic", "empty_stack": "until_turn"},
    {"preset": "klatsch-bube", "after_jack": "left_of_winner", "tie": "reslap"},
    {"preset": "say-it", "after_jack": "continue"},
    {"preset": "classic", "time_limit": 60},
]


def strip(result: object) -> object:
    return replace(result, record=None)  # type: ignore[type-var]


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(f"{v}" for v in o.values()))
def test_games_keep_every_card_and_replay_from_their_record(options: dict[str, object]) -> None:
    rules = Rules.from_options(options)
    config = SimConfig(rules, MIXED, seed=3, check=True)
    for index in range(6):
        result = play_indexed(config, index, keep_record=True)
        assert result.finished != result.capped
        assert result.flips <= config.cap
        assert result.record is not None
        assert result.record.meta["simulated"]["bots"] == list(MIXED)
        # The record of the live game replays to the same end.
        again = replay(result.record, check=True).game
        assert again.over == result.finished
        assert again.flips == result.flips
        assert again.winners == result.winners
        assert again.loser == result.loser
        assert tuple(again.out_order) == result.out_order
        # Keeping a record changes nothing about the game.
        assert strip(play_indexed(config, index)) == strip(result)


def test_view_path_and_fast_path_play_the_same_games() -> None:
    for options in VARIANTS:
        rules = Rules.from_options(options)
        for seed in range(4):
            deck = shuffled_deck(seed)
            fast = play_game(rules, [make_bot(lv, seed + s) for s, lv in enumerate(MIXED)], deck)
            slow = play_game(
                rules, [make_bot(lv, seed + s) for s, lv in enumerate(MIXED)], deck, fast=False
            )
            assert fast == slow, options


def test_capped_games_stop_at_the_cap() -> None:
    config = SimConfig(Rules(), MIXED, seed=1, cap=10)
    results = [play_indexed(config, i) for i in range(5)]
    assert all(r.capped and not r.finished and r.flips == 10 for r in results)
    assert all(r.winners == () for r in results)


def test_perfect_bots_tie_exactly_and_reslap() -> None:
    config = SimConfig(Rules(), ("perfect",) * 3, seed=0, check=True)
    result = play_indexed(config, 0, keep_record=True)
    assert result.ties > 0  # every Jack is an exact tie
    assert sum(result.wrong_slaps) == 0
    assert result.record is not None
    assert replay(result.record).game.winners == result.winners
    split = SimConfig(Rules.from_options({"tie": "split"}), ("perfect",) * 3, check=True)
    assert play_indexed(split, 0).splits > 0


def test_time_limit_ends_games() -> None:
    rules = Rules.from_options({"time_limit": 20})
    config = SimConfig(rules, ("casual",) * 4, seed=2, check=True)
    results = [play_indexed(config, i) for i in range(5)]
    assert any(r.time_up for r in results)
    for r in results:
        assert r.finished
        if r.time_up:
            assert r.winners and r.duration_ms <= 20_000 + 5_000


@dataclass
class SlowHand:
    """A plain :class:`~slapjack.bots.Bot` (no fast path) that slaps every Jack late."""

    level: str = "slow"
    late_ms: float = 5_000.0
    seen: int = 0

    def react(self, view: View) -> SlapIntent | None:
        assert isinstance(view, View)
        self.seen += 1
        if view.top is not None and view.top >> 2 == 10:
            return SlapIntent(self.late_ms)
        return None

    def flip_delay_ms(self, view: View) -> float:
        return 400.0


def test_plain_bots_play_through_views_and_late_slaps_are_dropped() -> None:
    bots = [SlowHand(), SlowHand(), SlowHand(late_ms=300.0)]
    result = play_game(Rules(), bots, shuffled_deck(4), window_ms=2000.0, cap=300, check=True)
    assert bots[0].seen > 0
    # Only the third bot slaps in time, so it wins every Jack it can.
    assert result.jacks[0] == result.jacks[1] == 0
    assert result.jacks[2] > 0


def test_nobody_slaps_is_not_a_hang() -> None:
    bots = [SlowHand(late_ms=10_000.0) for _ in range(4)]
    result = play_game(Rules(), bots, shuffled_deck(5), cap=400)
    assert result.no_slaps > 0
    assert result.capped and result.flips == 400


@pytest.mark.parametrize("bad", [{"cap": 0}, {"cap": True}, {"window_ms": 0.0}])
def test_bad_game_settings(bad: dict[str, object]) -> None:
    bots = [make_bot("casual", s) for s in range(2)]
    with pytest.raises(SimulationError):
        play_game(Rules(), bots, shuffled_deck(1), **bad)  # type: ignore[arg-type]


@settings(max_examples=25, deadline=None)
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    levels=st.lists(st.sampled_from(LEVELS), min_size=2, max_size=10),
    seed=st.integers(0, 2**32),
)
def test_random_tables_keep_the_invariant(preset: str, levels: list[str], seed: int) -> None:
    config = SimConfig(Rules.from_options({"preset": preset}), tuple(levels), seed=seed, cap=800)
    result = play_indexed(replace(config, check=True), 0)
    assert result.flips <= 800
    assert result.finished or result.capped
    if result.finished:
        assert result.winners


def test_one_name_per_bot() -> None:
    bots = [make_bot("casual", s) for s in range(3)]
    with pytest.raises(SimulationError, match="3 bots need 3 names"):
        play_game(Rules(), bots, shuffled_deck(1), names=["a", "b"])
