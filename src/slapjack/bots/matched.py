"""The ``matched`` bot: it learns how fast the people at the table react and plays at that speed.

It watches the settled races (:meth:`MatchedBot.notice`, the optional hook of
:class:`~slapjack.bots.base.Noticing`), keeps the reaction times of the seats
played by people, and draws its own reactions from the person model of
:func:`~slapjack.bots.human.person_reaction` with the people's median. Before it
has seen a race it plays at a prior: the median person of the browser go/no-go
data (``docs/bots.md``).

A race result lists only the seats that slapped before it was settled. A person
who is not listed was slower than everyone listed (or did not slap at all): a
right-censored observation. :class:`MedianTracker` estimates the median from
exact and censored times alike (Kaplan-Meier), so a slow person whose slaps come
after a fast settle is not mistaken for a fast one.

An estimate from few reactions is uncertain, and uncertainty is not neutral: a
bot 50 ms too slow loses more races than a bot 50 ms too fast wins (the person
has to beat the fastest of several bots), and the median of a few skewed
reaction times is more often too slow than too fast. So the bot aims a little
below its estimate, by the factor that makes the person's expected chance in a
race a fair ``1 / (bots + 1)`` given how the estimate from that many reactions
is distributed (:func:`fair_factor`): about 3 % below before it has seen anyone,
a little less after one reaction, well under 1 % after ten.
"""

from __future__ import annotations

import functools
import math
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from slapjack.core.events import (
    Eliminated,
    Event,
    Finished,
    Forfeit,
    PickedUp,
    PileSplit,
    RaceWon,
)

from .human import (
    MAX_PERSON_MS,
    MIN_PERSON_MS,
    PHYSIOLOGICAL_FLOOR_MS,
    REACTION_CEILING_MS,
    SIGMA_PER_MS,
    TAU_PER_MS,
    TYPICAL_MEDIAN_MS,
    ExGaussian,
    HumanBot,
)

WINDOW = 40
"""Only the people's last this many reactions count (a person warms up, or tires)."""
POPULATION_SPREAD = 0.15
"""How much people's median reactions differ, as a share of the typical median
(the participants' medians in the browser go/no-go data have an interquartile
range of 384-471 ms, a standard deviation of about 64 ms at 425; ``docs/bots.md``).
It is the uncertainty of the prior, before the bot has seen anyone react."""
DEFAULT_FIELD = 4
"""Seats assumed in a race before the bot has seen one (Play now: you and three bots)."""

_UNIT = ExGaussian.with_median(1.0, SIGMA_PER_MS, TAU_PER_MS, floor=-math.inf)
"""The person shape with median 1 (scaled by a median, it is :func:`person_reaction`)."""


class MedianTracker:
    """The median of reaction times, some of them known only to lie above a value.

    :meth:`observe` adds an exact time, :meth:`censored` a time known to be above
    ``above_ms``. :attr:`median` is the Kaplan-Meier median of the last
    ``window`` observations (``prior_ms`` until there is one), clamped to the
    medians a person may have. With exact times only, it is the middle one of an
    odd number and the lower middle one of an even number (a single order
    statistic, whose distribution :func:`fair_factor` knows). Where so much is
    censored that the Kaplan-Meier curve never reaches one half, it is the
    median of the person model that fits the observations best (with the prior
    as a weak pull; :func:`_scale_fit`).
    """

    __slots__ = ("_exact", "_median", "_obs", "prior_ms")

    def __init__(self, prior_ms: float = TYPICAL_MEDIAN_MS, window: int = WINDOW) -> None:
        if not (math.isfinite(prior_ms) and MIN_PERSON_MS <= prior_ms <= MAX_PERSON_MS):
            raise ValueError(f"the prior must be a median a person may have, got {prior_ms!r}")
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be a whole number >= 1, got {window!r}")
        self.prior_ms = float(prior_ms)
        self._obs: deque[tuple[float, bool]] = deque(maxlen=window)
        self._median = self.prior_ms
        self._exact = 0

    @property
    def seen(self) -> int:
        """Observations that count now, exact and censored."""
        return len(self._obs)

    @property
    def exact(self) -> int:
        """Exact observations among them (the estimate's sample size)."""
        return self._exact

    @property
    def median(self) -> float:
        """The current estimate of the median, in ms."""
        return self._median

    def observe(self, ms: float) -> None:
        """A reaction of ``ms`` milliseconds was seen."""
        if math.isfinite(ms):
            self._obs.append((float(ms), True))
            self._update()

    def censored(self, above_ms: float) -> None:
        """A reaction was slower than ``above_ms`` (or never came)."""
        if math.isfinite(above_ms):
            self._obs.append((float(above_ms), False))
            self._update()

    def _update(self) -> None:
        # Exact observations sort before censored ones at the same time (the
        # usual Kaplan-Meier convention: censored at t means still to come after t).
        obs = sorted(self._obs, key=lambda o: (o[0], not o[1]))
        self._exact = sum(1 for _, exact in obs if exact)
        estimate = _km_median(obs)
        if estimate is None:
            # Fewer than half are known to have come (heavy censoring, as when the
            # fair referee closes a race soon after its best slap): the data stop
            # short of the median. Fit the person model's scale to them instead.
            estimate = _scale_fit(obs, self.prior_ms)
        self._median = min(max(estimate, MIN_PERSON_MS), MAX_PERSON_MS)


