"""Player-facing rules texts in English and German, in the project's own words.

The texts are small Markdown pieces, entries of the one catalogue of words
(``texts/words/en.json`` and ``de.json``, see :mod:`slapjack.texts.words`,
which the browser and the terminal game read too): a short intro and the
course of play per game, a paragraph and a one-liner per option value, and
the decisions the engine makes where the rulebooks are silent.
:func:`rules_text` composes the pieces that apply to any :class:`Rules`.

Languages: every function taking ``lang`` accepts exactly the codes in
:data:`SUPPORTED_LANGS` (case and spaces forgiven) and raises
:class:`LanguageError` for anything else: there is no silent fallback. Use
:func:`ui_language` to turn a browser header or a locale into a supported
code; it always answers (English when nothing fits).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from slapjack.core.rules import (
    OPTION_NAMES,
    OPTIONS,
    PRESETS,
    SLAPJACK_ONLY,
    GameKind,
    OptionKind,
    Rules,
    Tie,
    WrongSlap,
    option_default,
)

from ._catalog import TIME_LIMIT_OFF, TIME_LIMIT_ON, Catalog, Decision, build_catalog
from .lang import (
    DEFAULT_LANG,
    SUPPORTED_LANGS,
    LanguageError,
    check_lang,
    locale_language,
    ui_language,
)
from .words import word, words

__all__ = [
    "ALL_DECISIONS",
    "DEFAULT_LANG",
    "SUPPORTED_LANGS",
    "TIME_LIMIT_OFF",
    "TIME_LIMIT_ON",
    "Catalog",
    "Decision",
    "LanguageError",
    "catalog",
    "check_lang",
    "decisions_for",
    "format_duration",
    "game_label",
    "locale_language",
    "option_help",
    "option_value_key",
    "option_value_label",
    "option_value_line",
    "option_value_text",
    "preset_help",
    "preset_label",
    "preset_summary",
    "rules_text",
    "ui_language",
    "word",
    "words",
]

ALL_DECISIONS: Final = (
    "who_starts",
    "no_slap",
    "pile_returned",
    "pile_returned_irish",
    "owed_to_out",
    "say_it_forfeit",
    "reslap_silence",
    "split_turn",
    "irish_last",
    "last_card_safe",
    "first_out_tie",
    "referee",
    "referee_irish",
    "anticipation",
    "anticipation_irish",
    "idle",
)
"""Every decision key, in the order the texts present them."""


def _value_keys(option: Any) -> tuple[str, ...]:
    if option.kind is OptionKind.SECONDS:
        return (TIME_LIMIT_OFF, TIME_LIMIT_ON)
    return tuple(option.values)


_CATALOGS: Final[dict[str, Catalog]] = {
    lang: build_catalog(
        lang,
        words(lang),
        {option.name: _value_keys(option) for option in OPTIONS},
        tuple(PRESETS),
        ALL_DECISIONS,
    )
    for lang in SUPPORTED_LANGS
}


def catalog(lang: str) -> Catalog:
    """The rules texts of one supported language (built from its words)."""
    return _CATALOGS[check_lang(lang)]


# --------------------------------------------------------------- option values


def option_value_key(name: str, value: Any) -> str:
    """The catalogue key of an option value: enum values as they are,
    ``"true"``/``"false"`` for ``say_it``, :data:`TIME_LIMIT_OFF` or
    :data:`TIME_LIMIT_ON` for ``time_limit``."""
    if name not in OPTION_NAMES:
        raise LanguageError(f"unknown option {name!r}", code="unknown_option")
    if isinstance(value, StrEnum):
        return value.value
    if name == "say_it":
        return "true" if value else "false"
    if name == "time_limit":
        return TIME_LIMIT_ON if value else TIME_LIMIT_OFF
    return str(value)


def format_duration(seconds: int, lang: str) -> str:
    """``"5 minutes"``, ``"1 Stunde und 30 Minuten"``: whole seconds in words."""
    cat = catalog(lang)
    parts: list[str] = []
    rest = int(seconds)
    for unit, size in (("hour", 3600), ("minute", 60), ("second", 1)):
        count, rest = divmod(rest, size)
        if count:
            one, many = cat.duration_units[unit]
            parts.append(f"{count} {one if count == 1 else many}")
    if not parts:
        one, many = cat.duration_units["second"]
        return f"0 {many}"
    if len(parts) == 1:
        return parts[0]
    return f"{', '.join(parts[:-1])} {cat.and_word} {parts[-1]}"


def _fill(text: str, name: str, value: Any, lang: str) -> str:
    if name == "time_limit" and value:
        return text.replace("{duration}", format_duration(int(value), lang))
    return text


def _value_entry(table: str, name: str, value: Any, lang: str) -> str:
    """One option value's text from the catalogue table ``table``, filled in."""
    entries: dict[str, dict[str, str]] = getattr(catalog(lang), table)
    try:
        text = entries[name][option_value_key(name, value)]
    except KeyError:
        raise LanguageError(f"no text for {name} = {value!r}", code="bad_option") from None
    return _fill(text, name, value, lang)


