"""The static client's data files agree with the engine and with each other."""

from __future__ import annotations

import re
import typing

import pytest

from slapjack.core import PRESETS, option_choices
from slapjack.core.rules import MAX_TIME_LIMIT_S, OPTION_NAMES, SLAPJACK_ONLY
from slapjack.protocol import BOT_LEVELS, MAX_SEATS, RoomInfo, options_body
from slapjack.texts.words import browser_words
from slapjack.web import PAGES, STATIC_DIR

JS = STATIC_DIR / "js"


def load(lang: str) -> dict[str, object]:
    """The browser's table of ``lang`` (what ``GET /api/words/{lang}`` sends)."""
    return dict(browser_words(lang))


def test_every_page_and_module_exists() -> None:
    for page in PAGES.values():
        html = (STATIC_DIR / page).read_text(encoding="utf-8")
        assert '<meta name="viewport"' in html
        for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
            assert (STATIC_DIR / src.removeprefix("/static/")).is_file(), (page, src)
    for module in JS.glob("*.js"):
        for imported in re.findall(r'from "\./([\w.]+)"', module.read_text(encoding="utf-8")):
            assert (JS / imported).is_file(), (module.name, imported)


def test_the_options_the_forms_get_are_the_engines() -> None:
    """``GET /api/options`` (the forms' data) is derived from the option table."""
    data = options_body()
    assert not (STATIC_DIR / "options.json").exists()  # no hand copy left
    presets = data["presets"]
    assert isinstance(presets, dict)
    assert set(presets) == set(PRESETS)
    for name, rules in PRESETS.items():
        assert presets[name] == {"game": rules.game.value, "options": rules.option_values()}
    options = data["options"]
    assert isinstance(options, list)
    assert [o["name"] for o in options] == list(OPTION_NAMES)
    for opt in options:
        name = opt["name"]
        assert opt["game"] == ("slapjack" if name in SLAPJACK_ONLY else "irish-snap")
        if option_choices(name):
            assert opt == {**opt, "type": "choice", "choices": list(option_choices(name))}
        elif name == "say_it":
            assert opt["type"] == "bool"
        else:
            assert opt == {**opt, "type": "seconds", "max": MAX_TIME_LIMIT_S}
    assert data["bot_levels"] == list(BOT_LEVELS)
    assert data["max_seats"] == MAX_SEATS


def test_translation_tables_have_the_same_keys_and_placeholders() -> None:
    assert not (STATIC_DIR / "i18n").exists()  # the words live in slapjack/texts/words
    en = load("en")
    de = load("de")
    assert set(en) == set(de), sorted(set(en) ^ set(de))
    for key, text in en.items():
        assert isinstance(text, str) and text.strip(), key
        assert isinstance(de[key], str) and str(de[key]).strip(), key
        holes_en = set(re.findall(r"\{(\w+)\}", text))
        holes_de = set(re.findall(r"\{(\w+)\}", str(de[key])))
        assert holes_en == holes_de, (key, holes_en, holes_de)


def _used_keys() -> set[str]:
    keys: set[str] = set()
    for path in [*JS.glob("*.js"), *STATIC_DIR.glob("*.html")]:
        text = path.read_text(encoding="utf-8")
        keys |= set(re.findall(r'\bt\(\s*"([a-z][\w.-]*)"', text))
        keys |= set(re.findall(r'data-i18n(?:-[a-z-]+)?="([a-z][\w.-]*)"', text))
        # t(cond ? "a" : "b"): both branches
        for a, b in re.findall(r'\bt\(\s*[\w.!=\s]+\?\s*"([\w.-]+)"\s*:\s*"([\w.-]+)"', text):
            keys |= {a, b}
    return keys


def test_every_key_the_client_uses_is_translated() -> None:
    en = load("en")
    used = _used_keys()
    assert len(used) > 150
    missing = sorted(k for k in used if k not in en)
    assert not missing, missing


@pytest.mark.parametrize("lang", ["en", "de"])
def test_key_families_built_at_run_time_are_complete(lang: str) -> None:
    """Keys the client builds from data (games, presets, options, cards, events)."""
    table = load(lang)
    need = {f"game.{g}" for g in ("slapjack", "irish-snap")}
    for name in PRESETS:
        need |= {f"preset.{name}", f"preset.{name}.help"}
    for name in OPTION_NAMES:
        need |= {f"opt.{name}", f"opt.{name}.help"}
        for choice in option_choices(name):
            need |= {f"opt.{name}.{choice}", f"opt.{name}.{choice}.help"}
    need |= {f"bot.{level}" for level in BOT_LEVELS}
    ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    need |= {f"rank.{r}" for r in ranks} | {f"rank.short.{r}" for r in ranks}
    need |= {f"suit.{s}" for s in "CDHS"}
    need |= {f"ev.wrong_slap.{p}" for p in ("pay_player", "pay_pile", "pickup", "forfeit", "none")}
    need |= {f"out.{r}" for r in ("no_cards", "lost_jack", "turn", "wrong_slap")}
    need |= {f"party.corner.{i}" for i in range(4)}
    need |= {f"keys.{a}" for a in ("flip", "slap", "call")}
    need |= {f"lang.{code}" for code in ("en", "de")}
    statuses = typing.get_args(RoomInfo.model_fields["status"].annotation)
    assert "playing" in statuses
    need |= {f"room.status.{status}" for status in statuses}
    missing = sorted(need - set(table))
    assert not missing, missing


def test_event_and_elimination_reasons_cover_the_engine() -> None:
    """Every event type and elimination reason the engine emits has a text."""
    import slapjack.core.events as events

    table = load("en")
    source = (JS / "table.js").read_text(encoding="utf-8")
    for name in events.__dict__:
        obj = getattr(events, name)
        if isinstance(obj, type) and obj.__module__ == events.__name__ and name != "Event":
            snake = re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()
            assert f'case "{snake}"' in source, snake
    doc = events.Eliminated.__doc__ or ""
    for reason in re.findall(r"``(\w+)``", doc):
        if reason not in ("seat", "reason"):
            assert f"out.{reason}" in table, reason
