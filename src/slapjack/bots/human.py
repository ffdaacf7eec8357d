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

from .base import BotError, SlapIntent, UnknownBotLevel


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


_IRISH = GameKind.IRISH_SNAP

PHYSIOLOGICAL_FLOOR_MS = 100.0
"""Faster reactions count as anticipation (RULES.md section 4); bots never draw them."""

PROFILES: dict[str, Profile] = {
    "beginner": Profile(
        level="beginner",
        reaction=ExGaussian(290.0, 45.0, 120.0, floor=PHYSIOLOGICAL_FLOOR_MS, ceiling=3000.0),
        flip_delay=ExGaussian(450.0, 80.0, 300.0, floor=200.0, ceiling=5000.0),
        lapse=0.07,
        flinch=0.08,
        forget_call=0.15,
    ),
    "casual": Profile(
        level="casual",
        reaction=ExGaussian(240.0, 30.0, 70.0, floor=PHYSIOLOGICAL_FLOOR_MS, ceiling=3000.0),
        flip_delay=ExGaussian(380.0, 60.0, 180.0, floor=200.0, ceiling=5000.0),
        lapse=0.03,
        flinch=0.03,
        forget_call=0.05,
    ),
    "pro": Profile(
        level="pro",
        reaction=ExGaussian(200.0, 20.0, 40.0, floor=PHYSIOLOGICAL_FLOOR_MS, ceiling=3000.0),
        flip_delay=ExGaussian(300.0, 40.0, 100.0, floor=200.0, ceiling=5000.0),
        lapse=0.01,
        flinch=0.005,
        forget_call=0.01,
    ),
    "perfect": Profile(
        level="perfect",
        reaction=ExGaussian(180.0),
        flip_delay=ExGaussian(500.0),
    ),
}
"""The bot levels, from slowest to fastest; ``perfect`` is deterministic."""


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


def make_bot(level: str, seed: int) -> HumanBot:
    """A bot of ``level`` (one of :data:`LEVELS`) with its own generator seeded by ``seed``."""
    profile = PROFILES.get(level) if isinstance(level, str) else None
    if profile is None:
        raise UnknownBotLevel(
            f"unknown bot level {level!r}; levels: {', '.join(PROFILES)}", code="unknown_bot_level"
        )
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BotError(f"a bot seed is a whole number, got {seed!r}", code="bad_bot_seed")
    return HumanBot(profile, seed)
