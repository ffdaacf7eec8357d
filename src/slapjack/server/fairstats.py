"""The fair referee's statistics: pure functions over samples of times (ms),
and the bounded histories it keeps them in (:class:`Recent`, :class:`Legs`).

The shift tests compare a seat's slaps with its pings (:func:`rank_shift`,
:func:`floor_shift`); the others turn client stamps and kernel estimates into
the quantities the referee bounds claims by. See docs/fairness.md.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Sequence
from typing import Final

import numpy as np

from .clocksync import quantile

MIN_SLOPE: Final = 1.0
"""ms per unit of probability: the flattest quantile function the floor test assumes."""


def rank_shift(
    slaps: Sequence[float], pings: Sequence[float], min_z: float = 0.0
) -> tuple[float, float]:
    """How much longer ``slaps`` take than ``pings`` (sorted, finite): the
    Mann–Whitney z score (one-sided, > 0: the slaps take longer) and the
    Hodges–Lehmann shift (the median of all pairwise differences, in ms; 0 when
    z <= ``min_z``, which spares the pairwise differences where the shift would
    not be looked at).

    The U statistic comes from one merge of the sorted slaps with the pings (not
    a binary search per slap), the median of the differences from a selection
    (``numpy.partition``), not a sort of all of them: the same numbers as the
    plain definitions (U is a sum of halves, exact in any order; the two middle
    differences are the same floats), in a fraction of the time.
    """
    n1, n2 = len(slaps), len(pings)
    if n1 == 0 or n2 == 0:
        return 0.0, 0.0
    ordered = sorted(slaps)
    # twice U: for every slap, the pings below it plus those at or below it
    twice_u = below = at_or_below = 0
    for w in ordered:
        while below < n2 and pings[below] < w:
            below += 1
        if at_or_below < below:
            at_or_below = below
        while at_or_below < n2 and pings[at_or_below] <= w:
            at_or_below += 1
        twice_u += below + at_or_below
    u = twice_u / 2
    sd = math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12.0)
    z = (u - n1 * n2 / 2.0) / sd if sd > 0 else 0.0
    if z <= max(min_z, 0.0):
        return z, 0.0
    return z, _median_difference(ordered, pings)


def _median_difference(slaps: Sequence[float], pings: Sequence[float]) -> float:
    """``quantile(sorted(w - p for w in slaps for p in pings), 0.5)``, by selecting
    the two middle differences instead of sorting all of them."""
    rows, cols = np.asarray(slaps, dtype=np.float64), np.asarray(pings, dtype=np.float64)
    diffs = np.subtract.outer(rows, cols).ravel()
    count = len(slaps) * len(pings)
    pos = 0.5 * (count - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, count - 1)
    part = np.partition(diffs, (lo, hi))
    low, high = float(part[lo]), float(part[hi])
    return low + (high - low) * (pos - lo)


def floor_shift(slaps: Sequence[float], pings: Sequence[float], q: float) -> tuple[float, float]:
    """How much later the fastest of ``slaps`` come than the fastest of
    ``pings`` (sorted): a z score, and the shift of their ``q`` quantiles (ms).

    Network delay has a hard floor and a long tail. A forgery moves the whole
    distribution, floor included; a slow moment only adds to the tail. Near
    the floor the values are packed tight, so the same shift stands out of far
    fewer races there than in the middle, where the tail's spread hides it.
    The standard error of each sample's ``q`` quantile is ``√(q(1−q)/n)``
    times the slope of its quantile function, read off its values between the
    fastest and the ``2q`` quantile; the slaps' slope is at least the pings'
    (they are fewer, and an honest display spreads them further).
    """
    n1, n2 = len(slaps), len(pings)
    if n1 < 2 or n2 < 2 or not 0.0 < q <= 0.5:
        return 0.0, 0.0
    ordered = sorted(slaps)
    shift = quantile(ordered, q) - quantile(pings, q)
    slope_p = max((quantile(pings, 2 * q) - pings[0]) / (2 * q), MIN_SLOPE)
    slope_s = max((quantile(ordered, 2 * q) - ordered[0]) / (2 * q), slope_p)
    error = math.sqrt(q * (1 - q) * (slope_s**2 / n1 + slope_p**2 / n2))
    return shift / error, shift


def median_error(rttvar_ms: float, n: int) -> float:
    """Two standard errors of the median of ``n`` round trips whose spread the
    kernel puts at ``rttvar_ms`` (the sd is about 1.25 RTTVAR, and the median's
    error about 1.25 sd / √n)."""
    return 2.0 * 1.25 * (1.25 * rttvar_ms) / math.sqrt(n)


def one_way(
    sent: float, shown: float, answered: float, received: float, offset: float
) -> tuple[float, float]:
    """The two one-way legs of an exchange, in server milliseconds: from the
    server's ``sent`` to the client's ``shown`` stamp, and from its ``answered``
    stamp to the server's ``received`` (client stamps through ``offset``, client
    clock minus server clock). A ping's two stamps are the same moment."""
    return shown - offset - sent, received - (answered - offset)


def stamped_reaction(shown_at: float | None, input_at: float | None) -> float | None:
    if shown_at is None or input_at is None:
        return None
    if not (math.isfinite(shown_at) and math.isfinite(input_at)):
        return None
    return input_at - shown_at if input_at >= shown_at else None


class Recent:
    """The latest ``maxlen`` numbers, oldest first, in one flat array of floats
    (``array('d')``: 8 bytes a number, where a deque holds a pointer to a
    boxed float of 24). There are a few of these per connected player."""

    __slots__ = ("maxlen", "values")

    def __init__(self, maxlen: int) -> None:
        if maxlen < 1:
            raise ValueError("maxlen must be at least 1")
        self.maxlen = maxlen
        self.values = array("d")

    def append(self, value: float) -> None:
        values = self.values
        if len(values) >= self.maxlen:
            del values[0]
        values.append(value)

    def last(self, n: int) -> list[float]:
        """The ``n`` latest values (all there are if fewer), oldest first."""
        if n < 1:
            raise ValueError("n must be at least 1")
        return self.values[-n:].tolist()

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self) -> Iterator[float]:
        return iter(self.values)


class Legs:
    """The one-way legs (:func:`one_way`: out to the client, back from it) of
    the latest ``maxlen`` exchanges, oldest first: two parallel flat arrays."""

    __slots__ = ("back", "maxlen", "out")

    def __init__(self, maxlen: int) -> None:
        if maxlen < 1:
            raise ValueError("maxlen must be at least 1")
        self.maxlen = maxlen
        self.out = array("d")
        self.back = array("d")

    def append(self, out: float, back: float) -> None:
        if len(self.out) >= self.maxlen:
            del self.out[0]
            del self.back[0]
        self.out.append(out)
        self.back.append(back)

    def __len__(self) -> int:
        return len(self.out)
