"""Bots: human-like player models that decide only from what their seat sees.

``make_bot(level, seed)`` builds one; see ``docs/bots.md`` for the model.
"""

from __future__ import annotations

from typing import Final

from .base import (
    Bot,
    BotError,
    FastBot,
    Noticing,
    SlapIntent,
    UnknownBotLevel,
    notice_bots,
)
from .factory import PERSON_PREFIX, make_bot
from .human import (
    PROFILES,
    TYPICAL_MEDIAN_MS,
    ExGaussian,
    HumanBot,
    Profile,
    person_profile,
    person_reaction,
)
from .matched import MatchedBot, MedianTracker

LEVELS: Final[tuple[str, ...]] = ("beginner", "casual", "pro", "matched", "perfect")
"""Every bot level: ``beginner`` < ``casual`` < ``pro`` in skill, ``matched``
(plays at the people's speed), ``perfect`` (deterministic, for tests)."""

__all__ = [
    "LEVELS",
    "PERSON_PREFIX",
    "PROFILES",
    "TYPICAL_MEDIAN_MS",
    "Bot",
    "BotError",
    "ExGaussian",
    "FastBot",
    "HumanBot",
    "MatchedBot",
    "MedianTracker",
    "Noticing",
    "Profile",
    "SlapIntent",
    "UnknownBotLevel",
    "make_bot",
    "notice_bots",
    "person_profile",
    "person_reaction",
]
