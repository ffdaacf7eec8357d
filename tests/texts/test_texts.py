"""The rules texts: complete in both languages, composed per Rules, in our own words."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from slapjack.core import PRESETS, RulesError, SlapjackError
from slapjack.core.rules import (
    IRISH_ONLY,
    MAX_TIME_LIMIT_S,
    OPTION_NAMES,
    SLAPJACK_ONLY,
    AfterJack,
    EmptyStack,
    IrishGoal,
    Rules,
    Tie,
    WrongSlap,
)
from slapjack.texts import (
    ALL_DECISIONS,
    SUPPORTED_LANGS,
    TIME_LIMIT_OFF,
    TIME_LIMIT_ON,
    Catalog,
    LanguageError,
    catalog,
    decisions_for,
    format_duration,
    game_label,
    option_help,
    option_value_label,
    option_value_line,
    option_value_text,
    preset_help,
    preset_label,
    preset_summary,
    rules_text,
)

ENUMS: dict[str, Any] = {
    "after_jack": AfterJack,
    "wrong_slap": WrongSlap,
    "empty_stack": EmptyStack,
    "tie": Tie,
    "irish_goal": IrishGoal,
}
# Every value an option can take, as the engine names it (time_limit: off and one on).
ALL_VALUES: list[tuple[str, Any]] = [
    *((name, member) for name, enum in ENUMS.items() for member in enum),
    ("say_it", False),
    ("say_it", True),
    ("time_limit", 0),
    ("time_limit", 300),
]


def flat(text: str) -> str:
    return " ".join(text.split())


def all_strings(cat: Catalog) -> list[str]:
    """Every player-facing string of a catalogue."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, tuple | list):
            for v in value:
                walk(v)
        elif hasattr(value, "title") and hasattr(value, "text"):
            walk(value.title)
            walk(value.text)

    for f in fields(cat):
        if f.name != "lang":
            walk(getattr(cat, f.name))
    return out


# ------------------------------------------------------------- completeness


def test_every_option_value_has_texts_in_both_languages() -> None:
    assert len(ALL_VALUES) == sum(len(e) for e in ENUMS.values()) + 4
    for lang in SUPPORTED_LANGS:
        for name, value in ALL_VALUES:
            label = option_value_label(name, value, lang)
            assert label.strip() and "{" not in label, (lang, name, value)
            line = option_value_line(name, value, lang)
            text = option_value_text(name, value, lang)
            assert line.strip() and text.strip(), (lang, name, value)
            assert "{" not in line + text, (lang, name, value)  # placeholders filled
            assert "\n" not in line, "a one-liner is one line"
            assert len(text) > len(line)
    for name, value in ALL_VALUES:
        assert option_value_text(name, value, "en") != option_value_text(name, value, "de")


def test_values_of_an_option_are_told_apart() -> None:
    for lang in SUPPORTED_LANGS:
        for name in OPTION_NAMES:
            values = [v for n, v in ALL_VALUES if n == name]
            texts = {option_value_text(name, v, lang) for v in values}
            lines = {option_value_line(name, v, lang) for v in values}
            assert len(texts) == len(values) and len(lines) == len(values), (lang, name)


def test_catalogues_have_the_same_keys() -> None:
    en, de = catalog("en"), catalog("de")
    for f in fields(Catalog):
        a, b = getattr(en, f.name), getattr(de, f.name)
        if isinstance(a, dict):
            assert a.keys() == b.keys(), f.name
            for key, value in a.items():
                if isinstance(value, dict):
                    assert value.keys() == b[key].keys(), (f.name, key)
                if isinstance(value, tuple):
                    assert len(value) == len(b[key]), (f.name, key)
    assert set(en.decisions) == set(ALL_DECISIONS)
    assert set(en.preset_labels) == set(PRESETS) == set(en.preset_summaries)
    assert set(en.option_labels) == set(OPTION_NAMES) == set(en.option_help)
    for name in OPTION_NAMES:
        assert set(en.value_texts[name]) == set(en.value_lines[name])


