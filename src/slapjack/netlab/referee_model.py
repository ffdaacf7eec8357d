"""The fair referee in a model network: fast figures for tuning its tests.

    .venv/bin/python bench/referee_model.py [--scenarios home,mixed] [--forge 30]
        [--display 0,17,33] [--rooms 64] [--races 62] [--no-tcp] [--set floor_q=0 ...]

No server and no sockets: the referee (``slapjack.server.fair``) is fed the
synthetic network of its unit tests (:mod:`slapjack.netlab.model`: every leg
``base + Exp(jitter)`` ms, the scenarios of issue 5), with explicit time, so a
run of thousands of races takes seconds and is exactly reproducible. It is a
model: no event loop, no TCP, no WebSocket frames; ``bench/fairness.py``
measures the real thing. Use this one to compare versions of the referee's
tests against each other, then confirm with ``bench/fairness.py``.

Per room: 8 quick pings, then ``--races`` races, a ping before every race or
every other one (as the server's two-second pings between Jacks), and the
kernel's smoothed RTT (RFC 6298 over six round trips before each race, 6 ms of
delayed ACKs on top) unless ``--no-tcp``. True reactions come from the bots'
``casual`` model, the same for all four seats. ``--display D`` paints every
card up to D ms (uniform) after it arrived, as a browser at 1000/D Hz; the
forger (``--forge``, one seat per room, rotating) takes its forgery off by
stamping "painted" later.

Printed per scenario and display: honest races won by the truly fastest at a
true gap of at least 20 ms; the share of honest slaps judged while their seat
was held, per seat; the forger's share of wins (fair: 25 %) per seat it played
and how many races passed before it was first held (median, and the number
nine rooms in ten stay within). ``--set NAME=VALUE`` changes a setting of the
referee (a field of ``FairConfig``; repeatable), to compare a change with the
defaults in one sitting.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import statistics
from collections.abc import Sequence
from typing import NamedTuple

from slapjack.bots import PROFILES
from slapjack.server.fair import FairConfig, FairReferee

from .fairness import SCENARIOS  # the real benchmark's scenarios
from .model import Link, Table

DELAYED_ACK_MS = 6.0
KERNEL_SAMPLES = 6
"""Round trips the kernel measures before each race."""


class Race(NamedTuple):
    winner: int
    fastest: int
    gap: float
    """True reaction of the second fastest minus the fastest's."""
    held: dict[int, bool]


def play_room(
    profile: Sequence[tuple[float, float]],
    forger: int | None,
    forge: float,
    races: int,
    seed: int,
    tcp: bool,
    display: float,
    config: FairConfig | None = None,
) -> list[Race]:
    """One room's races."""
    rng = random.Random(seed)
    links = {
        seat: Link(
            base,
            jitter,
            random.Random(rng.random()),
            clock_offset=rng.uniform(-1e6, 1e6),
            display=display,
        )
        for seat, (base, jitter) in enumerate(profile)
    }
    if forger is not None:
        links[forger].forge = forge
    table = Table(FairReferee(config), links)
    human = PROFILES["casual"].reaction
    table.sync(8)
    out = []
    for race in range(races):
        if tcp:
            for seat in links:
                # (the first race's first round trip starts the estimate)
                more = KERNEL_SAMPLES if seat in table.kernel else KERNEL_SAMPLES - 1
                table.transport(seat, more, DELAYED_ACK_MS)
        table.sync(1 if race % 2 else 2)
        true = {seat: human.draw(rng) for seat in links}
        judged = table.race(true)
        winner = min(judged, key=lambda s: judged[s].bounded)
        order = sorted(true, key=true.__getitem__)
        gap = true[order[1]] - true[order[0]]
        out.append(Race(winner, order[0], gap, {s: judged[s].held for s in judged}))
    return out


