"""The anticipation floor convention shared by every referee."""

from __future__ import annotations

import pytest

from slapjack.core import (
    ANTICIPATION_FLOOR_MS,
    FALSE_START_OFFSET_MS,
    Flip,
    Rules,
    Slap,
    Table,
    is_false_start,
    measured_reaction,
    parse_deck,
    ranked_reaction,
)
from slapjack.core.events import RaceWon


@pytest.mark.parametrize("ms", [100.0, 101.0, 250.0, 4000.0])
def test_real_reactions_rank_as_measured(ms: float) -> None:
    assert ranked_reaction(ms) == ms
    assert not is_false_start(ranked_reaction(ms))
    assert measured_reaction(ranked_reaction(ms)) == ms


@pytest.mark.parametrize("ms", [0.0, 42.0, 99.9])
def test_false_starts_rank_behind_every_real_reaction(ms: float) -> None:
    ranked = ranked_reaction(ms)
    assert ranked == ms + FALSE_START_OFFSET_MS
    assert is_false_start(ranked)
    assert measured_reaction(ranked) == pytest.approx(ms)
    assert ranked > 4999.0


def test_floor_is_configurable() -> None:
    assert ranked_reaction(120.0, floor_ms=150.0) == 120.0 + FALSE_START_OFFSET_MS
    assert ANTICIPATION_FLOOR_MS == 100.0


def test_a_false_start_loses_the_race_to_a_slow_real_slap() -> None:
    deck = parse_deck(["5C", "JS", *[c for c in _rest(("5C", "JS"))]])
    table = Table.new(Rules.from_options({"preset": "classic"}), ["Anna", "Ben"], deck=deck)
    table.apply(Flip(0, 0))
    table.apply(Flip(1, 1000))
    table.apply(Slap(0, ranked_reaction(40.0), False, 1040))  # a guess
    table.apply(Slap(1, ranked_reaction(900.0), False, 1900))  # slow but real
    won = [e for e in table.settle() if isinstance(e, RaceWon)]
    assert won and won[0].winner == 1


def _rest(used: tuple[str, ...]) -> list[str]:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    return [r + s for r in ranks for s in "CDHS" if r + s not in used]
