"""Server-side bots: ``slapjack.bots.make_bot`` when it is there.

If the bots package does not offer ``make_bot`` (it is written in parallel),
:class:`FallbackBot` stands in: it slaps every Jack (every Irish Snap match)
after a random human-like reaction and never slaps wrongly.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from slapjack.bots.base import Bot, SlapIntent
from slapjack.core import View

_MEAN_MS = {"beginner": 520.0, "casual": 380.0, "pro": 260.0, "perfect": 150.0}


class FallbackBot:
    """A plain reaction model used only when ``slapjack.bots.make_bot`` is missing."""

    def __init__(self, level: str, seed: int) -> None:
        self.level = level
        self._mean = _MEAN_MS.get(level, 380.0)
        self._rng = random.Random(seed)

    def react(self, view: View) -> SlapIntent | None:
        top = view.top
        if top is None:
            return None
        if view.rules.is_irish:
            if not view.is_match:
                return None
        elif top >> 2 != 10:
            return None
        reaction = max(110.0, self._rng.gauss(self._mean, self._mean * 0.18))
        return SlapIntent(reaction, call=view.rules.say_it)

    def flip_delay_ms(self, view: View) -> float:
        return self._rng.uniform(500.0, 1100.0)


def make_bot(level: str, seed: int) -> Bot:
    """A bot of ``level`` (beginner, casual, pro, perfect)."""
    try:
        module: Any = importlib.import_module("slapjack.bots")
        factory = module.make_bot
    except (ImportError, AttributeError):
        return FallbackBot(level, seed)
    bot: Bot = factory(level, seed)
    return bot
