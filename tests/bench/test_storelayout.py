"""``bench/storelayout.py`` at a tiny size: every layout runs and stores each
append once (its own check); nothing timed is checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "storelayout.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.timeout(180)
def test_every_layout_runs_and_keeps_each_append_once() -> None:
    done = run(
        "--layouts", "today,insert,log,fold:3", "--rooms", "40", "--batch", "5",
        "--seconds", "0.3", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    runs = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["layout"] for r in runs] == ["today", "insert", "log", "fold:3"]
    for r in runs:
        assert r["appends"] >= 5 and r["us_per_append"] > 0
    fold = runs[-1]
    assert fold["fold_ms_max"] >= fold["fold_ms_p50"] > 0


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--layouts", "fold:0"], "unknown layout"),
        (["--layouts", "rows"], "unknown layout"),
        (["--batch", "50", "--rooms", "10"], "--batch"),
        (["--seconds", "0"], "--seconds"),
    ],
)
def test_bad_arguments_are_refused(args: list[str], says: str) -> None:
    done = run(*args)
    assert done.returncode == 2 and says in done.stderr
