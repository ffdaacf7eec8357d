"""Views for bot tests, taken from real games."""

from __future__ import annotations

from dataclasses import replace

from slapjack.core import FULL_DECK, Card, Game, Rules, View, observe, parse_card


def deck_with_top(first: Card) -> list[Card]:
    """A deck whose first card (seat 0's top) is ``first``."""
    rest = [c for c in FULL_DECK if c != first]
    return [first, *rest]


def view_after_flip(
    card: str, preset: str = "classic", seat: int = 1, players: int = 4, **options: object
) -> View:
    """Seat ``seat``'s view right after seat 0 flipped ``card``."""
    rules = Rules.from_options({"preset": preset, **options})
    game = Game(rules, [f"P{i}" for i in range(players)], deck_with_top(parse_card(card)))
    game.flip(0, 0)
    return observe(game, seat)


def with_top(view: View, card: str, call: int | None = None) -> View:
    """``view`` with another face-up top card (and Irish Snap call)."""
    return replace(view, centre_top=(parse_card(card),), top_call=call)
