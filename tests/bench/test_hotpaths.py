"""``bench/hotpaths.py`` at a tiny size: it runs and prints its three figures (nothing timed is checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.timeout(180)
def test_hotpaths_prints_the_cost_of_an_update_a_timer_and_an_action() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "hotpaths.py"), "--players", "8", "--settle", "2.5"],
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(result) == {"label", "updates_us", "timer_moved_later_us", "action_json_us"}
    assert all(result[k] > 0 for k in ("updates_us", "timer_moved_later_us", "action_json_us"))