def _km_median(obs: Sequence[tuple[float, bool]]) -> float | None:
    """The first time at which the Kaplan-Meier survival of sorted
    ``(time, exact)`` pairs reaches one half, or ``None`` if it never does."""
    n = len(obs)
    survival = 1.0
    for i, (t, exact) in enumerate(obs):
        if exact:
            survival *= 1.0 - 1.0 / (n - i)
            if survival <= 0.5 + 1e-12:
                return t
    return None


_T_LO, _T_STEP, _T_N = 0.02, 0.002, 6000
"""Reaction / median ratios at which the unit shape's log density and log
survival are tabulated (for :func:`_scale_fit`)."""


@functools.cache
def _sf_table() -> tuple[float, ...]:
    """P(reaction / median > t) of the unit shape on the ``t`` grid."""
    return tuple(1.0 - _UNIT.cdf(_T_LO + i * _T_STEP) for i in range(_T_N))


@functools.cache
def _log_tables() -> tuple[tuple[float, ...], tuple[float, ...]]:
    log_pdf = tuple(math.log(max(_UNIT.pdf(_T_LO + i * _T_STEP), 1e-300)) for i in range(_T_N))
    log_sf = tuple(math.log(max(sf, 1e-300)) for sf in _sf_table())
    return log_pdf, log_sf


def _sf(t: float) -> float:
    pos = (t - _T_LO) / _T_STEP
    if pos <= 0.0:
        return 1.0
    if pos >= _T_N - 1:
        return 0.0
    table = _sf_table()
    i = int(pos)
    return table[i] + (table[i + 1] - table[i]) * (pos - i)


def _lookup(table: tuple[float, ...], t: float) -> float:
    pos = (t - _T_LO) / _T_STEP
    if pos <= 0.0:
        return table[0]
    last = _T_N - 1
    if pos >= last:
        # Beyond the grid both fall like the exponential tail: -1/tau per unit.
        return table[last] - (t - (_T_LO + last * _T_STEP)) / _UNIT.tau
    i = int(pos)
    return table[i] + (table[i + 1] - table[i]) * (pos - i)


def _scale_fit(obs: Sequence[tuple[float, bool]], prior_ms: float) -> float:
    """The most likely median of the person model given exact and censored
    times, with the spread of people's medians as a (log-normal) prior around
    ``prior_ms``: maximised by golden-section search over the log median."""
    log_pdf, log_sf = _log_tables()
    exact = [t for t, e in obs if e]
    cens = [t for t, e in obs if not e]
    log_prior = math.log(prior_ms)
    inv_2var = 1.0 / (2.0 * POPULATION_SPREAD * POPULATION_SPREAD)

    def score(u: float) -> float:
        m = math.exp(u)
        total = -len(exact) * u - (u - log_prior) ** 2 * inv_2var
        for t in exact:
            total += _lookup(log_pdf, t / m)
        for t in cens:
            total += _lookup(log_sf, t / m)
        return total

    lo, hi = math.log(MIN_PERSON_MS), math.log(MAX_PERSON_MS)
    golden = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
    fa, fb = score(a), score(b)
    for _ in range(36):
        if fa < fb:
            lo, a, fa = a, b, fb
            b = lo + golden * (hi - lo)
            fb = score(b)
        else:
            hi, b, fb = b, a, fa
            a = hi - golden * (hi - lo)
            fa = score(a)
    return math.exp((lo + hi) / 2.0)


