"""The referee in the real server, with real WebSocket clients on loopback.

The clients hold every frame back for their seat's simulated network delay
(``bench/fairness.py``); the server, its rooms, its referee and the timing path
(card sent → client → slap → server → bound → settle) are the real ones.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from slapjack.netlab import fairness

pytestmark = pytest.mark.timeout(180)


async def play(referee: str, races: int, **run_kw: Any) -> Any:
    run = fairness.Run(
        run_kw.pop("scenario", "custom"),
        run_kw.pop("cheat", None),
        referee,
        races,
        random.Random(run_kw.pop("seed", 1)),
        **run_kw,
    )
    return run


async def play_rooms(run: Any, rooms: int, max_seconds: float = 120.0) -> dict[str, Any]:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="slapjack-referee-") as tmp:
        async with fairness.serve(tmp) as (app, http_base, ws_base):
            result: dict[str, Any] = await fairness.run_one(
                app, http_base, ws_base, run, rooms=rooms, seed=3, max_seconds=max_seconds
            )
            return result


@pytest.mark.parametrize("referee", ["fair", "arrival"])
async def test_slower_network_faster_hand(referee: str) -> None:
    """Seat 1 is 150 ms further away (each way) but reacts 100 ms faster."""
    run = await play(
        referee,
        6,
        network=((5.0, 155.0), (1.0, 1.0)),
        reactions={0: 300.0, 1: 200.0},
        time_limit=3,
    )
    result = await play_rooms(run, rooms=1)
    assert result["races"] >= 6
    wins = result["wins"]
    if referee == "fair":
        # the faster hand (one race may go astray if this shared machine stalls)
        assert wins[1] >= result["races"] - 1, result
    else:
        assert wins[0] == result["races"], result  # the nearer packet, every time
    # the engine ranked the bounded reactions; the fair ones are the true ones
    race = next(r for r in run.races.values() if r.done and not r.truncated)
    if referee == "fair":
        assert race.bounded[1] == pytest.approx(race.true[1], abs=1.0)
    else:
        assert race.bounded[1] > race.true[1] + 250.0


async def test_small_benchmark_home() -> None:
    """The CI version of bench/fairness.py: home network, honest and a forger."""
    honest = await play("fair", 300, scenario="home", seed=11)
    forger = await play("fair", 300, scenario="home", cheat=fairness.CHEATS["forger100"], seed=12)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="slapjack-referee-") as tmp:
        async with fairness.serve(tmp) as (app, http_base, ws_base):
            a = await fairness.run_one(app, http_base, ws_base, honest, rooms=8, seed=5)
            b = await fairness.run_one(app, http_base, ws_base, forger, rooms=8, seed=6)
    assert a["races"] >= 300 and b["races"] >= 300
    assert a["correct_20"] > 0.97, a  # the truly fastest wins (true gap >= 20 ms)
    assert b["cheat_win"] < 0.45, b  # a fair share is 25 %
    by_seat = [c for c in b["cheat_by_seat"] if c["races"]]
    assert len(by_seat) == 4 and not any(c["never_held"] for c in by_seat), b
    assert max(c["held_after"] for c in by_seat) <= 15, b  # held within a few races
    assert b["adv_mean"] < 30.0, b  # of the 100 ms it forges


def test_the_cheat_line_gives_an_interval_and_each_seat() -> None:
    low, high = fairness.wilson(0.25, 1000)
    assert 0.22 < low < 0.225 and 0.275 < high < 0.28  # ± 2.7 points at 1,000 races
    assert fairness.wilson(0.0, 10)[0] == 0.0 and fairness.wilson(1.0, 10)[1] == 1.0
    row = {
        "cheat_win": 0.25,
        "races": 1000,
        "cheat_by_seat": [
            {"seat": 0, "races": 500, "win": 0.3, "held_after": 7, "never_held": 0},
            {"seat": 1, "races": 500, "win": 0.2, "held_after": 26, "never_held": 2},
            {"seat": 2, "races": 0, "win": float("nan"), "held_after": None, "never_held": 0},
        ],
    }
    line = fairness.cheat_line(row)
    assert "cheat wins 25.0%, 95% interval 22.4–27.8%" in line
    assert "seat 0 30.0% of 500, held after 7 slaps; " in line
    assert "seat 1 20.0% of 500, held after 26 slaps (never in 2 rooms))" in line
    assert "seat 2" not in line
