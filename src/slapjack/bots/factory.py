"""``make_bot``: a bot of a level by name, with its own seeded generator."""

from __future__ import annotations

import math

from .base import BotError, UnknownBotLevel
from .human import MAX_PERSON_MS, MIN_PERSON_MS, PROFILES, HumanBot, person_profile
from .matched import MatchedBot

PERSON_PREFIX = "human:"
"""``human:<ms>``: a simulated person with that median reaction (for the simulator)."""


def make_bot(level: str, seed: int) -> HumanBot:
    """A bot of ``level`` with its own generator seeded by ``seed``.

    ``level`` is one of :data:`~slapjack.bots.LEVELS`, or ``human:<ms>`` for a
    simulated person whose median reaction is ``<ms>`` milliseconds (the
    simulator's stand-in for a player; see ``docs/bots.md``).
    """
    if isinstance(level, str) and level.startswith(PERSON_PREFIX):
        profile = person_profile(_person_median(level))
    else:
        found = PROFILES.get(level) if isinstance(level, str) else None
        if found is None:
            raise UnknownBotLevel(
                f"unknown bot level {level!r}; levels: {', '.join(PROFILES)}"
                f" (or {PERSON_PREFIX}<ms> for a simulated person)",
                code="unknown_bot_level",
            )
        profile = found
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BotError(f"a bot seed is a whole number, got {seed!r}", code="bad_bot_seed")
    if profile.level == "matched":
        return MatchedBot(profile, seed)
    return HumanBot(profile, seed)


def level_name(level: str) -> str:
    """``level`` as the simulator names it: a simulated person's median in its
    shortest form (``human:180.0`` and ``human:180`` are one level, ``human:180``),
    any other level as it is. Raises :class:`UnknownBotLevel` for a bad person."""
    if level.startswith(PERSON_PREFIX):
        return f"{PERSON_PREFIX}{_person_median(level):g}"
    return level


def _person_median(level: str) -> float:
    text = level[len(PERSON_PREFIX) :]
    try:
        median = float(text)
    except ValueError:
        median = math.nan
    if not (math.isfinite(median) and MIN_PERSON_MS <= median <= MAX_PERSON_MS):
        raise UnknownBotLevel(
            f"{level!r}: a simulated person is {PERSON_PREFIX}<ms> with a median reaction"
            f" from {MIN_PERSON_MS:g} to {MAX_PERSON_MS:g} ms, e.g. {PERSON_PREFIX}400",
            code="unknown_bot_level",
        )
    return median
