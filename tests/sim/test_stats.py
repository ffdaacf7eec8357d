"""Summing up games: shares, percentiles, per-level figures, JSON."""

from __future__ import annotations

import json

import pytest

from slapjack.core import Rules
from slapjack.sim import GameResult, SimConfig, Summary, percentile, simulate


def result(
    flips: int,
    winners: tuple[int, ...] = (0,),
    *,
    finished: bool = True,
    loser: int | None = None,
    out: tuple[int, ...] = (),
    jacks: tuple[int, ...] = (0, 0, 0),
) -> GameResult:
    zero = (0, 0, 0)
    return GameResult(
        index=0,
        seed=0,
        flips=flips,
        duration_ms=flips * 500,
        finished=finished,
        capped=not finished,
        time_up=False,
        winners=winners if finished else (),
        loser=loser,
        out_order=out,
        jacks=jacks,
        wrong_slaps=(1, 0, 2),
        forfeits=zero,
        pickups=zero,
        ties=1,
        splits=0,
        no_slaps=0,
    )


def test_percentile() -> None:
    assert percentile([], 0.9) == 0.0
    assert percentile([5], 0.9) == 5.0
    assert percentile(list(range(1, 11)), 0.5) == 5.5
    assert percentile(list(range(0, 101)), 0.9) == 90.0


def test_summary_figures() -> None:
    levels = ("pro", "casual", "casual")
    games = [
        result(100, (0,), out=(2, 1), jacks=(3, 1, 0)),
        result(200, (1,), out=(2, 0)),
        result(300, (0, 1)),  # a shared win (time limit)
        result(5000, finished=False),
    ]
    s = Summary.of(Rules(), levels, 7, 5000, games)
    assert (s.games, s.finished, s.capped, s.total_flips) == (4, 3, 1, 5600)
    assert s.flips_median == 250.0
    assert s.flips_p90 == pytest.approx(5000 - 0.3 * 4700)
    assert s.wins == [2, 2, 0]
    assert s.win_share == pytest.approx([1.5 / 3, 1.5 / 3, 0.0])
    assert s.eliminations == [1, 1, 2]
    assert s.jacks == [3, 1, 0]
    assert s.wrong_slaps == [4, 0, 8]
    assert s.ties == 4
    level = s.by_level()
    assert level["casual"]["seats"] == 2
    assert level["casual"]["win_share"] == pytest.approx(0.5)
    assert level["casual"]["win_share_per_seat"] == pytest.approx(0.25)
    data = json.loads(json.dumps(s.to_dict()))
    for key in ("games", "finished", "capped", "total_flips", "wins", "win_share", "by_level"):
        assert key in data
    assert sum(data["flips_histogram"]["counts"]) == 4


def test_a_levels_win_share_is_summed_before_it_is_divided() -> None:
    # 1/6 + 4/6 + 1/6 is 0.9999999999999999 in floats: the table showed "100.0000%"
    games = [result(100, (0,)), *[result(100, (1,))] * 4, result(100, (2,))]
    s = Summary.of(Rules(), ("casual",) * 3, 7, 5000, games)
    assert s.by_level()["casual"]["win_share"] == 1.0
    assert s.by_level()["casual"]["win_share_per_seat"] == 1 / 3


def test_irish_summary_counts_losers_and_first_out() -> None:
    rules = Rules.from_options({"preset": "irish-snap"})
    s = Summary.of(rules, ("a", "b", "c"), 0, 10, [result(50, (1, 2), loser=0, out=(1, 2))])
    assert s.losses == [1, 0, 0]
    assert s.first_out == [0, 1, 0]
    assert s.eliminations == [0, 0, 0]
    assert s.loss_share == [1.0, 0.0, 0.0]


def test_summary_of_a_real_run_adds_up() -> None:
    config = SimConfig(Rules(), ("pro", "casual", "beginner"), seed=3)
    results = simulate(config, 30, jobs=1)
    s = Summary.of(config.rules, config.levels, 3, config.cap, results)
    assert s.finished + s.capped == 30
    assert sum(s.win_share) == pytest.approx(1.0 if s.finished else 0.0)
    assert s.total_flips == sum(r.flips for r in results)
    assert len(s.game_flips) == 30


def test_a_summary_refuses_games_of_another_size() -> None:
    s = Summary(Rules(), ("a", "b"), 0, 10)
    with pytest.raises(ValueError):
        s.add(result(10))
