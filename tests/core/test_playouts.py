"""Random playouts: tens of thousands of actions per preset, the invariant after every one."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from slapjack.core import Flip, Rules, Table, event_to_dict, replay

from .driver import Stats, can_go_on, check_replay, playout, step
from .util import names

PRESETS = ["classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"]

EXPECTED_EVENTS = {
    "classic": {"RaceWon", "RaceTied", "WrongSlap", "Eliminated", "NoSlap", "GameOver"},
    "klatsch-bube": {"RaceWon", "PileSplit", "WrongSlap", "Eliminated", "NoSlap", "GameOver"},
    "say-it": {"RaceWon", "Forfeit", "Eliminated", "GameOver"},
    "irish-snap": {"PickedUp", "WrongSlap", "Finished", "GameOver"},
    "irish-snap-winner": {"PickedUp", "WrongSlap", "Finished", "GameOver"},
}


@pytest.mark.parametrize("preset", PRESETS)
def test_random_playout_20000_actions(preset: str) -> None:
    stats = playout(preset, 20_000, seed=PRESETS.index(preset))
    assert stats.actions >= 20_000
    assert stats.illegal > 0  # illegal actions were tried, and changed nothing
    assert stats.finished >= 10
    assert EXPECTED_EVENTS[preset] <= set(stats.events)


@pytest.mark.parametrize(
    "options",
    [
        {"time_limit": 120},
        {"wrong_slap": "pay_pile", "empty_stack": "until_turn"},
        {"tie": "split", "after_jack": "continue"},
        {"preset": "say-it", "after_jack": "continue", "empty_stack": "until_turn", "tie": "split"},
        {"preset": "klatsch-bube", "time_limit": 60, "tie": "reslap"},
    ],
)
def test_random_playout_option_mixes(options: dict[str, Any]) -> None:
    opts = dict(options)
    stats = playout(opts.pop("preset", "classic"), 5_000, seed=11, options=opts)
    assert stats.actions >= 5_000 and stats.finished >= 2


def test_never_hangs_with_only_flips_and_settles() -> None:
    """Nobody ever slaps: Jacks get buried, piles go back; some legal action always exists."""
    rng = random.Random(5)
    for preset in PRESETS:
        rules = Rules.from_options({"preset": preset})
        for n in (2, 3, 7):
            table = Table.new(rules, names(n), seed=rng.randrange(2**32))
            game = table.game
            for _ in range(600):
                assert can_go_on(game)
                if game.over:
                    break
                if game.needs_settle:
                    table.settle(final=True)
                else:
                    assert game.turn is not None and game.stacks[game.turn]
                    table.apply(Flip(game.turn, 0))
                game.check_invariant()
            check_replay(table)


def test_fifty_two_players() -> None:
    rng = random.Random(52)
    for preset in PRESETS:
        table = Table.new(Rules.from_options({"preset": preset}), names(52), seed=52)
        stats = Stats()
        for _ in range(3000):
            if table.game.over:
                break
            step(table, rng, stats)
        check_replay(table)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_random_playout_soak(preset: str) -> None:
    """A longer soak with other seeds (the suite runs it too; about 1.5 s per preset)."""
    stats = playout(preset, 60_000, seed=1000 + PRESETS.index(preset))
    assert stats.actions >= 60_000


def _digest(preset: str, seed: int, actions: int) -> str:
    """A hash of every event and position of a seeded random playout."""
    rng = random.Random(seed)
    rules = Rules.from_options({"preset": preset})
    h = hashlib.sha256()
    stats = Stats()
    while stats.actions < actions:
        table = Table.new(rules, names(rng.randrange(2, 11)), seed=rng.randrange(2**64))
        while not table.game.over and stats.actions < actions:
            step(table, rng, stats)
        for event in replay(table.record).events:
            h.update(json.dumps(event_to_dict(event), sort_keys=True).encode())
        h.update(repr(table.game.snapshot()).encode())
    return h.hexdigest()[:16]


GOLDEN = {
    "classic": "bf7355256eaa4fd7",
    "klatsch-bube": "b53e5c3526c03fb0",
    "say-it": "363781fa32e0e868",
    "irish-snap": "44c4dac346b7080d",
    "irish-snap-winner": "89c35c87010590ba",
}


@pytest.mark.parametrize("preset", PRESETS)
def test_golden_playout(preset: str) -> None:
    """Pins the engine's behaviour: performance edits must not change a single event.

    If a rule is changed on purpose, update the digest here (and say so in the commit).
    """
    assert _digest(preset, 2024, 3000) == GOLDEN[preset]
