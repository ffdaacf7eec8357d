"""How a person of a given speed fares against each bot level: the study in docs/bots.md.

    .venv/bin/python bench/bot_study.py [--games 2000] [--seed 7] [--jobs N]
        [--medians 300,350,400,450,500] [--levels beginner,casual,pro,matched]

Each cell is a 4-seat classic game: seat 1 is a simulated person
(``human:<ms>``, the bots' person model with that median reaction; see
``docs/bots.md``), seats 2-4 are three bots of one level. It plays ``--games``
games with ``slapjack.sim.simulate`` (master seed ``--seed``, the same for every
cell) and prints, per cell, the person's share of all Jacks won in those games
and the share of games the person won, as a Markdown table. One cell is the
same as ``slapjack simulate --players 4 --games G --seed S --bots
human:400,matched,matched,matched`` (seat 1's Jacks over all Jacks won).
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from slapjack.core import Rules
from slapjack.sim import SimConfig, simulate


@dataclass(frozen=True)
class Cell:
    median_ms: int
    level: str
    jack_share: float
    game_share: float
    jacks: int
    games: int


def play_cell(median_ms: int, level: str, games: int, seed: int) -> Cell:
    """``games`` games of a ``human:<median_ms>`` seat against three ``level`` bots."""
    levels = (f"human:{median_ms}", level, level, level)
    config = SimConfig(Rules.from_options({"preset": "classic"}), levels, seed=seed)
    results = simulate(config, games, jobs=1)
    mine = sum(r.jacks[0] for r in results)
    jacks = sum(sum(r.jacks) for r in results)
    won = sum(1 for r in results if r.finished and 0 in r.winners)
    return Cell(median_ms, level, mine / max(1, jacks), won / max(1, games), jacks, games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--medians", default="300,350,400,450,500")
    parser.add_argument("--levels", default="beginner,casual,pro,matched")
    args = parser.parse_args()
    medians = [int(m) for m in args.medians.split(",")]
    levels = args.levels.split(",")
    started = time.perf_counter()
    jobs = [(m, lv, args.games, args.seed) for m in medians for lv in levels]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        cells = list(pool.map(play_cell, *zip(*jobs, strict=True)))
    table = {(c.median_ms, c.level): c for c in cells}
    print(
        f"{args.games} games per cell, seed {args.seed}, 4 seats, classic;"
        f" {time.perf_counter() - started:.0f} s on {args.jobs} processes"
    )
    print()
    print("| person's median | " + " | ".join(f"vs 3 × `{lv}`" for lv in levels) + " |")
    print("|---|" + "---|" * len(levels))
    for m in medians:
        row = [
            f"{100 * table[m, lv].jack_share:.1f} % / {100 * table[m, lv].game_share:.1f} %"
            for lv in levels
        ]
        print(f"| {m} ms | " + " | ".join(row) + " |")
    print()
    print("(each cell: the person's share of the Jacks won / share of the games won)")


if __name__ == "__main__":
    main()
