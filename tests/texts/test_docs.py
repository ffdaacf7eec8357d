"""docs/rules.en.md and docs/rules.de.md: complete, in the right language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from slapjack.core import PRESETS
from slapjack.core.rules import OPTION_NAMES, option_choices
from slapjack.texts import ALL_DECISIONS, SUPPORTED_LANGS, catalog

DOCS = Path(__file__).parents[2] / "docs"


def doc(lang: str) -> str:
    return (DOCS / f"rules.{lang}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", SUPPORTED_LANGS)
def test_doc_names_every_option_value_and_preset(lang: str) -> None:
    text = doc(lang)
    for name in OPTION_NAMES:
        assert f"`{name}`" in text, name
        for value in option_choices(name):
            assert f"`{value}`" in text, (name, value)
    for preset in PRESETS:
        assert f"`{preset}`" in text, preset
    assert "`true`" in text and "`false`" in text  # say_it
    assert "`0`" in text  # time_limit off


@pytest.mark.parametrize("lang", SUPPORTED_LANGS)
def test_doc_has_every_decision_where_the_rulebooks_are_silent(lang: str) -> None:
    text = doc(lang)
    cat = catalog(lang)
    heading = f"## {cat.headings['silent']}"
    assert heading in text
    silent = text[text.index(heading) :]
    silent = silent[: silent.index("\n## ", 1)]
    titles = {cat.decisions[key].title for key in ALL_DECISIONS}
    for title in titles:
        assert f"**{title}" in silent, title
    assert "100 ms" in silent


def test_german_doc_is_german() -> None:
    prose = re.sub(r"`[^`]*`|```.*?```", "", doc("de"), flags=re.S)
    for word in ("Bube", "Stapel", "Fehlschlag", "Ansage", "Mittelstapel"):
        assert word in prose
    english = re.findall(r"\b(the|and|you|your|player|card)\b", prose)
    assert english == []