def option_value_label(name: str, value: Any, lang: str) -> str:
    """A short name of one option value, for a menu (``"Share the pile"``)."""
    return _value_entry("value_labels", name, value, lang)


def option_value_line(name: str, value: Any, lang: str) -> str:
    """One line explaining one option value (positive time limits are filled in)."""
    return _value_entry("value_lines", name, value, lang)


def option_value_text(name: str, value: Any, lang: str) -> str:
    """The rules paragraph of one option value (positive time limits are filled in)."""
    return _value_entry("value_texts", name, value, lang)


def _value_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, StrEnum):
        return value.value
    return str(value)


def option_help(lang: str) -> dict[str, dict[str, Any]]:
    """For every option: what a form or a start screen needs to offer it.

    ``{name: {"label", "help", "game", "kind", "default", "values",
    "value_labels", ...}}`` where ``game`` is ``"slapjack"`` or ``"irish-snap"``
    (the game it belongs to), ``kind`` is ``"choice"`` (an enum; ``values`` maps
    each allowed value to one line), ``"bool"`` (``values`` has ``"false"`` and
    ``"true"``) or ``"seconds"`` (``values`` has :data:`TIME_LIMIT_OFF` for 0 and
    :data:`TIME_LIMIT_ON` for any positive number, with ``{duration}`` left in:
    fill it with :func:`format_duration`; ``min``/``max`` give the range).
    ``value_labels`` has the same keys as ``values``, each a short name for a
    menu entry. ``default`` is the value of the default preset of its game. A
    fresh dict on every call: change it freely.
    """
    cat = catalog(lang)
    out: dict[str, dict[str, Any]] = {}
    for option in OPTIONS:
        name = option.name
        default_preset = "irish-snap" if option.game is GameKind.IRISH_SNAP else "classic"
        entry: dict[str, Any] = {
            "label": cat.option_labels[name],
            "help": cat.option_help[name],
            "game": option.game.value,
            "kind": option.kind.value,
            "default": option_default(name, default_preset),
        }
        keys = option.values
        if option.kind is OptionKind.SECONDS:
            entry["min"] = 0
            entry["max"] = option.maximum
            keys = (TIME_LIMIT_OFF, TIME_LIMIT_ON)
        entry["values"] = {k: cat.value_lines[name][k] for k in keys}
        entry["value_labels"] = {k: cat.value_labels[name][k] for k in keys}
        out[name] = entry
    return out


# -------------------------------------------------------------------- presets


def _check_preset(name: str) -> Rules:
    return Rules.preset_rules(name)  # raises RulesError(code="unknown_preset")


def preset_label(name: str, lang: str) -> str:
    """A preset's display name (``"Klassisch"`` for ``classic`` in German)."""
    _check_preset(name)
    return catalog(lang).preset_labels[name]


def preset_summary(name: str, lang: str) -> str:
    """One or two sentences saying what a preset plays like.

    An unknown preset raises :class:`~slapjack.core.RulesError` (``unknown_preset``),
    an unknown language :class:`LanguageError`.
    """
    _check_preset(name)
    return catalog(lang).preset_summaries[name]


