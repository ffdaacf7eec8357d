"""What the fair referee costs the server per pong and per race.

    .venv/bin/python bench/referee_cost.py [--pongs 20000] [--races 2000] [--forgery 15] [--between 12] [--tcp-info]

The server pings every connection once a second, so at 2,000 players the
referee handles 2,000 pongs a second; races are rarer (a Jack in about one
flip of thirteen, four slaps each). This times both on one seat set of four
(home-like delays, 30 ms + Exp(10) each way; every slap stamped), after a
warm-up that fills the clock sync's window and the slap history, so the
figures are those of a long session. Compare versions of the referee in one
sitting (``PYTHONPATH=<worktree>/src``): the machine's speed cancels out.

With ``--forgery MS`` seat 0 takes MS off every claim and stamp (a forger).
At 10–20 ms the forgery hides in the network's jitter and only the shift tests
find it: they compute the median of the pairwise differences on most of its
slaps, which honest seats almost never need (``--forgery 15``: the costly
case). At 40 ms the CUSUM holds the seat first and the shift tests never run.

With ``--tcp-info`` every pong is followed by the kernel's round-trip estimate
for the seat (``on_transport_rtt``), as the server does where it reads
``TCP_INFO`` (Linux): a pong then costs both.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from slapjack.server.clocksync import DEFAULT_WINDOW
from slapjack.server.fair import FairReferee

SEATS = 4
CLIENT_CLOCK = 1e6
"""The clients' clock minus the server's (ms)."""


class Session:
    """Four seats of one room on a model network, with explicit time."""

    def __init__(self, seed: int, forgery: float = 0.0, tcp_info: bool = False) -> None:
        self.referee = FairReferee()
        self.forgery = forgery
        self.tcp_info = tcp_info
        self.rng = random.Random(seed)
        self.now = 0.0
        self.ping_id = 0
        self.flip_id = 0

    def leg(self) -> float:
        return 30.0 + self.rng.expovariate(1 / 10.0)

    def pong(self, seat: int) -> None:
        self.ping_id += 1
        self.referee.on_ping_sent(seat, self.ping_id, self.now)
        down = self.leg()
        back = self.now + down + self.leg()
        self.referee.on_pong(seat, self.ping_id, CLIENT_CLOCK + self.now + down, back)
        if self.tcp_info:
            # the kernel's view of these legs: a mean round trip of 80 ms, at least 60
            self.referee.on_transport_rtt(
                seat, 80.0 + self.rng.uniform(-5.0, 5.0), 10.0, 60.0, back
            )
        self.now += 250.0

    def race(self) -> None:
        self.flip_id += 1
        ref = self.referee
        for seat in range(SEATS):
            ref.on_card_sent(seat, self.flip_id, self.now)
        for seat in range(SEATS):
            shown = self.now + self.leg()
            reaction = max(120.0, self.rng.gauss(300.0, 60.0))
            claimed = reaction - self.forgery if seat == 0 else reaction
            ref.judge(
                seat,
                self.flip_id,
                claimed,
                CLIENT_CLOCK + shown,
                CLIENT_CLOCK + shown + claimed,
                shown + reaction + self.leg(),
            )
        ref.window_ms(range(SEATS))
        self.now += 1000.0


def measure(
    pongs: int,
    races: int,
    seed: int = 1,
    forgery: float = 0.0,
    between: int = 0,
    tcp_info: bool = False,
) -> tuple[float, float]:
    """Microseconds of this process's CPU per pong and per race of four stamped
    slaps (CPU time, not wall time: on a shared machine the wait for a core
    does not count). ``between``: pongs per seat before each timed race (not
    timed), as in play, where a race comes every dozen seconds or so: nothing
    the referee derives from the pings survives from one race to the next."""
    session = Session(seed, forgery, tcp_info)
    for i in range(SEATS * DEFAULT_WINDOW):
        session.pong(i % SEATS)
    for _ in range(64):
        session.race()
    start = time.process_time()
    for i in range(pongs):
        session.pong(i % SEATS)
    middle = time.process_time()
    if not between:
        for _ in range(races):
            session.race()
        return (middle - start) / pongs * 1e6, (time.process_time() - middle) / races * 1e6
    racing = 0.0
    for _ in range(races):
        for i in range(between * SEATS):
            session.pong(i % SEATS)
        before = time.process_time()
        session.race()
        racing += time.process_time() - before
    return (middle - start) / pongs * 1e6, racing / races * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pongs", type=int, default=20_000)
    parser.add_argument("--races", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--forgery", type=float, default=0.0, help="ms seat 0 takes off its claims (15: costly)"
    )
    parser.add_argument(
        "--between", type=int, default=0, help="pongs per seat before each race (untimed)"
    )
    parser.add_argument(
        "--tcp-info",
        action="store_true",
        help="each pong followed by the kernel's round-trip estimate (as on Linux)",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.pongs <= 10_000_000 or not 1 <= args.races <= 1_000_000:
        parser.error("--pongs must be 1..10000000 and --races 1..1000000")
    if not 0.0 <= args.forgery <= 100.0:
        parser.error("--forgery must be 0..100 ms")
    if not 0 <= args.between <= 1000:
        parser.error("--between must be 0..1000")
    per_pong, per_race = measure(
        args.pongs, args.races, args.seed, args.forgery, args.between, args.tcp_info
    )
    print(f"fair referee: {per_pong:.1f} µs a pong, {per_race:.0f} µs a race of {SEATS} slaps")
    print(
        f"at 2,000 players (2,000 pongs/s, ~40 races/s): "
        f"{(2000 * per_pong + 40 * per_race) / 1e4:.1f} % of a core"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
