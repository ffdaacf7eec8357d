"""The fair referee's statistics against their plain definitions.

``rank_shift`` merges instead of binary-searching and selects the median of the
pairwise differences instead of sorting them all; these tests hold it to the
old code (kept here, verbatim, as the reference) over random windows, and a
whole referee to the same decisions with either."""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slapjack.server import fair
from slapjack.server.clocksync import quantile
from slapjack.server.fair import FairReferee
from slapjack.server.fairstats import Legs, Recent, rank_shift


def reference_rank_shift(
    slaps: Sequence[float], pings: Sequence[float], min_z: float = 0.0
) -> tuple[float, float]:
    """The rank-sum test as it was: a binary search per slap, a sort of every pair."""
    n1, n2 = len(slaps), len(pings)
    if n1 == 0 or n2 == 0:
        return 0.0, 0.0
    u = 0.0
    for w in slaps:
        lo = bisect_left(pings, w)
        u += lo + 0.5 * (bisect_right(pings, w) - lo)
    sd = math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12.0)
    z = (u - n1 * n2 / 2.0) / sd if sd > 0 else 0.0
    if z <= max(min_z, 0.0):
        return z, 0.0
    diffs = sorted(w - p for w in slaps for p in pings)
    return z, quantile(diffs, 0.5)


def same(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Equal as floats, bit for bit (NaN equal to NaN)."""
    return all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b, strict=True))


# times on a coarse grid make ties (within and across the samples) common;
# the fine ones make every difference distinct
_coarse = st.integers(0, 40).map(lambda i: 20.0 + 2.5 * i)
_fine = st.floats(-50.0, 500.0, allow_nan=False, allow_infinity=False)
_time = st.one_of(_coarse, _fine)
# a slap's one-way leg can be infinite (a client's stamps are only checked for
# being numbers); a ping's cannot (the clock sync refuses them)
_slap = st.one_of(_time, st.sampled_from([math.inf, -math.inf]))


@settings(max_examples=600, deadline=None)
@given(
    slaps=st.lists(_slap, max_size=60),
    pings=st.lists(_time, max_size=70).map(sorted),
    min_z=st.sampled_from([-1.0, 0.0, 1.5, 3.0]),
)
def test_rank_shift_equals_the_plain_definition(
    slaps: list[float], pings: list[float], min_z: float
) -> None:
    assert same(rank_shift(slaps, pings, min_z), reference_rank_shift(slaps, pings, min_z))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n1=st.integers(1, 48),
    n2=st.integers(1, 64),
    shift=st.floats(0.0, 60.0),
)
def test_rank_shift_equals_the_plain_definition_on_shifted_networks(
    seed: int, n1: int, n2: int, shift: float
) -> None:
    """Windows like the referee's: a forger's slaps are its round trips shifted,
    so the pairwise differences (the selection) are computed nearly every time."""
    rng = random.Random(seed)
    pings = sorted(60.0 + rng.expovariate(0.1) for _ in range(n2))
    slaps = [60.0 + shift + rng.expovariate(0.1) for _ in range(n1)]
    assert same(rank_shift(slaps, pings), reference_rank_shift(slaps, pings))
    assert same(rank_shift(slaps, pings, 1.5), reference_rank_shift(slaps, pings, 1.5))


def _play(seed: int, forgery: float) -> list[tuple[object, ...]]:
    """A room of four (seat 0 takes ``forgery`` ms off every claim) on a model
    network; everything the referee decided, slap by slap."""
    rng = random.Random(seed)
    ref = FairReferee()
    now, ping, out = 0.0, 0, []
    offset = 1e6

    def leg() -> float:
        return 20.0 + rng.expovariate(1 / 12.0)

    for flip in range(1, 61):
        for _ in range(3):
            for seat in range(4):
                ping += 1
                ref.on_ping_sent(seat, ping, now)
                down = leg()
                ref.on_pong(seat, ping, offset + now + down, now + down + leg())
                now += 80.0
        for seat in range(4):
            ref.on_card_sent(seat, flip, now)
        for seat in range(4):
            shown = now + leg()
            reaction = max(150.0, rng.gauss(300.0, 50.0))
            claimed = reaction - (forgery if seat == 0 else 0.0)
            stamp = offset + shown
            d = ref.judge(seat, flip, claimed, stamp, stamp + claimed, shown + reaction + leg())
            st_ = ref.seats[seat]
            out.append((d, st_.held, st_.reason, st_.evidence))
        out.append(("window", ref.window_ms(range(4))))
        now += 1000.0
    return out


@pytest.mark.parametrize("forgery", [0.0, 10.0, 15.0, 25.0, 60.0])
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=4, deadline=None)
def test_the_referee_decides_the_same_with_either(forgery: float, seed: int) -> None:
    new = _play(seed, forgery)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(fair, "rank_shift", reference_rank_shift)
        old = _play(seed, forgery)
    assert new == old
    if forgery >= 60.0:  # the shift tests ran on a held seat: the selection was used
        assert any(row[1] for row in new if row[0] != "window" and row[0].seat == 0)


@given(st.lists(st.floats(-1e6, 1e6), max_size=120), st.integers(1, 40), st.integers(1, 50))
def test_recent_keeps_the_latest_in_order(values: list[float], maxlen: int, n: int) -> None:
    """A :class:`Recent` is a ``deque(maxlen=...)`` of floats in a flat array."""
    recent = Recent(maxlen)
    for v in values:
        recent.append(v)
    kept = values[-maxlen:]
    assert len(recent) == len(kept) and list(recent) == kept
    assert recent.last(n) == kept[-n:]


@given(
    st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)), max_size=120),
    st.integers(1, 70),
)
def test_legs_keep_the_latest_pairs_in_order(pairs: list[tuple[float, float]], maxlen: int) -> None:
    legs = Legs(maxlen)
    for out, back in pairs:
        legs.append(out, back)
    kept = pairs[-maxlen:]
    assert len(legs) == len(kept)
    assert list(zip(legs.out, legs.back, strict=True)) == kept


def test_histories_refuse_bad_sizes() -> None:
    with pytest.raises(ValueError):
        Recent(0)
    with pytest.raises(ValueError):
        Legs(0)
    with pytest.raises(ValueError):
        Recent(4).last(0)
