"""What happened at a table, counted per seat from its events.

The simulator's results and the terminal game's end screen both count with a
:class:`Tally`, so "a Jack won" or "a wrong slap" means the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import filterfalse

from slapjack.core import Event
from slapjack.core.events import (
    Flipped,
    Forfeit,
    NoSlap,
    PickedUp,
    PileSplit,
    RaceTied,
    RaceWon,
    Slapped,
    TimeIsUp,
    WrongSlap,
)
from slapjack.core.timing import FALSE_START_OFFSET_MS

_is_flipped = Flipped.__instancecheck__
"""Most events are flips, which count for nothing: they are passed over in C."""


class Tally:
    """Counts per seat (lists indexed by seat) and per table."""

    __slots__ = (
        "fastest",
        "forfeits",
        "jacks",
        "no_slaps",
        "pickups",
        "shares",
        "splits",
        "ties",
        "time_up",
        "wrong",
        "wrong_pickups",
    )

    def __init__(self, n: int) -> None:
        self.jacks = [0] * n
        """Races won outright (a Jack; the whole pile)."""
        self.shares = [0] * n
        """Piles shared after an exact tie under ``tie=split``."""
        self.wrong = [0] * n
        """Slaps on a card that must not be slapped (each paid for)."""
        self.forfeits = [0] * n
        """Say-it: races lost by a slap without the call."""
        self.pickups = [0] * n
        """Irish Snap: piles picked up for being last on a match."""
        self.wrong_pickups = [0] * n
        """Irish Snap: piles picked up for a wrong slap."""
        self.fastest: list[float | None] = [None] * n
        """The fastest real reaction (no false start) of each seat's slaps in races."""
        self.ties = 0
        """Reslap rounds opened by an exact tie."""
        self.splits = 0
        self.no_slaps = 0
        """Jacks nobody slapped."""
        self.time_up = False

    def count(self, events: Iterable[Event]) -> None:
        false_start = FALSE_START_OFFSET_MS
        for ev in filterfalse(_is_flipped, events):
            kind = type(ev)
            if kind is Slapped:
                assert isinstance(ev, Slapped)
                r = ev.reaction_ms
                best = self.fastest[ev.seat]
                if not r >= false_start and (best is None or r < best):  # no false start
                    self.fastest[ev.seat] = r
            elif kind is RaceWon:
                assert isinstance(ev, RaceWon)
                self.jacks[ev.winner] += 1
            elif kind is WrongSlap:
                assert isinstance(ev, WrongSlap)
                self.wrong[ev.seat] += 1
            elif kind is PickedUp:
                assert isinstance(ev, PickedUp)
                if ev.reason == "last":
                    self.pickups[ev.seat] += 1
                else:
                    self.wrong_pickups[ev.seat] += 1
            elif kind is Forfeit:
                assert isinstance(ev, Forfeit)
                if ev.reactions:
                    self.forfeits[ev.seat] += 1
                else:
                    self.wrong[ev.seat] += 1  # a wrong slap under say-it
            elif kind is NoSlap:
                self.no_slaps += 1
            elif kind is RaceTied:
                self.ties += 1
            elif kind is PileSplit:
                assert isinstance(ev, PileSplit)
                self.splits += 1
                for seat, _ in ev.shares:
                    self.shares[seat] += 1
            elif kind is TimeIsUp:
                self.time_up = True
