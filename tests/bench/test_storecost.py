"""``bench/storecost.py`` and ``bench/store_share.py`` at a tiny size (nothing timed is checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def run(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(BENCH / "storecost.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.timeout(180)
def test_storecost_shapes_report_appends_batches_and_commit_times() -> None:
    paced = run(
        "--shape", "paced", "--rooms", "6", "--seconds", "1.5", "--busy", "0.3", "--commit-times"
    )
    assert paced["store"] == "db" and paced["appends"] >= 6
    assert paced["on_loop"] > 0 and paced["loop_busy"] == 0, "the default store commits on the loop"
    assert paced["commit_ms"]["max"] >= paced["commit_ms"]["p50"] >= 0
    assert 0 < paced["batches"] <= paced["appends"]
    saturated = run("--shape", "saturated", "--rooms", "3", "--per-room", "7")
    assert saturated["appends"] == 21 and saturated["batch_size"]["max"] <= 3
    null = run("--store", "null", "--rooms", "3", "--seconds", "1")
    assert "batches" not in null and null["appends"] >= 3


def test_storecost_refuses_bad_arguments() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "storecost.py"), "--busy", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "--busy" in done.stderr


def test_store_share_counts_busy_store_samples(tmp_path: Path) -> None:
    raw = tmp_path / "spy.txt"
    raw.write_text(
        "\n".join(
            [
                "main (a.py:1);handle (slapjack/server/x.py:2) 6",
                "main (a.py:1);append_action (slapjack/store/_sql.py:3) 3",
                "run (t.py:9);work (aiosqlite/core.py:7);_write_batch_on (slapjack/store/sqlite.py:5) 1",
                "run (t.py:9);_connection_worker_thread (aiosqlite/core.py:59) 50",
                "garbage line",
            ]
        )
    )
    done = subprocess.run(
        [sys.executable, str(BENCH / "store_share.py"), str(raw)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].endswith("10 busy samples, 4 in the store (40.0 %)")
    assert "30.0 %  append_action (slapjack/store/_sql.py:3)" in lines[1]
    assert "10.0 %  _write_batch_on (slapjack/store/sqlite.py:5)" in lines[2]
