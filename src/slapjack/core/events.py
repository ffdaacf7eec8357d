"""Events: what an action did, in order.

Events carry only what every seat may know: face-up cards, counts and seats.
The identity of a card that moves face down (a penalty, a won pile) is never
in an event, so events can be broadcast as they are.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Flipped:
    """``seat`` turned ``card`` face up; in Irish Snap ``call`` is the rank called."""

    seat: int
    card: int
    call: int | None = None
    match: bool = False


@dataclass(frozen=True, slots=True)
class Slapped:
    """A slap joined the race on the top card (its outcome comes at settlement)."""

    seat: int
    reaction_ms: float
    call: bool = False


@dataclass(frozen=True, slots=True)
class WrongSlap:
    """``seat`` slapped a card it should not have.

    ``penalty`` is ``pay_player`` (a card to ``to``), ``pay_pile`` (a card under the
    centre), ``pickup`` (Irish Snap: the slapper takes the pile), ``forfeit``
    (say-it: the pile is shared out), or ``none`` (no card to pay).
    """

    seat: int
    penalty: str
    to: int | None = None


@dataclass(frozen=True, slots=True)
class RaceWon:
    """``winner`` was fastest on the Jack and took ``cards`` cards.

    ``reactions`` lists every seat's deciding reaction, fastest first.
    """

    winner: int
    cards: int
    reactions: tuple[tuple[int, float], ...]


@dataclass(frozen=True, slots=True)
class RaceTied:
    """An exact tie: ``seats`` slap again (tie=reslap)."""

    seats: tuple[int, ...]
    reaction_ms: float


@dataclass(frozen=True, slots=True)
class PileSplit:
    """The pile was dealt out among tied players: (seat, cards) in deal order."""

    shares: tuple[tuple[int, int], ...]
    reactions: tuple[tuple[int, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Say-it: ``seat`` slapped without the call or wrongly; the pile was shared out."""

    seat: int
    shares: tuple[tuple[int, int], ...]
    reactions: tuple[tuple[int, float], ...] = ()


@dataclass(frozen=True, slots=True)
class NoSlap:
    """The slap window on a Jack or a match closed with no slap; the card stays buried."""

    card: int


@dataclass(frozen=True, slots=True)
class PickedUp:
    """Irish Snap: ``seat`` picked up ``cards`` cards (``reason`` ``last`` or ``wrong``)."""

    seat: int
    cards: int
    reason: str
    reactions: tuple[tuple[int, float | None], ...] = ()


@dataclass(frozen=True, slots=True)
class PileReturned:
    """Nobody could flip: the centre pile went face down to ``seat``."""

    seat: int
    cards: int


@dataclass(frozen=True, slots=True)
class Eliminated:
    """``seat`` is out of the game (``reason``: ``no_cards``, ``lost_jack``, ``turn``, ``wrong_slap``)."""

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class Finished:
    """Irish Snap: ``seat`` got rid of its cards (safe, or the winner with first_out)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TimeIsUp:
    """The time limit was reached."""


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended: ``winners`` (seats) and, in Irish Snap, the ``loser``."""

    winners: tuple[int, ...]
    loser: int | None = None


Event = (
    Flipped
    | Slapped
    | WrongSlap
    | RaceWon
    | RaceTied
    | PileSplit
    | Forfeit
    | NoSlap
    | PickedUp
    | PileReturned
    | Eliminated
    | Finished
    | TimeIsUp
    | GameOver
)

_SEAT_FIELDS = ("seat", "to", "winner", "loser")


def event_to_dict(event: Event, players: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A JSON-ready dict: ``{"type": "flipped", ...}``; seats become names if given."""
    from .cards import card_name, rank_name

    data = asdict(event)
    out: dict[str, Any] = {"type": _snake(type(event).__name__)}

    def who(seat: int | None) -> int | str | None:
        if seat is None or players is None:
            return seat
        return players[seat]

    for key, value in data.items():
        if key in _SEAT_FIELDS:
            out[key] = who(value)
        elif key == "card":
            out[key] = card_name(value)
        elif key == "call":
            out[key] = (
                rank_name(value)
                if isinstance(value, int) and not isinstance(value, bool)
                else value
            )
        elif key == "winners" or key == "seats":
            out[key] = [who(s) for s in value]
        elif key in ("shares", "reactions"):
            out[key] = [[who(s), v] for s, v in value]
        else:
            out[key] = value
    return out


def _snake(name: str) -> str:
    chars: list[str] = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            chars.append("_")
        chars.append(ch.lower())
    return "".join(chars)
