"""A seeded random driver: legal and illegal actions on a live table, checked after each."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from slapjack.core import (
    Flip,
    Game,
    IllegalAction,
    Rules,
    Slap,
    Table,
    TimeUp,
    final_position,
    replay,
)

from .util import names

REACTIONS = (120.0, 180.0, 180.0, 220.0, 250.0, 250.0, 310.0, 450.0)
"""Few distinct values, so exact ties (reslap, split, Irish equals) happen often."""


@dataclass
class Stats:
    actions: int = 0
    illegal: int = 0
    games: int = 0
    finished: int = 0
    events: dict[str, int] = field(default_factory=dict)


def can_go_on(game: Game) -> bool:
    """Some legal action exists: a flip by a player who holds cards, or a settle."""
    if game.over:
        return True
    if game.needs_settle:
        return True
    turn = game.turn
    return turn is not None and not game.is_out[turn] and len(game.stacks[turn]) > 0


def settles_cleanly(game: Game) -> bool:
    """Settling (final) always leaves a game that is over or has a player to flip."""
    probe = game.copy()
    if probe.needs_settle:
        probe.settle(final=True)
    return probe.over or (probe.turn is not None and not probe.needs_settle)


def random_action(game: Game, rng: random.Random, t: int, illegal: float) -> Any:
    """One action: mostly what a table would do, sometimes something illegal."""
    n = game.n
    if rng.random() < illegal:
        kind = rng.randrange(6)
        if kind == 0:
            return Flip(rng.randrange(-1, n + 1), t)
        if kind == 1:
            return Slap(rng.randrange(n), rng.choice([-1.0, 700_000.0, float("nan")]), False, t)
        if kind == 2:
            return Flip(
                game.turn if game.turn is not None else 0, max(0, game.t - 1 - rng.randrange(5))
            )
        if kind == 3:
            return TimeUp(t)
        if kind == 4:
            return ("settle", rng.random() < 0.5)
        return Slap(rng.randrange(n + 2) - 1, 200.0, True, t)
    if game.race_open:
        if rng.random() < 0.7:
            seat = rng.randrange(n)
            return Slap(seat, rng.choice(REACTIONS), rng.random() < 0.85, t)
        return ("settle", rng.random() < 0.6)
    if game.turn is None:
        return ("settle", True)
    if rng.random() < 0.06:
        return Slap(rng.randrange(n), rng.choice(REACTIONS), rng.random() < 0.5, t)
    if game.rules.time_limit and rng.random() < 0.002:
        return TimeUp(t)
    return Flip(game.turn, t)


def step(table: Table, rng: random.Random, stats: Stats, *, illegal: float = 0.03) -> None:
    """Apply one random action; check the invariant, and that an illegal one changed nothing."""
    game = table.game
    t = game.t + rng.choice((0, 1, 5, 40, 300))
    action = random_action(game, rng, t, illegal)
    before = game.snapshot()
    try:
        events = table.settle(final=action[1]) if isinstance(action, tuple) else table.apply(action)
    except IllegalAction:
        stats.illegal += 1
        assert game.snapshot() == before, f"illegal {action!r} changed the game"
        return
    stats.actions += 1
    for e in events:
        key = type(e).__name__
        stats.events[key] = stats.events.get(key, 0) + 1
    game.check_invariant()
    assert can_go_on(game)
    assert settles_cleanly(game)


def check_replay(table: Table) -> None:
    """The table's record replays to the same position (settled as a record settles)."""
    live = table.game.copy()
    if live.needs_settle:
        live.settle(final=True)
    result = replay(table.record, check=True)
    assert result.game.snapshot() == live.snapshot()
    pos = final_position(result)
    assert pos["finished"] == live.over


def playout(
    preset: str, actions: int, seed: int, *, options: dict[str, Any] | None = None
) -> Stats:
    """Random games one after another until ``actions`` actions were applied."""
    rng = random.Random(seed)
    stats = Stats()
    rules = Rules.from_options({"preset": preset, **(options or {})})
    while stats.actions < actions:
        n = rng.randrange(2, 11)
        table = Table.new(rules, names(n), seed=rng.randrange(2**64))
        stats.games += 1
        limit = stats.actions + min(4000, actions - stats.actions)
        while not table.game.over and stats.actions < limit:
            step(table, rng, stats)
        if table.game.over:
            stats.finished += 1
        if stats.games % 4 == 1:
            check_replay(table)
    return stats
