"""``slapjack tui``: play in the terminal against bots or friends on one keyboard."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import typer

from slapjack.bots import LEVELS
from slapjack.core import PRESETS, Card, Rules, SlapjackError, parse_deck

from .common import CommandError, VersionOption, bot_levels, check_range, check_seed, note


class DeckFileError(SlapjackError):
    """A ``--deck`` file that cannot be read as 52 cards."""

    code = "bad_deck"


def read_deck(path: Path) -> tuple[Card, ...]:
    """A stacked deck from a file: 52 card names (``10H JS …``) separated by
    spaces, commas or new lines, a JSON list of names, or a JSON record with a
    ``deck``. The first card goes to the first seat, who flips first."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DeckFileError(f"cannot read the deck file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise DeckFileError(f"cannot read the deck file {path}: it is not UTF-8 text") from None
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
    try:
        return parse_deck(names)
    except SlapjackError as exc:  # "duplicate card 5C": which file said so
        raise DeckFileError(f"{path}: {exc.message}") from None


LOCAL_ONLY = (
    "preset",
    "rule",
    "seats",
    "humans",
    "bots",
    "seed",
    "deck",
    "turn_seconds",
    "slap_window_ms",
)
"""The options of a local game (by parameter; ``turn_seconds`` is ``--turn-seconds``):
``--join`` refuses them rather than leave them unused (``--quick`` does no harm:
there is no start screen)."""


def _tui_level_problem(level: str) -> str | None:
    from slapjack.tui.config import BOT_LEVELS

    if level not in BOT_LEVELS:
        return f"unknown bot level {level!r}; levels: {', '.join(BOT_LEVELS)}"
    return None


