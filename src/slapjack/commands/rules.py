"""``slapjack rules``: print the rules of a preset, in English or German."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from slapjack.core import PRESETS, Rules, SlapjackError
from slapjack.core.rules import OPTION_NAMES
from slapjack.texts import check_lang, locale_language, preset_help, rules_text

from .common import CommandError, VersionOption

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


class OptionSyntaxError(SlapjackError):
    """A ``--rule`` argument that is not ``key=value``."""

    code = "bad_option"


def parse_rule_options(pairs: Iterable[str]) -> dict[str, Any]:
    """``["tie=split", "say_it=yes", "time_limit=300"]`` as a rules options dict.

    Values are converted to what :meth:`Rules.from_options` expects: ``say_it``
    takes true/false/yes/no/on/off/1/0, ``time_limit`` whole seconds; other
    values stay text and are checked there. A repeated key: the last one wins.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep or not key or not raw:
            raise OptionSyntaxError(f"--rule takes key=value, got {pair!r}")
        if key not in OPTION_NAMES:
            raise OptionSyntaxError(
                f"unknown option {key!r}; options: {', '.join(OPTION_NAMES)}",
                code="unknown_option",
            )
        value: Any = raw
        if key == "say_it":
            if raw.lower() in _TRUE:
                value = True
            elif raw.lower() in _FALSE:
                value = False
        elif key == "time_limit" and raw.isdigit():
            value = int(raw)
        out[key] = value
    return out


LIST_HEADERS = {
    "en": ("preset", "description", "options"),
    "de": ("Vorgabe", "Beschreibung", "Optionen"),
}
"""The column headers of ``slapjack rules --list``."""


def _preset_table(lang: str) -> Table:
    preset, summary, options = LIST_HEADERS[lang]
    table = Table(show_lines=True)
    table.add_column(preset, no_wrap=True)
    table.add_column(summary)
    table.add_column(options, no_wrap=True)
    for name, info in preset_help(lang).items():
        opts = "\n".join(f"{k}={_text(v)}" for k, v in info["options"].items())
        table.add_row(
            f"{name}\n[dim]{info['game']}[/]",
            f"[bold]{info['label']}[/]\n{info['summary']}",
            opts,
        )
    return table


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def register(app: typer.Typer) -> None:
    """Add ``slapjack rules`` to the CLI."""

    @app.command("rules")
    def rules_command(
        preset: str = typer.Option(
            "classic", "--preset", "-p", metavar="NAME", help=f"One of: {', '.join(PRESETS)}."
        ),
        lang: str | None = typer.Option(
            None,
            "--lang",
            "-l",
            metavar="LANG",
            help="en or de (default: from the locale, LC_ALL / LC_MESSAGES / LANG).",
        ),
        rule: list[str] | None = typer.Option(
            None,
            "--rule",
            "-r",
            metavar="KEY=VALUE",
            help="Override an option of the preset, e.g. --rule tie=split (repeatable).",
        ),
        list_presets: bool = typer.Option(
            False, "--list", help="List the presets with a summary of each, then stop."
        ),
        markdown: bool = typer.Option(
            False, "--markdown", help="Print the raw Markdown instead of rendering it."
        ),
        _version: VersionOption = False,
    ) -> None:
        """Print the rules of a preset in our own words, in English or German.

        Every option is listed with its value. Unknown presets, languages and
        options exit with status 2.
        """
        try:
            language = check_lang(lang) if lang is not None else locale_language()
            if list_presets:
                Console().print(_preset_table(language))
                return
            options = {"preset": preset, **parse_rule_options(rule or ())}
            text = rules_text(Rules.from_options(options), language)
        except SlapjackError as exc:
            raise CommandError(exc.message) from None
        if markdown:
            typer.echo(text, nl=False)
        else:
            Console().print(Markdown(text))
