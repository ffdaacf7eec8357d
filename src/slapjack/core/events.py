"""Events: what an action did, in order.

Events carry only what every seat may know: face-up cards, counts and seats.
The identity of a card that moves face down (a penalty, a won pile) is never
in an event, so events can be broadcast as they are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, Final

from .cards import DECK_SIZE, RANKS, card_name
from .errors import SlapjackError


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
    from .cards import rank_name

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


EVENT_TYPES: Final[dict[str, type[Event]]] = {
    _snake(cls.__name__): cls
    for cls in (
        Flipped,
        Slapped,
        WrongSlap,
        RaceWon,
        RaceTied,
        PileSplit,
        Forfeit,
        NoSlap,
        PickedUp,
        PileReturned,
        Eliminated,
        Finished,
        TimeIsUp,
        GameOver,
    )
}
"""Every event class by the ``type`` :func:`event_to_dict` gives it (``"race_won"`` …)."""

PENALTIES: Final = frozenset({"pay_player", "pay_pile", "pickup", "forfeit", "none"})
"""The ``penalty`` of a :class:`WrongSlap`."""
PICKUP_REASONS: Final = frozenset({"last", "wrong"})
"""The ``reason`` of a :class:`PickedUp`."""
ELIMINATION_REASONS: Final = frozenset({"no_cards", "lost_jack", "turn", "wrong_slap"})
"""The ``reason`` of an :class:`Eliminated`."""


# ------------------------------------------------------------ from JSON
#
# Shared with ``View.from_dict``: strict readers of JSON values, each raising
# ``SlapjackError`` with ``code`` and a message that names the field.


def _bad(code: str, what: str, expected: str, value: object) -> SlapjackError:
    shown = repr(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return SlapjackError(f"{what}: expected {expected}, got {shown}", code=code)


def _read_int(value: object, what: str, code: str) -> int:
    if type(value) is not int:
        raise _bad(code, what, "a whole number", value)
    return value


def _read_seat(value: object, what: str, code: str, players: Sequence[str] | int | None) -> int:
    """A seat number, or (``players`` a list of names) a seat's name; ``players``
    an int is the number of seats (the range is checked)."""
    if isinstance(players, Sequence) and not isinstance(players, str):
        if type(value) is not str or value not in players:
            raise _bad(code, what, "a player's name", value)
        return players.index(value)
    seat = _read_int(value, what, code)
    most = players if isinstance(players, int) else None
    if seat < 0 or (most is not None and seat >= most):
        raise _bad(code, what, f"a seat number 0-{most - 1}" if most else "a seat number", value)
    return seat


def _read_opt_seat(
    value: object, what: str, code: str, players: Sequence[str] | int | None
) -> int | None:
    return None if value is None else _read_seat(value, what, code, players)


def _read_seats(
    value: object, what: str, code: str, players: Sequence[str] | int | None
) -> tuple[int, ...]:
    if type(value) is not list:
        raise _bad(code, what, "a list of seats", value)
    return tuple(_read_seat(v, f"{what}[{i}]", code, players) for i, v in enumerate(value))


def _read_number(value: object, what: str, code: str) -> float:
    if type(value) is float:
        if not math.isfinite(value):
            raise _bad(code, what, "a finite number", value)
        return value
    if type(value) is int:
        return float(value)
    raise _bad(code, what, "a number", value)


def _read_bool(value: object, what: str, code: str) -> bool:
    if type(value) is not bool:
        raise _bad(code, what, "true or false", value)
    return value


_CARDS: Final = {card_name(c): c for c in range(DECK_SIZE)}
"""Cards by their canonical name only (``parse_card`` also takes ``"js"`` or `` JS``)."""


def _read_card(value: object, what: str, code: str) -> int:
    card = _CARDS.get(value) if type(value) is str else None
    if card is None:
        raise _bad(code, what, "a card name such as '10H'", value)
    return card


def _read_rank(value: object, what: str, code: str) -> int | None:
    if value is None:
        return None
    if type(value) is not str or value not in RANKS:
        raise _bad(code, what, "a rank name such as 'J' or null", value)
    return RANKS.index(value)


def _read_keys(data: object, keys: Sequence[str], what: str, code: str) -> Mapping[str, Any]:
    """``data`` as a mapping with exactly ``keys``."""
    if not isinstance(data, Mapping):
        raise _bad(code, what, "an object", data)
    missing = [k for k in keys if k not in data]
    if missing:
        raise SlapjackError(f"{what}: missing {missing[0]!r}", code=code)
    extra = sorted(str(k) for k in data if k not in keys)
    if extra:
        raise SlapjackError(f"{what}: unknown field {extra[0]!r}", code=code)
    return data


def _read_pairs(
    value: object,
    what: str,
    code: str,
    players: Sequence[str] | int | None,
    amount: Callable[[object, str], Any],
) -> tuple[tuple[int, Any], ...]:
    if type(value) is not list:
        raise _bad(code, what, "a list of [seat, number] pairs", value)
    out: list[tuple[int, Any]] = []
    for i, item in enumerate(value):
        if type(item) is not list or len(item) != 2:
            raise _bad(code, f"{what}[{i}]", "a [seat, number] pair", item)
        out.append((_read_seat(item[0], f"{what}[{i}]", code, players), amount(item[1], what)))
    return tuple(out)


def event_from_dict(data: Mapping[str, Any], players: Sequence[str] | int | None = None) -> Event:
    """The event :func:`event_to_dict` wrote (as JSON gives it back: lists for
    tuples). ``players``: the names, if ``event_to_dict`` was given them (seats
    are names then); or the number of seats, to check every seat number's range.

    Strict: exactly the event's fields, each of its type (no coercion: ``1`` is
    not ``true``, ``"3"`` not a seat); a ``SlapjackError`` with code
    ``bad_event`` names the field otherwise, and an unknown ``type`` too
    (see :data:`EVENT_TYPES` to tell those apart)."""
    code = "bad_event"
    if not isinstance(data, Mapping):
        raise _bad(code, "event", "an object", data)
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind) if type(kind) is str else None
    if cls is None:
        raise _bad(code, "event.type", "an event type", kind)
    names = [f.name for f in fields(cls)]
    _read_keys(data, ["type", *names], str(kind), code)
    values: dict[str, Any] = {}

    def number(value: object, what: str) -> float:
        return _read_number(value, what, code)

    def opt_number(value: object, what: str) -> float | None:
        return None if value is None else _read_number(value, what, code)

    def whole(value: object, what: str) -> int:
        count = _read_int(value, what, code)
        if count < 0:
            raise _bad(code, what, "a count >= 0", value)
        return count

    for name in names:
        value = data[name]
        what = f"{kind}.{name}"
        if name in ("seat", "winner"):
            values[name] = _read_seat(value, what, code, players)
        elif name in ("to", "loser"):
            values[name] = _read_opt_seat(value, what, code, players)
        elif name in ("winners", "seats"):
            values[name] = _read_seats(value, what, code, players)
        elif name == "card":
            values[name] = _read_card(value, what, code)
        elif name == "call":
            if cls is Flipped:
                values[name] = _read_rank(value, what, code)
            else:
                values[name] = _read_bool(value, what, code)
        elif name == "match":
            values[name] = _read_bool(value, what, code)
        elif name == "reaction_ms":
            values[name] = number(value, what)
        elif name == "cards":
            values[name] = whole(value, what)
        elif name == "shares":
            values[name] = _read_pairs(value, what, code, players, whole)
        elif name == "reactions":
            amount = opt_number if cls is PickedUp else number
            values[name] = _read_pairs(value, what, code, players, amount)
        elif name == "penalty":
            if type(value) is not str or value not in PENALTIES:
                raise _bad(code, what, "a penalty (" + ", ".join(sorted(PENALTIES)) + ")", value)
            values[name] = value
        elif name == "reason":
            allowed = PICKUP_REASONS if cls is PickedUp else ELIMINATION_REASONS
            if type(value) is not str or value not in allowed:
                raise _bad(code, what, "a reason (" + ", ".join(sorted(allowed)) + ")", value)
            values[name] = value
        else:  # pragma: no cover - a new event field needs its reader here
            raise SlapjackError(f"{what}: no reader for this field", code=code)
    event: Event = cls(**values)
    return event