def preset_help(lang: str) -> dict[str, dict[str, Any]]:
    """Every preset: ``{"label", "summary", "game", "options": {name: value}}``."""
    cat = catalog(lang)
    return {
        name: {
            "label": cat.preset_labels[name],
            "summary": cat.preset_summaries[name],
            "game": rules.game.value,
            "options": rules.option_values(),
        }
        for name, rules in PRESETS.items()
    }


def game_label(game: GameKind | str, lang: str) -> str:
    """``"Slapjack"`` or ``"Irish Snap"``."""
    try:
        kind = GameKind(game)
    except ValueError:
        raise LanguageError(f"unknown game {game!r}", code="unknown_game") from None
    return catalog(lang).game_names[kind.value]


# ------------------------------------------------------------------ decisions


def decisions_for(rules: Rules) -> list[str]:
    """The keys of the decisions (see :data:`ALL_DECISIONS`) that matter under ``rules``."""
    keys = ["who_starts"]
    if rules.is_irish:
        keys += ["irish_last"]
        keys += ["last_card_safe"] if rules.irish_goal.value == "avoid_last" else ["first_out_tie"]
        keys += ["pile_returned_irish"]
    else:
        keys += ["no_slap"]
        if rules.tie is Tie.RESLAP:
            keys.append("reslap_silence")
        else:
            keys.append("split_turn")
        if rules.say_it:
            keys.append("say_it_forfeit")
        elif rules.wrong_slap is WrongSlap.PAY_PLAYER:
            keys.append("owed_to_out")
        keys.append("pile_returned")
    if rules.is_irish:
        keys += ["referee_irish", "anticipation_irish"]
    else:
        keys += ["referee", "anticipation"]
    keys.append("idle")
    return keys


# ---------------------------------------------------------------- rules text


def _option_title(cat: Catalog, name: str, value: Any) -> str:
    return f"**{cat.option_labels[name]}** (`{name} = {_value_str(value)}`)"


def rules_text(rules: Rules, lang: str) -> str:
    """The rules of ``rules`` for players, as Markdown, in ``lang``.

    A title with the game and preset, the preset's summary, the game's intro
    and course of play, every option in force with its value (``name = value``)
    and its paragraph, the options changed from the preset, and the decisions
    that matter under these rules.
    """
    cat = catalog(lang)
    game = rules.game.value
    game_name, preset_name = cat.game_names[game], cat.preset_labels[rules.preset]
    title = preset_name if preset_name.startswith(game_name) else f"{game_name}: {preset_name}"
    out: list[str] = [
        f"# {title}",
        "",
        f"*{cat.preset_summaries[rules.preset]}*",
        "",
        cat.intros[game],
        "",
        f"## {cat.headings['how_to_play']}",
        "",
    ]
    out += [f"- {bullet}" for bullet in cat.basics[game]]
    out += ["", f"## {cat.headings['options']}", ""]
    values = rules.option_values()
    for name, value in values.items():
        if name == "wrong_slap" and rules.say_it:
            text = cat.say_it_replaces_wrong_slap
        else:
            text = option_value_text(name, value, lang)
        out.append(f"- {_option_title(cat, name, value)}: {text}")
    if rules.is_irish:
        names = ", ".join(f"`{n}`" for n in OPTION_NAMES if n in SLAPJACK_ONLY)
        out += ["", cat.irish_ignores.format(names=names)]
    changed = [n for n in OPTION_NAMES if n in rules.to_options()]
    if changed:
        listed = ", ".join(f"`{n} = {_value_str(values[n])}`" for n in changed)
        out += ["", f"{cat.headings['changed']} `{rules.preset}`: {listed}."]
    out += ["", f"## {cat.headings['silent']}", ""]
    for key in decisions_for(rules):
        d = cat.decisions[key]
        out.append(f"- **{d.title}.** {d.text}")
    out.append("")
    return "\n".join(out)
