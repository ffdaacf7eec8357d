"""The terminal game: Slapjack and Irish Snap against bots or friends on one keyboard.

Run it with ``slapjack tui``; see ``docs/tui.md``.
"""

from __future__ import annotations

from .app import SlapjackApp
from .clock import Clock, ManualClock, TextualClock
from .config import ConfigError, GameConfig, SeatSpec, Timing, default_seats
from .controller import GameController
from .state import TableState

__all__ = [
    "Clock",
    "ConfigError",
    "GameConfig",
    "GameController",
    "ManualClock",
    "SeatSpec",
    "SlapjackApp",
    "TableState",
    "TextualClock",
    "Timing",
    "default_seats",
]
