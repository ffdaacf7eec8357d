"""What a terminal game is set up with: rules, seats (humans with keys, bots),
the deal, and the timings of the app's timers."""

from __future__ import annotations

import getpass
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from slapjack.core import FALSE_START_OFFSET_MS, Card, Rules, SlapjackError
from slapjack.core.game import MAX_NAME_LENGTH
from slapjack.live import LiveTiming, LocalReferee

from .i18n import tr

MIN_SEATS: Final = 2
MAX_SEATS: Final = 10
BOT_LEVELS: Final = ("beginner", "casual", "pro", "matched", "perfect")

FALSE_START_MS: Final = FALSE_START_OFFSET_MS
"""Added to a guessed slap's reaction, so it ranks behind every real one (the
convention of :mod:`slapjack.core.timing`, shared with the web referee)."""

RESERVED_KEYS: Final = frozenset({" ", "?", "s"})
"""Space flips for whoever is on turn, ``?`` shows the rules, ``s`` saves."""

DEFAULT_KEYS: Final[tuple[tuple[str, str, str], ...]] = (
    # (slap, flip, call): the first four slap keys sit far apart on a keyboard
    ("a", "z", "q"),
    ("l", "m", "o"),
    ("g", "b", "t"),
    (";", "/", "p"),
    ("d", "c", "e"),
    ("j", "n", "u"),
    ("f", "v", "r"),
    ("k", ",", "i"),
    ("x", "w", "1"),
    (".", "'", "0"),
)
DEFAULT_NAMES: Final = (
    "Anna",
    "Ben",
    "Carla",
    "Dan",
    "Ella",
    "Finn",
    "Greta",
    "Hugo",
    "Ida",
    "Jonas",
)


class ConfigError(SlapjackError):
    """A set-up the game cannot start with; ``text(lang)`` says why in words."""

    code = "bad_config"

    def __init__(self, text_key: str, /, **values: object) -> None:
        self.text_key = text_key
        self.values = values
        super().__init__(tr("en", text_key, **values))

    def text(self, lang: str) -> str:
        return tr(lang, self.text_key, **self.values)


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat: a human with keys (``bot is None``) or a bot of a level."""

    name: str
    bot: str | None = None
    slap_key: str = ""
    flip_key: str = ""
    call_key: str = ""

    @property
    def is_human(self) -> bool:
        return self.bot is None


@dataclass(frozen=True, slots=True)
class Timing:
    """The terminal game's timings, in milliseconds (tests make them short).

    The game runs on the live table every host shares (:mod:`slapjack.live`);
    :meth:`live` gives its timings, :meth:`referee` the local referee.
    """

    slap_window_ms: float = 250.0
    """A race stays open this long after its first slap, for a key on its way
    (it closes at once when every player who may slap has)."""
    jack_timeout_ms: float = 3000.0
    """Nobody slapped by then: the Jack stays buried and play goes on."""
    irish_timeout_ms: float = 2500.0
    """Irish Snap: who has not slapped a match by then is last."""
    call_window_ms: float = 350.0
    """Say-it: a slap without the call waits this long for it (a call made
    before the slap, on the same card, counts too)."""
    turn_ms: float = 5000.0
    """An idle human on turn is flipped for after this long (0: never)."""
    pause_ms: float = 1200.0
    """After a race or a penalty, bots and the turn timer wait this long."""
    anticipation_ms: float = 100.0
    """A slap faster than this after the card appeared is a guess (0: no floor)."""

    def live(self) -> LiveTiming:
        """The live table's timings for these."""
        return LiveTiming(
            jack_timeout_ms=self.jack_timeout_ms,
            irish_timeout_ms=self.irish_timeout_ms,
            call_wait_ms=self.call_window_ms,
            turn_ms=self.turn_ms or None,
            result_pause_ms=self.pause_ms,
        )

    def referee(self) -> LocalReferee:
        """The referee of a local game: each measured reaction as it is."""
        return LocalReferee(self.slap_window_ms, self.anticipation_ms)


def local_player_name() -> str:
    """The login name, capitalised, if it looks like a person's name; else ``Anna``."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError, ImportError):
        user = ""
    if user.isalpha() and len(user) <= 16 and user.lower() not in _NOT_NAMES:
        return user.capitalize()
    return DEFAULT_NAMES[0]


_NOT_NAMES: Final = frozenset({"root", "user", "admin", "runner", "ubuntu", "guest", "nobody"})


def default_seats(count: int = 4, name: str | None = None) -> tuple[SeatSpec, ...]:
    """One human (keys A/Z/Q, named ``name`` or after the login) against
    ``count - 1`` casual bots."""
    me = name or local_player_name()
    if me in DEFAULT_NAMES[1:count]:
        me = DEFAULT_NAMES[0]
    seats = [SeatSpec(me, None, *DEFAULT_KEYS[0])]
    for i in range(1, count):
        seats.append(SeatSpec(DEFAULT_NAMES[i], "casual"))
    return tuple(seats)


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything a game starts from. ``seed`` and ``deck`` are exclusive; with
    neither, the app picks a random seed (and shows it, so a game can be redealt)."""

    rules: Rules = field(default_factory=Rules)
    seats: tuple[SeatSpec, ...] = field(default_factory=default_seats)
    seed: int | None = None
    deck: tuple[Card, ...] | None = None
    timing: Timing = field(default_factory=Timing)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats)

    def with_seats(self, seats: Sequence[SeatSpec]) -> GameConfig:
        return replace(self, seats=tuple(seats))

    def validate(self) -> GameConfig:
        """Return ``self`` or raise :class:`ConfigError` naming the first problem."""
        if not MIN_SEATS <= len(self.seats) <= MAX_SEATS:
            raise ConfigError("err.seats")
        if self.seed is not None and self.deck is not None:
            raise ValueError("give a seed or a deck, not both")
        if self.seed is not None and not 0 <= self.seed < 2**64:
            raise ValueError(f"a seed is a whole number from 0 to 2**64-1, not {self.seed}")
        seen_names: set[str] = set()
        used: dict[str, str] = {}
        for i, seat in enumerate(self.seats, 1):
            name = seat.name.strip()
            if not name:
                raise ConfigError("err.name_blank", seat=i)
            if len(name) > MAX_NAME_LENGTH:
                raise ConfigError("err.name_long", seat=i, max=MAX_NAME_LENGTH)
            if name in seen_names:
                raise ConfigError("err.names_unique", name=name)
            seen_names.add(name)
            if seat.bot is not None:
                if seat.bot not in BOT_LEVELS:
                    raise ValueError(f"unknown bot level {seat.bot!r}")
                continue
            if not seat.slap_key:
                raise ConfigError("err.key_missing", name=name)
            keys = [seat.slap_key, seat.flip_key]
            if self.rules.say_it:
                keys.append(seat.call_key)
            for key in keys:
                if not key:
                    continue
                if len(key) != 1:
                    raise ConfigError("err.key_one", name=name, key=key)
                if key.lower() in RESERVED_KEYS:
                    raise ConfigError("err.key_reserved", name=name, key=key)
                if key.lower() in used:
                    raise ConfigError(
                        "err.key_twice", key=key, first=used[key.lower()], second=name
                    )
                used[key.lower()] = name
        return self
