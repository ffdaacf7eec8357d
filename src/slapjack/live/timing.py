"""How long a live table waits for things: one validated set of timings.

The server's rooms, the terminal game and the simulator all run the same
:class:`~slapjack.live.table.LiveTable` with a :class:`LiveTiming`; the
defaults are the served game's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Final, Literal

from slapjack.core import SlapjackError

MAX_ROUNDS: Final = 3
"""Rounds of one race: the first and at most two reslap rounds after exact ties."""
BOT_FLINCH_LIMIT_MS: Final = 10_000.0
"""A bot's slap on a card that is no race is dropped if it would come later than this."""

Tempo = Literal["turn_timer", "fixed"]


class TimingError(SlapjackError):
    """A timing that a live table cannot run with."""

    code = "bad_timing"


@dataclass(frozen=True, slots=True)
class LiveTiming:
    """The live table's waits, in milliseconds of game time."""

    jack_timeout_ms: float = 2500.0
    """A race nobody slaps closes this long after its cue was shown (the Jack
    stays buried); a race somebody slapped closes earlier, see the referee's window."""
    irish_timeout_ms: float = 3000.0
    """Irish Snap: a match closes this long after it was shown if not every
    player slapped; whoever has not is later than everyone who did."""
    deadlock_ms: float = 800.0
    """Nobody can flip: the pile goes back this long after (the engine's rule)."""
    call_wait_ms: float = 350.0
    """Say-it: a slap on an open race without its call waits this long for it."""
    turn_ms: float | None = 5000.0
    """An idle human on turn is flipped for after this long (``None``: never).
    Under ``tempo="fixed"`` every seat flips after this long."""
    tempo: Tempo = "turn_timer"
    bot_pace: float = 1.0
    """Bots' flip delays are multiplied by this (tests use small values)."""
    bots_only_pace: float = 0.2
    """Once every human at the table is out, the bots' flip delays are
    multiplied by this too: the rest plays out quickly."""
    max_bot_flip_ms: float = 10_000.0
    """A bot never takes longer than this to flip (a bad bot cannot stall a table)."""
    result_pause_ms: float = 0.0
    """After a race result or a penalty, the next flip waits at least this long."""
    grace_ms: float = 15_000.0
    """A human seat without a connection is covered by a bot after this long."""
    cover_level: str = "casual"
    """The level of the bot that covers an absent or departed human."""
    max_rounds: int = MAX_ROUNDS
    """Rounds of one race under ``tie=reslap``; a tie in the last is decided by seat order."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("tempo", "cover_level", "max_rounds") or value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TimingError(f"{f.name} must be a number of milliseconds, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise TimingError(f"{f.name} must be a finite number >= 0, got {value!r}")
        if self.tempo not in ("turn_timer", "fixed"):
            raise TimingError(f"tempo must be turn_timer or fixed, got {self.tempo!r}")
        if self.tempo == "fixed" and not self.turn_ms:
            raise TimingError("a fixed tempo needs turn_ms > 0")
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int):
            raise TimingError(f"max_rounds must be a whole number, got {self.max_rounds!r}")
        if self.max_rounds < 1:
            raise TimingError(f"max_rounds must be at least 1, got {self.max_rounds}")
        if not isinstance(self.cover_level, str) or not self.cover_level:
            raise TimingError(f"cover_level must be a bot level, got {self.cover_level!r}")
