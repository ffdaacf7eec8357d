"""A seeded shuffle that is stable forever for record format 1.

Python's :mod:`random` does not promise that ``shuffle`` stays the same across
versions, so records carry their own generator: SplitMix64 feeding a
Fisher-Yates shuffle with rejection sampling (no modulo bias). Changing this
file changes what ``"seed": 42`` means, so it is pinned by a test.
"""

from __future__ import annotations

from .cards import FULL_DECK, Card

_MASK = (1 << 64) - 1


class SplitMix64:
    """A tiny, well-known 64-bit generator (Steele, Lea and Flood, 2014)."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _MASK - (_MASK % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def shuffled_deck(seed: int) -> tuple[Card, ...]:
    """The 52 cards in deal order for ``seed`` (record format 1)."""
    rng = SplitMix64(seed)
    deck = list(FULL_DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)
