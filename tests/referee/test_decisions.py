"""The fair referee's decisions, pinned: every bound, hold, window and clock
offset of seeded random sessions is the same as recorded (issue 14).

The referee's state was made compact (arrays instead of tuples and objects)
without changing anything it decides. The sessions here mix what a room sees:
honest seats on calm and jittery networks, forgers (claims, one stamp, pongs
held back), the kernel's estimates, lost and bad pongs, slaps on unknown flips,
false starts, reslap cues and reconnects. Every output of the referee is
written down exactly (``repr`` of each float) and hashed per chunk of events;
``decisions.json`` holds the hashes of the version before the change, so
a decision that moves fails here with the session and the chunk it moved in.

    .venv/bin/python -m tests.referee.test_decisions --write   # only for a deliberate change
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import math
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from slapjack.server.fair import FairConfig, FairReferee

DATA = Path(__file__).with_name("decisions.json")
SESSIONS = 24
CHUNK = 200
"""Output lines per hash."""


class Seat:
    """One seat's network, clock and client (honest or not)."""

    def __init__(self, rng: random.Random, kind: str) -> None:
        self.rng = rng
        self.kind = kind
        self.base = rng.choice((8.0, 20.0, 35.0, 70.0))
        self.jitter = rng.choice((2.0, 6.0, 15.0, 40.0))
        self.clock = rng.uniform(-1e7, 1e7)
        self.drift = rng.choice((0.0, 0.0, 30e-6, -60e-6))
        self.forgery = rng.choice((8.0, 15.0, 30.0, 60.0))
        self.hold = rng.choice((15.0, 40.0))
        self.stamps = kind != "no_stamps"
        self.coarse = rng.random() < 0.4

    def leg(self) -> float:
        spike = self.rng.expovariate(1 / 80.0) if self.rng.random() < 0.03 else 0.0
        wire = self.base / 2 + self.rng.expovariate(1 / self.jitter) + spike
        return round(wire) if self.coarse else wire  # whole ms: round trips that tie

    def client(self, t: float) -> float:
        stamp = self.clock + t * (1.0 + self.drift)
        return round(stamp) if self.coarse else stamp


