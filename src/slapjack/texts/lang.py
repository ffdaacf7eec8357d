"""Choosing the language of the texts: from a browser header, a locale, or a name."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

from slapjack.core.errors import SlapjackError

SUPPORTED_LANGS: Final = ("en", "de")
DEFAULT_LANG: Final = "en"
_MAX_HEADER: Final = 4096
_MAX_ITEMS: Final = 64


class LanguageError(SlapjackError):
    """A language the texts do not exist in (``code = "unknown_language"``)."""

    code = "unknown_language"


def check_lang(lang: object) -> str:
    """``lang`` as a supported language code (``"en"`` or ``"de"``), else :class:`LanguageError`.

    Only surrounding spaces and letter case are forgiven (``" DE "`` is ``"de"``);
    there is no silent fallback. To pick a language from a browser header or a
    locale, use :func:`ui_language`, which always answers.
    """
    if isinstance(lang, str):
        code = lang.strip().lower()
        if code in SUPPORTED_LANGS:
            return code
    raise LanguageError(
        f"unknown language {lang!r}; supported: {', '.join(SUPPORTED_LANGS)}",
    )


def _quality(params: list[str]) -> float | None:
    """The q value of one Accept-Language item (1.0 if absent), None if malformed."""
    q = 1.0
    for param in params:
        key, sep, value = param.partition("=")
        if key.strip().lower() != "q":
            continue
        if not sep:
            return None
        try:
            q = float(value.strip())
        except ValueError:
            return None
        if not 0.0 <= q <= 1.0:
            return None
    return q


def _primary(tag: str) -> str:
    """``de`` from ``de-AT``, ``de_DE.UTF-8``, ``de_DE@euro``; lower case."""
    tag = tag.split(".", 1)[0].split("@", 1)[0]
    return tag.replace("_", "-").split("-", 1)[0].strip().lower()


def ui_language(accept: str | None, default: str = DEFAULT_LANG) -> str:
    """Pick ``"en"`` or ``"de"`` from a browser ``Accept-Language`` header or a locale.

    Understands headers such as ``"de-DE,de;q=0.9,en;q=0.8"`` (the supported
    language with the highest ``q`` wins; ``q=0`` means "not this one"; equal
    ``q`` keeps the header's order), POSIX locales such as ``"de_DE.UTF-8"`` or
    ``"C"``, and colon-separated lists as in the ``LANGUAGE`` variable. Anything
    unknown, empty, malformed or ``None`` gives ``default``. Never raises for a
    bad header; ``default`` itself must be supported.
    """
    fallback = check_lang(default)
    if not accept or not isinstance(accept, str):
        return fallback
    best: tuple[float, str] | None = None
    items = accept[:_MAX_HEADER].replace(":", ",").split(",")[:_MAX_ITEMS]
    for item in items:
        tag, *params = item.split(";")
        q = _quality(params)
        if q is None or q <= 0.0:
            continue
        primary = _primary(tag)
        if primary in ("*", "c", "posix"):
            lang = fallback
        elif primary in SUPPORTED_LANGS:
            lang = primary
        else:
            continue
        if best is None or q > best[0]:
            best = (q, lang)
    return best[1] if best is not None else fallback


def locale_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the POSIX locale: ``LC_ALL``, then ``LC_MESSAGES``, then ``LANG``.

    As GNU gettext does, a ``LANGUAGE`` list (``"de:en"``) is consulted first
    unless the locale is ``C``/``POSIX``. Unset or unsupported gives English.
    """
    env = os.environ if environ is None else environ
    loc = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    wanted = env.get("LANGUAGE", "")
    if wanted and loc and _primary(loc) not in ("c", "posix"):
        return ui_language(f"{wanted}:{loc}")
    return ui_language(loc)
