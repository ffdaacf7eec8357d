"""``slapjack simulate``'s summary table at 80 columns and wider: every bot level
name whole (``human:<ms>`` levels are longer than the named ones), every figure
whole, nothing cut with "…"; the headers are what wraps when room is short."""

from __future__ import annotations

import os

import pytest
from rich.console import Console
from typer.testing import CliRunner

from slapjack.cli import app
from slapjack.commands.simulate import summary_table
from slapjack.core import Rules
from slapjack.sim import Summary

LEVELS = ("human:180.5", "human:260", "human:1500", "casual", "matched", "beginner")
GAMES = 1_000_000


def big_summary(preset: str) -> Summary:
    """A run of a million games at six seats: seven- and eight-digit counts."""
    n = len(LEVELS)
    return Summary(
        Rules.preset_rules(preset),
        LEVELS,
        seed=0,
        cap=5000,
        games=GAMES,
        finished=GAMES,
        game_flips=[60] * 10,
        game_finished=[True] * 10,
        wins=[GAMES - 1000 * s for s in range(n)],
        win_credit=[GAMES / n] * n,
        losses=[1000 * s for s in range(n)],
        first_out=[123_456 + s for s in range(n)],
        jacks=[5_612_345 + s for s in range(n)],
        wrong_slaps=[1_234_567 + s for s in range(n)],
        forfeits=[234_567 + s for s in range(n)],
        pickups=[10_234_567 + s for s in range(n)],
        eliminations=[GAMES - 1 - s for s in range(n)],
    )


def render(summary: Summary, width: int) -> list[str]:
    console = Console(width=width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(summary_table(summary))
    return console.export_text().splitlines()


def seat_rows(lines: list[str]) -> list[str]:
    """The per-seat table's rows (they start with the seat number)."""
    start = lines.index(next(line for line in lines if line.startswith("Per seat")))
    return [line for line in lines[start:] if line.startswith("│ ")][: len(LEVELS)]


def level_rows(lines: list[str]) -> list[str]:
    start = lines.index(next(line for line in lines if line.startswith("Per bot level")))
    return [line for line in lines[start:] if line.startswith("│ ")][: len(set(LEVELS))]


@pytest.mark.parametrize("preset", ["classic", "say-it", "irish-snap", "irish-snap-winner"])
@pytest.mark.parametrize("width", [80, 100, 160])
def test_every_level_name_and_figure_is_whole(preset: str, width: int) -> None:
    summary = big_summary(preset)
    lines = render(summary, width)
    text = "\n".join(lines)
    assert "…" not in text, text
    assert max(map(len, lines)) <= width, text
    rows = seat_rows(lines)
    for s, (row, level) in enumerate(zip(rows, LEVELS, strict=True)):
        cells = [c.strip() for c in row.strip("│").split("│")]
        assert cells[:2] == [str(s + 1), level], text
        figures = [summary.wins[s], summary.wrong_slaps[s]]
        if summary.rules.is_irish:
            figures += [summary.losses[s], summary.first_out[s], summary.pickups[s]]
        else:
            figures += [summary.jacks[s], summary.eliminations[s]]
        for figure in figures:
            assert str(figure) in cells, (figure, text)
    for row, level in zip(level_rows(lines), LEVELS, strict=True):
        assert row.startswith(f"│ {level} "), text


@pytest.mark.parametrize("preset", ["say-it", "irish-snap"])
def test_headers_stay_on_one_line_where_there_is_room(preset: str) -> None:
    lines = render(big_summary(preset), 160)
    seat_head = next(line for line in lines if line.startswith("┃ seat "))
    last = "forgot the call" if preset == "say-it" else "picked up (last)"
    assert "win share" in seat_head and last in seat_head
    level_head = next(line for line in lines if line.startswith("┃ bot "))
    assert "win share" in level_head and "wrong slaps" in level_head


def test_the_command_at_80_columns_shows_human_levels_whole() -> None:
    # `COLUMNS=80 slapjack simulate -p irish-snap --bots human:180,...` cut them to "human:1…"
    bots = "human:180,human:260,human:350,casual"
    args = ["simulate", "-g", "20", "-j", "1", "-q", "-p", "irish-snap", "--bots", bots]
    res = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.stderr
    assert "…" not in res.stdout, res.stdout
    assert max(map(len, res.stdout.splitlines())) <= 80
    rows = seat_rows(res.stdout.splitlines())
    for s, level in enumerate(("human:180", "human:260", "human:350", "casual")):
        assert rows[s].startswith(f"│    {s + 1} │ {level} "), res.stdout
