"""The one catalogue of player-facing words: ``en.json`` and ``de.json`` beside this file.

Every word a player reads (the browser client, the terminal game, the rules
texts, option help, bot levels, error messages) is one entry of a flat table,
key to text, with the same keys and the same ``{placeholders}`` in both
languages. Keys are namespaced by who uses them:

- ``tui.*``: the terminal game's own words,
- ``web.*``: the browser client's own words (it sees them without the prefix),
- ``rules.*``: the paragraphs of the rules texts,
- anything else is shared: games (``game.*``), presets (``preset.*``), options
  and their values (``opt.*``), bot levels (``bot.*``, ``level.*``), error
  codes (``error.*``), cards (``rank.*``, ``suit.*``), units (``unit.*``),
  the results table's columns (``end.*``).

:func:`browser_words` is the table the browser loads (``GET /api/words/{lang}``):
the shared keys and the ``web.*`` keys without their prefix. Texts are filled
with ``str.format`` (:func:`word`); a ``key_one`` entry is the singular form
of ``key``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Final

from slapjack.core.errors import SlapjackError

from ..lang import check_lang

__all__ = [
    "NAMESPACES",
    "WordsError",
    "browser_words",
    "is_shared",
    "placeholders",
    "word",
    "words",
]

NAMESPACES: Final = ("tui", "web", "rules")
"""The key prefixes of one user's own words; every other key is shared."""

_HOLE: Final = re.compile(r"\{(\w+)(?:[:!][^{}]*)?\}")


class WordsError(SlapjackError):
    """A key the catalogue lacks (``code = "unknown_word"``)."""

    code = "unknown_word"


def is_shared(key: str) -> bool:
    """Is ``key`` a shared word (not ``tui.*``, ``web.*`` or ``rules.*``)?"""
    return key.split(".", 1)[0] not in NAMESPACES


def placeholders(text: str) -> set[str]:
    """The names of the ``{placeholders}`` in ``text`` (``{s:.1f}`` counts as ``s``)."""
    return set(_HOLE.findall(text))


@cache
def _load(lang: str) -> MappingProxyType[str, str]:
    raw = resources.files(__name__).joinpath(f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise WordsError(f"words/{lang}.json is not a table of texts", code="bad_words")
    return MappingProxyType(data)


def words(lang: str) -> MappingProxyType[str, str]:
    """The whole catalogue of one supported language (read-only)."""
    return _load(check_lang(lang))


def word(lang: str, key: str, /, **values: object) -> str:
    """The text ``key`` in ``lang``, filled with ``values`` (``str.format``).

    A missing key raises :class:`WordsError`: there is no silent fallback, and
    a test checks that both languages have every key.
    """
    try:
        text = words(lang)[key]
    except KeyError:
        raise WordsError(f"no word {key!r} in {lang!r}") from None
    return text.format(**values) if values else text


@cache
def _browser(lang: str) -> MappingProxyType[str, str]:
    table = _load(lang)
    out = {k: v for k, v in table.items() if is_shared(k)}
    out |= {k.removeprefix("web."): v for k, v in table.items() if k.startswith("web.")}
    return MappingProxyType(out)


def browser_words(lang: str) -> MappingProxyType[str, str]:
    """The browser's table: the shared words and ``web.*`` without the prefix."""
    return _browser(check_lang(lang))
