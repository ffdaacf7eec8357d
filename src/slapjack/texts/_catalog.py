"""The shape of one language's texts: a catalogue of short Markdown pieces.

Each language module (``en``, ``de``) builds one :class:`Catalog`. The
composer in :mod:`slapjack.texts` picks the pieces that apply to a given
:class:`~slapjack.core.Rules` and joins them; nothing here knows about games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

TIME_LIMIT_OFF = "0"
"""Value key of ``time_limit = 0`` (no time limit)."""
TIME_LIMIT_ON = ">0"
"""Value key of any positive ``time_limit``; its texts contain ``{duration}``."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A choice the project made where the rulebooks are silent."""

    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every player-facing rules text of one language.

    Keys: games are ``GameKind`` values (``slapjack``, ``irish-snap``); options
    are the names in ``slapjack.core.rules.OPTION_NAMES``; option values are
    the enum values, ``"true"``/``"false"`` for ``say_it`` and
    :data:`TIME_LIMIT_OFF` / :data:`TIME_LIMIT_ON` for ``time_limit``;
    presets are the keys of ``slapjack.core.rules.PRESETS``.
    """

    lang: str
    headings: Mapping[str, str]
    """``how_to_play``, ``options``, ``silent``, ``changed``."""
    game_names: Mapping[str, str]
    intros: Mapping[str, str]
    """Per game: a short paragraph saying what the game is about."""
    basics: Mapping[str, tuple[str, ...]]
    """Per game: the course of play, one Markdown bullet each."""
    option_labels: Mapping[str, str]
    option_help: Mapping[str, str]
    """Per option: one line saying what it decides."""
    value_labels: Mapping[str, Mapping[str, str]]
    """Per option and value: a short name (a menu entry, a few words)."""
    value_lines: Mapping[str, Mapping[str, str]]
    """Per option and value: one line (forms, menus)."""
    value_texts: Mapping[str, Mapping[str, str]]
    """Per option and value: the full paragraph of the rules text."""
    say_it_replaces_wrong_slap: str
    """Said under ``wrong_slap`` when ``say_it`` is on."""
    irish_ignores: str
    """Said in Irish Snap about the Slapjack options; contains ``{names}``."""
    decisions: Mapping[str, Decision]
    preset_labels: Mapping[str, str]
    preset_summaries: Mapping[str, str]
    duration_units: Mapping[str, tuple[str, str]]
    """``hour``, ``minute``, ``second``: (singular, plural)."""
    and_word: str
