"""What the store computes from a record at finish time, by replaying it.

The figures per player (jacks won, slaps, wrong slaps, reaction times) come
from the engine's own events, so they agree with what the table saw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slapjack.core import Record, SlapjackError, is_false_start, replay
from slapjack.core.events import Forfeit, RaceWon, Slapped, WrongSlap

from .errors import InvalidRecord


@dataclass(slots=True)
class PlayerLine:
    """One seat of a finished game."""

    seat: int
    name: str
    place: int
    is_winner: bool
    is_loser: bool
    cards: int
    jacks: int = 0
    slaps: int = 0
    wrong_slaps: int = 0
    reactions: list[float] = field(default_factory=list)


@dataclass(slots=True)
class GameFacts:
    """The summary columns of a finished game plus its player lines."""

    game: str
    preset: str
    players: tuple[str, ...]
    winners: tuple[str, ...]
    loser: str | None
    flips: int
    actions: int
    complete: bool
    lines: list[PlayerLine]


def game_facts(record: Mapping[str, Any]) -> GameFacts:
    """Check and replay ``record``; raise :class:`InvalidRecord` if it does not replay."""
    try:
        rec = Record.from_dict(dict(record))
        result = replay(rec)
    except SlapjackError as exc:
        raise InvalidRecord(f"record: {exc}") from None
    game = result.game
    names = game.players
    ranking = game.ranking()
    place = {seat: i + 1 for i, seat in enumerate(ranking)}
    lines = [
        PlayerLine(
            seat=s,
            name=names[s],
            place=place.get(s, game.n),
            is_winner=s in game.winners,
            is_loser=game.loser == s,
            cards=len(game.stacks[s]),
        )
        for s in range(game.n)
    ]
    for event in result.events:
        if isinstance(event, Slapped):
            lines[event.seat].slaps += 1
            if not is_false_start(event.reaction_ms):  # a guess is no reaction time
                lines[event.seat].reactions.append(float(event.reaction_ms))
        elif isinstance(event, RaceWon):
            lines[event.winner].jacks += 1
        elif isinstance(event, WrongSlap | Forfeit):
            # Irish Snap's wrong pick-up is a WrongSlap followed by a PickedUp.
            lines[event.seat].wrong_slaps += 1
    return GameFacts(
        game=rec.rules.game.value,
        preset=rec.rules.preset,
        players=names,
        winners=tuple(names[s] for s in game.winners),
        loser=names[game.loser] if game.loser is not None else None,
        flips=game.flips,
        actions=len(rec.actions),
        complete=game.over,
        lines=lines,
    )
