"""``slapjack simulate``: bot-only games in bulk on all cores, with a summary table."""

from __future__ import annotations

import json
import sys
import time
from typing import IO, Any

import typer
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.measure import Measurement
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from slapjack.bots import LEVELS, UnknownBotLevel, make_bot
from slapjack.bots.factory import level_name
from slapjack.core import PRESETS, IrishGoal, Rules, SlapjackError

from .common import (
    STDOUT,
    CommandError,
    VersionOption,
    bot_levels,
    check_output,
    check_range,
    check_seed,
    note,
    write_output,
)

GAMES = ("slapjack", "irish-snap")


def _sim_level_problem(level: str) -> str | None:
    try:
        make_bot(level, 0)
    except UnknownBotLevel as exc:  # the levels, and human:<ms> with its range
        return exc.message
    return None


def parse_bots(spec: str | None, players: int) -> tuple[str, ...]:
    """``--bots``: one level for every seat (``pro``) or one per seat
    (``pro,casual,casual,beginner``); the default is casual everywhere."""
    levels = bot_levels(spec or "casual", players, "player", _sim_level_problem)
    return tuple(level_name(level) for level in levels)


class RateColumn(ProgressColumn):
    """Games per second, averaged by Rich over its speed window (30 s)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        shown = "–" if speed is None else f"{speed:,.0f}"
        return Text(f"{shown:>7} games/s", style="progress.data.speed")


def _pct(x: float) -> str:
    from slapjack.sim.plot import share_label

    return share_label(100 * x)


def _two_lines(header: str) -> str:
    """``header`` on the two lines that make it narrowest; of two breaks as
    narrow, the later one (``"picked up\\n(last)"``). One word stays as it is."""
    words = header.split()
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    if not splits:
        return header
    top, bottom = min(reversed(splits), key=lambda pair: max(map(cell_len, pair)))
    return f"{top}\n{bottom}"


class FitTable:
    """A table whose cells never wrap nor get cut: where the terminal is too
    narrow for its headers on one line, the headers that give the most room
    are put on two lines, one by one, until it fits. (Rich's own squeezing
    narrows every column alike and cuts bot levels and long counts with "…".)"""

    def __init__(self, title: str) -> None:
        self.title = title
        self.headers: list[tuple[str, JustifyMethod]] = []
        self.rows: list[tuple[str, ...]] = []

    def add_column(self, header: str, justify: JustifyMethod = "left") -> None:
        self.headers.append((header, justify))

    def add_row(self, *cells: str) -> None:
        self.rows.append(cells)

    def table(self, max_width: int) -> Table:
        """The table for ``max_width`` columns, with as few two-line headers as fit."""
        heads = [header for header, _ in self.headers]
        cells = [max((cell_len(row[i]) for row in self.rows), default=0) for i in range(len(heads))]

        def col_width(i: int) -> int:
            return max(cells[i], *map(cell_len, heads[i].split("\n")))

        def total() -> int:  # each column's padding and left border, and the right border
            return sum(col_width(i) + 3 for i in range(len(heads))) + 1

        while total() > max_width:
            savings = [
                (col_width(i) - max(cells[i], *map(cell_len, _two_lines(h).split("\n"))), i)
                for i, h in enumerate(heads)
                if "\n" not in h
            ]
            saving, i = max(savings, default=(0, -1))
            if saving <= 0:
                break  # as narrow as it goes: Rich squeezes the rest
            heads[i] = _two_lines(heads[i])
        table = Table(title=self.title, title_justify="left")
        for head, (_, justify) in zip(heads, self.headers, strict=True):
            table.add_column(head, justify=justify, no_wrap=True)
        for row in self.rows:
            table.add_row(*(Text(cell) for cell in row))
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.table(options.max_width))


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

    seats = FitTable("Per seat")
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
        # "out", not "eliminated": at 80 columns that one-word header was cut ("elimina…")
        seats.add_column("out", justify="right")
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

    levels = FitTable("Per bot level")
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
        players: int = typer.Option(
            4, "--players", "-n", metavar="N", help="Seats at the table, 2 to 52."
        ),
        games: int = typer.Option(
            1000, "--games", "-g", metavar="N", help="How many games to play, 1 to 100,000,000."
        ),
        game: str | None = typer.Option(
            None,
            "--game",
            metavar="GAME",
            help=f"One of: {', '.join(GAMES)} (default: the preset's game, else slapjack).",
        ),
        preset: str | None = typer.Option(
            None,
            "--preset",
            "-p",
            metavar="NAME",
            help=f"One of: {', '.join(PRESETS)} (default: classic, or irish-snap for --game irish-snap).",
        ),
        bots: str | None = typer.Option(
            None,
            "--bots",
            "-b",
            metavar="LEVELS",
            help=f"A bot level for every seat, or one per seat comma-separated: {', '.join(LEVELS)}, "
            "or human:<ms> (a simulated person with that median reaction; default: casual).",
        ),
        seed: int = typer.Option(
            0,
            "--seed",
            "-s",
            metavar="N",
            help="Master seed, 0 to 2^64-1: the same seed, the same games.",
        ),
        jobs: int | None = typer.Option(
            None, "--jobs", "-j", metavar="N", help="Worker processes (default: all cores)."
        ),
        cap: int = typer.Option(
            5000,
            "--cap",
            metavar="FLIPS",
            help="Stop a game after this many flips (it counts as capped).",
        ),
        json_file: str | None = typer.Option(
            None,
            "--json",
            metavar="FILE",
            help="Write every figure to this JSON file ('-': stdout).",
        ),
        plot: list[str] | None = typer.Option(
            None,
            "--plot",
            metavar="FILE",
            help="Draw game lengths and win shares into FILE: .png, .svg or .pdf by its name "
            "('-': PNG on stdout). Repeat it for several files.",
        ),
        rule: list[str] | None = typer.Option(
            None,
            "--rule",
            "-r",
            metavar="KEY=VALUE",
            help="Override an option, e.g. --rule tie=split (repeatable).",
        ),
        check: bool = typer.Option(
            False, "--check", help="Check the 52-card invariant after every action (slower)."
        ),
        quiet: bool = typer.Option(
            False, "--quiet", "-q", help="No progress bar and no 'wrote FILE' lines on stderr."
        ),
        _version: VersionOption = False,
    ) -> None:
        """Play bot-only games on all cores and sum them up in a table.

        The same --seed plays the same games whatever --jobs is. The progress bar,
        the run's one-line summary and a 'wrote FILE' line per file go to stderr.
        With --json - or --plot - the data goes to stdout and the table to stderr.
        """
        from slapjack.commands.rules import parse_rule_options
        from slapjack.sim import SimConfig, Summary, simulate
        from slapjack.sim.plot import FORMATS, plot_summary
        from slapjack.sim.run import MAX_GAMES, default_jobs

        plots = list(plot or ())
        try:
            if game is None:  # --preset irish-snap is an Irish Snap game, as in tui and rules
                known = PRESETS.get(preset) if preset is not None else None
                game = known.game.value if known is not None else "slapjack"
            if game not in GAMES:
                raise CommandError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
            check_range("--players", players, 2, 52)
            check_range("--games", games, 1, MAX_GAMES)
            if jobs is not None and jobs < 1:
                raise CommandError(f"--jobs must be at least 1, got {jobs}")
            if cap < 1:
                raise CommandError(f"--cap must be at least 1, got {cap}")
            check_seed(seed)
            for target in plots:
                if target != STDOUT and not target.lower().endswith(FORMATS):
                    raise CommandError(
                        f"--plot must name a {', '.join(FORMATS)} file (or '-'), got {target}"
                    )
                check_output("--plot", target)
            check_output("--json", json_file)
            to_stdout = [t for t in [json_file, *plots] if t == STDOUT]
            if len(to_stdout) > 1:
                raise CommandError("only one of --json and --plot can write to stdout ('-')")
            if STDOUT in plots and sys.stdout.isatty():
                raise CommandError("--plot -: not writing a PNG to the terminal; redirect it")
            options: dict[str, Any] = parse_rule_options(rule or ())
            if preset is not None:
                options["preset"] = preset
            rules = Rules.from_options(options, game=game)
            levels = parse_bots(bots, players)
            config = SimConfig(rules, levels, seed=seed, cap=cap, check=check)
        except SlapjackError as exc:
            raise CommandError(exc.message) from None

        err = Console(stderr=True)
        started = time.perf_counter()
        played = [0]

        def count(k: int) -> None:
            played[0] += k

        try:
            if quiet:
                results = simulate(config, games, jobs=jobs, progress=count)
            else:
                with Progress(
                    TextColumn("[bold]simulating"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TaskProgressColumn(),
                    RateColumn(),
                    TextColumn("elapsed"),
                    TimeElapsedColumn(),
                    TextColumn("ETA"),
                    TimeRemainingColumn(),
                    console=err,
                    transient=True,
                    disable=not err.is_terminal,  # piped: only the summary line
                ) as progress:
                    task = progress.add_task("games", total=games)

                    def advance(k: int) -> None:
                        count(k)
                        progress.advance(task, k)

                    results = simulate(config, games, jobs=jobs, progress=advance)
        except KeyboardInterrupt:
            raise CommandError(
                f"interrupted after {played[0]:,} of {games:,} games", status=130
            ) from None
        except SlapjackError as exc:  # the engine refused something: a bug, reported plainly
            raise CommandError(f"simulation failed: {exc.message}", status=1) from None
        elapsed = time.perf_counter() - started
        summary = Summary.of(rules, levels, seed, cap, results)
        if not quiet:
            workers = jobs if jobs is not None else default_jobs()
            note(
                f"simulated {games:,} games in {elapsed:.1f} s "
                f"({games / max(elapsed, 1e-9):,.0f} games/s, {workers} "
                f"{'process' if workers == 1 else 'processes'}): "
                f"{summary.finished:,} finished, {summary.capped:,} capped"
            )
        (err if to_stdout else Console()).print(summary_table(summary))
        if json_file is not None:
            data = (json.dumps(summary.to_dict(), indent=2) + "\n").encode("utf-8")

            def write_json(fh: IO[bytes]) -> None:
                fh.write(data)

            write_output(json_file, write_json, quiet=quiet)
        for target in plots:
            fmt = "png" if target == STDOUT else target.rsplit(".", 1)[-1].lower()

            def write_plot(fh: IO[bytes], fmt: str = fmt) -> None:
                plot_summary(summary, fh, fmt=fmt)

            write_output(target, write_plot, quiet=quiet)
