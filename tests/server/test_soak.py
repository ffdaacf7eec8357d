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

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def run_soak(*args: str, timeout: float) -> dict[str, Any]:
    """``bench/soak.py ARGS --json`` in a process of its own: its result."""
    done = subprocess.run(
        [sys.executable, str(BENCH), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    sys.stderr.write(done.stderr[-4000:])
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no result (exit {done.returncode}): {done.stdout[-2000:]}"
    result: dict[str, Any] = json.loads(lines[-1])
    assert done.returncode == (1 if result["problems"] else 0)
    return result


def check(result: dict[str, Any], *, restarts: int, slots: int) -> None:
    assert result["problems"] == []
    assert result["restarts"] == restarts
    # rooms opened, played and closed by themselves, and were opened again; a
    # room still waiting for its game is stored too, so a restart loses none
    lost = result["rooms_lost_before_start"]
    assert lost == 0
    assert result["rooms_opened"] == result["rooms_closed"]
    assert result["rooms_opened"] > slots
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
    assert len(result["hostile_kinds"]) >= 10
    for kind in result["hostile_kinds"]:
        counts = result["hostile"].get(kind, {})
        assert counts.get("ok", 0) >= 1 and counts.get("wrong", 0) == 0, (kind, counts)
    assert result["log"]["tracebacks"] == result["log"]["errors"] == 0
    base, final = result["baseline"], result["final"]
    assert final["rooms"] == final["connections"] == 0
    assert final["tasks"] == base["tasks"]
    assert final["pid"] != base["pid"]  # the last server is a restarted one


@pytest.mark.timeout(300)
def test_soak_for_50_seconds(tmp_path: Path) -> None:
    result = run_soak(
        *("--players", "60", "--seconds", "50", "--restarts", "1", "--hostile-every", "0.25"),
        *("--sample-every", "10", "--time-limit", "8,20", "--drop-chance", "0.15"),
        *("--keep", str(tmp_path)),
        timeout=280,
    )
    check(result, restarts=1, slots=15)


@pytest.mark.soak
@pytest.mark.timeout(3000)
def test_soak_for_thirty_minutes(tmp_path: Path) -> None:
    result = run_soak(
        *("--players", "200", "--seconds", "1800", "--restarts", "3", "--restart-window", "0.1"),
        *("--hostile-every", "0.25", "--keep", str(tmp_path)),
        timeout=2900,
    )
    check(result, restarts=3, slots=50)
    # The last server lives 27 minutes under load. Its RSS climbs while cyclic
    # garbage waits for a full collection (one every 10-20 minutes here), then
    # stays: measured peaks were 1.4-1.5 times the first sample under load
    # (docs/benchmarks.md, Soak). A leak of 1 MB a minute on top would go past 1.75.
    last = [s for s in result["samples"] if s["pid"] == result["final"]["pid"] and s["connections"]]
    first, peak = last[0]["rss_mb"], max(s["rss_mb"] for s in last)
    assert peak <= 1.75 * first, [(s["t"], s["rss_mb"], s["gc_objects"]) for s in last]
