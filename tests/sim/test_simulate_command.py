"""``slapjack simulate``: Typer's test runner for the figures and messages, real
processes (a pipe, a pseudo-terminal) for stdout, the progress bar and widths."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from slapjack.bots import LEVELS
from slapjack.cli import app
from slapjack.core import Rules
from slapjack.sim import SimConfig, simulate
from slapjack.sim.run import MAX_CHUNK

runner = CliRunner()
EXE = Path(sys.executable).with_name("slapjack")
MIXED = ["--bots", "pro,casual,casual,beginner"]


def run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, ["simulate", *args], env={"COLUMNS": "200"})
    return res.exit_code, res.stdout, res.stderr


def test_simulate_writes_json_and_plots_and_says_so(tmp_path: Path) -> None:
    out, png, svg = tmp_path / "sim.json", tmp_path / "sim.png", tmp_path / "sim.svg"
    code, text, err = run(
        "--players", "4", "--games", "30", *MIXED, "--seed", "7", "--jobs", "1",
        "--json", str(out), "--plot", str(png), "--plot", str(svg),
    )  # fmt: skip
    assert code == 0, err
    assert "finished" in text and "win share" in text and "pro" in text
    data = json.loads(out.read_text())
    assert data["games"] == 30
    assert data["finished"] + data["capped"] == 30
    assert len(data["wins"]) == 4 and sum(data["wins"]) >= data["finished"]
    assert data["bots"] == ["pro", "casual", "casual", "beginner"]
    assert data["rules"] == {"preset": "classic"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert svg.read_text().lstrip().startswith("<?xml") and "<svg" in svg.read_text()
    lines = err.splitlines()
    assert lines[-3:] == [f"wrote {out}", f"wrote {png}", f"wrote {svg}"]
    assert re.fullmatch(
        r"simulated 30 games in \d+\.\d s \([\d,]+ games/s, 1 process\): \d+ finished, \d+ capped",
        lines[0],
    )
    # The same seed, the same figures; --quiet says nothing on stderr.
    again = tmp_path / "again.json"
    code, _, err = run(
        "--players", "4", "--games", "30", *MIXED, "--seed", "7", "--jobs", "1",
        "--json", str(again), "--quiet",
    )  # fmt: skip
    assert code == 0 and err == ""
    assert json.loads(again.read_text()) == data


def test_json_dash_is_stdout_and_the_table_goes_to_stderr() -> None:
    code, text, err = run("-g", "20", "-j", "1", "-s", "3", "--json", "-")
    assert code == 0, err
    data = json.loads(text)  # stdout is the JSON and nothing else
    assert data["games"] == 20 and data["format"] == "slapjack-sim/1"
    assert "Per seat" in err and "wrote" not in err
    assert not Path("-").exists()


def test_plot_dash_is_a_png_on_stdout() -> None:
    done = subprocess.run(
        [str(EXE), "simulate", "-g", "20", "-j", "1", "--plot", "-"],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"Per seat" in done.stderr and b"wrote" not in done.stderr


def test_one_level_applies_to_every_seat_as_in_the_tui(tmp_path: Path) -> None:
    out = tmp_path / "pro.json"
    code, _, err = run("-n", "4", "-g", "4", "-j", "1", "--bots", "pro", "--json", str(out), "-q")
    assert code == 0, err
    assert json.loads(out.read_text())["bots"] == ["pro"] * 4
    code, _, err = run("-n", "3", "-g", "4", "-j", "1", "--json", str(out), "-q")
    assert code == 0, err
    assert json.loads(out.read_text())["bots"] == ["casual"] * 3


def test_one_person_written_two_ways_is_one_level(tmp_path: Path) -> None:
    """human:180 and human:180.0 are the same simulated person: one row of the
    per-level table, one name in the JSON."""
    out = tmp_path / "people.json"
    code, _, err = run(
        "-n", "3", "-g", "4", "-j", "1", "--bots", "human:180,human:180.0,human:250.50",
        "--json", str(out), "-q",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out.read_text())
    assert data["bots"] == ["human:180", "human:180", "human:250.5"]


def test_simulate_irish_snap_with_rules_and_a_cap(tmp_path: Path) -> None:
    out = tmp_path / "irish.json"
    code, text, err = run(
        "--game", "irish-snap", "--players", "3", "--games", "12", "--seed", "1",
        "--jobs", "1", "--json", str(out), "--cap", "40", "--quiet",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out.read_text())
    assert data["game"] == "irish-snap"
    assert data["capped"] > 0  # a 40-flip cap stops most Irish Snap games
    assert "losses" in text
    code, text, err = run("--players", "2", "--games", "5", "--rule", "tie=split", "--quiet")
    assert code == 0, err
    code, text, _ = run("-n", "2", "-g", "3", "--preset", "say-it", "-q", "--jobs", "1")
    assert code == 0 and "forgot the call" in text
    code, text, _ = run("-n", "2", "-g", "3", "-p", "say-it", "-q", "--jobs", "1")
    assert code == 0 and "forgot the call" in text  # -p is --preset, as in tui and rules


def test_an_irish_snap_preset_plays_irish_snap_without_game(tmp_path: Path) -> None:
    out = tmp_path / "sim.json"
    code, _, err = run("-g", "2", "-j", "1", "-q", "-p", "irish-snap-winner", "--json", str(out))
    assert code == 0, err
    data = json.loads(out.read_text())
    assert data["game"] == "irish-snap" and data["rules"] == {"preset": "irish-snap-winner"}


def test_no_header_is_cut_at_80_columns() -> None:
    # say-it has the most columns: "eliminated" was cut to "elimina…"
    for preset in ("classic", "say-it", "irish-snap"):  # the preset names the game
        res = runner.invoke(
            app,
            ["simulate", "-g", "3", "-j", "1", "-q", "-p", preset, "--bots", "beginner"],
            env={"COLUMNS": "80"},
        )
        assert res.exit_code == 0, res.stderr
        assert "…" not in res.stdout, res.stdout
        assert max(map(len, res.stdout.splitlines())) <= 80


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "unknownbot"], f"--bots: unknown bot level 'unknownbot'; levels: {', '.join(LEVELS)}"),
        (["--bots", "pro,wizard,casual,casual"], "--bots: unknown bot level 'wizard'; levels:"),
        (["--bots", "wizard"], "(or human:<ms> for a simulated person)"),
        (["--bots", "human:abc"], "--bots: 'human:abc': a simulated person is human:<ms> with a median reaction from"),
        (["--bots", "human:0"], "e.g. human:400"),
        (["--bots", "pro,casual"], "--bots: 4 players need one level for all of them or 4 levels, got 2: pro,casual"),
        (["--rule", "tie=sometimes"], "bad value 'sometimes' for tie"),
        (["--rule", "nonsense"], "key=value"),
        (["--rule", "colour=red"], "unknown option"),
        (["--preset", "speed"], "unknown preset 'speed'"),
        (["--game", "poker"], "unknown game 'poker'; games: slapjack, irish-snap"),
        (["--game", "irish-snap", "--preset", "classic"], "not irish-snap"),
        (["--game", "irish-snap", "--rule", "tie=split"], "no meaning in Irish Snap"),
        (["--players", "1", "--bots", "pro"], "--players must be from 2 to 52, got 1"),
        (["--games", "0"], "--games must be from 1 to 100,000,000, got 0"),
        (["--jobs", "0"], "--jobs must be at least 1, got 0"),
        (["--cap", "0"], "--cap must be at least 1, got 0"),
        (["--seed", "-1"], "--seed must be from 0 to 2^64-1 (18446744073709551615), got -1"),
        (["--seed", str(2**64)], "--seed must be from 0 to 2^64-1"),
        (["--plot", "out.txt"], "--plot must name a .png, .svg, .pdf file (or '-'), got out.txt"),
        (["--json", "/nonexistent/dir/x.json"], "--json: no directory /nonexistent/dir"),
        (["--plot", "/nonexistent/p.png"], "--plot: no directory /nonexistent"),
        (["--json", "-", "--plot", "-"], "only one of --json and --plot can write to stdout"),
        (["--players", "four"], "--players: expected a whole number, got 'four'"),
        (["--games=2.5"], "--games: expected a whole number, got '2.5'"),
    ],
)  # fmt: skip
def test_bad_arguments_exit_2_with_one_line(args: list[str], message: str) -> None:
    code, text, err = run("--games", "2", "--jobs", "1", *args)
    assert code == 2
    assert text == ""
    assert err.startswith("slapjack simulate: ") and err.count("\n") == 1, err
    assert message in err


def test_a_directory_as_output_is_refused(tmp_path: Path) -> None:
    code, _, err = run("-g", "2", "-j", "1", "--json", str(tmp_path))
    assert code == 2 and err == f"slapjack simulate: --json: {tmp_path} is a directory\n"


def test_the_seed_range_is_the_same_as_the_tui() -> None:
    # The tui refuses the same seeds with the same words (tests/cli/test_style.py runs it).
    code, _, err = run("-g", "2", "-j", "1", "--seed", str(2**64 - 1), "-q")
    assert code == 0, err


def test_progress_is_reported_in_small_chunks() -> None:
    config = SimConfig(Rules(), ("casual", "pro"), seed=1)
    for jobs in (1, 2):
        seen: list[int] = []
        results = simulate(config, 1000, jobs=jobs, progress=seen.append)
        assert sum(seen) == 1000 == len(results)
        assert max(seen) <= MAX_CHUNK and len(seen) >= 1000 // MAX_CHUNK


def test_piped_stderr_has_no_bar_and_no_wrapping(tmp_path: Path) -> None:
    """A pipe gets no progress frames, only the lines that are left; long lines
    are not wrapped at 80 columns."""
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("FORCE_COLOR", None)
    deep = tmp_path / ("a-rather-long-directory-name-" * 3) / "sim.json"
    done = subprocess.run(
        [str(EXE), "simulate", "-g", "10", "-j", "1", "--json", str(deep)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"slapjack simulate: --json: no directory {deep.parent}\n"
    assert len(done.stderr) > 80
    out = tmp_path / "sim.json"
    done = subprocess.run(
        [str(EXE), "simulate", "-g", "10", "-j", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("simulated 10 games in ")
    assert lines[1] == f"wrote {out}"
    assert "\x1b" not in done.stderr and "━" not in done.stderr


def test_the_table_never_rounds_a_share_to_0_or_100() -> None:
    from rich.console import Console

    from slapjack.commands.simulate import summary_table
    from slapjack.sim import Summary

    summary = Summary(
        Rules(),
        ("pro", "casual", "casual", "beginner"),
        seed=0,
        cap=5000,
        games=10_000,
        finished=10_000,
        game_flips=[60] * 10_000,
        game_finished=[True] * 10_000,
        win_credit=[9_998.0, 1.0, 1.0, 0.0],
    )
    console = Console(width=200, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(summary_table(summary))
    text = console.export_text()
    assert "99.98%" in text and "0.01%" in text and " 0% " in text and "0.0%" not in text


def _workers_of(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat[1]) == pid and b"spawn_main" in cmdline:
                children.append(int(entry.name))
    return children


@pytest.mark.parametrize("after_s", [0.0, 1.0])  # while the workers start; while they play
def test_ctrl_c_stops_at_once_with_one_line(after_s: float) -> None:
    """Ctrl-C reaches the whole process group: the workers ignore it, the parent
    drops the queued chunks, waits for the running ones and says how far it got."""
    import signal
    import time

    proc = subprocess.Popen(
        [str(EXE), "simulate", "-g", "1000000", "-j", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_workers_of(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_workers_of(proc.pid)) == 2, "the pool did not start"
        time.sleep(after_s)
        os.killpg(proc.pid, signal.SIGINT)
        stopped = time.monotonic()
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:  # pragma: no cover - only if it hangs
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert time.monotonic() - stopped < 15
    assert proc.returncode == 130
    assert re.fullmatch(r"slapjack simulate: interrupted after [\d,]+ of 1,000,000 games\n", err), (
        err
    )
