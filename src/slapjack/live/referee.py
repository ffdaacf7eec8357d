"""How a live table ranks the slaps of a race: the referee it is given.

A :class:`LiveTable` asks its referee two things: the reaction time a slap is
ranked by (:meth:`RacePolicy.bound_reaction`) and how long a race stays open
after its first slap (:meth:`RacePolicy.window_ms`). Everything a referee
learns from the network (pings, pongs, the kernel's round trips) reaches it
from its host; the server's fair referee (``slapjack.server.fair``) and the
arrival baseline implement this protocol and more.

:class:`LocalReferee` is the referee of a table whose inputs are local: the
terminal game and the simulator. It takes each measured reaction as it is and
ranks a reaction below the anticipation floor as a false start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from slapjack.core.timing import ANTICIPATION_FLOOR_MS, ranked_reaction


class RacePolicy(Protocol):
    """What a live table needs of its referee. Times are the host's clock in ms."""

    def bound_reaction(
        self,
        seat: int,
        flip_id: int,
        claimed_ms: float,
        shown_at: float | None,
        input_at: float | None,
        now_ms: float,
    ) -> float:
        """The reaction time (ms, >= 0) the race ranks ``seat``'s slap by."""
        ...

    def window_ms(self, seats: Sequence[int]) -> float:
        """How long a race stays open after its first slap came in."""
        ...


class LocalReferee:
    """Measured reactions as they are; below ``floor_ms`` a false start.

    ``window_ms``: the race stays open this long after its first slap, for a
    key that is on its way (local input is handled a moment after it came).
    """

    __slots__ = ("_floor", "_window")

    def __init__(self, window_ms: float = 150.0, floor_ms: float = ANTICIPATION_FLOOR_MS) -> None:
        if not (window_ms >= 0 and floor_ms >= 0):
            raise ValueError("window_ms and floor_ms must be >= 0")
        self._window = float(window_ms)
        self._floor = float(floor_ms)

    def bound_reaction(
        self,
        seat: int,
        flip_id: int,
        claimed_ms: float,
        shown_at: float | None,
        input_at: float | None,
        now_ms: float,
    ) -> float:
        return ranked_reaction(max(0.0, claimed_ms), self._floor)

    def window_ms(self, seats: Sequence[int]) -> float:
        return self._window
