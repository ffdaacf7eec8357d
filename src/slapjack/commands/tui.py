"""``slapjack tui``: play in the terminal against bots or friends on one keyboard."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import typer
from rich.console import Console

from slapjack.core import Card, Rules, SlapjackError, parse_deck


class DeckFileError(SlapjackError):
    """A ``--deck`` file that cannot be read as 52 cards."""

    code = "bad_deck"


def read_deck(path: Path) -> tuple[Card, ...]:
    """A stacked deck from a file: 52 card names (``10H JS …``) separated by
    spaces, commas or new lines, a JSON list of names, or a JSON record with a
    ``deck``. The first card goes to the first seat, who flips first."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckFileError(f"cannot read {path}: {exc}") from None
    stripped = text.strip()
    names: object
    if stripped.startswith(("[", "{")):
        try:
            names = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise DeckFileError(f"{path} is not valid JSON: {exc}") from None
        if isinstance(names, dict):
            names = names.get("deck")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise DeckFileError(f'{path}: expected a list of 52 card names like "10H"')
    else:
        names = [n for n in re.split(r"[\s,;]+", stripped) if n]
    return parse_deck(names)


def register(app: typer.Typer) -> None:
    """Add ``slapjack tui`` to the CLI."""

    @app.command("tui")
    def tui_command(
        lang: str | None = typer.Option(
            None, "--lang", "-l", help="en or de (default: from the locale)."
        ),
        preset: str = typer.Option(
            "classic",
            "--preset",
            "-p",
            help="classic, klatsch-bube, say-it, irish-snap or irish-snap-winner.",
        ),
        rule: list[str] | None = typer.Option(
            None, "--rule", "-r", help="Override an option, e.g. --rule tie=split (repeatable)."
        ),
        seats: int = typer.Option(4, "--seats", "-n", min=2, max=10, help="Seats at the table."),
        humans: int = typer.Option(
            1, "--humans", min=0, max=10, help="How many of the seats are people (the first ones)."
        ),
        bots: str = typer.Option(
            "casual", "--bots", help="Level of the bot seats: beginner, casual, pro, perfect."
        ),
        seed: int | None = typer.Option(
            None,
            "--seed",
            min=0,
            max=2**64 - 1,
            help="Deal from this seed (the game can be replayed).",
        ),
        deck: Path | None = typer.Option(
            None, "--deck", help="Deal this stacked deck: a file of 52 card names (10H JS …)."
        ),
        turn_seconds: float = typer.Option(
            5.0,
            "--turn-seconds",
            min=0,
            max=600,
            help="Flip for an idle player after this (0: never).",
        ),
        slap_window_ms: float = typer.Option(
            600.0, "--slap-window-ms", min=100, max=5000, help="How long a Jack stays open to slap."
        ),
        quick: bool = typer.Option(False, "--quick", help="Skip the start screen."),
        join: str | None = typer.Option(
            None,
            "--join",
            help="Play online: a room code of a running 'slapjack serve', or its invite link "
            "(http://host:port/r/CODE).",
        ),
        server: str | None = typer.Option(
            None,
            "--server",
            help="The server of --join CODE (default http://127.0.0.1:8000).",
        ),
        name: str | None = typer.Option(
            None, "--name", help="Your name at the online table (default: your login name)."
        ),
        token: str | None = typer.Option(
            None,
            "--token",
            help="Back into the seat you already have in the room (the token shown when you joined).",
        ),
        watch: bool = typer.Option(
            False, "--watch", help="With --join: watch the room instead of taking a seat."
        ),
    ) -> None:
        """Play Slapjack or Irish Snap in the terminal, against bots or friends on one keyboard.

        Each person gets a slap key (A, L, G, ; …); Space flips. In the game: ? rules,
        S save the record, Esc quit.
        """
        from slapjack.commands.rules import parse_rule_options
        from slapjack.tui import GameConfig, SeatSpec, SlapjackApp, Timing
        from slapjack.tui.config import BOT_LEVELS, DEFAULT_KEYS, DEFAULT_NAMES, local_player_name
        from slapjack.tui.i18n import detect_lang

        err = Console(stderr=True, highlight=False)
        if join is not None or server is not None or token is not None or watch:
            _play_online(err, lang, join, server, name, token, watch)
            return
        try:
            language = detect_lang(lang)
            if seed is not None and deck is not None:
                raise SlapjackError("give --seed or --deck, not both")
            if humans > seats:
                raise SlapjackError(f"--humans {humans} is more than --seats {seats}")
            if bots not in BOT_LEVELS:
                raise SlapjackError(f"unknown bot level {bots!r}; levels: {', '.join(BOT_LEVELS)}")
            rules = Rules.from_options({"preset": preset, **parse_rule_options(rule or ())})
            cards = read_deck(deck) if deck is not None else None
            specs = []
            for i in range(seats):
                if i < humans:
                    name = local_player_name() if humans == 1 else DEFAULT_NAMES[i]
                    specs.append(SeatSpec(name, None, *DEFAULT_KEYS[i]))
                else:
                    specs.append(SeatSpec(DEFAULT_NAMES[i], bots))
            timing = replace(Timing(), turn_ms=turn_seconds * 1000.0, slap_window_ms=slap_window_ms)
            config = GameConfig(
                rules=rules, seats=tuple(specs), seed=seed, deck=cards, timing=timing
            )
            config.validate()
        except (SlapjackError, ValueError) as exc:
            err.print(f"[bold red]error:[/] {exc}", markup=True)
            raise typer.Exit(code=2) from None
        SlapjackApp(config, lang=language, skip_setup=quick).run()


def _play_online(
    err: Console,
    lang: str | None,
    join: str | None,
    server: str | None,
    name: str | None,
    token: str | None,
    watch: bool = False,
) -> None:
    """``slapjack tui --join CODE [--server URL] [--name NAME | --token TOKEN | --watch]``."""
    from slapjack.tui.config import local_player_name
    from slapjack.tui.i18n import detect_lang
    from slapjack.tui.online import OnlineError, SeatStore, parse_target
    from slapjack.tui.online_app import OnlineApp

    try:
        language = detect_lang(lang)
        if join is None:
            raise SlapjackError("--server and --token need --join CODE (or an invite link)")
        target = parse_target(join, server)
        player = " ".join((name if name is not None else local_player_name()).split())
        if watch and (token is not None or name is not None):
            raise SlapjackError("--watch takes no seat: give it without --name or --token")
        if token is None and not watch and not 1 <= len(player) <= 24:
            raise SlapjackError("--name: 1 to 24 characters")
    except (SlapjackError, OnlineError, ValueError) as exc:
        err.print(f"[bold red]error:[/] {exc}", markup=True)
        raise typer.Exit(code=2) from None
    seat_name = None if token is not None or watch else player
    OnlineApp(target, name=seat_name, token=token, lang=language, seats=SeatStore()).run()
