"""``bench/load.py`` at CI size: 200 players for 10 s against a real server.

Nothing timed is checked (CI machines differ): every player stays connected,
no update is lost or out of order, the game goes on (flips, slaps, pongs),
no server process outlives the run, and what the players' sockets held is
freed when they leave."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def run_load(*args: str, timeout: float) -> tuple[subprocess.CompletedProcess[str], Any]:
    """``bench/load.py --json`` with ``args``: the finished run and its result."""
    done = subprocess.run(
        [sys.executable, str(BENCH), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done, json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.timeout(240)
def test_two_hundred_players_for_ten_seconds_lose_nothing() -> None:
    _, result = run_load(
        *("--players", "200", "--seconds", "10", "--settle", "2", "--procs", "2"),
        *("--after-leave", "2"),
        timeout=220,
    )
    assert result["connected"] == 200 and result["closed"] == 0, result
    assert result["lost"] == 0 and result["out_of_order"] == 0
    assert set(result["errors"]) <= {"stale_flip"}, result["errors"]  # a flip racing the turn timer
    # the game went on: about a flip a second in each of the 50 rooms, every ping answered
    assert result["flips_per_s"] > 10 and result["slaps_per_s"] > 0
    assert result["pongs_per_s"] > 100
    assert result["flip_delays"] > 0 and result["server_us_per_frame"] > 0
    # then every player left: the server saw them go, and freed what their
    # sockets held by reference counting (about 140 blocks each; 28 while
    # the socket's edge left reference cycles for a full collection to find)
    left = result["after_leave"]
    assert left["connections"] == 0, left
    assert left["full_collections_between"] > 0 or left["blocks_freed_per_player"] > 80, left
    # which interpreter served (figures differ between builds of one version)
    python = result["server_python"]
    assert python["executable"] == str(Path(sys.executable).resolve()), python
    assert python["version"] == platform.python_version(), python
    assert python["libpython"] in ("shared", "static"), python
    pid = result["server"]["pid"]
    assert not Path(f"/proc/{pid}").exists(), "the server outlived the run"


@pytest.mark.timeout(180)
def test_profile_samples_the_server_and_prints_where_its_cpu_went(tmp_path: Path) -> None:
    raw = tmp_path / "server.raw"
    done, result = run_load(
        *("--players", "40", "--seconds", "4", "--settle", "1", "--procs", "1"),
        *("--profile", str(raw)),
        timeout=170,
    )
    profile = result["profile"]
    assert profile["file"] == str(raw) and profile["samples"] > 0, profile
    assert profile["flips"] > 0 and profile["server_us_per_flip"] > 0, profile
    # py-spy's raw stacks of the server (not of the generator): the serving
    # command's frames (not necessarily its rooms' code: 40 players keep it
    # idle most of the time, and on a busy machine a handful of samples may
    # all be in the event loop itself)
    stacks = raw.read_text()
    assert "slapjack/commands/serve.py" in stacks and "bench/load.py" not in stacks
    # and the per-flip tables of bench/flipcost.py on stderr, each sample counted once
    assert "| part | share of server CPU | µs per flip |" in done.stderr
    assert "| flow | share of server CPU | µs per flip |" in done.stderr
    assert f"{profile['samples']} samples" in done.stderr
    pid = result["server"]["pid"]
    assert not Path(f"/proc/{pid}").exists(), "the server outlived the run"


def test_profile_without_py_spy_is_refused_before_anything_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A one-line usage error (status 2), no server started, when py-spy is
    neither beside the interpreter nor on PATH."""
    monkeypatch.syspath_prepend(str(BENCH.parent))
    import load

    monkeypatch.setattr(load.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert load.py_spy() is None
    started: list[object] = []
    monkeypatch.setattr(load, "run", started.append)
    monkeypatch.setattr(
        sys, "argv", ["load.py", "--players", "8", "--profile", str(tmp_path / "x")]
    )
    with pytest.raises(SystemExit) as stop:
        load.main()
    assert stop.value.code == 2 and started == []
    assert "--profile needs py-spy" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    # with py-spy beside the interpreter (a virtualenv's bin), it is found there
    spy = tmp_path / "py-spy"
    spy.write_text("#!/bin/sh\n")
    spy.chmod(0o755)
    assert load.py_spy() == str(spy)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the server and the generators)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _cmdline(pid: int) -> str:
    """``pid``'s command line; empty for a process gone or a zombie."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@contextlib.contextmanager
def _ramping() -> Iterator[tuple[subprocess.Popen[str], list[int], list[int]]]:
    """A run of 2,000 players making its rooms (slowly): the run, its
    children (the server, the generators, multiprocessing's helper) and the
    generators; killed if still there at the end."""
    args = ["--players", "2000", "--seconds", "10", "--ramp-rate", "100", "--procs", "2"]
    run = subprocess.Popen(
        [sys.executable, str(BENCH), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        children: list[int] = []
        generators: list[int] = []
        for _ in range(300):  # the server and both generators started
            children = _children(run.pid)
            generators = [pid for pid in children if "spawn_main" in _cmdline(pid)]
            if len(generators) == 2 and len(children) >= 3:
                break
            time.sleep(0.1)
        assert len(generators) == 2, {pid: _cmdline(pid) for pid in children}
        time.sleep(1.0)  # rooms being made
        yield run, children, generators
    finally:
        if run.poll() is None:
            run.kill()


def _none_left(children: list[int]) -> None:
    time.sleep(0.5)  # a killed generator's exit reaped by init
    alive = {pid: _cmdline(pid) for pid in children if Path(f"/proc/{pid}").exists()}
    assert not any(alive.values()), f"outlived the run: {alive}"


@pytest.mark.timeout(120)
def test_stopped_while_players_arrive_leaves_nothing_running() -> None:
    """A run stopped in its ramp (a wrapper's timeout: SIGTERM, then another
    while it cleans up) ends its generators and its server's session, and soon."""
    with _ramping() as (run, children, _generators):
        run.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        run.send_signal(signal.SIGTERM)  # during the cleanup: ignored
        _out, err = run.communicate(timeout=30)
    assert run.returncode != 0
    assert "stopped by signal 15" in err, err[-2000:]
    _none_left(children)


@pytest.mark.timeout(120)
def test_a_generator_that_dies_fails_the_run_at_once() -> None:
    """A generator process that dies in the ramp ends the run with its reason,
    not after the run's deadline (the parent kept the child's end of the pipe
    open, so the child's death never read as end-of-file)."""
    with _ramping() as (run, children, generators):
        os.kill(generators[-1], signal.SIGKILL)
        _out, err = run.communicate(timeout=40)
    assert run.returncode != 0
    assert f"generator {generators[-1]} died" in err, err[-2000:]
    _none_left(children)


def _few_files() -> None:
    """In the child: a hard limit of 1,024 open files (lowering is always allowed)."""
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


@pytest.mark.parametrize("script", ["load.py", "capacity.py"])
def test_more_players_than_open_files_are_refused_before_anything_starts(script: str) -> None:
    """Every player is a socket, an open file of the server: a run past the
    limit would fail midway (the server accepts no more, its metrics request
    is reset), so it is refused at once, saying how many players fit."""
    done = subprocess.run(
        [sys.executable, str(BENCH.parent / script), "--players", "2000", "--seconds", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=_few_files,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "2000 players need about 2200 open files" in done.stderr
    assert "at most 824 players here" in done.stderr
    assert "Traceback" not in done.stderr and "players connected" not in done.stderr
