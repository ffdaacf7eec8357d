"""The terminal game's screens pinned as SVG snapshots (``--snapshot-update`` to
renew them after a deliberate change of the look) at 80×24, 100×30 and 150×45,
and in German.

The table is the worked example of the English rulebook: Anna 5♣, Ben K♦,
Carla J♠; Ben slaps first (212 ms), Carla and Anna after him; Ben takes the
three cards and Carla, on his left, flips next (A♠). Time is a manual clock,
so no timer runs and every screen is the same on every run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from slapjack.tui import SeatSpec, SlapjackApp

from .util import ScriptedBot, advance, config, deck, human, idle, make_app

SIZES = [(80, 24), (100, 30), (150, 45)]
Steps = Callable[[Pilot[None]], Awaitable[None]]


def worked_example_app(lang: str = "en", **options: object) -> tuple[SlapjackApp, Any]:
    seats = [
        human(0, "Anna"),
        SeatSpec("Ben", "casual"),
        SeatSpec("Carla", "pro"),
        SeatSpec("Dan", "beginner"),
    ]
    bots = {
        "casual": ScriptedBot(jack_ms=212, flip_ms=100),
        "pro": ScriptedBot(jack_ms=240, flip_ms=100),
        "beginner": ScriptedBot(flip_ms=100),
    }
    return make_app(config(seats, deck("5C", "KD", "JS"), **options), bots, lang=lang)


def race_open(clock: Any) -> Steps:
    """Carla's J♠ on screen, Ben has slapped (212 ms), the window still open."""

    async def run(pilot: Pilot[None]) -> None:
        await idle(pilot)
        await pilot.press("space")  # Anna: 5♣
        await advance(pilot, clock, 100)  # Ben: K♦
        await advance(pilot, clock, 100)  # Carla: J♠
        await advance(pilot, clock, 220)  # Ben slaps at 212 ms

    return run


def race_result(clock: Any) -> Steps:
    """The race decided: Ben won; Carla flipped A♠."""

    async def run(pilot: Pilot[None]) -> None:
        await race_open(clock)(pilot)
        await advance(pilot, clock, 43)
        await pilot.press("a")  # Anna at 263 ms
        await advance(pilot, clock, 700)  # decided at 812 ms; Carla flips A♠ at 912
        await idle(pilot)

    return run


def game_over(clock: Any) -> Steps:
    """The time limit ends the game after the race."""

    async def run(pilot: Pilot[None]) -> None:
        await race_result(clock)(pilot)
        await advance(pilot, clock, 3000)
        await idle(pilot)
        await advance(pilot, clock, 1000)  # the end screen takes keys (its focus) after a moment

    return run


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_table_race_open(snap_compare: Any, size: tuple[int, int]) -> None:
    app, clock = worked_example_app()
    assert snap_compare(app, terminal_size=size, run_before=race_open(clock))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_table_race_result(snap_compare: Any, size: tuple[int, int]) -> None:
    app, clock = worked_example_app()
    assert snap_compare(app, terminal_size=size, run_before=race_result(clock))


def test_table_race_result_german(snap_compare: Any) -> None:
    app, clock = worked_example_app("de")
    assert snap_compare(app, terminal_size=(100, 30), run_before=race_result(clock))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_end_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    app, clock = worked_example_app(time_limit=2)
    assert snap_compare(app, terminal_size=size, run_before=game_over(clock))


def test_end_screen_german(snap_compare: Any) -> None:
    app, clock = worked_example_app("de", time_limit=2)
    assert snap_compare(app, terminal_size=(100, 30), run_before=game_over(clock))


def start_app(lang: str = "en") -> SlapjackApp:
    app, _clock = worked_example_app(lang)
    app.skip_setup = False
    return app


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_start_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(start_app(), terminal_size=size, run_before=idle)


def test_start_screen_german_with_a_drop_down_in_focus(snap_compare: Any) -> None:
    async def run(pilot: Pilot[None]) -> None:
        await idle(pilot)
        await pilot.press("tab", "tab", "tab")  # Rules button, Game, Preset
        await idle(pilot)

    assert snap_compare(start_app("de"), terminal_size=(100, 30), run_before=run)


def test_too_small(snap_compare: Any) -> None:
    app, clock = worked_example_app()
    assert snap_compare(app, terminal_size=(70, 20), run_before=race_open(clock))
