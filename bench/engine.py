"""Engine benchmark: flips per second on one core, full engine with bots vs a bare card loop.

    .venv/bin/python bench/engine.py [--games 3000] [--repeat 3] [--profile]

*Full*: the rules engine (``slapjack.core.Game``, classic preset) played by four
human-like bots through the simulator's game loop (``slapjack.sim.play_game``):
every flip, every slap, every settled race, bot decisions and simulated time.
Bots are created and seeded per game inside the timed loop; decks are dealt
before it.

*Bare*: the same deals and the same number of flips per game, but only cards
moving: flip the top card of the player on turn onto the centre; on a Jack the
centre goes under the next player's stack. No rule options, no checks, no bots.

Both run in this process, pinned to one CPU where the OS allows it; the best of
``--repeat`` runs is reported (the machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import sys
import time
from collections import deque
from collections.abc import Sequence

from slapjack.bots import make_bot
from slapjack.core import JACK, Card, Rules, shuffled_deck
from slapjack.sim import game_seed, levels_of, play_game

TARGET = 200_000


def pin_to_one_core() -> str:
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return "not pinned"


class Clock:
    """Wall time and this process's CPU time (the latter is steadier on a shared machine)."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def stop(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def full_run(
    rules: Rules, levels: Sequence[str], decks: Sequence[tuple[Card, ...]], seeds: Sequence[int]
) -> tuple[int, tuple[float, float], list[int]]:
    names = [f"S{s + 1}-{lv}" for s, lv in enumerate(levels)]
    flips: list[int] = []
    clock = Clock()
    for deck, seed in zip(decks, seeds, strict=True):
        bots = [make_bot(level, game_seed(seed, s)) for s, level in enumerate(levels)]
        flips.append(play_game(rules, bots, deck, seed=seed, names=names).flips)
    return sum(flips), clock.stop(), flips


def bare_run(
    decks: Sequence[tuple[Card, ...]], players: int, flips: Sequence[int]
) -> tuple[int, tuple[float, float]]:
    done = 0
    clock = Clock()
    for deck, count in zip(decks, flips, strict=True):
        stacks: list[deque[Card]] = [deque() for _ in range(players)]
        for i, card in enumerate(deck):
            stacks[i % players].append(card)
        centre: list[Card] = []
        turn = 0
        for _ in range(count):
            while not stacks[turn]:
                turn = (turn + 1) % players
            card = stacks[turn].popleft()
            centre.append(card)
            turn = (turn + 1) % players
            if card >> 2 == JACK:
                stacks[turn].extend(centre)
                centre.clear()
        done += count
    return done, clock.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--bots", default="pro,casual,casual,beginner")
    parser.add_argument("--profile", action="store_true", help="cProfile one full run")
    args = parser.parse_args(argv)

    rules = Rules.from_options({"preset": args.preset})
    levels = levels_of(args.bots, len(args.bots.split(",")))
    seeds = [game_seed(args.seed, i) for i in range(args.games)]
    decks = [shuffled_deck(s) for s in seeds]
    where = pin_to_one_core()
    print(
        f"Python {platform.python_version()} on {platform.machine()}, {where}; "
        f"{args.games} games, preset {args.preset}, bots {','.join(levels)}"
    )
    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(full_run, rules, levels, decks, seeds)
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)

    full_wall = full_cpu = bare_wall = bare_cpu = 0.0
    total = 0
    for _ in range(max(1, args.repeat)):
        total, (wall, cpu), per_game = full_run(rules, levels, decks, seeds)
        full_wall, full_cpu = max(full_wall, total / wall), max(full_cpu, total / cpu)
        bare, (wall, cpu) = bare_run(decks, len(levels), per_game)
        bare_wall, bare_cpu = max(bare_wall, bare / wall), max(bare_cpu, bare / cpu)
    print(f"{'':28}{'per CPU second':>16}{'per wall second':>17}")
    print(f"{'full engine + ' + str(len(levels)) + ' bots':28}{full_cpu:16,.0f}{full_wall:17,.0f}")
    print(f"{'bare card loop':28}{bare_cpu:16,.0f}{bare_wall:17,.0f}")
    print(f"{'ratio bare / full':28}{bare_cpu / full_cpu:15.1f}x{bare_wall / full_wall:16.1f}x")
    print(f"flips: {total:,} (best of {max(1, args.repeat)} runs)")
    verdict = "meets" if full_cpu >= TARGET else "misses"
    print(f"target {TARGET:,} flips per CPU second for the full engine: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
