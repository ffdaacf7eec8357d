"""The soak (bench/soak.py): real players through rooms that open, play, rematch
and close, with reconnects, ``kill -9`` restarts and hostile frames, against a
real ``slapjack serve`` on a loopback port with SQLite in a temp directory.

The CI version plays 60 players for 50 s with one restart (about 90 s in
all); the full version (``-m soak``) plays 200 players for 30 minutes with
three restarts (in the first 3 minutes) and also wants the last server's RSS
to stay bounded. Both want nothing
lost: 52 cards in every view, no seat's game going back after a restart, no
``seq`` gap, every finished game listed and replayable, every hostile frame
answered with its typed error or close, no traceback in the server's log, and
after everybody has left: no room, no connection, no task and no descriptor
beyond the fresh server's.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def load_soak() -> ModuleType:
    """``bench/soak.py`` (a script, not a package) as a module."""
    name = "slapjack_bench_soak"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def check(result: dict[str, Any], *, restarts: int, slots: int) -> None:
    soak = load_soak()
    assert result["problems"] == []
    assert result["restarts"] == restarts
    # rooms opened, played and closed by themselves, and were opened again; a
    # room still waiting for its game is not stored, so a restart may lose it
    # (its players never saw a view: the driver checks that)
    lost = result["rooms_lost_before_start"]
    assert result["rooms_opened"] == result["rooms_closed"] + lost
    assert result["rooms_opened"] > slots and lost <= restarts * slots
    assert result["rematches_finished"] >= 1
    # a room whose players were all away for its idle time closes (by design);
    # on a loaded machine a slow reconnect may find that now and then
    assert result["rooms_closed_while_away"] <= result["rooms_opened"] // 20
    assert result["drops"] > 0 and result["reconnects"] > result["drops"]
    assert result["views_checked"] > 1000 and result["lost_frames"] == 0
    games = result["games"]
    assert result["games_finished"] >= slots // 2
    assert games["games_seen"] == games["replayed"] == result["games_finished"]
    assert games["missing"] == games["winner_mismatches"] == 0
    assert games["games_listed"] >= games["games_seen"]
    for kind in soak.HOSTILE:
        counts = result["hostile"].get(kind, {})
        assert counts.get("ok", 0) >= 1 and counts.get("wrong", 0) == 0, (kind, counts)
    assert result["log"]["tracebacks"] == result["log"]["errors"] == 0
    base, final = result["baseline"], result["final"]
    assert final["rooms"] == final["connections"] == 0
    assert final["tasks"] == base["tasks"]
    assert final["pid"] != base["pid"]  # the last server is a restarted one


@pytest.mark.timeout(300)
def test_soak_for_50_seconds(tmp_path: Path) -> None:
    soak = load_soak()
    config = soak.Config(
        players=60,
        seconds=50.0,
        restarts=1,
        hostile_every=0.25,
        sample_every=10.0,
        time_limit=(8, 20),
        drop_chance=0.15,
    )
    result = soak.run_soak(config, tmp_path)
    soak.print_result(result)
    check(result, restarts=1, slots=15)


@pytest.mark.soak
@pytest.mark.timeout(3000)
def test_soak_for_thirty_minutes(tmp_path: Path) -> None:
    soak = load_soak()
    config = soak.Config(
        players=200, seconds=1800.0, restarts=3, restart_window=0.1, hostile_every=0.25
    )
    result = soak.run_soak(config, tmp_path)
    soak.print_result(result)
    check(result, restarts=3, slots=50)
    # The last server lives 27 minutes under load. Its RSS climbs while cyclic
    # garbage waits for a full collection (one every 10-20 minutes here), then
    # stays: measured peaks were 1.4-1.5 times the first sample under load
    # (docs/benchmarks.md, Soak). A leak of 1 MB a minute on top would go past 1.75.
    last = [s for s in result["samples"] if s["pid"] == result["final"]["pid"] and s["connections"]]
    first, peak = last[0]["rss_mb"], max(s["rss_mb"] for s in last)
    assert peak <= 1.75 * first, [(s["t"], s["rss_mb"], s["gc_objects"]) for s in last]
