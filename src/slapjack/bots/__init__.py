"""Bots: human-like player models that decide only from what their seat sees.

``make_bot(level, seed)`` builds one; see ``docs/bots.md`` for the model.
"""

from __future__ import annotations

from typing import Final

from .base import Bot, BotError, FastBot, SlapIntent, UnknownBotLevel
from .human import PROFILES, ExGaussian, HumanBot, Profile, make_bot

LEVELS: Final[tuple[str, ...]] = ("beginner", "casual", "pro", "perfect")
"""Every bot level, slowest first; ``perfect`` is deterministic (for tests)."""

__all__ = [
    "LEVELS",
    "PROFILES",
    "Bot",
    "BotError",
    "ExGaussian",
    "FastBot",
    "HumanBot",
    "Profile",
    "SlapIntent",
    "UnknownBotLevel",
    "make_bot",
]
