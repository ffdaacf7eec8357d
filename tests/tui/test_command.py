"""``slapjack tui``: options, the stacked deck file, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from slapjack.cli import app as cli
from slapjack.commands.tui import DeckFileError, read_deck
from slapjack.core import FULL_DECK, card_name
from slapjack.tui import SlapjackApp

NAMES = [card_name(c) for c in FULL_DECK]


def test_read_deck_accepts_text_json_and_a_record(tmp_path: Path) -> None:
    order = list(reversed(NAMES))
    text = tmp_path / "deck.txt"
    text.write_text(" ".join(order[:20]) + "\n" + ",".join(order[20:]) + "\n")
    as_json = tmp_path / "deck.json"
    as_json.write_text(json.dumps(order))
    record = tmp_path / "game.json"
    record.write_text(json.dumps({"format": "slapjack-record/1", "deck": order, "actions": []}))
    expected = tuple(reversed(FULL_DECK))
    assert read_deck(text) == read_deck(as_json) == read_deck(record) == expected


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("AS AS", "52"),
        ("[1, 2]", "list of 52 card names"),
        ("{", "not valid JSON"),
        (" ".join(NAMES[:51]) + " ZZ", "unknown card"),
    ],
)
def test_read_deck_rejects_bad_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "deck.txt"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        read_deck(path)
    with pytest.raises(DeckFileError):
        read_deck(tmp_path / "missing.txt")


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[SlapjackApp]:
    """Stand in for ``App.run``: keep the app the command built, run nothing."""
    apps: list[SlapjackApp] = []

    def fake_run(self: SlapjackApp, *args: Any, **kwargs: Any) -> None:
        apps.append(self)

    monkeypatch.setattr(SlapjackApp, "run", fake_run)
    return apps


def test_options_reach_the_game(captured: list[SlapjackApp], tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text(" ".join(reversed(NAMES)))
    result = CliRunner().invoke(
        cli,
        ["tui", "--lang", "de", "-p", "klatsch-bube", "-r", "tie=reslap", "--seats", "5",
         "--humans", "2", "--bots", "pro", "--deck", str(deck), "--turn-seconds", "3", "--quick"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (app,) = captured
    cfg = app.config
    assert app.lang == "de" and app.skip_setup
    assert cfg.rules.preset == "klatsch-bube" and cfg.rules.tie.value == "reslap"
    assert [s.bot for s in cfg.seats] == [None, None, "pro", "pro", "pro"]
    assert [s.slap_key for s in cfg.seats[:2]] == ["a", "l"]
    assert cfg.deck == tuple(reversed(FULL_DECK)) and cfg.seed is None
    assert cfg.timing.turn_ms == 3000


def test_seed_option(captured: list[SlapjackApp]) -> None:
    result = CliRunner().invoke(cli, ["tui", "--seed", "42", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert captured[0].config.seed == 42 and not captured[0].skip_setup


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lang", "fr"], "fr"),
        (["--preset", "nope"], "unknown preset"),
        (["-r", "tie=never"], "bad value"),
        (["--seed", "1", "--deck", "x.txt"], "not both"),
        (["--humans", "5", "--seats", "3"], "more than"),
        (["--bots", "godlike"], "unknown bot level"),
        (["--seed", str(2**64)], "--seed"),
        (["--deck", "/nonexistent/deck.txt"], "cannot read"),
    ],
)
def test_bad_options_exit_2_with_a_message(
    captured: list[SlapjackApp], args: list[str], message: str
) -> None:
    result = CliRunner().invoke(cli, ["tui", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert not captured
