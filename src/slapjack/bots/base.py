"""The interface every bot implements. Bots decide only from ``observe()``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from slapjack.core import View


@dataclass(frozen=True, slots=True)
class SlapIntent:
    """A bot's decision to slap ``reaction_ms`` after the card was shown."""

    reaction_ms: float
    call: bool = False


class Bot(Protocol):
    """A player model. ``react`` is called once for every newly shown top card
    (right after a flip) and once when a reslap round opens for its seat."""

    level: str

    def react(self, view: View) -> SlapIntent | None:
        """Slap the top card of ``view`` after some reaction time, or not at all."""
        ...

    def flip_delay_ms(self, view: View) -> float:
        """How long after its turn comes the bot flips."""
        ...
