"""The terminal game's words, in English and German: the catalogue's ``tui.*``
entries and the shared ones (``slapjack.texts.words``).

Texts are looked up by key (``tr(lang, "new_game")`` reads ``tui.new_game``,
``tr(lang, "error.game_over")`` the shared ``error.game_over``) and formatted
with ``str.format``; card faces and suit names come from the shared ``rank.*``
and ``suit.*`` words (German decks say B, D, K for Jack, Queen, King). The
rules themselves come from :mod:`slapjack.texts`.
"""

from __future__ import annotations

from typing import Final

from slapjack.core import RANKS, rank_of, suit_of
from slapjack.texts import SUPPORTED_LANGS, check_lang, locale_language, words

LANGS: Final = SUPPORTED_LANGS

_SUIT_SYMBOLS: Final = "♣♦♥♠"
_SUIT_LETTERS: Final = "CDHS"


def key_of(key: str) -> str:
    """The catalogue key ``tr`` reads for ``key``: ``tui.<key>`` if it exists, else ``key``."""
    own = f"tui.{key}"
    return own if own in words("en") else key


def has(key: str) -> bool:
    """Does ``tr`` know ``key`` (as a terminal word or a shared one)?"""
    return key_of(key) in words("en")


def tr(lang: str, key: str, /, **values: object) -> str:
    """The text ``key`` in ``lang``, formatted with ``values``.

    ``key`` is the terminal game's own (``tui.<key>`` in the catalogue) or a
    shared one (``error.game_over``, ``bot.casual``); a key neither has raises
    ``KeyError``.
    """
    text = words(lang)[key_of(key)]
    return text.format(**values) if values else text


def detect_lang(explicit: str | None = None) -> str:
    """``explicit`` if given (``en``/``de``; anything else raises
    :class:`~slapjack.texts.LanguageError`), else the locale's language."""
    if explicit is not None:
        return check_lang(explicit)
    return locale_language()


def rank_label(rank: int, lang: str) -> str:
    """``"J"`` in English, ``"B"`` (Bube) in German."""
    return words(lang)[f"rank.short.{RANKS[rank]}"]


def card_label(card: int, lang: str) -> str:
    """A short face: ``"J♠"`` / ``"B♠"``."""
    return rank_label(rank_of(card), lang) + _SUIT_SYMBOLS[suit_of(card)]


def card_long_name(card: int, lang: str) -> str:
    """``"Jack of spades"`` / ``"Pik-Bube"``: the card in words (no colour needed)."""
    table = words(lang)
    rank = table[f"rank.{RANKS[rank_of(card)]}"]
    suit = table[f"suit.{_SUIT_LETTERS[suit_of(card)]}"]
    return table["card.spoken"].format(rank=rank, suit=suit)


def suit_symbol(card: int) -> str:
    return _SUIT_SYMBOLS[suit_of(card)]


def join_names(names: list[str], lang: str) -> str:
    """``"Anna"``, ``"Anna and Ben"``, ``"Anna, Ben and Carla"``."""
    if len(names) <= 1:
        return "".join(names)
    word = words(lang)["list.and"]
    return f"{', '.join(names[:-1])} {word} {names[-1]}"


def cards_text(n: int, lang: str) -> str:
    """``1 card`` / ``3 cards`` (``1 Karte`` / ``3 Karten``)."""
    table = words(lang)
    return table["unit.cards_one"] if n == 1 else table["unit.cards"].format(n=n)


def format_ms(ms: float | None, lang: str) -> str:
    """``212 ms``; ``—`` for no slap."""
    if ms is None:
        return tr(lang, "no_reaction")
    return words(lang)["unit.ms"].format(n=f"{ms:.0f}")
