"""How a room turns a slap that arrived over the network into a reaction time.

A room owns one :class:`Referee`. It tells the referee what it sent and when
(clock-sync pings, the cards it showed to each seat) and what arrived and when
(pongs, slaps); for each slap the referee returns the reaction time the engine
ranks by, and it says how long a slap race stays open.

All times given to a referee are the server's monotonic clock in milliseconds
(``now_ms``); ``client_time_ms``, ``shown_at`` and ``input_at`` are the client's
own clock (``performance.now()`` in a browser) and only comparable with each
other.

The room uses the referee like this (``room.py``):

* ``on_card_sent(seat, flip_id, now_ms)`` for every seat the moment the frame
  carrying flip ``flip_id`` is queued for it (bots included: a bot "sees" the
  card at that moment).
* ``bound_reaction(...)`` for every slap on an open race, when it arrives.
  Slaps from server-side bots pass ``shown_at=0``, ``input_at=claimed_ms``.
* A race on a Jack (or an Irish Snap match) stays open until ``window_ms(seats)``
  after the *first* slap of the race arrived, or until every seat that may slap
  has slapped, or until the room's no-slap timeout; then the engine settles it.
  ``seats`` are the seats still allowed to slap in that race.

:class:`ArrivalReferee` is the naive baseline (arrival order decides). The fair
referee of issue 5 lives in ``fair.py`` and implements the same protocol; pick
one with :func:`referee_factory`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Protocol

REFEREES = ("fair", "arrival")

SETTING_RANGES: dict[str, tuple[float, float]] = {
    "floor_ms": (0.0, 500.0),
    "resolution_ms": (0.1, 100.0),
}
"""What ``--anticipation-floor-ms`` and ``--tie-resolution-ms`` accept (ms)."""


class Referee(Protocol):
    """The timing authority of one room."""

    def on_ping_sent(self, seat: int, ping_id: int, now_ms: float) -> None:
        """A clock-sync ``ping`` with ``ping_id`` was sent to ``seat``."""
        ...

    def on_pong(self, seat: int, ping_id: int, client_time_ms: float, now_ms: float) -> None:
        """``seat`` answered ``ping_id``; its clock read ``client_time_ms`` when it did."""
        ...

    def on_card_sent(self, seat: int, flip_id: int, now_ms: float) -> None:
        """The card of flip ``flip_id`` was sent to ``seat``."""
        ...

    def on_disconnect(self, seat: int) -> None:
        """``seat``'s connection closed (its timing history may be dropped)."""
        ...

    def on_transport_rtt(
        self,
        seat: int,
        srtt_ms: float,
        rttvar_ms: float,
        min_rtt_ms: float | None,
        now_ms: float,
    ) -> None:
        """The kernel's TCP round-trip estimate for ``seat``'s connection (Linux
        ``TCP_INFO``; read by the server after each pong where it terminates TCP)."""
        ...

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
        """How long a race stays open after its first slap arrived."""
        ...


class ArrivalReferee:
    """The naive referee: a slap's reaction is its arrival time minus the time
    the server sent that seat the card. Whoever's packet arrives first wins,
    which favours the better network (kept as the baseline of issue 5)."""

    def __init__(self, window: float = 500.0) -> None:
        self._window = window
        self._sent: dict[int, tuple[int, float]] = {}

    def on_ping_sent(self, seat: int, ping_id: int, now_ms: float) -> None:
        return None

    def on_pong(self, seat: int, ping_id: int, client_time_ms: float, now_ms: float) -> None:
        return None

    def on_card_sent(self, seat: int, flip_id: int, now_ms: float) -> None:
        self._sent[seat] = (flip_id, now_ms)

    def on_disconnect(self, seat: int) -> None:
        return None

    def on_transport_rtt(
        self,
        seat: int,
        srtt_ms: float,
        rttvar_ms: float,
        min_rtt_ms: float | None,
        now_ms: float,
    ) -> None:
        return None

    def bound_reaction(
        self,
        seat: int,
        flip_id: int,
        claimed_ms: float,
        shown_at: float | None,
        input_at: float | None,
        now_ms: float,
    ) -> float:
        sent = self._sent.get(seat)
        if sent is None or sent[0] != flip_id:
            return max(0.0, claimed_ms)
        return max(0.0, now_ms - sent[1])

    def window_ms(self, seats: Sequence[int]) -> float:
        return self._window


class TrustingReferee(ArrivalReferee):
    """Takes every claimed reaction as it is. For tests only (a modified client
    could claim anything): reachable only through the app's test hooks."""

    def bound_reaction(
        self,
        seat: int,
        flip_id: int,
        claimed_ms: float,
        shown_at: float | None,
        input_at: float | None,
        now_ms: float,
    ) -> float:
        return max(0.0, claimed_ms)


RefereeFactory = Callable[[], Referee]


def referee_factory(
    name: str | None = None,
    *,
    floor_ms: float | None = None,
    resolution_ms: float | None = None,
) -> RefereeFactory:
    """The factory for ``--referee fair|arrival``. ``None`` means the default, ``fair``.

    ``floor_ms`` (the anticipation floor) and ``resolution_ms`` (bounded
    reactions closer than this are a tie) are the fair referee's settings
    (``None``: its defaults); a ``ValueError`` says when they are out of range
    or given to a referee that has no such setting."""
    if name is None:
        name = "fair"
    settings = {
        key: value
        for key, value in (("floor_ms", floor_ms), ("resolution_ms", resolution_ms))
        if value is not None
    }
    if name == "arrival":
        if settings:
            raise ValueError(
                f"the arrival referee ranks arrival times; {', '.join(settings)} "
                "is a setting of the fair referee"
            )
        return ArrivalReferee
    if name == "fair":
        from . import fair

        factory: RefereeFactory = fair.FairReferee
        if not settings:
            return factory
        for key, (low, high) in SETTING_RANGES.items():
            value = settings.get(key)
            if value is not None and not low <= value <= high:
                raise ValueError(f"{key} must be within {low:g}..{high:g} ms, got {value!r}")
        config = fair.FairConfig(**settings)  # ValueError for a bad value
        return functools.partial(fair.FairReferee, config)
    raise ValueError(f"unknown referee {name!r}; referees: {', '.join(REFEREES)}")