def report(
    scenario: str,
    forge: float,
    rooms: int,
    races: int,
    tcp: bool,
    display: float,
    config: FairConfig | None = None,
) -> None:
    bases, jitters = SCENARIOS[scenario]
    profile = list(zip(bases, jitters, strict=True))
    right = counted = 0
    held = [0] * len(profile)
    slaps = 0
    for room in range(rooms):
        for race in play_room(profile, None, 0.0, races, 1000 + room, tcp, display, config):
            slaps += 1
            for seat, was in race.held.items():
                held[seat] += was
            if race.gap >= 20:
                counted += 1
                right += race.winner == race.fastest
    shares = ", ".join(f"{100 * h / slaps:.1f}" for h in held)
    print(
        f"{scenario:6} display {display:4.1f} ms  honest: fastest wins {100 * right / counted:.2f} % "
        f"of {counted} (gap >= 20 ms); slaps judged while held, per seat: {shares} %"
    )
    if not forge:
        return
    wins: dict[int, list[float]] = {}
    first: dict[int, list[int]] = {}
    total = 0
    for room in range(rooms):
        seat = room % len(profile)
        played = play_room(profile, seat, forge, races, 5000 + room, tcp, display, config)
        won = sum(r.winner == seat for r in played)
        total += won
        wins.setdefault(seat, []).append(won / len(played))
        when = next((i for i, r in enumerate(played) if r.held[seat]), races)
        first.setdefault(seat, []).append(when)
    print(
        f"{'':6} forger −{forge:.0f} ms wins {100 * total / (rooms * races):.1f} % in all; per seat:"
    )
    for seat in sorted(wins):
        base, jitter = profile[seat]
        when = sorted(first[seat])
        print(
            f"{'':8} seat {seat} ({base:.0f} + Exp({jitter:.0f}) ms): wins "
            f"{100 * statistics.fmean(wins[seat]):.1f} %, held after a median of "
            f"{statistics.median(when):.1f} races (9 in 10 within "
            f"{when[math.ceil(0.9 * len(when)) - 1]})"
        )


def fair_config(settings: Sequence[str]) -> FairConfig:
    """``FairConfig`` with ``NAME=VALUE`` overrides (``ValueError`` names a bad one)."""
    fields = {f.name: f for f in dataclasses.fields(FairConfig)}
    changes: dict[str, object] = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        if not sep or name not in fields:
            raise ValueError(
                f"--set {setting!r}: expected NAME=VALUE with NAME one of {', '.join(fields)}"
            )
        kind = type(getattr(FairConfig(), name))
        try:
            if kind is bool:
                if text.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(text)
                changes[name] = text.lower() in ("true", "1")
            else:
                changes[name] = kind(text)
        except ValueError:
            raise ValueError(f"--set {setting!r}: {name} takes a {kind.__name__}") from None
    return FairConfig(**changes)  # type: ignore[arg-type]  # (it checks the values itself)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=lambda s: s.split(","), default=["home", "mixed"])
    parser.add_argument(
        "--forge", type=float, default=30.0, help="ms the forger takes off; 0: none"
    )
    parser.add_argument("--display", type=lambda s: [float(x) for x in s.split(",")], default=[0.0])
    parser.add_argument("--rooms", type=int, default=64)
    parser.add_argument("--races", type=int, default=62, help="races per room")
    parser.add_argument("--no-tcp", action="store_true", help="no kernel RTT estimate")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the referee (a FairConfig field), e.g. floor_q=0; repeatable",
    )
    args = parser.parse_args(argv)
    try:
        config = fair_config(args.set)
    except ValueError as exc:
        parser.error(str(exc))
    bad = [s for s in args.scenarios if s not in SCENARIOS]
    if bad:
        parser.error(f"unknown scenario {bad[0]!r}; choose from {', '.join(SCENARIOS)}")
    if not 1 <= args.rooms <= 10_000 or not 1 <= args.races <= 10_000 or args.forge < 0:
        parser.error("--rooms and --races must be 1..10000, --forge >= 0")
    for scenario in args.scenarios:
        for display in args.display:
            report(scenario, args.forge, args.rooms, args.races, not args.no_tcp, display, config)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
