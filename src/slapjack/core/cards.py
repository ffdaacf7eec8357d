"""Cards of a standard 52-card deck.

A card is a plain ``int`` from 0 to 51 (fast to copy, hash and compare):
``card = rank * 4 + suit``, ranks ``A 2 … 10 J Q K`` (0…12) and suits
``C D H S`` (0…3). Text forms round-trip: ``card_name(parse_card("10H")) == "10H"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from .errors import CardError

Card = int
"""A card, 0…51 (``rank * 4 + suit``)."""

RANKS: Final[tuple[str, ...]] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final[str] = "CDHS"
SUIT_SYMBOLS: Final[str] = "♣♦♥♠"
RED_SUITS: Final[frozenset[int]] = frozenset({1, 2})

ACE: Final = 0
JACK: Final = 10
QUEEN: Final = 11
KING: Final = 12
DECK_SIZE: Final = 52

FULL_DECK: Final[tuple[Card, ...]] = tuple(range(DECK_SIZE))
_FULL_SET: Final = frozenset(FULL_DECK)

_BY_NAME: Final[dict[str, Card]] = {RANKS[c >> 2] + SUITS[c & 3]: c for c in range(DECK_SIZE)}


def rank_of(card: Card) -> int:
    """The rank index, 0 (Ace) … 12 (King)."""
    return card >> 2


def suit_of(card: Card) -> int:
    """The suit index, 0 (clubs) … 3 (spades)."""
    return card & 3


def is_jack(card: Card) -> bool:
    return card >> 2 == JACK


def is_red(card: Card) -> bool:
    return (card & 3) in RED_SUITS


def card_name(card: Card) -> str:
    """``"10H"``, ``"JS"``: the record form of a card."""
    if not 0 <= card < DECK_SIZE:
        raise CardError(f"not a card: {card!r}")
    return RANKS[card >> 2] + SUITS[card & 3]


def card_symbol(card: Card) -> str:
    """``"10♥"``: a display form with the suit symbol."""
    return RANKS[card >> 2] + SUIT_SYMBOLS[card & 3]


def parse_card(text: str) -> Card:
    """Parse ``"10H"`` / ``"js"`` into a card; raise :class:`CardError` otherwise."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string like '10H', got {text!r}")
    card = _BY_NAME.get(text.strip().upper())
    if card is None:
        raise CardError(f"unknown card {text!r} (ranks A 2-10 J Q K, suits C D H S)")
    return card


def rank_name(rank: int) -> str:
    return RANKS[rank]


def check_deck(cards: Sequence[Card]) -> tuple[Card, ...]:
    """Return the deck as a tuple if it holds the 52 cards exactly once each."""
    if len(cards) != DECK_SIZE:
        raise CardError(f"a deck has 52 cards, this one has {len(cards)}")
    try:  # the common case at once: 52 cards, each of the deck once
        if set(cards) == _FULL_SET:
            return tuple(cards)
    except TypeError:  # an unhashable card: the loop below says where
        pass
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"duplicate card {card_name(c)}")
        seen.add(c)
    missing = set(FULL_DECK) - seen
    if missing:  # pragma: no cover - impossible with 52 distinct valid cards
        raise CardError("missing cards: " + " ".join(card_name(c) for c in sorted(missing)))
    return tuple(cards)


def parse_deck(names: Iterable[str]) -> tuple[Card, ...]:
    """Parse a list of card names and check that it is a full deck."""
    return check_deck([parse_card(n) for n in names])