# ------------------------------------------------------------ the fair aim

_X_STEPS = 400
_X_LO = _UNIT.mu - 6.0 * _UNIT.sigma
_X_HI = _UNIT.mu + 6.0 * _UNIT.sigma + 16.0 * _UNIT.tau
_X_H = (_X_HI - _X_LO) / _X_STEPS
_XS = tuple(_X_LO + i * _X_H for i in range(_X_STEPS + 1))
"""A grid over the person shape with median 1 (reaction / median)."""
_TRAPEZOID = tuple(_X_H * (0.5 if i in (0, _X_STEPS) else 1.0) for i in range(_X_STEPS + 1))

_R_LO, _R_STEP, _R_N = 0.3, 0.01, 221
"""Ratios (bots' median / person's median) at which race chances are tabulated."""


@functools.cache
def _grid() -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The unit shape's density and distribution function on the grid."""
    return tuple(_UNIT.pdf(x) for x in _XS), tuple(_UNIT.cdf(x) for x in _XS)


@functools.cache
def _race_chances(bots: int) -> tuple[float, ...]:
    """P(a person beats all ``bots``) when the bots' median is ``r`` times the
    person's (the same shape), for ``r`` on the tabulated grid."""
    pdf, _ = _grid()
    weights = [p * w for p, w in zip(pdf, _TRAPEZOID, strict=True)]
    return tuple(
        sum(w * _sf(x / r) ** bots for w, x in zip(weights, _XS, strict=True))
        for r in (_R_LO + j * _R_STEP for j in range(_R_N))
    )


def race_chance(bots: int, ratio: float) -> float:
    """P(a person beats all ``bots`` whose median is ``ratio`` times theirs)."""
    table = _race_chances(bots)
    pos = (ratio - _R_LO) / _R_STEP
    if pos <= 0.0:
        return table[0]
    if pos >= _R_N - 1:
        return table[-1]
    i = int(pos)
    return table[i] + (table[i + 1] - table[i]) * (pos - i)


@functools.cache
def _estimate_weights(exact: int) -> tuple[tuple[float, float], ...]:
    """How the estimate / true median is distributed after ``exact`` reactions,
    as (ratio, probability) pairs.

    With reactions: the ``ceil(n/2)``-th smallest of ``n`` draws of the unit
    shape (what :class:`MedianTracker` returns). Before any: the prior over the
    person's median, prior / median with ``median / prior = 1 + spread * Z``,
    ``Z`` standard normal (:data:`POPULATION_SPREAD`).
    """
    if exact <= 0:
        zs = [i / 5.0 for i in range(-15, 16)]
        ws = [math.exp(-0.5 * z * z) for z in zs]
        total = sum(ws)
        return tuple(
            (1.0 / (1.0 + POPULATION_SPREAD * z), w / total) for z, w in zip(zs, ws, strict=True)
        )
    n = exact
    k = (n + 1) // 2
    pdf, cdf = _grid()
    log_coef = math.log(n) + math.lgamma(n) - math.lgamma(k) - math.lgamma(n - k + 1)
    pairs = []
    for x, p, c, w in zip(_XS, pdf, cdf, _TRAPEZOID, strict=True):
        if p <= 0.0 or not 0.0 < c < 1.0:
            continue
        log_g = log_coef + (k - 1) * math.log(c) + (n - k) * math.log1p(-c) + math.log(p)
        pairs.append((x, math.exp(log_g) * w))
    total = sum(w for _, w in pairs)
    return tuple((x, w / total) for x, w in pairs if w > 1e-12 * total)


