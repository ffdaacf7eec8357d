"""Actions: everything that can happen to a game comes in as one of these.

``t`` is milliseconds since the start of the game. It arrives as data: the
engine never reads a clock, it only checks that time does not run backwards.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Flip:
    """The player on turn turns their top card onto the centre pile."""

    seat: int
    t: int = 0


@dataclass(frozen=True, slots=True)
class Slap:
    """A slap on the current top card, ``reaction_ms`` after it was shown to that seat.

    ``call`` is the "Slapjack!" call of the say-it variant.
    """

    seat: int
    reaction_ms: float
    call: bool = False
    t: int = 0


@dataclass(frozen=True, slots=True)
class TimeUp:
    """The agreed time limit is reached now."""

    t: int = 0


@dataclass(frozen=True, slots=True)
class Settle:
    """Close the current slap window, or resolve a table nobody can flip on.

    A live table decides when (its timers); the decision is recorded, so a
    restart or a replay settles at exactly the same point. Records written
    before settles were recorded settle implicitly (see docs/records.md).

    With ``final=False`` an exact tie under ``tie=reslap`` opens a new round for
    the tied players; with ``final=True`` an unresolved tie falls back to seat
    order (see docs/rules.en.md).
    """

    final: bool = True
    t: int = 0


Action = Flip | Slap | TimeUp | Settle
