"""How much memory the fair referee keeps per seat (issue 14).

Builds ``--referees`` fair referees of four seats each and feeds every seat
``--pongs`` clock-sync exchanges (``on_ping_sent``, ``on_pong``, and with
``--tcp-info`` the kernel's estimate after each, as on Linux) and ``--races``
races of four stamped slaps, on a home-like model network (30 ms + Exp(10)
each way). Then it prints the memory the referees hold, as ``tracemalloc``
counts it (what Python allocated and still holds, not the process's RSS), in
KB per seat, and the allocation sites that hold the most.

    .venv/bin/python bench/referee_memory.py [--referees 100] [--pongs 199] [--races 0] [--tcp-info] [--top 12]

Compare versions of the referee in one sitting (``PYTHONPATH=<worktree>/src``).
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import tracemalloc
from collections.abc import Sequence

from slapjack.server.fair import FairReferee

SEATS = 4
CLIENT_CLOCK = 1e6
"""The clients' clock minus the server's (ms)."""


def leg(rng: random.Random) -> float:
    return 30.0 + rng.expovariate(1 / 10.0)


def feed(ref: FairReferee, rng: random.Random, pongs: int, races: int, tcp_info: bool) -> None:
    """``pongs`` exchanges per seat, ``races`` races spread between them."""
    now = 0.0
    ping_id = flip_id = 0
    every = pongs // races if races else 0
    for i in range(pongs):
        for seat in range(SEATS):
            ping_id += 1
            ref.on_ping_sent(seat, ping_id, now)
            down = leg(rng)
            back = now + down + leg(rng)
            ref.on_pong(seat, ping_id, CLIENT_CLOCK + now + down, back)
            if tcp_info:
                ref.on_transport_rtt(seat, 80.0 + rng.uniform(-5.0, 5.0), 10.0, 60.0, back)
        now += 1000.0
        if every and i % every == every - 1 and flip_id < races:
            flip_id += 1
            for seat in range(SEATS):
                ref.on_card_sent(seat, flip_id, now)
            for seat in range(SEATS):
                shown = now + leg(rng)
                reaction = max(120.0, rng.gauss(300.0, 60.0))
                ref.judge(
                    seat,
                    flip_id,
                    reaction,
                    CLIENT_CLOCK + shown,
                    CLIENT_CLOCK + shown + reaction,
                    shown + reaction + leg(rng),
                )
            ref.window_ms(range(SEATS))
            now += 500.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--referees", type=int, default=100)
    parser.add_argument("--pongs", type=int, default=199, help="exchanges per seat")
    parser.add_argument("--races", type=int, default=0, help="races per referee")
    parser.add_argument("--tcp-info", action="store_true", help="the kernel's estimate per pong")
    parser.add_argument("--top", type=int, default=12, help="allocation sites to print")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not 1 <= args.referees <= 100_000 or not 0 <= args.pongs <= 100_000:
        parser.error("--referees must be 1..100000 and --pongs 0..100000")
    if not 0 <= args.races <= args.pongs:
        parser.error("--races must be 0..--pongs (a race comes between pongs)")
    rng = random.Random(args.seed)
    gc.collect()
    tracemalloc.start(1)
    before = tracemalloc.take_snapshot()
    referees = []
    for _ in range(args.referees):
        ref = FairReferee()
        feed(ref, rng, args.pongs, args.races, args.tcp_info)
        referees.append(ref)
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    stats = after.compare_to(before, "lineno")
    total = sum(s.size_diff for s in stats)
    seats = args.referees * SEATS
    print(
        f"{args.referees} fair referees x {SEATS} seats, {args.pongs} pongs and "
        f"{args.races} races each{' (tcp info)' if args.tcp_info else ''}: "
        f"{total / 1024 / seats:.1f} KB per seat ({total / 1e6:.1f} MB)"
    )
    for s in sorted(stats, key=lambda s: -s.size_diff)[: args.top]:
        frame = s.traceback[0]
        name = frame.filename.split("/src/")[-1]
        print(
            f"  {s.size_diff / 1024 / seats:7.2f} KB/seat  {s.count_diff / seats:7.1f} blocks/seat"
            f"  {name}:{frame.lineno}"
        )
    del referees
    return 0


if __name__ == "__main__":
    sys.exit(main())
