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


_VALUE_WORD = {TIME_LIMIT_OFF: "off", TIME_LIMIT_ON: "on"}
"""The catalogue key of the time limit's two value keys (``opt.time_limit.off``)."""


def value_word(value_key: str) -> str:
    """The last part of an option value's key in the words: ``"off"`` for ``"0"``."""
    return _VALUE_WORD.get(value_key, value_key)


def build_catalog(
    lang: str,
    table: Mapping[str, str],
    options: Mapping[str, tuple[str, ...]],
    presets: tuple[str, ...],
    decisions: tuple[str, ...],
) -> Catalog:
    """One language's :class:`Catalog` from its words (``texts/words/<lang>.json``).

    ``options`` maps each option name to its value keys; a key the words lack
    raises ``KeyError`` (a test keeps both languages complete).
    """

    def per_option(fmt: str) -> dict[str, dict[str, str]]:
        return {
            name: {v: table[fmt.format(name=name, value=value_word(v))] for v in values}
            for name, values in options.items()
        }

    games = ("slapjack", "irish-snap")
    basics: dict[str, tuple[str, ...]] = {}
    for game in games:
        count = sum(1 for k in table if k.startswith(f"rules.basics.{game}."))
        basics[game] = tuple(table[f"rules.basics.{game}.{i}"] for i in range(1, count + 1))
    units = ("hour", "minute", "second")
    return Catalog(
        lang=lang,
        headings={
            h: table[f"rules.heading.{h}"] for h in ("how_to_play", "options", "silent", "changed")
        },
        game_names={g: table[f"game.{g}"] for g in games},
        intros={g: table[f"rules.intro.{g}"] for g in games},
        basics=basics,
        option_labels={name: table[f"opt.{name}"] for name in options},
        option_help={name: table[f"opt.{name}.help"] for name in options},
        value_labels=per_option("opt.{name}.{value}"),
        value_lines=per_option("opt.{name}.{value}.help"),
        value_texts=per_option("rules.value.{name}.{value}"),
        say_it_replaces_wrong_slap=table["rules.say_it_replaces_wrong_slap"],
        irish_ignores=table["rules.irish_ignores"],
        decisions={
            k: Decision(table[f"rules.decision.{k}.title"], table[f"rules.decision.{k}.text"])
            for k in decisions
        },
        preset_labels={p: table[f"preset.{p}"] for p in presets},
        preset_summaries={p: table[f"rules.preset.{p}"] for p in presets},
        duration_units={
            u: (
                table[f"unit.{u}_one"].removeprefix("{n} "),
                table[f"unit.{u}"].removeprefix("{n} "),
            )
            for u in units
        },
        and_word=table["list.and"],
    )
