"""``slapjack simulate``: bot-only games in bulk on all cores, with a summary table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from slapjack.bots import LEVELS
from slapjack.core import PRESETS, IrishGoal, Rules, SlapjackError

GAMES = ("slapjack", "irish-snap")


def _fail(message: str) -> typer.Exit:
    Console(stderr=True, highlight=False).print(f"[bold red]error:[/] {message}", markup=True)
    return typer.Exit(code=2)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def summary_table(summary: Any) -> Table:
    """The summary as a Rich table: one block of totals, one row per seat."""
    from slapjack.sim import Summary

    assert isinstance(summary, Summary)
    rules = summary.rules
    irish = rules.is_irish
    head = Table(title="Simulation", show_header=False, title_justify="left")
    head.add_column("figure")
    head.add_column("value", justify="right")
    opts = ", ".join(f"{k}={v}" for k, v in rules.to_options().items())
    head.add_row("rules", f"{rules.game.value}: {opts}")
    head.add_row("games", str(summary.games))
    head.add_row("finished", str(summary.finished))
    head.add_row("capped", f"{summary.capped} (cap {summary.cap} flips)")
    if rules.time_limit:
        head.add_row("ended by time limit", str(summary.time_ups))
    head.add_row("flips per game: median", f"{summary.flips_median:g}")
    head.add_row("flips per game: 90th percentile", f"{summary.flips_p90:g}")
    head.add_row("simulated duration: median", f"{summary.duration_median_ms / 1000:.1f} s")
    if not irish:
        head.add_row("exact ties", f"{summary.ties} reslap, {summary.splits} split")
        head.add_row("Jacks nobody slapped", str(summary.no_slaps))

    seats = Table(title="Per seat", title_justify="left")
    seats.add_column("seat", justify="right")
    seats.add_column("bot")
    seats.add_column("win share", justify="right")
    seats.add_column("wins", justify="right")
    if irish:
        seats.add_column("losses", justify="right")
        seats.add_column("first out", justify="right")
        seats.add_column("picked up (last)", justify="right")
    else:
        seats.add_column("jacks won", justify="right")
        seats.add_column("eliminated", justify="right")
    seats.add_column("wrong slaps", justify="right")
    if rules.say_it:
        seats.add_column("forgot the call", justify="right")
    shares = summary.win_share
    for s, level in enumerate(summary.levels):
        row = [str(s + 1), level, _pct(shares[s]), str(summary.wins[s])]
        if irish:
            row += [str(summary.losses[s]), str(summary.first_out[s]), str(summary.pickups[s])]
        else:
            row += [str(summary.jacks[s]), str(summary.eliminations[s])]
        row.append(str(summary.wrong_slaps[s]))
        if rules.say_it:
            row.append(str(summary.forfeits[s]))
        seats.add_row(*row)

    levels = Table(title="Per bot level", title_justify="left")
    levels.add_column("bot")
    levels.add_column("seats", justify="right")
    levels.add_column("win share", justify="right")
    levels.add_column("per seat", justify="right")
    if irish:
        levels.add_column("losses", justify="right")
    else:
        levels.add_column("jacks won", justify="right")
    levels.add_column("wrong slaps", justify="right")
    for level, row_data in summary.by_level().items():
        last = row_data["losses"] if irish else row_data["jacks"]
        levels.add_row(
            level,
            str(int(row_data["seats"])),
            _pct(row_data["win_share"]),
            _pct(row_data["win_share_per_seat"]),
            str(int(last)),
            str(int(row_data["wrong_slaps"])),
        )
    outer = Table.grid(padding=(1, 0))
    outer.add_row(head)
    outer.add_row(seats)
    outer.add_row(levels)
    if irish and rules.irish_goal is IrishGoal.AVOID_LAST:
        outer.add_row("[dim]Irish Snap (avoid_last): everyone but the loser wins a game.[/]")
    return outer


def register(app: typer.Typer) -> None:
    """Add ``slapjack simulate`` to the CLI."""

    @app.command("simulate")
    def simulate_command(
        players: int = typer.Option(4, "--players", "-p", help="Seats at the table (2-52)."),
        games: int = typer.Option(1000, "--games", "-g", help="How many games to play."),
        game: str = typer.Option("slapjack", "--game", help=f"One of: {', '.join(GAMES)}."),
        preset: str | None = typer.Option(
            None,
            "--preset",
            help=f"One of: {', '.join(PRESETS)} (default: classic, or irish-snap for --game irish-snap).",
        ),
        bots: str | None = typer.Option(
            None,
            "--bots",
            "-b",
            help=f"One level per seat, comma-separated, from: {', '.join(LEVELS)}, or human:<ms>"
            " (a simulated person with that median reaction; default: all casual).",
        ),
        seed: int = typer.Option(
            0, "--seed", "-s", help="Master seed: the same seed, the same games."
        ),
        jobs: int | None = typer.Option(
            None, "--jobs", "-j", help="Worker processes (default: all cores)."
        ),
        cap: int = typer.Option(
            5000, "--cap", help="Stop a game after this many flips (counted as capped)."
        ),
        json_file: Path | None = typer.Option(
            None, "--json", help="Write every figure to this JSON file."
        ),
        plot: Path | None = typer.Option(
            None, "--plot", help="Draw game length and win shares into this .png (or .svg, .pdf)."
        ),
        rule: list[str] | None = typer.Option(
            None, "--rule", "-r", help="Override an option, e.g. --rule tie=split (repeatable)."
        ),
        check: bool = typer.Option(
            False, "--check", help="Check the 52-card invariant after every action (slower)."
        ),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    ) -> None:
        """Play bot-only games on a process pool and print a summary table.

        Reproducible for a given --seed whatever --jobs is. Bad arguments exit with status 2.
        """
        from slapjack.commands.rules import parse_rule_options
        from slapjack.sim import SimConfig, Summary, levels_of, simulate
        from slapjack.sim.plot import FORMATS, plot_summary
        from slapjack.sim.run import MAX_GAMES

        try:
            if game not in GAMES:
                raise SlapjackError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
            if not 2 <= players <= 52:
                raise SlapjackError(f"--players must be from 2 to 52, got {players}")
            if not 1 <= games <= MAX_GAMES:
                raise SlapjackError(f"--games must be from 1 to {MAX_GAMES}, got {games}")
            if jobs is not None and jobs < 1:
                raise SlapjackError(f"--jobs must be at least 1, got {jobs}")
            if cap < 1:
                raise SlapjackError(f"--cap must be at least 1, got {cap}")
            if plot is not None and plot.suffix.lower() not in FORMATS:
                raise SlapjackError(f"--plot must name a {', '.join(FORMATS)} file, got {plot}")
            for path, flag in ((json_file, "--json"), (plot, "--plot")):
                if path is not None and not path.parent.resolve().is_dir():
                    raise SlapjackError(f"{flag}: no directory {path.parent}")
            options: dict[str, Any] = parse_rule_options(rule or ())
            if preset is not None:
                options["preset"] = preset
            rules = Rules.from_options(options, game=game)
            levels = levels_of(
                bots if bots is not None else ",".join(["casual"] * players), players
            )
            config = SimConfig(rules, levels, seed=seed, cap=cap)
        except SlapjackError as exc:
            raise _fail(exc.message) from None

        err = Console(stderr=True)
        try:
            if quiet:
                results = simulate(config, games, jobs=jobs)
            else:
                with Progress(
                    TextColumn("simulating"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeRemainingColumn(),
                    console=err,
                    transient=True,
                ) as progress:
                    task = progress.add_task("games", total=games)
                    results = simulate(
                        config, games, jobs=jobs, progress=lambda k: progress.advance(task, k)
                    )
        except SlapjackError as exc:  # the engine refused something: a bug, reported plainly
            err.print(f"[bold red]simulation failed:[/] {exc.message}", highlight=False)
            raise typer.Exit(code=1) from None
        summary = Summary.of(rules, levels, seed, cap, results)
        Console().print(summary_table(summary))
        if json_file is not None:
            json_file.write_text(json.dumps(summary.to_dict(), indent=2) + "\n", encoding="utf-8")
        if plot is not None:
            plot_summary(summary, plot)
