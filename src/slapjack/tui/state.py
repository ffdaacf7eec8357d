"""What the terminal game's widgets draw: one immutable :class:`TableState`
per change, published by the local game's controller and by the online
client alike (so one set of widgets draws both), and the log they keep."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from slapjack.core import Event, View
from slapjack.core.events import (
    Eliminated,
    Finished,
    Forfeit,
    GameOver,
    NoSlap,
    PickedUp,
    PileReturned,
    PileSplit,
    RaceTied,
    RaceWon,
    TimeIsUp,
    WrongSlap,
)

from .config import SeatSpec

LOG_SIZE: Final = 300


@dataclass(frozen=True, slots=True)
class Note:
    """A line the app adds to the log itself (an i18n key and its values)."""

    key: str
    values: tuple[tuple[str, object], ...] = ()


LogItem = Event | Note

RESULT_EVENTS: Final = (
    RaceWon,
    RaceTied,
    PileSplit,
    Forfeit,
    NoSlap,
    PickedUp,
    PileReturned,
    WrongSlap,
    Eliminated,
    Finished,
    TimeIsUp,
    GameOver,
)


def log_events(
    log: list[LogItem], events: Sequence[LogItem]
) -> tuple[tuple[LogItem, ...], tuple[tuple[int, float | None], ...]]:
    """Append ``events`` (and notes among them) to ``log`` (keeping its last
    :data:`LOG_SIZE` items); the race results among them and the last reaction
    times they carry."""
    results: list[LogItem] = []
    reactions: tuple[tuple[int, float | None], ...] = ()
    for event in events:
        log.append(event)
        if isinstance(event, RESULT_EVENTS):
            results.append(event)
        reactions = tuple(getattr(event, "reactions", ())) or reactions
    if len(log) > LOG_SIZE:
        del log[: len(log) - LOG_SIZE]
    return tuple(results), reactions


@dataclass(frozen=True, slots=True)
class SeatStats:
    """What the end screen shows per seat besides its cards."""

    jacks: int = 0
    pickups: int = 0
    fastest: float | None = None
    wrong: int = 0


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything a widget may draw. Immutable; a new one comes with every change."""

    view: View
    seats: tuple[SeatSpec, ...]
    log: tuple[LogItem, ...]
    banner: tuple[LogItem, ...]
    """The latest result (race, penalty, pick-up, someone out), shown large."""
    reactions: tuple[tuple[int, float | None], ...]
    """The reaction times of the latest race, fastest first."""
    turn_deadline_ms: float | None
    """When the idle flip comes for the human on turn (controller time)."""
    end_ms: float | None
    """When the time limit is up (controller time)."""
    cue: int
    """Counts cards shown and reslap rounds; the app reports it back via ``shown``."""
    shown: bool
    stats: tuple[SeatStats, ...]
    seed: int | None
    saved_to: str | None
    serial: int = 0