def session(seed: int) -> Iterator[str]:
    """What a referee outputs on one seeded session, one line per event."""
    rng = random.Random(seed)
    kinds = (
        "honest",
        "forger",
        "painted",
        "input",
        "pong_hold",
        "random_hold",
        "no_stamps",
        "stamp_liar",
        "blurred",
    )
    seats = {
        s: Seat(rng, "honest" if s else kinds[seed % len(kinds)])
        for s in range(rng.choice((2, 3, 4)))
    }
    config = FairConfig()
    if seed % 4 == 0:
        config = FairConfig(resolution_ms=5.0, floor_q=0.0)
    elif seats[0].kind == "blurred" and seed % 2:
        config = FairConfig(shift_tol_ms=500.0, floor_q=0.0)  # (the tail test's turn)
    ref = FairReferee(config)
    tcp = seed % 3 != 0
    now = 0.0
    ping_id = flip_id = 0

    def out(*values: object) -> str:
        return " ".join(repr(v) for v in values)

    def prof_line(seat: int) -> str:
        prof = ref.seat(seat).sync.profile()
        return out("profile", seat, prof, ref.allowance(seat), ref.report(seat))

    def pong(seat: int, st: Seat) -> str:
        nonlocal ping_id, now
        ping_id += 1
        ref.on_ping_sent(seat, ping_id, now)
        down, up = st.leg(), st.leg()
        hold = 0.0
        if st.kind == "pong_hold":
            hold = st.hold
        elif st.kind == "random_hold":
            hold = rng.uniform(0.0, 2 * st.hold)
        answered = now + down + hold
        back = answered + up
        roll = rng.random()
        if roll < 0.02:
            ref.on_pong(seat, ping_id + 1000, st.client(answered), back)  # unknown id
        elif roll < 0.03:
            ref.on_pong(seat, ping_id, math.nan, back)  # a bad number
        elif roll < 0.04:
            ref.on_pong(seat, ping_id, st.client(answered), now - 1.0)  # time backwards
        elif roll < 0.05:
            ref.on_pong(seat, ping_id, st.client(answered), now + 20_000.0)  # far too late
        elif roll < 0.07:
            pass  # lost
        else:
            ref.on_pong(seat, ping_id, st.client(answered), back)
            if rng.random() < 0.05:
                ref.on_pong(seat, ping_id, st.client(answered), back + 1.0)  # repeated
        if tcp:
            srtt = st.base + st.jitter * rng.uniform(0.5, 1.5)
            low = None if rng.random() < 0.2 else st.base
            ref.on_transport_rtt(seat, srtt, st.jitter, low, back)
        sync = ref.seat(seat).sync
        return out("pong", seat, ping_id, sync.offset(), sync.dropped, len(sync.samples))

    def slaps(cue: float) -> Iterator[str]:
        """Every seat's answer to the card sent at ``cue`` (some do not slap)."""
        order = list(seats)
        rng.shuffle(order)
        first = True
        for seat in order:
            st = seats[seat]
            if rng.random() < 0.1:
                continue  # no slap from this seat
            reaction = max(60.0, rng.gauss(280.0, 70.0))
            claimed = reaction
            shown = cue + st.leg()
            shown_stamp = st.client(shown)
            input_stamp = st.client(shown + reaction)
            if st.kind == "forger":
                claimed -= st.forgery
                input_stamp -= st.forgery
            elif st.kind == "painted":
                claimed -= st.forgery
                shown_stamp += st.forgery
            elif st.kind == "input":
                claimed -= st.forgery
                input_stamp -= st.forgery * 1.01
            elif st.kind == "blurred":
                blur = rng.uniform(0.0, 120.0)
                claimed -= blur
                input_stamp -= blur
            elif st.kind == "stamp_liar" and rng.random() < 0.3:
                shown_stamp += 150.0  # a stamp its clock cannot have read then
                input_stamp += 150.0
            arrival = shown + reaction + st.leg()
            flip = flip_id if rng.random() > 0.03 else flip_id + 77  # an unknown flip
            shown_at: float | None = shown_stamp if st.stamps else None
            input_at: float | None = input_stamp if st.stamps else None
            if rng.random() < 0.02:
                claimed = rng.choice((-5.0, math.inf, math.nan, 1e9))
            detail = ref.judge(seat, flip, claimed, shown_at, input_at, arrival)
            state = ref.seat(seat)
            yield out(
                "slap",
                detail,
                state.held,
                state.reason,
                state.strikes,
                state.evidence,
                state.first_held,
                state.raised,
                state.false_starts,
            )
            if first:
                first = False
                yield out("window", ref.window_ms(list(seats)))
        yield out("window", ref.window_ms(list(seats)))

    def race() -> Iterator[str]:
        nonlocal flip_id, now
        flip_id += 1
        for seat in seats:
            ref.on_card_sent(seat, flip_id, now)
        yield from slaps(now)
        if rng.random() < 0.1:
            # a reslap cue: the same flip, a fresh race
            now += 900.0
            for seat in seats:
                ref.on_card_sent(seat, flip_id, now)
            yield from slaps(now)
        now += 1_500.0

    for _ in range(8):
        for seat, st in seats.items():
            yield pong(seat, st)
        now += 250.0
    for step in range(320):
        for _ in range(rng.choice((1, 1, 2, 4))):
            for seat, st in seats.items():
                yield pong(seat, st)
            now += 997.0
        yield from race()
        if step % 10 == 0:
            for seat in seats:
                yield prof_line(seat)
        if rng.random() < 0.01:
            gone = rng.choice(list(seats))
            ref.on_disconnect(gone)
            yield out("disconnect", gone, ref.report(gone))
    for seat in seats:
        yield prof_line(seat)


def digests(lines: Iterator[str]) -> list[str]:
    out: list[str] = []
    h = hashlib.sha256()
    n = 0
    for line in lines:
        h.update(line.encode())
        h.update(b"\n")
        n += 1
        if n == CHUNK:
            out.append(h.hexdigest()[:16])
            h, n = hashlib.sha256(), 0
    if n:
        out.append(h.hexdigest()[:16])
    return out


@functools.cache
def lines(seed: int) -> tuple[str, ...]:
    return tuple(session(seed))


def recorded() -> dict[str, list[str]]:
    data: dict[str, list[str]] = json.loads(DATA.read_text())
    return data


@pytest.mark.parametrize("seed", range(SESSIONS))
def test_the_referees_decisions_are_the_recorded_ones(seed: int) -> None:
    expected = recorded()[str(seed)]
    got = digests(iter(lines(seed)))
    assert len(got) == len(expected), f"session {seed}: a different number of events"
    moved = [i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b]
    assert not moved, f"session {seed}: decisions moved from event {moved[0] * CHUNK} on"


def test_the_sessions_reach_every_verdict() -> None:
    """The recorded sessions are worth pinning: between them the seats are
    held for every reason the referee has, and released again."""
    reasons: set[str | None] = set()
    released = False
    for seed in range(SESSIONS):
        held: dict[str, bool] = {}
        for line in lines(seed):
            if line.startswith("'slap'"):
                fields = line.split(" ")
                reasons.add(ast.literal_eval(fields[-6]))
                now_held = fields[-7] == "True"
                released |= held.get(fields[1], False) and not now_held
                held[fields[1]] = now_held
    assert {"stamps", "pongs", "cusum", "shift", "leg", "kernel", "tail"} <= reasons
    assert released


def write(path: Path = DATA, make: Callable[[int], Iterator[str]] = session) -> None:
    data = {str(seed): digests(make(seed)) for seed in range(SESSIONS)}
    path.write_text(json.dumps(data, indent=0) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.referee.test_decisions --write")
    write()
