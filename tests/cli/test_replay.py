"""`slapjack replay`: the real CLI, through CliRunner and once as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from slapjack.cli import app
from slapjack.core import Record, final_position, replay

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
EN = EXAMPLES / "en-worked-example.json"
DE = EXAMPLES / "de-short-worked-example.json"
ALL = sorted(p for p in EXAMPLES.rglob("*.json") if not p.name.endswith(".expected.json"))

runner = CliRunner()


def expected(path: Path) -> dict[str, object]:
    return json.loads(path.with_name(path.stem + ".expected.json").read_text(encoding="utf-8"))


def test_json_prints_one_final_position_per_line_in_order() -> None:
    result = runner.invoke(app, ["replay", "--json", *map(str, ALL)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == len(ALL)
    for path, line in zip(ALL, lines, strict=True):
        assert json.loads(line) == expected(path)
    assert result.stderr == ""


def test_json_is_exactly_final_position() -> None:
    result = runner.invoke(app, ["replay", str(DE), "--json"])
    record = Record.from_json(DE.read_text(encoding="utf-8"))
    assert json.loads(result.stdout) == final_position(replay(record))


def test_readable_output() -> None:
    result = runner.invoke(
        app, ["replay", str(EN), str(EXAMPLES / "options" / "time_limit-300.json")]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "en-worked-example.json" in out and "In progress. Carla flips next." in out
    assert "Ben" in out and "19" in out and "Centre: empty" in out
    assert "6 events from 5 actions." in out
    assert "Finished. Winner: Ben" in out and "time_limit=300" in out
    assert out.index("en-worked-example.json") < out.index("time_limit-300.json")


def test_readable_output_irish_loser_and_face_down_centre() -> None:
    result = runner.invoke(
        app, ["replay", str(EXAMPLES / "options" / "irish_goal-avoid_last.json"), str(DE)]
    )
    out = result.stdout
    assert "loser: P52" in out and "finished 1st" in out and "Finished, in order: P01, P02" in out
    assert "(+1 face down)" in out and "9♥" in out


def _panel_lines(out: str) -> list[str]:
    return [line.strip("│ ").rstrip() for line in out.splitlines()]


def test_counts_are_singular_for_one(tmp_path: Path) -> None:
    one = _write(tmp_path, "one.json", _record(actions=[{"t": 0, "flip": "Anna"}]))
    result = runner.invoke(app, ["replay", str(one)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    lines = _panel_lines(result.stdout)
    assert any(line.startswith("Centre: 1 card, top last: ") for line in lines), lines
    assert "1 event from 1 action." in lines
    assert "1 cards" not in result.stdout and "1 events" not in result.stdout
    many = runner.invoke(app, ["replay", str(EXAMPLES / "options" / "time_limit-300-shared.json")])
    assert (
        "Centre: 2 cards, top last: 2♣ 3♦" in many.stdout
        and "4 events from 3 actions." in many.stdout
    )


def test_no_line_saying_nobody_is_out() -> None:
    """Nobody out (a game in progress, one ended by the clock, Irish Snap won by
    the first out before anyone is listed): the line is left out, not "nobody"."""
    files = [
        EXAMPLES / "options" / name
        for name in (
            "irish_goal-first_out.json",
            "time_limit-300-shared.json",
            "after_jack-continue.json",
        )
    ]
    result = runner.invoke(app, ["replay", *map(str, files)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Finished. Winner: P01" in out and "Finished. Winners: Anna, Ben" in out
    assert "nobody" not in out and "in order:" not in out


def test_the_table_columns_all_have_headers() -> None:
    result = runner.invoke(app, ["replay", str(EN)], env={"COLUMNS": "100"})
    header = next(line for line in result.stdout.splitlines() if "player" in line)
    assert header.split()[1:] == ["player", "cards", "top", "card", "notes", "│"]


def test_stdin() -> None:
    result = runner.invoke(app, ["replay", "--json", "-"], input=EN.read_text(encoding="utf-8"))
    assert result.exit_code == 0 and json.loads(result.stdout) == expected(EN)


def _write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _record(**changes: object) -> dict[str, object]:
    data: dict[str, object] = json.loads(EN.read_text(encoding="utf-8"))
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "not valid JSON"),
        (_record(deck=["ZZ", *_record()["deck"][1:]]), "unknown card 'ZZ'"),  # type: ignore[index]
        (_record(rules={"preset": "classic", "colour": "red"}), "unknown option 'colour'"),
        (
            _record(actions=[{"t": 0, "flip": "Anna"}, {"t": 5, "flip": "Carla"}]),
            "action 1: it is Ben's turn, not Carla's",
        ),
        (
            _record(actions=[{"t": 10, "flip": "Anna"}, {"t": 5, "flip": "Ben"}]),
            "action 1: time goes backwards (5 ms after 10 ms)",
        ),
        (_record(actions=[{"t": 0, "flip": "Zoe"}]), "action 0: unknown player 'Zoe'"),
    ],
)
def test_invalid_record_exits_2_with_one_message(
    tmp_path: Path, data: object, message: str
) -> None:
    bad = _write(tmp_path, "bad.json", data)
    result = runner.invoke(app, ["replay", "--json", str(EN), str(bad), str(DE)])
    assert result.exit_code == 2
    assert result.stdout == ""  # nothing half-done: not even the valid records before it
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"slapjack replay: {bad}: ") and message in lines[0]


def _raw(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


EN_TEXT = json.dumps(_record())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # more digits than Python turns into an int: a ValueError that is not JSON's
        (_raw(EN_TEXT, '"t": 2400', '"t": ' + "9" * 5000), "not valid JSON: a number has more than 4300 digits"),
        # a lone surrogate is no text: the panel (and --json) could not print it
        (_raw(EN_TEXT, '"Carla"]', '"\\ud800"]'), "a player name must be Unicode text (no lone surrogates), got '\\ud800'"),
        # a huge value is named, not echoed whole
        (_raw(EN_TEXT, '{"t": 0, "flip": "Anna"}', '{"t": 0, "flip": "' + "y" * 100_000 + '"}'),
         "action 0: unknown player 'yyyyyyyyyy"),
        (_raw(EN_TEXT, '"t": 2400', '"t": ' + "9" * 4000), "action 2: time goes backwards (4100 ms after 99999"),
    ],
)  # fmt: skip
def test_hostile_record_is_one_short_line_and_status_2(
    tmp_path: Path, text: str, message: str
) -> None:
    bad = _write(tmp_path, "bad.json", text)
    for args in (["replay", str(bad)], ["replay", "--json", str(bad)]):
        done = subprocess.run(
            [str(Path(sys.executable).with_name("slapjack")), *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2 and done.stdout == "", done.stderr[-2000:]
        line = done.stderr.removesuffix("\n")
        assert "\n" not in line and len(line) < 300, line[:500]
        assert line.startswith(f"slapjack replay: {bad}: ") and message in line, line


def test_names_and_file_names_are_shown_as_written_never_as_markup(tmp_path: Path) -> None:
    text = EN_TEXT.replace('"Anna"', '"[/]"').replace('"Ben"', '"[red]Ben"')
    (tmp_path / "x[").mkdir()
    path = _write(tmp_path, "x[/y].json", text)
    result = runner.invoke(app, ["replay", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "x[/y].json" in result.stdout
    assert "[/]" in result.stdout and "[red]Ben" in result.stdout


def test_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(tmp_path / "nope.json")])
    assert result.exit_code == 2 and "nope.json: cannot read the file" in result.stderr
    result = runner.invoke(app, ["replay", str(tmp_path)])
    assert result.exit_code == 2 and "cannot read the file" in result.stderr


def test_an_endless_or_huge_file_is_refused_unread_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # /dev/zero never ends: read whole, it filled the memory
    done = subprocess.run(
        [str(Path(sys.executable).with_name("slapjack")), "replay", "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == "", done.stderr[-2000:]
    assert done.stderr == "slapjack replay: /dev/zero: larger than 64 MiB: not a game record\n"
    # the same for a file or standard input over the limit (made small here)
    import slapjack.commands.replay as replay_command

    monkeypatch.setattr(replay_command, "MAX_RECORD_BYTES", len(EN.read_bytes()) - 1)
    for args, stdin in (([str(EN)], None), (["-"], EN.read_text(encoding="utf-8"))):
        result = runner.invoke(app, ["replay", *args], input=stdin)
        assert result.exit_code == 2 and "larger than 0 MiB: not a game record" in result.stderr
    monkeypatch.setattr(replay_command, "MAX_RECORD_BYTES", len(EN.read_bytes()))
    assert runner.invoke(app, ["replay", str(EN)]).exit_code == 0  # exactly at the limit: read


def test_no_files_is_a_usage_error() -> None:
    result = runner.invoke(app, ["replay"])
    assert result.exit_code == 2


def test_subprocess_installed_command(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("slapjack")
    assert exe.exists(), exe
    done = subprocess.run(
        [str(exe), "replay", "--json", str(EN), str(DE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == [expected(EN), expected(DE)]
    bad = _write(tmp_path, "late.json", _record(actions=[{"t": 0, "flip": "Ben"}]))
    done = subprocess.run(
        [str(exe), "replay", str(bad)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"slapjack replay: {bad}: action 0: it is Anna's turn, not Ben's"
