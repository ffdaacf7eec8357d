"""What one seat (or a spectator) may see: the only window onto a game's state.

:func:`observe` never puts a face-down card's identity into a view: stacks are
sizes, the centre pile shows its face-up cards and a count of face-down ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .cards import card_name, rank_name
from .errors import SlapjackError
from .events import (
    _bad,
    _read_bool,
    _read_card,
    _read_int,
    _read_keys,
    _read_opt_seat,
    _read_rank,
    _read_seats,
)
from .game import Game
from .rules import Rules

VISIBLE_CENTRE: Final = 5
"""How many face-up centre cards a view lists (the top card and a few under it)."""


@dataclass(frozen=True, slots=True)
class View:
    """A seat's view of the table. ``seat`` is ``None`` for a spectator."""

    rules: Rules
    players: tuple[str, ...]
    seat: int | None
    stack_sizes: tuple[int, ...]
    out: tuple[bool, ...]
    out_order: tuple[int, ...]
    turn: int | None
    centre_size: int
    centre_face_down: int
    centre_top: tuple[int, ...]
    """Up to :data:`VISIBLE_CENTRE` face-up cards, bottom first; the last is the top card."""
    top_call: int | None
    next_call: int | None
    race_open: bool
    reslap_among: tuple[int, ...] | None
    slapped: tuple[int, ...]
    """Seats whose slap on the top card has been seen."""
    last_flipper: int | None
    over: bool
    winners: tuple[int, ...]
    loser: int | None
    flips: int
    version: int

    @property
    def top(self) -> int | None:
        return self.centre_top[-1] if self.centre_top else None

    @property
    def my_stack(self) -> int:
        return self.stack_sizes[self.seat] if self.seat is not None else 0

    @property
    def is_match(self) -> bool:
        """Irish Snap: the top card matches the rank called with it."""
        top = self.top
        return top is not None and self.top_call is not None and top >> 2 == self.top_call

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with card and rank names: :meth:`head_dict`, the
        ``seat``, then :meth:`tail_dict`."""
        out = self.head_dict()
        out["seat"] = self.seat
        out.update(self.tail_dict())
        return out

    def head_dict(self) -> dict[str, Any]:
        """The keys of :meth:`to_dict` before ``seat``: the game, its rules and
        its players, the same in every view of one game."""
        return {
            "game": self.rules.game.value,
            "rules": self.rules.to_options(),
            "players": list(self.players),
        }

    def tail_dict(self) -> dict[str, Any]:
        """The keys of :meth:`to_dict` after ``seat``: the table as it stands."""
        return {
            "stacks": list(self.stack_sizes),
            "out": list(self.out),
            "out_order": list(self.out_order),
            "turn": self.turn,
            "centre_size": self.centre_size,
            "centre_face_down": self.centre_face_down,
            "centre_top": [card_name(c) for c in self.centre_top],
            "top_call": rank_name(self.top_call) if self.top_call is not None else None,
            "next_call": rank_name(self.next_call) if self.next_call is not None else None,
            "race_open": self.race_open,
            "reslap_among": list(self.reslap_among) if self.reslap_among is not None else None,
            "slapped": list(self.slapped),
            "last_flipper": self.last_flipper,
            "over": self.over,
            "winners": list(self.winners),
            "loser": self.loser,
            "flips": self.flips,
            "version": self.version,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> View:
        """The view :meth:`to_dict` wrote (as JSON gives it back: lists for tuples).

        Strict: exactly the keys of :data:`VIEW_KEYS`, each of its type (no
        coercion), cards and ranks by name, every seat number in range, the
        per-seat lists as long as ``players``, ``rules`` valid for ``game``. Anything
        else raises ``SlapjackError`` with code ``bad_view`` naming the field."""
        code = "bad_view"
        d = _read_keys(data, VIEW_KEYS, "view", code)
        game, options = d["game"], d["rules"]
        if type(game) is not str:
            raise _bad(code, "view.game", "a game name", game)
        if not isinstance(options, Mapping):
            raise _bad(code, "view.rules", "an object", options)
        try:
            rules = Rules.from_options(options, game=game)
        except SlapjackError as exc:
            where = "view.game" if exc.code == "unknown_game" else "view.rules"
            raise SlapjackError(f"{where}: {exc.message}", code=code) from None
        players = d["players"]
        if type(players) is not list or not all(type(p) is str for p in players):
            raise _bad(code, "view.players", "a list of names", players)
        n = len(players)

        def seat(key: str) -> int | None:
            return _read_opt_seat(d[key], f"view.{key}", code, n)

        def seats(key: str) -> tuple[int, ...]:
            return _read_seats(d[key], f"view.{key}", code, n)

        def count(key: str) -> int:
            return count_of(d[key], f"view.{key}", code)

        def per_seat(key: str, value: object, item: str) -> list[Any]:
            if type(value) is not list or len(value) != n:
                raise _bad(code, f"view.{key}", f"a list of {n} {item}", value)
            return value

        stacks = per_seat("stacks", d["stacks"], "stack sizes")
        out = per_seat("out", d["out"], "true/false")
        top = d["centre_top"]
        if type(top) is not list or len(top) > VISIBLE_CENTRE:
            raise _bad(code, "view.centre_top", f"a list of at most {VISIBLE_CENTRE} cards", top)
        reslap = d["reslap_among"]
        return cls(
            rules=rules,
            players=tuple(players),
            seat=seat("seat"),
            stack_sizes=tuple(count_of(v, f"view.stacks[{i}]", code) for i, v in enumerate(stacks)),
            out=tuple(_read_bool(v, f"view.out[{i}]", code) for i, v in enumerate(out)),
            out_order=seats("out_order"),
            turn=seat("turn"),
            centre_size=count("centre_size"),
            centre_face_down=count("centre_face_down"),
            centre_top=tuple(
                _read_card(c, f"view.centre_top[{i}]", code) for i, c in enumerate(top)
            ),
            top_call=_read_rank(d["top_call"], "view.top_call", code),
            next_call=_read_rank(d["next_call"], "view.next_call", code),
            race_open=_read_bool(d["race_open"], "view.race_open", code),
            reslap_among=None if reslap is None else seats("reslap_among"),
            slapped=seats("slapped"),
            last_flipper=seat("last_flipper"),
            over=_read_bool(d["over"], "view.over", code),
            winners=seats("winners"),
            loser=seat("loser"),
            flips=count("flips"),
            version=count("version"),
        )


VIEW_KEYS: Final = (
    "game",
    "rules",
    "players",
    "seat",
    "stacks",
    "out",
    "out_order",
    "turn",
    "centre_size",
    "centre_face_down",
    "centre_top",
    "top_call",
    "next_call",
    "race_open",
    "reslap_among",
    "slapped",
    "last_flipper",
    "over",
    "winners",
    "loser",
    "flips",
    "version",
)
"""The keys of :meth:`View.to_dict`, in its order."""


def count_of(value: object, what: str, code: str) -> int:
    """A whole number >= 0 (a card count)."""
    number = _read_int(value, what, code)
    if number < 0:
        raise _bad(code, what, "a count >= 0", value)
    return number


def observe(game: Game, seat: int | None) -> View:
    """The view of ``seat`` (``None``: a spectator). Everyone sees the same public
    facts; no face-down card is ever included."""
    if seat is not None and not 0 <= seat < game.n:
        raise ValueError(f"no seat {seat}")
    centre = game.centre
    hidden = game.centre_hidden
    face_up = len(centre) - hidden
    top = tuple(centre[len(centre) - min(face_up, VISIBLE_CENTRE) :]) if face_up else ()
    irish = game.rules.is_irish
    slapped = sorted(game.race_slaps) if game.race_open else sorted(game.slapped)
    return View(
        rules=game.rules,
        players=game.players,
        seat=seat,
        stack_sizes=tuple(len(s) for s in game.stacks),
        out=tuple(game.is_out),
        out_order=tuple(game.out_order),
        turn=game.turn,
        centre_size=len(centre),
        centre_face_down=hidden,
        centre_top=top,
        top_call=game.top_call if irish and top else None,
        next_call=game.next_call if irish else None,
        race_open=game.race_open,
        reslap_among=game.reslap_among,
        slapped=tuple(slapped),
        last_flipper=game.last_flipper,
        over=game.over,
        winners=game.winners,
        loser=game.loser,
        flips=game.flips,
        version=game.version,
    )


def spectate(game: Game) -> View:
    """The spectator view: what every player sees, without a seat."""
    return observe(game, None)
