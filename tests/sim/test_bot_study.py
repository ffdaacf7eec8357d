"""The bot study of docs/bots.md, small: a 400 ms person in 4-seat games against
the Play-now bots and against ``matched`` (the full table: bench/bot_study.py)."""

from __future__ import annotations

import time

import pytest

from slapjack.bots import MatchedBot, make_bot
from slapjack.core import Rules
from slapjack.sim import SimConfig, SimulationError, levels_of, simulate
from slapjack.sim.play import play_game

CLASSIC = Rules.from_options({"preset": "classic"})
PLAY_NOW = "casual"
"""The level of the three bots Play now seats (``/api/play-now``)."""


def shares(person_ms: int, level: str, games: int, seed: int) -> tuple[float, float]:
    """The person's share of all Jacks won and of all games, against 3 ``level`` bots."""
    config = SimConfig(CLASSIC, (f"human:{person_ms}", level, level, level), seed=seed)
    results = simulate(config, games, jobs=1)
    assert all(r.finished for r in results)
    mine = sum(r.jacks[0] for r in results)
    jacks = sum(sum(r.jacks) for r in results)
    assert jacks > 5 * games  # enough races to measure a share
    won = sum(1 for r in results if 0 in r.winners)
    return mine / jacks, won / games


def test_a_400_ms_person_wins_a_fair_part_of_the_jacks_against_play_now_bots() -> None:
    jacks, games = shares(400, PLAY_NOW, 500, seed=7)
    assert jacks >= 0.20
    assert games > 0.10


def test_a_400_ms_person_gets_close_to_a_fair_share_against_matched() -> None:
    jacks, games = shares(400, "matched", 2000, seed=7)
    assert 0.22 <= jacks <= 0.28
    assert 0.15 <= games <= 0.35


def test_matched_keeps_slow_and_fast_people_near_a_fair_share() -> None:
    """Against a fixed level a person's share swings from almost all to almost
    none with their speed; against ``matched`` it stays within sight of 1 in 4."""
    fast_casual, _ = shares(300, "casual", 200, seed=3)
    slow_casual, _ = shares(500, "casual", 200, seed=3)
    fast_matched, _ = shares(300, "matched", 300, seed=3)
    slow_matched, _ = shares(500, "matched", 300, seed=3)
    assert fast_casual > 0.75 and slow_casual < 0.06
    assert 0.18 < slow_matched < fast_matched < 0.40


def test_bots_without_the_hook_keep_the_fast_path_cost() -> None:
    """The learning hook costs the simulator nothing at tables without ``matched``."""
    from slapjack.core import shuffled_deck

    bots = [make_bot(level, s) for s, level in enumerate(("casual",) * 4)]
    assert not any(hasattr(b, "notice") for b in bots)
    started = time.process_time()
    for i in range(200):
        play_game(CLASSIC, [make_bot("casual", 4 * i + s) for s in range(4)], shuffled_deck(i))
    assert time.process_time() - started < 5.0


def test_matched_bots_learn_inside_the_simulator() -> None:
    from slapjack.core import shuffled_deck

    bots = [make_bot("human:500", 1), *(make_bot("matched", s) for s in (2, 3, 4))]
    play_game(CLASSIC, bots, shuffled_deck(12))
    learners = [b for b in bots if isinstance(b, MatchedBot)]
    assert all(b.tracker.seen > 0 for b in learners)
    assert all(b.estimate_ms > 425.0 for b in learners)  # moved from the prior towards 500


@pytest.mark.parametrize("spec", ["human:400,matched,matched,matched", "human:350,pro"])
def test_person_seats_parse_like_levels(spec: str) -> None:
    levels = levels_of(spec, len(spec.split(",")))
    assert levels[0].startswith("human:")


@pytest.mark.parametrize("spec", ["human:fast,casual", "human:20,casual"])
def test_bad_person_seats_are_typed_errors(spec: str) -> None:
    with pytest.raises((SimulationError, ValueError)) as info:
        levels_of(spec, 2)
    assert "human:" in str(info.value)
