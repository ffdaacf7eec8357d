"""``slapjack simulate`` through Typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from slapjack.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, ["simulate", *args], env={"COLUMNS": "200"})
    return res.exit_code, res.output


def test_simulate_writes_json_and_plot(tmp_path: Path) -> None:
    out, png = tmp_path / "sim.json", tmp_path / "sim.png"
    code, text = run(
        "--players", "4", "--games", "30", "--bots", "pro,casual,casual,beginner",
        "--seed", "7", "--jobs", "1", "--json", str(out), "--plot", str(png),
    )  # fmt: skip
    assert code == 0, text
    assert "finished" in text and "win share" in text and "pro" in text
    data = json.loads(out.read_text())
    assert data["games"] == 30
    assert data["finished"] + data["capped"] == 30
    assert data["total_flips"] > 0
    assert len(data["wins"]) == 4 and sum(data["wins"]) >= data["finished"]
    assert data["bots"] == ["pro", "casual", "casual", "beginner"]
    assert data["rules"] == {"preset": "classic"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000
    # The same seed, the same figures.
    again = tmp_path / "again.json"
    code, _ = run(
        "--players", "4", "--games", "30", "--bots", "pro,casual,casual,beginner",
        "--seed", "7", "--jobs", "1", "--json", str(again), "--quiet",
    )  # fmt: skip
    assert code == 0
    assert json.loads(again.read_text()) == data


def test_simulate_irish_snap_with_rules_and_a_cap(tmp_path: Path) -> None:
    out = tmp_path / "irish.json"
    code, text = run(
        "--game", "irish-snap", "--players", "3", "--games", "12", "--seed", "1",
        "--jobs", "1", "--json", str(out), "--cap", "40", "--quiet",
    )  # fmt: skip
    assert code == 0, text
    data = json.loads(out.read_text())
    assert data["game"] == "irish-snap"
    assert data["capped"] > 0  # a 40-flip cap stops most Irish Snap games
    assert "losses" in text
    code, text = run("--players", "2", "--games", "5", "--rule", "tie=split", "--quiet")
    assert code == 0, text
    code, text = run("--players", "2", "--games", "3", "--preset", "say-it", "-q", "--jobs", "1")
    assert code == 0 and "forgot the call" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "pro,wizard,casual,casual"], "unknown bot level 'wizard'"),
        (["--bots", "pro,casual"], "4 players need 4 bot levels"),
        (["--rule", "tie=sometimes"], "bad value 'sometimes' for tie"),
        (["--rule", "nonsense"], "key=value"),
        (["--rule", "colour=red"], "unknown option"),
        (["--preset", "speed"], "unknown preset"),
        (["--game", "poker"], "unknown game"),
        (["--game", "irish-snap", "--preset", "classic"], "not irish-snap"),
        (["--game", "irish-snap", "--rule", "tie=split"], "no meaning in Irish Snap"),
        (["--players", "1", "--bots", "pro"], "2 to 52"),
        (["--games", "0"], "--games"),
        (["--jobs", "0"], "--jobs"),
        (["--cap", "0"], "--cap"),
        (["--plot", "out.txt"], "--plot"),
        (["--json", "/nonexistent/dir/x.json"], "no directory"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(args: list[str], message: str) -> None:
    code, text = run("--games", "2", "--jobs", "1", *args)
    assert code == 2
    assert message in text
    assert "Traceback" not in text


def test_non_numbers_exit_2() -> None:
    code, _ = run("--players", "four")
    assert code == 2
