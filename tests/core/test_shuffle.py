"""The seeded shuffle of record format 1: pinned forever."""

from __future__ import annotations

from collections import Counter

import pytest

from slapjack.core import FULL_DECK, card_name, shuffled_deck
from slapjack.core.shuffle import SplitMix64

SEED_42 = [
    "2H",
    "8C",
    "4C",
    "10S",
    "JC",
    "AC",
    "7H",
    "7D",
    "6H",
    "2C",
    "QH",
    "10C",
    "7S",
    "JH",
    "8S",
    "5D",
    "4H",
    "JS",
    "5H",
    "4D",
    "5S",
    "AD",
    "9D",
    "2S",
    "5C",
    "9C",
    "KS",
    "KC",
    "8D",
    "4S",
    "9S",
    "KD",
    "AS",
    "QC",
    "QD",
    "JD",
    "6C",
    "7C",
    "QS",
    "10H",
    "8H",
    "2D",
    "KH",
    "6D",
    "6S",
    "3S",
    "AH",
    "9H",
    "10D",
    "3C",
    "3H",
    "3D",
]


def test_seed_42_is_pinned() -> None:
    """Changing this breaks every stored record that uses ``"seed": 42``."""
    assert [card_name(c) for c in shuffled_deck(42)] == SEED_42


def test_splitmix64_reference_outputs() -> None:
    """The published first outputs of SplitMix64 (Steele, Lea and Flood; Vigna's splitmix64.c)."""
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]


def test_seed_is_taken_modulo_2_64() -> None:
    assert SplitMix64(2**64 + 5).next() == SplitMix64(5).next()


def test_every_seed_gives_a_full_deck_and_seeds_differ() -> None:
    decks = {shuffled_deck(seed) for seed in range(200)}
    assert len(decks) == 200
    for deck in decks:
        assert sorted(deck) == list(FULL_DECK)
    assert shuffled_deck(7) == shuffled_deck(7)
    assert shuffled_deck(2**64 - 1) != shuffled_deck(0)


def test_below_is_in_range_and_roughly_uniform() -> None:
    rng = SplitMix64(99)
    counts = Counter(rng.below(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(850 < c < 1150 for c in counts.values())
    assert {rng.below(1) for _ in range(10)} == {0}
    with pytest.raises(ValueError):
        rng.below(0)


def test_first_card_position_is_not_biased() -> None:
    """Fisher-Yates: over many seeds every card reaches the top about equally often."""
    tops = Counter(shuffled_deck(seed)[0] for seed in range(5200))
    assert len(tops) == 52
    assert max(tops.values()) < 170 and min(tops.values()) > 40
