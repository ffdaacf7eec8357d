"""Helpers for the engine tests: decks in the order a test needs, and set-up positions."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from slapjack.core import (
    FULL_DECK,
    Card,
    Game,
    Rules,
    Table,
    card_name,
    is_jack,
    observe,
    parse_card,
)

NAMES = ("Anna", "Ben", "Carla", "Dora", "Emil", "Fritz", "Gina", "Hugo", "Ida", "Jan")


def names(n: int) -> list[str]:
    """``n`` distinct player names: a few real ones, then P11, P12, …"""
    return [NAMES[i] if i < len(NAMES) else f"P{i + 1:02d}" for i in range(n)]


def deck_for(n: int, stacks: Sequence[Sequence[str]]) -> tuple[Card, ...]:
    """A deck that deals ``stacks[j]`` (top first) to seat ``j`` of ``n``.

    Card *i* goes to seat ``i % n``, so seat ``j``'s *k*-th card is ``deck[j + k * n]``.
    Unnamed positions get the remaining cards: the non-Jacks first, the Jacks last
    (so they lie deep in the stacks).
    """
    deck: list[Card | None] = [None] * len(FULL_DECK)
    used: set[Card] = set()
    for j, stack in enumerate(stacks):
        for k, name in enumerate(stack):
            card = parse_card(name)
            assert card not in used, f"{name} named twice"
            used.add(card)
            deck[j + k * n] = card
    rest = [c for c in FULL_DECK if c not in used and not is_jack(c)]
    rest += [c for c in FULL_DECK if c not in used and is_jack(c)]
    it = iter(rest)
    return tuple(c if c is not None else next(it) for c in deck)


def rules(**options: Any) -> Rules:
    return Rules.from_options(options)


def table(
    n: int,
    stacks: Sequence[Sequence[str]] = (),
    *,
    players: Sequence[str] | None = None,
    **options: Any,
) -> Table:
    """A table of ``n`` players (default names) dealt so that seat j's stack starts with stacks[j]."""
    return Table.new(Rules.from_options(options), players or names(n), deck=deck_for(n, stacks))


def set_position(
    game: Game,
    stacks: Mapping[int, Sequence[str]],
    centre: Sequence[str] = (),
    *,
    hidden: int = 0,
    bank: int,
    turn: int | None = None,
    last_flipper: int | None = None,
) -> None:
    """Put ``game`` into a hand-made position (a unit test's starting point).

    ``stacks`` names the stacks (top first) of some seats; every other seat's stack is
    empty except ``bank``, which gets every card not named anywhere, under its named cards.
    ``centre`` is bottom first, its lowest ``hidden`` cards face down.
    """
    used: set[Card] = set()
    for cards in stacks.values():
        used.update(parse_card(c) for c in cards)
    used.update(parse_card(c) for c in centre)
    for s in range(game.n):
        game.stacks[s] = deque(parse_card(c) for c in stacks.get(s, ()))
    game.stacks[bank].extend(c for c in FULL_DECK if c not in used)
    game.centre = [parse_card(c) for c in centre]
    game.centre_hidden = hidden
    if turn is not None:
        game.turn = turn
    if last_flipper is not None:
        game.last_flipper = last_flipper
    game.check_invariant()


def stack(game: Game, seat: int) -> list[str]:
    return [card_name(c) for c in game.stacks[seat]]


def centre(game: Game) -> list[str]:
    return [card_name(c) for c in game.centre]


def assert_views_hide_face_down(game: Game) -> None:
    """Every seat's view and the spectator's show only face-up centre cards."""
    face_up = {card_name(c) for c in game.centre[game.centre_hidden :]}
    all_names = {card_name(c) for c in FULL_DECK}
    for seat in [*range(game.n), None]:
        view = observe(game, seat)
        assert {card_name(c) for c in view.centre_top} <= face_up
        text = repr(view.to_dict())
        shown = {name for name in all_names if f"'{name}'" in text}
        assert shown <= face_up, f"seat {seat} sees {sorted(shown - face_up)}"
