"""Choosing en/de from browser headers and POSIX locales."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slapjack.texts import SUPPORTED_LANGS, LanguageError, check_lang, locale_language, ui_language


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "en"),
        ("", "en"),
        ("   ", "en"),
        # browser Accept-Language headers
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-US,en;q=0.9,de;q=0.8", "en"),
        ("fr-FR,fr;q=0.9,de;q=0.8,en;q=0.7", "de"),
        ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "en"),
        ("en;q=0.5, de;q=0.6", "de"),
        (" en ; q=0.5 , de ; q=0.6 ", "de"),
        ("de;q=0.8, en;q=0.8", "de"),  # equal q: the header's order
        ("de;q=0, en", "en"),  # q=0: not acceptable
        ("de;q=0", "en"),
        ("fr", "en"),
        ("*", "en"),
        ("DE", "de"),
        ("de-AT", "de"),
        ("de-CH;q=0.3,fr", "de"),
        ("gsw, de;q=0.4", "de"),
        ("deu", "en"),  # not a tag we know: no prefix matching
        ("de;q=abc, en;q=0.5", "en"),  # malformed q: item ignored
        ("de;q=2, en;q=0.1", "en"),  # q out of range: item ignored
        ("de;q, en", "en"),
        ("de;level=1;q=0.7, en;q=0.6", "de"),
        (",,;;,", "en"),
        # POSIX locales and LANGUAGE-style lists
        ("de_DE.UTF-8", "de"),
        ("de_DE", "de"),
        ("de_AT@euro", "de"),
        ("de_DE.ISO-8859-15@euro", "de"),
        ("en_GB.UTF-8", "en"),
        ("C", "en"),
        ("C.UTF-8", "en"),
        ("POSIX", "en"),
        ("fr:de:en", "de"),
        ("sv_SE.UTF-8", "en"),
    ],
)
def test_ui_language(value: str | None, expected: str) -> None:
    assert ui_language(value) == expected


def test_ui_language_default() -> None:
    assert ui_language("fr", default="de") == "de"
    assert ui_language(None, default="de") == "de"
    assert ui_language("*", default="de") == "de"
    assert ui_language("fr, en;q=0.1", default="de") == "en"
    with pytest.raises(LanguageError):
        ui_language("de", default="fr")


def test_ui_language_survives_huge_headers() -> None:
    assert ui_language("x" * 100_000) == "en"
    assert ui_language("fr," * 50_000 + "de") == "en"  # only the first items are read
    assert ui_language("de," + "fr," * 50_000) == "de"


@given(st.text(max_size=300))
def test_ui_language_never_raises(header: str) -> None:
    assert ui_language(header) in SUPPORTED_LANGS


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LC_ALL": "de_DE.UTF-8", "LANG": "en_US.UTF-8"}, "de"),
        ({"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, "en"),  # LC_ALL wins
        ({"LC_ALL": "", "LANG": "de_DE.UTF-8"}, "de"),  # empty means unset
        ({"LC_MESSAGES": "de_DE.UTF-8", "LANG": "en_US.UTF-8"}, "de"),
        ({"LANGUAGE": "de:en", "LANG": "en_US.UTF-8"}, "de"),
        ({"LANGUAGE": "fr:de", "LANG": "en_US.UTF-8"}, "de"),
        ({"LANGUAGE": "de", "LANG": "C"}, "en"),  # as gettext: C ignores LANGUAGE
        ({"LANGUAGE": "de"}, "en"),
    ],
)
def test_locale_language(env: dict[str, str], expected: str) -> None:
    assert locale_language(env) == expected


def test_locale_language_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert locale_language() == "de"
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert locale_language() == "en"


def test_check_lang() -> None:
    assert check_lang("en") == "en"
    assert check_lang(" De ") == "de"
    for bad in ("fr", "de-DE", "", None, 1):
        with pytest.raises(LanguageError) as err:
            check_lang(bad)
        assert err.value.code == "unknown_language"
        assert "supported: en, de" in str(err.value)
