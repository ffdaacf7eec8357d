"""`slapjack rules`: every preset in both languages, overrides, the locale, errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from slapjack.cli import app
from slapjack.core import PRESETS, Rules
from slapjack.texts import catalog, option_value_text, preset_label, rules_text

runner = CliRunner()
# Start every run from a neutral locale; tests that care set LANG themselves.
NEUTRAL = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": "C.UTF-8"}


def run(*args: str, **env: str | None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["rules", *args], env={**NEUTRAL, **env})
    return result.exit_code, " ".join(result.stdout.split()), result.stderr


def shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_in_both_languages(preset: str, lang: str) -> None:
    code, out, err = run("--preset", preset, "--lang", lang)
    assert code == 0, err
    rules = Rules.from_options({"preset": preset})
    for name, value in rules.option_values().items():
        assert f"{name} = {shown(value)}" in out, (name, value)
    assert preset_label(preset, lang) in out
    assert catalog(lang).headings["silent"] in out
    if lang == "de":
        assert "Stapel" in out and ("Bube" in out or "Ansage" in out)
        assert "Where the rulebooks are silent" not in out
    else:
        assert "Jack" in out and "Wo die Regelhefte schweigen" not in out


def test_overrides() -> None:
    code, out, err = run(
        "--lang", "en", "--rule", "tie=split", "-r", "say_it=yes", "-r", "time_limit=300"
    )
    assert code == 0, err
    assert "tie = split" in out and "say_it = true" in out and "time_limit = 300" in out
    assert "5 minutes" in out
    assert "Changed from the preset classic: tie = split, time_limit = 300, say_it = true" in out
    code, out, _ = run("-p", "irish-snap", "-r", "irish_goal=first_out", "-l", "de")
    assert code == 0
    assert "irish_goal = first_out" in out and "Abweichend von der Vorgabe irish-snap" in out


def test_default_language_comes_from_the_locale() -> None:
    _, german, _ = run("-p", "classic", LANG="de_DE.UTF-8")
    assert "Die Regeln an diesem Tisch" in german
    _, english, _ = run("-p", "classic", LANG="en_GB.UTF-8")
    assert "The rules at this table" in english
    _, c_locale, _ = run("-p", "classic", LC_ALL="C", LANG="de_DE.UTF-8")
    assert "The rules at this table" in c_locale
    _, explicit, _ = run("-p", "classic", "--lang", "en", LANG="de_DE.UTF-8")
    assert "The rules at this table" in explicit


def test_markdown_output_is_the_rules_text() -> None:
    result = runner.invoke(app, ["rules", "-p", "say-it", "-l", "de", "--markdown"], env=NEUTRAL)
    assert result.exit_code == 0
    assert result.stdout == rules_text(Rules.from_options({"preset": "say-it"}), "de")


def test_list_presets() -> None:
    code, out, _ = run("--list", "--lang", "en")
    assert code == 0
    for name in PRESETS:
        assert name in out
    assert "irish_goal=first_out" in out


@pytest.mark.parametrize(
    ("lang", "headers"),
    [("en", ["preset", "description", "options"]), ("de", ["Vorgabe", "Beschreibung", "Optionen"])],
)
def test_list_has_a_header_for_every_column(lang: str, headers: list[str]) -> None:
    result = runner.invoke(
        app, ["rules", "--list", "--lang", lang], env={**NEUTRAL, "COLUMNS": "120"}
    )
    assert result.exit_code == 0
    header = result.stdout.splitlines()[1]
    assert [cell.strip() for cell in header.strip("┃").split("┃")] == headers


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "snap"], "unknown preset 'snap'"),
        (["--lang", "fr"], "unknown language 'fr'"),
        (["--lang", "fr", "--list"], "unknown language 'fr'"),
        (["--rule", "speed=fast"], "unknown option 'speed'"),
        (["--rule", "tie"], "--rule takes key=value"),
        (["--rule", "tie="], "--rule takes key=value"),
        (["--rule", "tie=draw"], "bad value 'draw' for tie"),
        (["--rule", "say_it=maybe"], "say_it must be true or false"),
        (["--rule", "time_limit=-5"], "time_limit must be whole seconds"),
        (["--rule", "time_limit=5m"], "time_limit must be whole seconds"),
        (["-p", "irish-snap", "--rule", "tie=split"], "has no meaning in Irish Snap"),
        (["--rule", "irish_goal=first_out"], "has no meaning in Slapjack"),
        (["-p", "say-it", "--rule", "wrong_slap=pay_pile"], "say_it replaces wrong_slap"),
    ],
)
def test_errors_exit_with_status_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["rules", *args], env=NEUTRAL)
    assert result.exit_code == 2
    assert result.stderr.startswith("slapjack rules: ") and result.stderr.count("\n") == 1
    assert message in result.stderr
    assert result.stdout == ""


def test_the_installed_command(tmp_path: Path) -> None:
    """One run of the real console script, with the language from LANG."""
    exe = Path(sys.executable).with_name("slapjack")
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env.update(LANG="de_DE.UTF-8", COLUMNS="100")
    done = subprocess.run(
        [str(exe), "rules", "-p", "klatsch-bube"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "empty_stack = until_turn" in out
    assert option_value_text("tie", "split", "de") in out
    assert "Genauer Gleichstand" in out
    bad = subprocess.run(
        [str(exe), "rules", "-p", "nope"], capture_output=True, text=True, env=env, timeout=60
    )
    assert bad.returncode == 2 and "unknown preset" in bad.stderr
