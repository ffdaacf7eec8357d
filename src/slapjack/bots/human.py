"""Human-like bots: ex-Gaussian reaction times, lapses, flinches, forgotten calls.

The model and its parameters are described, with sources, in ``docs/bots.md``.
Every bot owns a seeded :class:`random.Random`; nothing here touches the global
generator, so a bot's decisions are reproducible from ``(level, seed)`` and the
views it was shown.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from slapjack.core import JACK, KING, QUEEN, Card, GameKind, Rules, View

from .base import SlapIntent


@dataclass(frozen=True, slots=True)
class ExGaussian:
    """An ex-Gaussian distribution: a Gaussian (``mu``, ``sigma``) plus an
    independent exponential with mean ``tau``, all in milliseconds.

    Draws below ``floor`` or above ``ceiling`` are drawn again (a truncated
    distribution). ``sigma = tau = 0`` gives the fixed value ``mu``.
    """

    mu: float
    sigma: float = 0.0
    tau: float = 0.0
    floor: float = 0.0
    ceiling: float = math.inf

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and self.sigma >= 0 and self.tau >= 0):
            raise ValueError(f"bad ex-Gaussian parameters: {self!r}")
        if not self.floor <= self.mu <= self.ceiling:
            raise ValueError(f"mu must lie between floor and ceiling: {self!r}")

    @property
    def mean(self) -> float:
        """The mean before truncation: ``mu + tau``."""
        return self.mu + self.tau

    @property
    def sd(self) -> float:
        """The standard deviation before truncation: ``sqrt(sigma² + tau²)``."""
        return math.hypot(self.sigma, self.tau)

    def pdf(self, x: float) -> float:
        """The density at ``x`` before truncation (``sigma`` and ``tau`` must be positive)."""
        mu, sigma, tau = self.mu, self.sigma, self.tau
        if sigma <= 0.0 or tau <= 0.0:
            raise ValueError("pdf needs sigma > 0 and tau > 0")
        exponent = sigma * sigma / (2.0 * tau * tau) - (x - mu) / tau
        if exponent > 700.0:
            z = (x - mu) / sigma
            return math.exp(-0.5 * z * z) / (sigma * math.sqrt(math.tau))
        return math.exp(exponent) * _phi((x - mu) / sigma - sigma / tau) / tau

    def cdf(self, x: float) -> float:
        """P(draw <= x) before truncation."""
        mu, sigma, tau = self.mu, self.sigma, self.tau
        if sigma == 0.0 and tau == 0.0:
            return 1.0 if x >= mu else 0.0
        if tau == 0.0:
            return _phi((x - mu) / sigma)
        if sigma == 0.0:
            return 0.0 if x < mu else -math.expm1(-(x - mu) / tau)
        z = (x - mu) / sigma
        exponent = -(x - mu) / tau + sigma * sigma / (2.0 * tau * tau)
        if exponent > 700.0:  # far in the left tail: the second term underflows with the first
            return _phi(z)
        return max(0.0, _phi(z) - math.exp(exponent) * _phi(z - sigma / tau))

    @property
    def median(self) -> float:
        """The median before truncation (found by bisection on :meth:`cdf`)."""
        lo = self.mu - 10.0 * self.sigma
        hi = self.mu + 10.0 * self.sigma + 10.0 * self.tau
        for _ in range(80):
            mid = (lo + hi) / 2.0
            if self.cdf(mid) < 0.5:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2.0

    @classmethod
    def with_median(
        cls,
        median: float,
        sigma: float,
        tau: float,
        *,
        floor: float = 0.0,
        ceiling: float = math.inf,
    ) -> ExGaussian:
        """The ex-Gaussian with spread ``sigma``, ``tau`` whose median is ``median``.

        The median of ``mu + X`` is ``mu + median(X)``, so ``mu`` is the target
        minus the median of the same shape at ``mu = 0``.
        """
        offset = cls(0.0, sigma, tau, floor=-math.inf).median
        return cls(median - offset, sigma, tau, floor=floor, ceiling=ceiling)

    def draw(self, rng: random.Random) -> float:
        """One draw, using only ``rng`` (for many draws use :meth:`sampler`)."""
        return self.sampler(rng)()

    def sampler(self, rng: random.Random) -> Callable[[], float]:
        """A function that draws from this distribution using only ``rng``.

        The Gaussian part is Box-Muller (as :meth:`random.Random.gauss`, whose
        second value is kept for the next draw), the exponential part is
        ``-tau * log(1 - u)`` (as :meth:`random.Random.expovariate`); both are
        written out here because bots draw once per flip in the simulator.
        """
        mu, sigma, tau, floor, ceiling = self.mu, self.sigma, self.tau, self.floor, self.ceiling
        if sigma == 0.0 and tau == 0.0:
            return lambda: mu
        uniform = rng.random
        log, sqrt, cos, sin, two_pi = math.log, math.sqrt, math.cos, math.sin, math.tau
        spare: float | None = None

        def draw() -> float:
            nonlocal spare
            while True:
                x = mu
                if sigma:
                    z = spare
                    if z is None:
                        angle = uniform() * two_pi
                        radius = sqrt(-2.0 * log(1.0 - uniform()))
                        z = cos(angle) * radius
                        spare = sin(angle) * radius
                    else:
                        spare = None
                    x += z * sigma
                if tau:
                    x -= tau * log(1.0 - uniform())
                if floor <= x <= ceiling:
                    return x

        return draw


@dataclass(frozen=True, slots=True)
class Profile:
    """Everything that makes one bot level: reaction and flip-delay models and
    the probabilities of its mistakes (each per opportunity)."""

    level: str
    reaction: ExGaussian
    """Time from a card being shown to the slap, for a card the bot means to slap."""
    flip_delay: ExGaussian
    """Time from the turn coming to the bot until it flips."""
    lapse: float = 0.0
    """Chance of not slapping at all when it should (a Jack; an Irish Snap match)."""
    flinch: float = 0.0
    """Chance of slapping a look-alike: a Queen or King in Slapjack; in Irish Snap
    a card one rank before or after the call."""
    forget_call: float = 0.0
    """Say-it: chance of slapping without the "Slapjack!" call."""
    whole_ms: bool = True
    """Report reactions in whole milliseconds, as a browser client does (ties happen)."""

    def __post_init__(self) -> None:
        for name in ("lapse", "flinch", "forget_call"):
            p = getattr(self, name)
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must be a probability, got {p!r}")


def _phi(z: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


_IRISH = GameKind.IRISH_SNAP

PHYSIOLOGICAL_FLOOR_MS = 100.0
"""Faster reactions count as anticipation (RULES.md section 4); bots never draw them."""

REACTION_CEILING_MS = 3000.0
"""Slower draws are drawn again (a room's slap window is shorter anyway)."""

SIGMA_PER_MS = 0.09
"""``sigma`` of a person's go/no-go reaction times as a share of their median
(ex-Gaussian fit to browser go/no-go data, ``docs/bots.md``)."""
TAU_PER_MS = 0.13
"""``tau`` as a share of the median (the same fit)."""

TYPICAL_MEDIAN_MS = 425.0
"""The median person's median go/no-go reaction in a browser (``docs/bots.md``):
the ``casual`` level and the prior of ``matched``."""

MIN_PERSON_MS = 150.0
MAX_PERSON_MS = 1500.0
"""The medians a person-like reaction model may have."""


def person_reaction(median_ms: float) -> ExGaussian:
    """A person's reaction-time model with median ``median_ms``: the ex-Gaussian
    shape of browser go/no-go data (``sigma``, ``tau`` in proportion to the median)."""
    if not MIN_PERSON_MS <= median_ms <= MAX_PERSON_MS:
        raise ValueError(
            f"a median reaction must lie between {MIN_PERSON_MS:g} and {MAX_PERSON_MS:g} ms,"
            f" got {median_ms!r}"
        )
    return ExGaussian.with_median(
        median_ms,
        SIGMA_PER_MS * median_ms,
        TAU_PER_MS * median_ms,
        floor=PHYSIOLOGICAL_FLOOR_MS,
        ceiling=REACTION_CEILING_MS,
    )


_CASUAL_FLIPS = ExGaussian(380.0, 60.0, 180.0, floor=200.0, ceiling=5000.0)

PROFILES: dict[str, Profile] = {
    "beginner": Profile(
        level="beginner",
        reaction=person_reaction(470.0),
        flip_delay=ExGaussian(450.0, 80.0, 300.0, floor=200.0, ceiling=5000.0),
        lapse=0.06,
        flinch=0.08,
        forget_call=0.15,
    ),
    "casual": Profile(
        level="casual",
        reaction=person_reaction(TYPICAL_MEDIAN_MS),
        flip_delay=_CASUAL_FLIPS,
        lapse=0.03,
        flinch=0.04,
        forget_call=0.05,
    ),
    "pro": Profile(
        level="pro",
        reaction=person_reaction(350.0),
        flip_delay=ExGaussian(300.0, 40.0, 100.0, floor=200.0, ceiling=5000.0),
        lapse=0.01,
        flinch=0.01,
        forget_call=0.01,
    ),
    "matched": Profile(
        level="matched",
        reaction=person_reaction(TYPICAL_MEDIAN_MS),  # the prior; see bots/matched.py
        flip_delay=_CASUAL_FLIPS,
        lapse=0.03,
        flinch=0.04,
        forget_call=0.05,
    ),
    "perfect": Profile(
        level="perfect",
        reaction=ExGaussian(180.0),
        flip_delay=ExGaussian(500.0),
    ),
}
"""The bot levels: ``beginner`` < ``casual`` < ``pro`` in skill; ``matched`` plays
at the speed of the people at the table (its reaction model here is its prior);
``perfect`` is deterministic (for tests)."""


def person_profile(median_ms: float) -> Profile:
    """A simulated person with median reaction ``median_ms`` (level ``human:<ms>``):
    the spread of :func:`person_reaction` and the mistakes and flips of ``casual``."""
    casual = PROFILES["casual"]
    return Profile(
        level=f"human:{median_ms:g}",
        reaction=person_reaction(median_ms),
        flip_delay=casual.flip_delay,
        lapse=casual.lapse,
        flinch=casual.flinch,
        forget_call=casual.forget_call,
    )


@dataclass(slots=True)
class HumanBot:
    """A bot that plays like a person of its :class:`Profile`.

    It implements :class:`~slapjack.bots.base.Bot` (decisions from a
    :class:`~slapjack.core.View`) and the simulator's fast path
    :class:`~slapjack.bots.base.FastBot` (the same decision from the top card,
    the call and the rules, which are fields of that view).
    """

    profile: Profile
    seed: int
    level: str = field(init=False)
    rng: random.Random = field(init=False, repr=False)
    next_flip_delay_ms: Callable[[], float] = field(init=False, repr=False)
    """``flip_delay_ms`` without a view (the delay does not depend on it)."""
    _draw_reaction: Callable[[], float] = field(init=False, repr=False)
    _uniform: Callable[[], float] = field(init=False, repr=False)
    _lapse: float = field(init=False, repr=False)
    _flinch: float = field(init=False, repr=False)
    _forget: float = field(init=False, repr=False)
    _whole_ms: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        p = self.profile
        self.level = p.level
        self.rng = random.Random(self.seed)
        self._uniform = self.rng.random
        self._draw_reaction = p.reaction.sampler(self.rng)
        self.next_flip_delay_ms = p.flip_delay.sampler(self.rng)
        self._lapse, self._flinch, self._forget = p.lapse, p.flinch, p.forget_call
        self._whole_ms = p.whole_ms

    @property
    def decision_key(self) -> tuple[str, bool]:
        """Bots with equal keys answer :meth:`might_slap` alike (lets callers cache it)."""
        return ("human", self._flinch > 0.0)

    # ----------------------------------------------------------- Bot protocol

    def react(self, view: View) -> SlapIntent | None:
        seat = view.seat
        if seat is None or view.over or view.out[seat]:
            return None
        top = view.top
        if top is None:
            return None
        if view.reslap_among is not None:
            # A reslap round: a fresh cue for the tied players, nobody else.
            return self._go(view.rules) if seat in view.reslap_among else None
        return self.react_card(top, view.top_call, view.rules)

    def flip_delay_ms(self, view: View) -> float:
        return self.next_flip_delay_ms()

    # ------------------------------------------------------ FastBot protocol

    def might_slap(self, rank: int, call: int | None, rules: Rules) -> bool:
        if rules.game is _IRISH:
            if call is None:
                return False
            if rank == call:
                return True
            return self._flinch > 0.0 and (rank - call) % 13 in (1, 12)
        if rank == JACK:
            return True
        return self._flinch > 0.0 and rank in (QUEEN, KING)

    def react_card(self, top: Card, call: int | None, rules: Rules) -> SlapIntent | None:
        rank = top >> 2
        if rules.game is _IRISH:
            if call is None:
                return None
            if rank == call:
                cue = True
            elif self._flinch > 0.0 and (rank - call) % 13 in (1, 12):
                cue = False  # a neighbour of the call: a look-alike
            else:
                return None
        elif rank == JACK:
            cue = True
        elif rank > JACK and self._flinch > 0.0:
            cue = False  # a Queen or a King: a look-alike
        else:
            return None
        uniform = self._uniform
        if cue:
            if self._lapse > 0.0 and uniform() < self._lapse:
                return None  # attention lapsed
        elif uniform() >= self._flinch:
            return None  # no flinch this time
        # (_slap, written out: this runs for every bot on every Jack in the simulator)
        reaction = self._draw_reaction()
        if self._whole_ms:
            reaction = float(round(reaction))
        if not rules.say_it:
            return SlapIntent(reaction, False)
        forget = self._forget
        return SlapIntent(reaction, not (forget > 0.0 and uniform() < forget))

    # -------------------------------------------------------------- internals

    def _go(self, rules: Rules) -> SlapIntent | None:
        """The cue is right: slap, unless attention lapses."""
        lapse = self._lapse
        if lapse > 0.0 and self._uniform() < lapse:
            return None
        return self._slap(rules)

    def _slap(self, rules: Rules) -> SlapIntent:
        reaction = self._draw_reaction()
        if self._whole_ms:
            reaction = float(round(reaction))
        if not rules.say_it:
            return SlapIntent(reaction, False)
        forget = self._forget
        return SlapIntent(reaction, not (forget > 0.0 and self._uniform() < forget))
