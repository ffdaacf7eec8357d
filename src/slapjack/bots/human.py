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

from slapjack.core import JACK, KING, QUEEN, Card, Rules, View

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
        """One draw, using only ``rng``."""
        return self.sampler(rng)()

    def sampler(self, rng: random.Random) -> Callable[[], float]:
        """A function that draws from this distribution with ``rng`` (the same
        numbers as repeated :meth:`draw` calls; faster when called often)."""
        mu, sigma, tau, floor, ceiling = self.mu, self.sigma, self.tau, self.floor, self.ceiling
        if sigma == 0.0 and tau == 0.0:
            return lambda: mu
        gauss, expo = rng.gauss, rng.expovariate
        if tau == 0.0:

            def draw_normal() -> float:
                while True:
                    x = mu + gauss(0.0, sigma)
                    if floor <= x <= ceiling:
                        return x

            return draw_normal
        lam = 1.0 / tau
        if sigma == 0.0:

            def draw_exponential() -> float:
                while True:
                    x = mu + expo(lam)
                    if floor <= x <= ceiling:
                        return x

            return draw_exponential

        def draw_ex_gaussian() -> float:
            while True:
                x = mu + gauss(0.0, sigma) + expo(lam)
                if floor <= x <= ceiling:
                    return x

        return draw_ex_gaussian


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
    _draw_reaction: Callable[[], float] = field(init=False, repr=False)
    _draw_flip_delay: Callable[[], float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.level = self.profile.level
        self.rng = random.Random(self.seed)
        self._draw_reaction = self.profile.reaction.sampler(self.rng)
        self._draw_flip_delay = self.profile.flip_delay.sampler(self.rng)

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
        p = self.profile
        if rules.is_irish:
            if call is None:
                return False
            if rank == call:
                return True
            return p.flinch > 0.0 and (rank - call) % 13 in (1, 12)
        if rank == JACK:
            return True
        return p.flinch > 0.0 and rank in (QUEEN, KING)

    def react_card(self, top: Card, call: int | None, rules: Rules) -> SlapIntent | None:
        rank = top >> 2
        p = self.profile
        if rules.is_irish:
            if call is None:
                return None
            if rank == call:
                return self._go(rules)
            if p.flinch > 0.0 and (rank - call) % 13 in (1, 12):
                return self._flinch(rules)
            return None
        if rank == JACK:
            return self._go(rules)
        if p.flinch > 0.0 and rank in (QUEEN, KING):
            return self._flinch(rules)
        return None

    def next_flip_delay_ms(self) -> float:
        return self._draw_flip_delay()

    # -------------------------------------------------------------- internals

    def _reaction(self) -> float:
        x = self._draw_reaction()
        return float(round(x)) if self.profile.whole_ms else x

    def _call(self, rules: Rules) -> bool:
        if not rules.say_it:
            return False
        p = self.profile.forget_call
        return not (p > 0.0 and self.rng.random() < p)

    def _go(self, rules: Rules) -> SlapIntent | None:
        lapse = self.profile.lapse
        if lapse > 0.0 and self.rng.random() < lapse:
            return None
        return SlapIntent(self._reaction(), self._call(rules))

    def _flinch(self, rules: Rules) -> SlapIntent | None:
        if self.rng.random() >= self.profile.flinch:
            return None
        return SlapIntent(self._reaction(), self._call(rules))


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
