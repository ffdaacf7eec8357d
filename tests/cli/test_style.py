"""One style for every ``slapjack`` command: help, --version, errors, the docs.

Typer's CliRunner for what it shows faithfully (exit codes, stdout, stderr);
the installed command in a pipe and in a pseudo-terminal for what depends on
the terminal (Rich's usage box, wrapping at 80 columns)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from slapjack import __version__
from slapjack.bots import LEVELS
from slapjack.cli import app
from slapjack.tui import SlapjackApp

from .terminal import run_in_terminal

ROOT = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).with_name("slapjack")
COMMANDS = ("serve", "tui", "simulate", "replay", "rules", "cluster", "version")
TYPE_HINTS = re.compile(r"<(int|bool|str|path|float|list\[[^\]]*\])>|list\[str\]")

runner = CliRunner()


def invoke(*args: str, columns: int = 80) -> Any:
    return runner.invoke(app, list(args), env={"COLUMNS": str(columns)})


def command(name: str) -> Any:
    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


def options_of(name: str) -> set[str]:
    params = [p for p in command(name).params if p.param_type_name == "option"]
    return {o for p in params for o in (*p.opts, *p.secondary_opts)} | {"-h", "--help"}


def first_line(name: str) -> str:
    return str(command(name).help).strip().splitlines()[0]


def piped(*args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    env["COLUMNS"] = str(columns)
    return subprocess.run(
        [str(EXE), *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


# ------------------------------------------------------------------ help


def test_the_root_help_lists_every_command_in_order() -> None:
    short, long = invoke("-h"), invoke("--help")
    assert short.exit_code == long.exit_code == 0
    assert short.stdout == long.stdout
    listed = re.findall(r"^│ (\w+) ", short.stdout, flags=re.M)
    assert listed[-len(COMMANDS) :] == list(COMMANDS)
    assert "--version" in short.stdout and "-h" in short.stdout


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_h_and_help_without_type_hints(name: str) -> None:
    short, long = invoke(name, "-h"), invoke(name, "--help")
    assert short.exit_code == long.exit_code == 0, short.output
    assert short.stdout == long.stdout
    text = short.stdout
    assert f"Usage: slapjack {name}" in text
    assert not TYPE_HINTS.search(text), TYPE_HINTS.search(text)
    assert first_line(name) in " ".join(text.split())
    # At 80 columns every option is there whole (Rich cuts a squeezed column with …).
    for option in options_of(name):
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text), (name, option)
    assert "…" not in re.sub(r"postgresql://…|10H JS …|G, ; …", "", text)


def test_value_options_show_what_they_take() -> None:
    text = " ".join(invoke("simulate", "-h", columns=120).stdout.split())
    for shown in ("--players -n N", "--json FILE", "--bots -b LEVELS", "--rule -r KEY=VALUE"):
        assert shown in text, shown
    assert "--check Check" in text  # a flag: nothing between the name and its help


# ------------------------------------------------------------------ --version


@pytest.mark.parametrize(
    "args", [["--version"], *[[c, "--version"] for c in COMMANDS], ["version"]]
)
def test_version_everywhere(args: list[str]) -> None:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"slapjack {__version__}\n" and result.stderr == ""


def test_version_comes_before_checking_the_rest() -> None:
    result = invoke("simulate", "--players", "1", "--version")
    assert result.exit_code == 0 and result.stdout == f"slapjack {__version__}\n"


# ------------------------------------------------------------------ errors


@pytest.fixture
def no_game(monkeypatch: pytest.MonkeyPatch) -> list[SlapjackApp]:
    """``slapjack tui`` builds its game but does not open it."""
    apps: list[SlapjackApp] = []
    monkeypatch.setattr(SlapjackApp, "run", lambda self, *a, **k: apps.append(self))
    return apps


LEVELS_TEXT = f"levels: {', '.join(LEVELS)}"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["tui", "--seed", "-1"], "slapjack tui: --seed must be from 0 to 2^64-1 (18446744073709551615), got -1"),
        (["simulate", "--seed", "-1"], "slapjack simulate: --seed must be from 0 to 2^64-1 (18446744073709551615), got -1"),
        (["tui", "--bots", "unknownbot"], f"slapjack tui: --bots: unknown bot level 'unknownbot'; {LEVELS_TEXT}"),
        (["simulate", "--bots", "unknownbot"], f"slapjack simulate: --bots: unknown bot level 'unknownbot'; {LEVELS_TEXT}"),
        (["tui", "--bots", "pro,casual"], "slapjack tui: --bots: 3 bot seats need one level for all of them or 3 levels, got 2: pro,casual"),
        (["tui", "--seats", "11"], "slapjack tui: --seats must be from 2 to 10, got 11"),
        (["tui", "--seats", "1"], "slapjack tui: --seats must be from 2 to 10, got 1"),
        (["tui", "--humans", "-1"], "slapjack tui: --humans must be from 0 to 10, got -1"),
        (["tui", "--turn-seconds", "601"], "slapjack tui: --turn-seconds must be from 0 to 600, got 601"),
        (["tui", "--slap-window-ms", "50"], "slapjack tui: --slap-window-ms must be from 100 to 5,000, got 50"),
        (["tui", "--turn-seconds", "abc"], "slapjack tui: --turn-seconds: expected a number, got 'abc'"),
        (["tui", "--preset", "nope"], "slapjack tui: unknown preset 'nope'"),
        (["tui", "--lang", "fr"], "slapjack tui: "),
        (["tui", "--server", "h.test:9"], "slapjack tui: --server, --token and --watch need --join CODE (or an invite link)"),
        (["tui", "--join", "AB12", "--name", "x" * 30], "slapjack tui: --name must be 1 to 24 characters, got 30"),
        (["tui", "--join", "AB12", "--seats", "3", "-p", "say-it"], "slapjack tui: --preset, --seats: only for a game on this terminal; --join plays the room's game"),
        (["tui", "--join", "AB12", "--rule", "tie=split", "--seed", "4"], "slapjack tui: --rule, --seed: only for a game on this terminal"),
        (["tui", "--deck", "/nonexistent/deck.txt"], "slapjack tui: cannot read the deck file /nonexistent/deck.txt: No such file or directory"),
        (["rules", "--preset", "nope"], "slapjack rules: unknown preset 'nope'; presets: "),
        (["rules", "--lang", "fr"], "slapjack rules: unknown language 'fr'"),
        (["replay", "/nonexistent/game.json"], "slapjack replay: /nonexistent/game.json: cannot read the file: No such file or directory"),
        (["serve", "--referee", "coin"], "slapjack serve: --referee must be one of fair, arrival, got 'coin'"),
        (["serve", "--log-level", "loud"], "slapjack serve: --log-level must be one of debug, info, warning, error, got 'loud'"),
        (["serve", "--port", "eighty"], "slapjack serve: --port: expected a whole number, got 'eighty'"),
    ],
)  # fmt: skip
def test_errors_are_one_line_on_stderr_with_status_2(
    no_game: list[SlapjackApp], tmp_path: Path, args: list[str], line: str
) -> None:
    if args[0] == "serve":
        args = [*args, "--data-dir", str(tmp_path / "data")]
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(line), result.stderr
    assert not no_game
    assert not (tmp_path / "data").exists()  # serve refused before it made anything


def test_tui_takes_a_level_per_bot_seat_like_simulate(no_game: list[SlapjackApp]) -> None:
    result = invoke("tui", "--quick", "-n", "4", "-b", "pro,beginner,perfect", "-s", "9")
    assert result.exit_code == 0, result.output
    (game,) = no_game
    assert [s.bot for s in game.config.seats] == [None, "pro", "beginner", "perfect"]
    assert game.config.seed == 9
    result = invoke("tui", "--quick", "-n", "3", "--humans", "0", "--bots", "pro")
    assert result.exit_code == 0, result.output
    assert [s.bot for s in no_game[1].config.seats] == ["pro"] * 3


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["simulate", "--nope"], "slapjack simulate: no such option: --nope"),
        (["replay"], "slapjack replay: missing argument 'FILE'"),
        (["nope"], "slapjack: no such command 'nope'"),
        (["rules", "extra"], "slapjack rules: got unexpected extra argument"),
        (["--nope"], "slapjack: no such option: --nope"),
    ],
)
def test_usage_errors_when_piped_are_one_line_with_a_hint(args: list[str], line: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(line), result.stderr
    path = line.split(":")[0]
    assert result.stderr.rstrip().endswith(f"(see '{path} --help')")


def test_usage_errors_on_a_terminal_get_rich_usage_box() -> None:
    out = run_in_terminal([str(EXE), "simulate", "--nope"], columns=80)
    assert "Usage: slapjack simulate [OPTIONS]" in out
    assert "╭─ Error" in out and "No such option: --nope" in out
    # A bad value is not a usage error: one line on a terminal too.
    out = run_in_terminal([str(EXE), "simulate", "--players", "1"], columns=80)
    assert "╭" not in out and "Usage:" not in out
    assert "slapjack simulate: --players must be from 2 to 52, got 1" in out


def test_a_long_error_is_one_line_when_piped_at_80_columns() -> None:
    long_name = "a-preset-name-long-enough-to-go-past-eighty-columns-" * 2
    for args in (["rules", "--preset", long_name], ["tui", "--preset", long_name]):
        done = piped(*args, columns=80)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and len(done.stderr) > 120, done.stderr
        assert done.stderr.startswith(f"slapjack {args[0]}: unknown preset '{long_name}'")
        assert "\x1b" not in done.stderr  # no colour into a pipe
    done = piped("simulate", "--nope", columns=80)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "╭" not in done.stderr


# ------------------------------------------------------------------ the docs


def _readme_rows() -> dict[str, list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows: dict[str, list[str]] = {}
    for row in re.findall(r"^\| `slapjack (\w+)[^`]*`.*$", text, flags=re.M):
        rows.setdefault(row, [])
    for line in text.splitlines():
        match = re.match(r"^\| `slapjack (\w+)([^`]*)` \| (.*) \|$", line)
        if match:
            rows[match.group(1)].append(line)
    return rows


def test_the_readme_table_matches_the_help() -> None:
    rows = _readme_rows()
    assert list(rows) == list(COMMANDS)  # every command, in --help's order
    for name, lines in rows.items():
        assert any(first_line(name) in line for line in lines), (name, first_line(name))
        for line in lines:
            synopsis = line.split("` |")[0]
            for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", synopsis):
                assert option in options_of(name), (name, option)


def test_the_tui_docs_name_only_real_options() -> None:
    text = (ROOT / "docs" / "tui.md").read_text(encoding="utf-8")
    named = set(re.findall(r"slapjack tui[^`\n]*", text))
    real = options_of("tui")
    for line in named:
        for option in re.findall(r"(?<![\w-])(--[a-z][\w-]*|-[a-z])\b", line.split("#")[0]):
            assert option in real, (line, option)
    table = text[text.index("| option | takes |") : text.index("## Start screen")]
    documented = set(re.findall(r"`(--?[a-z][\w-]*)`", table))
    assert documented == real - {"-h", "--help"}, documented ^ (real - {"-h", "--help"})


def test_the_serve_options_table_names_every_option() -> None:
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    table = text[text.index("## `slapjack serve`: every option") : text.index("## How it fits")]
    documented = set(re.findall(r"`(--?[a-z][\w-]*)`", table.split("| option |", 1)[1]))
    assert documented == options_of("serve"), documented ^ options_of("serve")


def test_a_deck_file_of_wrong_cards_is_named_in_the_message(
    tmp_path: Path, no_game: list[SlapjackApp]
) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("5C 5C " + "AS " * 50, encoding="utf-8")
    result = invoke("tui", "--deck", str(deck))
    assert result.exit_code == 2 and not no_game
    assert result.stderr.startswith(f"slapjack tui: {deck}: ") and "\n" not in result.stderr[:-1]
    assert "5C" in result.stderr


def test_a_deck_file_that_is_not_text(tmp_path: Path, no_game: list[SlapjackApp]) -> None:
    deck = tmp_path / "deck.bin"
    deck.write_bytes(b"\xff\xfe\x00AS")
    result = invoke("tui", "--deck", str(deck))
    assert result.exit_code == 2 and not no_game
    assert (
        result.stderr == f"slapjack tui: cannot read the deck file {deck}: it is not UTF-8 text\n"
    )