def test_option_help_covers_every_option_and_value() -> None:
    for lang in SUPPORTED_LANGS:
        help_ = option_help(lang)
        assert list(help_) == list(OPTION_NAMES)
        for name, entry in help_.items():
            assert entry["label"] and entry["help"], name
            assert entry["game"] == ("irish-snap" if name in IRISH_ONLY else "slapjack")
            if name in ENUMS:
                assert entry["kind"] == "choice"
                assert list(entry["values"]) == [m.value for m in ENUMS[name]]
                assert entry["default"] in entry["values"]
            elif name == "say_it":
                assert entry["kind"] == "bool"
                assert set(entry["values"]) == {"false", "true"}
                assert entry["default"] is False
            else:
                assert entry["kind"] == "seconds"
                assert set(entry["values"]) == {TIME_LIMIT_OFF, TIME_LIMIT_ON}
                assert (entry["default"], entry["min"], entry["max"]) == (0, 0, MAX_TIME_LIMIT_S)
            assert all(isinstance(v, str) and v for v in entry["values"].values())
            labels = entry["value_labels"]
            assert labels.keys() == entry["values"].keys()
            assert len(set(labels.values())) == len(labels), name
            assert all(len(label) < 40 for label in labels.values()), name
    # A fresh dict each call: callers may change theirs.
    mine = option_help("en")
    mine["tie"]["label"] = "changed"
    assert option_help("en")["tie"]["label"] != "changed"
    assert option_help("en")["tie"]["label"] != option_help("de")["tie"]["label"]


def test_defaults_in_option_help_match_the_default_presets() -> None:
    help_ = option_help("en")
    classic, irish = PRESETS["classic"], PRESETS["irish-snap"]
    for name in OPTION_NAMES:
        base = irish if name in IRISH_ONLY else classic
        expected = getattr(base, name)
        assert help_[name]["default"] == getattr(expected, "value", expected)


# ----------------------------------------------------------- composed texts


