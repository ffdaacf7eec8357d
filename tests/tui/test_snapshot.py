"""The table screen at 80×24, pinned as an SVG snapshot (``--snapshot-update`` to renew).

The worked example of the English rulebook: Anna 5♣, Ben K♦, Carla J♠; Ben slaps
first (212 ms), Carla and Anna after him; Ben takes the three cards and Carla,
on his left, flips next (A♠). Time is a manual clock, so no timer runs.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from slapjack.tui import SeatSpec

from .util import ScriptedBot, advance, config, deck, human, idle, make_app


def worked_example_app() -> tuple[Any, Any]:
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
    return make_app(config(seats, deck("5C", "KD", "JS")), bots)


def test_table_screen_80x24(snap_compare: Any) -> None:
    app, clock = worked_example_app()

    async def run_before(pilot: Pilot[None]) -> None:
        await idle(pilot)
        await pilot.press("space")  # Anna: 5♣
        await advance(pilot, clock, 100)  # Ben: K♦
        await advance(pilot, clock, 100)  # Carla: J♠
        await advance(pilot, clock, 263)
        await pilot.press("a")
        await advance(
            pilot, clock, 700
        )  # decided at 812 ms (Ben's 212 + the window); Carla flips A♠ at 912
        await idle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
