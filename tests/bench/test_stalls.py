"""``bench/stalls.py`` on a diag file as ``bench/diag/sitecustomize.py`` writes it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from slapjack.server.metrics import METRICS
from slapjack.server.pings import Pinger
from slapjack.store.sqlite import SqliteStore

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_hooks_of_the_diag_module_name_real_methods() -> None:
    """The diag rides along by replacing these; a rename would silently record nothing."""
    assert callable(SqliteStore._run_checkpoint)
    assert callable(Pinger._ping)
    assert callable(METRICS.reset) and callable(METRICS.to_dict)


def test_stalls_are_summarised_with_the_checkpoints_they_met(tmp_path: Path) -> None:
    start = 1_000.0
    data = {
        "marks": [["reset", start], ["read", start + 10.0]],
        "gc": [[start + 1.0, 0, 2.5, 0], [start + 2.0, 2, 40.0, 7], [start + 20.0, 0, 9.0, 0]],
        "stalls": [
            [0.1, start + 3.05, [[15.0, "a.py:f(1) <- b.py:g(2)"], [19.0, "a.py:f(1)"]]],
            [0.2, start + 6.0, [[30.0, ""]]],
            [0.3, start + 30.0, [[99.0, "late.py:x(1)"]]],  # after the window
        ],
        "ticks": [[start + 1.0, 64, 0.5], [start + 2.0, 10, 1.5]],
        "checkpoints": [
            [start + 3.0, start + 3.2],
            [start + 8.0, start + 8.3],
            [start + 50.0, start + 51.0],
        ],
    }
    (tmp_path / "diag.123.json").write_text(json.dumps(data))
    done = subprocess.run(
        [sys.executable, str(BENCH / "stalls.py"), str(tmp_path), "--depth", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = done.stdout
    assert "window: 10.0 s" in out
    assert "generation 2: n 1" in out and "freed 7" in out
    assert "loop stalls over 12 ms: 2; the longest (ms): [19.0, 30.0]" in out
    assert "WAL checkpoints beside the writer: n 2" in out
    assert "max 300.00 ms, total 500 ms; running 5.0 % of the window, 1 of the stalls" in out
    assert "2  a.py:f(1)" in out and "1  (no Python stack)" in out