@functools.cache
def fair_factor(bots: int, exact: int) -> float:
    """The factor by which bots scale their estimate of a person's median so that
    the person's expected chance of beating all ``bots`` is the fair ``1/(bots+1)``,
    given how an estimate from ``exact`` reactions is distributed.

    Solves ``E[race_chance(bots, factor * estimate / median)] = 1 / (bots + 1)``
    by bisection (the chance falls as the factor does). ``bots < 1``: 1.
    """
    if bots < 1:
        return 1.0
    target = 1.0 / (bots + 1)
    weights = _estimate_weights(min(exact, WINDOW))

    def expected(factor: float) -> float:
        return sum(w * race_chance(bots, factor * x) for x, w in weights)

    lo, hi = 0.5, 1.5
    for _ in range(24):  # to within 1e-7
        mid = (lo + hi) / 2.0
        if expected(mid) > target:
            hi = mid  # the person would win too often: be faster
        else:
            lo = mid
    return (lo + hi) / 2.0


# ------------------------------------------------------------------ the bot

_RACE_RESULTS = (RaceWon, PileSplit, Forfeit)


@dataclass(slots=True)
class MatchedBot(HumanBot):
    """A bot of the ``matched`` profile whose reactions follow the people's median.

    Decisions (lapses, flinches, the call) are those of :class:`HumanBot` with its
    profile; only the reaction time comes from :func:`person_reaction`'s shape
    scaled to :attr:`aim_ms`. Learning never draws from the bot's generator, so
    bots that noticed the same events make the same decisions.
    """

    tracker: MedianTracker = field(init=False, repr=False)
    field_size: int = field(init=False)
    """Seats in the last race it saw (the people and the bots they race)."""
    aim_ms: float = field(init=False)
    """The median of its own reactions now: :attr:`estimate_ms` times :func:`fair_factor`."""
    _out: set[int] = field(init=False, repr=False)
    _gaps: deque[float] = field(init=False, repr=False)
    _unit: Callable[[], float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        HumanBot.__post_init__(self)
        prior = self.profile.reaction.median
        self.tracker = MedianTracker(min(max(prior, MIN_PERSON_MS), MAX_PERSON_MS))
        self.field_size = DEFAULT_FIELD
        self._out = set()
        self._gaps = deque(maxlen=WINDOW)
        # A draw of the median-1 shape times the aim is a draw of the person
        # model with that median (sigma and tau scale with it).
        self._unit = _UNIT.sampler(self.rng)
        self._draw_reaction = self._draw_matched
        self._aim()

    @property
    def estimate_ms(self) -> float:
        """The people's median reaction as it estimates it now."""
        return self.tracker.median

    def notice(self, events: Sequence[Event], people: Collection[int]) -> None:
        """Learn the people's reaction times from the races settled in ``events``.

        ``people`` are the seats played by people; seats seen leaving the game
        (eliminated, or safe in Irish Snap) no longer count.
        """
        tracker = self.tracker
        out = self._out
        learned = False
        for event in events:
            if not (
                isinstance(event, _RACE_RESULTS)
                or (isinstance(event, PickedUp) and event.reason == "last")
            ):
                continue
            reactions: Sequence[tuple[int, float | None]] = event.reactions
            seen = {s: r for s, r in reactions if r is not None}
            if not seen:
                continue
            fastest, slowest = min(seen.values()), max(seen.values())
            # The race stayed open at least this long after its best slap: slaps
            # that late have been listed before. A person not listed is slower.
            gaps = self._gaps
            gaps.append(slowest - fastest)
            bound = max(slowest, fastest + max(gaps))
            racing = set(seen)
            for seat in people:
                if seat in out:
                    continue
                racing.add(seat)
                learned = True
                reaction = seen.get(seat)
                if reaction is not None:
                    tracker.observe(reaction)
                else:
                    tracker.censored(bound)
            self.field_size = max(2, len(racing))
        for event in events:
            if isinstance(event, Eliminated | Finished):
                out.add(event.seat)
        if learned:
            self._aim()

    def _aim(self) -> None:
        tracker = self.tracker
        self.aim_ms = tracker.median * fair_factor(self.field_size - 1, tracker.exact)

    def _draw_matched(self) -> float:
        scale = self.aim_ms
        unit = self._unit
        while True:
            x = unit() * scale
            if PHYSIOLOGICAL_FLOOR_MS <= x <= REACTION_CEILING_MS:
                return x
