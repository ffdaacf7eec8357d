"""The fair referee's memory per seat stays small (issue 14: a few KB a
player, where its window of tuples and objects took about 29 KB)."""

from __future__ import annotations

import gc
import random
import tracemalloc

from slapjack.server.fair import FairReferee

SEATS = 4


def play(ref: FairReferee, rng: random.Random, pongs: int, races: int) -> None:
    """Clock sync on a home-like network (30 ms + Exp(10) each way), the kernel's
    estimate after each pong, and stamped races between the pongs."""
    now, ping_id = 0.0, 0
    for i in range(pongs):
        for seat in range(SEATS):
            ping_id += 1
            ref.on_ping_sent(seat, ping_id, now)
            down = 30.0 + rng.expovariate(0.1)
            back = now + down + 30.0 + rng.expovariate(0.1)
            ref.on_pong(seat, ping_id, 1e6 + now + down, back)
            ref.on_transport_rtt(seat, 80.0, 10.0, 60.0, back)
        now += 1_000.0
        if i < races:
            for seat in range(SEATS):
                ref.on_card_sent(seat, i, now)
            for seat in range(SEATS):
                shown = now + 30.0 + rng.expovariate(0.1)
                reaction = 200.0 + rng.expovariate(0.02)
                arrival = shown + reaction + 30.0 + rng.expovariate(0.1)
                ref.judge(seat, i, reaction, 1e6 + shown, 1e6 + shown + reaction, arrival)
            now += 500.0


def test_a_seat_with_full_histories_keeps_a_few_kb() -> None:
    rng = random.Random(4)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        referees = []
        for _ in range(10):
            ref = FairReferee()
            play(ref, rng, pongs=150, races=100)  # every window full
            referees.append(ref)
        gc.collect()
        held = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before, "filename"))
    finally:
        tracemalloc.stop()
    per_seat = held / (len(referees) * SEATS)
    assert per_seat < 16 * 1024, f"{per_seat / 1024:.1f} KB per seat"
    seat = referees[0].seat(0)
    assert seat.sync.count == seat.sync.window and len(seat.legs) == seat.legs.maxlen
    assert len(referees[0].details) == 64  # the last 16 races of four, not more