def register(app: typer.Typer) -> None:
    """Add ``slapjack tui`` to the CLI."""

    @app.command("tui")
    def tui_command(
        ctx: typer.Context,
        lang: str | None = typer.Option(
            None, "--lang", "-l", metavar="LANG", help="en or de (default: from the locale)."
        ),
        preset: str = typer.Option(
            "classic", "--preset", "-p", metavar="NAME", help=f"One of: {', '.join(PRESETS)}."
        ),
        rule: list[str] | None = typer.Option(
            None,
            "--rule",
            "-r",
            metavar="KEY=VALUE",
            help="Override an option, e.g. --rule tie=split (repeatable).",
        ),
        seats: int = typer.Option(
            4, "--seats", "-n", metavar="N", help="Seats at the table, 2 to 10."
        ),
        humans: int = typer.Option(
            1,
            "--humans",
            metavar="N",
            help="How many of the seats are people (the first ones), 0 to --seats.",
        ),
        bots: str = typer.Option(
            "casual",
            "--bots",
            "-b",
            metavar="LEVELS",
            help=f"A level for every bot seat, or one per bot seat comma-separated: {', '.join(LEVELS)}.",
        ),
        seed: int | None = typer.Option(
            None,
            "--seed",
            "-s",
            metavar="N",
            help="Deal from this seed, 0 to 2^64-1 (the game can be replayed).",
        ),
        deck: Path | None = typer.Option(
            None,
            "--deck",
            metavar="FILE",
            help="Deal this stacked deck: a file of 52 card names (10H JS …).",
        ),
        turn_seconds: float = typer.Option(
            5.0,
            "--turn-seconds",
            metavar="S",
            help="Flip for an idle player after this, 0 to 600 (0: never).",
        ),
        slap_window_ms: float = typer.Option(
            600.0,
            "--slap-window-ms",
            metavar="MS",
            help="How long a Jack stays open to slap, 100 to 5000.",
        ),
        quick: bool = typer.Option(False, "--quick", help="Skip the start screen."),
        join: str | None = typer.Option(
            None,
            "--join",
            metavar="CODE|LINK",
            help="Play online: a room code of a running 'slapjack serve', or its invite link "
            "(http://host:port/r/CODE).",
        ),
        server: str | None = typer.Option(
            None,
            "--server",
            metavar="URL",
            help="The server of --join CODE (default http://127.0.0.1:8000).",
        ),
        name: str | None = typer.Option(
            None,
            "--name",
            metavar="NAME",
            help="Your name at the online table, 1 to 24 characters (default: your login name).",
        ),
        token: str | None = typer.Option(
            None,
            "--token",
            metavar="TOKEN",
            help="Back into the seat you already have in the room (the token shown when you joined).",
        ),
        watch: bool = typer.Option(
            False, "--watch", help="With --join: watch the room instead of taking a seat."
        ),
        _version: VersionOption = False,
    ) -> None:
        """Play in the terminal, against bots or friends on one keyboard, or online.

        Each person gets a slap key (A, L, G, ; …); Space flips. In the game: ? rules,
        S save the record, Esc quit.
        """
        from slapjack.commands.rules import parse_rule_options
        from slapjack.tui import GameConfig, SeatSpec, SlapjackApp, Timing
        from slapjack.tui.config import DEFAULT_KEYS, DEFAULT_NAMES, local_player_name
        from slapjack.tui.i18n import detect_lang

        if join is not None or server is not None or token is not None or watch:
            given = [
                "--" + param.replace("_", "-")
                for param in LOCAL_ONLY
                # by name: Typer carries its own copy of click's ParameterSource
                if getattr(ctx.get_parameter_source(param), "name", None) == "COMMANDLINE"
            ]
            if given and join is not None:
                raise CommandError(
                    f"{', '.join(given)}: only for a game on this terminal; --join plays"
                    " the room's game, with the seats and rules it was made with"
                )
            _play_online(lang, join, server, name, token, watch)
            return
        try:
            language = detect_lang(lang)
            check_range("--seats", seats, 2, 10)
            check_range("--humans", humans, 0, 10)
            if humans > seats:
                raise CommandError(f"--humans {humans} is more than --seats {seats}")
            check_seed(seed)
            check_range("--turn-seconds", turn_seconds, 0, 600)
            check_range("--slap-window-ms", slap_window_ms, 100, 5000)
            if seed is not None and deck is not None:
                raise CommandError("give --seed or --deck, not both")
            levels = bot_levels(bots, seats - humans, "bot seat", _tui_level_problem)
            rules = Rules.from_options({"preset": preset, **parse_rule_options(rule or ())})
            cards = read_deck(deck) if deck is not None else None
            specs = []
            for i in range(seats):
                if i < humans:
                    player = local_player_name() if humans == 1 else DEFAULT_NAMES[i]
                    specs.append(SeatSpec(player, None, *DEFAULT_KEYS[i]))
                else:
                    specs.append(SeatSpec(DEFAULT_NAMES[i], levels[i - humans]))
            timing = replace(Timing(), turn_ms=turn_seconds * 1000.0, slap_window_ms=slap_window_ms)
            config = GameConfig(
                rules=rules, seats=tuple(specs), seed=seed, deck=cards, timing=timing
            )
            config.validate()
        except (SlapjackError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        SlapjackApp(config, lang=language, skip_setup=quick).run()


def _play_online(
    lang: str | None,
    join: str | None,
    server: str | None,
    name: str | None,
    token: str | None,
    watch: bool = False,
) -> None:
    """``slapjack tui --join CODE [--server URL] [--name NAME | --token TOKEN | --watch]``.

    The server, the room and (for a new player) a free seat are checked before
    the full-screen app opens: a refusal is one line and exit status 2. After
    the game, a player's way back into the seat is printed (also saved, see
    :class:`~slapjack.tui.online.SeatStore`)."""
    import asyncio

    from slapjack.tui.config import local_player_name
    from slapjack.tui.i18n import detect_lang
    from slapjack.tui.online import OnlineError, SeatStore, parse_target
    from slapjack.tui.online_app import OnlineApp
    from slapjack.tui.preflight import PreflightError, preflight

    try:
        language = detect_lang(lang)
        if join is None:
            raise CommandError("--server, --token and --watch need --join CODE (or an invite link)")
        target = parse_target(join, server)
        player = " ".join((name if name is not None else local_player_name()).split())
        if watch and (token is not None or name is not None):
            raise CommandError("--watch takes no seat: give it without --name or --token")
        if token is None and not watch and not 1 <= len(player) <= 24:
            raise CommandError(f"--name must be 1 to 24 characters, got {len(player)}")
    except (SlapjackError, OnlineError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    seat_name = None if token is not None or watch else player
    store = SeatStore()
    try:
        ready = asyncio.run(preflight(target, name=seat_name, store=store))
    except PreflightError as exc:
        raise CommandError(str(exc)) from None
    app = OnlineApp(
        target,
        name=seat_name,
        token=token,
        lang=language,
        seats=store,
        seat=ready.seat,
        saved=ready.saved,
    )
    app.run()
    if app.token is not None and app.game.seat is not None:
        kept = store.get(target)
        where = f" (kept in {store.path})" if kept is not None and kept.token == app.token else ""
        note(
            f"your seat {app.game.seat + 1} in room {target.code} as {app.game.name}{where}; "
            f"back into it: slapjack tui --join {target.invite} --token {app.token}"
        )
