"""What one seat (or a spectator) may see: the only window onto a game's state.

:func:`observe` never puts a face-down card's identity into a view: stacks are
sizes, the centre pile shows its face-up cards and a count of face-down ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .cards import card_name, rank_name
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
        """JSON-ready form, with card and rank names."""
        return {
            "game": self.rules.game.value,
            "rules": self.rules.to_options(),
            "players": list(self.players),
            "seat": self.seat,
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