@pytest.mark.parametrize("lang", SUPPORTED_LANGS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_preset_text_lists_every_option_value_in_force(preset: str, lang: str) -> None:
    rules = Rules.from_options({"preset": preset})
    text = rules_text(rules, lang)
    assert text.startswith("# ")
    values = rules.option_values()
    assert set(values) == (IRISH_ONLY if rules.is_irish else SLAPJACK_ONLY)
    for name, value in values.items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        assert f"`{name} = {shown}`" in text, (name, value)
        if name == "wrong_slap" and rules.say_it:
            assert catalog(lang).say_it_replaces_wrong_slap in text
        else:
            assert option_value_text(name, value, lang) in text
        # The other values of this option are not described as in force.
        for other_name, other in ALL_VALUES:
            if other_name == name and option_value_text(name, other, lang) != (
                option_value_text(name, value, lang)
            ):
                assert option_value_text(name, other, lang) not in text, (name, other)
    assert preset_label(preset, lang) in text
    assert preset_summary(preset, lang) in text
    assert catalog(lang).intros[rules.game.value] in text
    for key in decisions_for(rules):
        decision = catalog(lang).decisions[key]
        assert decision.title in text and decision.text in text
    if rules.is_irish:
        for name in SLAPJACK_ONLY:
            assert f"`{name}`" in text  # named as not applying


ENGLISH_WORDS = re.compile(r"\b(the|and|you|your|with|player|slap|card)\b")
GERMAN_WORDS = re.compile(r"\b(der|die|das|und|du|nicht|Karte|Stapel|Bube|Buben)\b")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_german_texts_are_german(preset: str) -> None:
    rules = Rules.from_options({"preset": preset})
    de = rules_text(rules, "de")
    prose = re.sub(r"`[^`]*`", "", de)  # option names stay as the engine spells them
    assert "Stapel" in prose
    assert "Bube" in prose or "Ansage" in prose
    assert not ENGLISH_WORDS.search(prose), ENGLISH_WORDS.search(prose)
    assert len(GERMAN_WORDS.findall(prose)) > 50
    en = re.sub(r"`[^`]*`", "", rules_text(rules, "en"))
    assert "Jack" in en and "Bube" not in en.replace("Klatsch-Bube", "")
    assert not re.search(r"\b(und|nicht|Karte|Stapel)\b", en)


def test_german_catalogue_has_no_english_prose() -> None:
    for s in all_strings(catalog("de")):
        prose = re.sub(r"`[^`]*`", "", s)
        assert not ENGLISH_WORDS.search(prose), s


def test_override_changes_the_text() -> None:
    base = Rules.from_options({"preset": "classic"})
    split = Rules.from_options({"preset": "classic", "tie": "split", "time_limit": 300})
    for lang in SUPPORTED_LANGS:
        before, after = rules_text(base, lang), rules_text(split, lang)
        assert option_value_text("tie", Tie.RESLAP, lang) in before
        assert option_value_text("tie", Tie.SPLIT, lang) in after
        assert option_value_text("tie", Tie.RESLAP, lang) not in after
        changed = catalog(lang).headings["changed"]
        assert changed not in before
        assert f"{changed} `classic`: `tie = split`, `time_limit = 300`." in after
        cat = catalog(lang)
        assert cat.decisions["split_turn"].title in after
        assert cat.decisions["reslap_silence"].title not in after
        assert cat.decisions["reslap_silence"].title in before
    assert "5 minutes" in rules_text(split, "en")
    assert "5 Minuten" in rules_text(split, "de")


def test_say_it_replaces_the_wrong_slap_paragraph() -> None:
    rules = Rules.from_options({"preset": "say-it"})
    for lang in SUPPORTED_LANGS:
        text = rules_text(rules, lang)
        assert option_value_text("wrong_slap", WrongSlap.PAY_PLAYER, lang) not in text
        assert catalog(lang).decisions["say_it_forfeit"].text in text
        assert catalog(lang).decisions["owed_to_out"].text not in text


def test_decisions_follow_the_rules() -> None:
    def keys(**options: Any) -> set[str]:
        return set(decisions_for(Rules.from_options(options)))

    common = {"who_starts", "idle"}
    slapjack = common | {"referee", "anticipation"}
    irish = common | {"referee_irish", "anticipation_irish"}
    assert keys(preset="classic") == slapjack | {
        "no_slap",
        "reslap_silence",
        "owed_to_out",
        "pile_returned",
    }
    assert keys(preset="klatsch-bube") == slapjack | {"no_slap", "split_turn", "pile_returned"}
    assert keys(preset="say-it") == slapjack | {
        "no_slap",
        "reslap_silence",
        "say_it_forfeit",
        "pile_returned",
    }
    assert keys(preset="irish-snap") == irish | {
        "irish_last",
        "last_card_safe",
        "pile_returned_irish",
    }
    assert keys(preset="irish-snap-winner") == irish | {
        "irish_last",
        "first_out_tie",
        "pile_returned_irish",
    }
    used: set[str] = set()
    for preset in PRESETS:
        used |= keys(preset=preset)
    assert used == set(ALL_DECISIONS)


def test_decision_texts_name_what_the_engine_does() -> None:
    """Spot checks that the decision texts say what core/game.py decides."""
    en = catalog("en").decisions
    assert "buried" in en["no_slap"].text and "after the one who turned it up" in en["no_slap"].text
    assert "player who turned up the last card" in en["pile_returned"].text
    assert "Ace" in en["pile_returned_irish"].text
    assert "under the centre pile" in en["owed_to_out"].text
    assert "out at once" in en["say_it_forfeit"].text
    assert "seat order" in en["reslap_silence"].text
    assert "later than everybody who did" in en["irish_last"].text
    assert "100 ms" in en["anticipation"].text
    assert "reaction" in en["referee"].text
    de = catalog("de").decisions
    assert "Ass" in de["pile_returned_irish"].text and "100 ms" in de["anticipation"].text


# ------------------------------------------------------------ small helpers


@pytest.mark.parametrize(
    ("seconds", "lang", "expected"),
    [
        (1, "en", "1 second"),
        (45, "en", "45 seconds"),
        (60, "en", "1 minute"),
        (330, "en", "5 minutes and 30 seconds"),
        (3661, "en", "1 hour, 1 minute and 1 second"),
        (7200, "en", "2 hours"),
        (90, "de", "1 Minute und 30 Sekunden"),
        (7200, "de", "2 Stunden"),
        (1, "de", "1 Sekunde"),
        (0, "en", "0 seconds"),
    ],
)
def test_format_duration(seconds: int, lang: str, expected: str) -> None:
    assert format_duration(seconds, lang) == expected


def test_value_labels_fill_in_durations() -> None:
    assert option_value_label("time_limit", 300, "en") == "5 minutes"
    assert option_value_label("time_limit", 0, "de") == "Kein Limit"
    assert option_value_label("tie", Tie.SPLIT, "de") == "Stapel teilen"
    assert option_value_line("time_limit", 90, "de").startswith("Nach 1 Minute und 30 Sekunden")


def test_preset_summaries_and_labels() -> None:
    for lang in SUPPORTED_LANGS:
        info = preset_help(lang)
        assert list(info) == list(PRESETS)
        for name, rules in PRESETS.items():
            assert preset_summary(name, lang) == info[name]["summary"]
            assert preset_label(name, lang) == info[name]["label"]
            assert info[name]["game"] == rules.game.value
            assert info[name]["options"] == rules.option_values()
    assert preset_label("classic", "de") == "Klassisch"
    assert game_label("irish-snap", "de") == "Irish Snap"
    with pytest.raises(RulesError) as err:
        preset_summary("snap", "en")
    assert err.value.code == "unknown_preset"


@pytest.mark.parametrize("bad", ["fr", "", "english", "de-DE", None, 7])
def test_unknown_language_is_a_typed_error(bad: Any) -> None:
    with pytest.raises(LanguageError) as err:
        rules_text(Rules(), bad)
    assert err.value.code == "unknown_language"
    assert isinstance(err.value, SlapjackError) and isinstance(err.value, ValueError)
    for call in (option_help, preset_help):
        with pytest.raises(LanguageError):
            call(bad)
    with pytest.raises(LanguageError):
        preset_summary("classic", bad)


def test_language_codes_forgive_case_and_spaces() -> None:
    assert rules_text(Rules(), " DE ") == rules_text(Rules(), "de")


def test_unknown_option_or_game_is_a_typed_error() -> None:
    with pytest.raises(LanguageError):
        option_value_line("speed", 1, "en")
    with pytest.raises(LanguageError):
        game_label("poker", "en")


# --------------------------------------------------------- our own words

RULEBOOK_SOURCES = [
    *sorted(Path("/work/shared/rulebooks").glob("*.txt")),
    Path("/work/shared/RULES.md"),
]
NGRAM = 8


def ngrams(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-zäöüß0-9]+", text.lower())
    return {tuple(words[i : i + NGRAM]) for i in range(len(words) - NGRAM + 1)}


@pytest.mark.skipif(
    not all(p.exists() for p in RULEBOOK_SOURCES),
    reason="the rulebooks live outside the repository (/work/shared)",
)
def test_no_sentence_is_copied_from_the_rulebooks() -> None:
    source: set[tuple[str, ...]] = set()
    for path in RULEBOOK_SOURCES:
        source |= ngrams(path.read_text(encoding="utf-8"))
    ours = [s for lang in SUPPORTED_LANGS for s in all_strings(catalog(lang))]
    docs = Path(__file__).parents[2] / "docs"
    ours += [(docs / f"rules.{lang}.md").read_text(encoding="utf-8") for lang in SUPPORTED_LANGS]
    for text in ours:
        copied = ngrams(text) & source
        assert not copied, " ".join(sorted(copied)[0])
