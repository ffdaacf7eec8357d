"""The app around the table: start screen, saving and replaying, German,
the rules, quitting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, Label, Markdown, Select
from typer.testing import CliRunner

from slapjack.cli import app as cli
from slapjack.core import Record, Rules, card_name, final_position, replay
from slapjack.core.events import RaceWon, Slapped
from slapjack.tui import GameConfig, SeatSpec
from slapjack.tui.i18n import tr
from slapjack.tui.screens.dialogs import ConfirmQuit, RulesScreen
from slapjack.tui.screens.start import StartScreen
from slapjack.tui.screens.table import TableScreen

from .util import ScriptedBot, advance, config, ctl, deck, human, idle, make_app, screen_text

BIG = (160, 40)


def anna_and_ben(cards, **options: object) -> GameConfig:
    return config([human(0, "Anna"), SeatSpec("Ben", "casual")], cards, **options)


# ------------------------------------------------------------------ start screen


async def test_enter_with_the_defaults_starts_you_against_three_casual_bots() -> None:
    app, _clock = make_app(GameConfig(seed=7), {"casual": ScriptedBot()}, skip_setup=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        assert isinstance(app.screen, StartScreen)
        await pilot.press("enter")
        await idle(pilot)
        assert isinstance(app.screen, TableScreen)
        seats = ctl(app).seats
        assert len(seats) == 4
        assert seats[0].is_human and seats[0].slap_key == "a"
        assert [s.bot for s in seats[1:]] == ["casual"] * 3
        assert ctl(app).config.rules.preset == "classic"
        assert ctl(app).seed == 7


async def test_start_screen_rejects_a_reserved_key_and_accepts_a_rebound_one() -> None:
    app, clock = make_app(anna_and_ben(deck("JC")), {"casual": ScriptedBot()}, skip_setup=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        screen = app.screen
        assert isinstance(screen, StartScreen)
        screen.query_one("#slap-0", Input).value = "s"
        screen.action_start()
        await idle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert "“s” is reserved" in screen_text(app)
        screen.query_one("#slap-0", Input).value = "K"
        screen.action_start()
        await idle(pilot)
        assert isinstance(app.screen, TableScreen)
        c = ctl(app)
        await pilot.press("space")
        await idle(pilot)
        await advance(pilot, clock, 190)
        await pilot.press("k")
        assert [e for e in c.state.log if isinstance(e, Slapped)] == [Slapped(0, 190.0)]


async def test_start_screen_game_preset_options_and_seats() -> None:
    app, _clock = make_app(GameConfig(seed=1), {"pro": ScriptedBot()}, skip_setup=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await idle(pilot)
        screen = app.screen
        assert isinstance(screen, StartScreen)
        screen.query_one("#game", Select).value = "irish-snap"
        await idle(pilot)
        assert screen.query_one("#preset", Select).value == "irish-snap"
        assert screen.query_one("#row-irish_goal").display
        assert not screen.query_one("#row-tie").display
        screen.query_one("#preset", Select).value = "irish-snap-winner"
        await idle(pilot)
        assert screen.query_one("#opt-irish_goal", Select).value == "first_out"
        screen.query_one("#seat-count", Select).value = 6
        await idle(pilot)
        assert screen.query_one("#seat-5").display and not screen.query_one("#seat-6").display
        for i in range(1, 6):
            screen.query_one(f"#kind-{i}", Select).value = "pro"
        cfg = screen.read_config()
        assert cfg.rules.preset == "irish-snap-winner" and cfg.rules.is_irish
        assert len(cfg.seats) == 6 and {s.bot for s in cfg.seats[1:]} == {"pro"}
        # an option changed from the preset is an override
        screen.query_one("#game", Select).value = "slapjack"
        await idle(pilot)
        screen.query_one("#opt-tie", Select).value = "split"
        screen.query_one("#opt-time_limit", Input).value = "90"
        rules = screen.read_rules()
        assert rules.to_options() == {"preset": "classic", "tie": "split", "time_limit": 90}
        screen.query_one("#opt-time_limit", Input).value = "-3"
        screen.action_start()
        await idle(pilot)
        assert "a whole number from 0 to" in screen_text(app)


async def test_start_screen_shows_the_rule_overrides_it_was_given() -> None:
    # `slapjack tui --rule tie=split --rule time_limit=60` (and N after a game):
    # the form shows the overrides on top of the preset and starts with them.
    rules = Rules.from_options({"preset": "classic", "tie": "split", "time_limit": 60})
    app, _clock = make_app(
        GameConfig(rules=rules, seed=1), {"casual": ScriptedBot()}, skip_setup=False
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await idle(pilot)
        screen = app.screen
        assert isinstance(screen, StartScreen)
        assert screen.query_one("#opt-tie", Select).value == "split"
        assert screen.query_one("#opt-time_limit", Input).value == "60"
        assert screen.read_rules().to_options() == rules.to_options()
        # choosing another preset still resets the options to that preset's
        screen.query_one("#preset", Select).value = "klatsch-bube"
        await idle(pilot)
        assert screen.read_rules().to_options() == {"preset": "klatsch-bube"}


@pytest.mark.parametrize(
    ("lang", "label", "error"),
    [
        ("en", "Time limit (s, 0 = off)", "a whole number from 0 to"),
        ("de", "Zeitlimit (s, 0 = aus)", "bitte eine ganze Zahl von 0 bis"),
    ],
)
async def test_the_time_limit_row_says_its_unit_like_the_turn_timer(
    lang: str, label: str, error: str
) -> None:
    # `slapjack tui --rule time_limit=60` showed "Time limit   60": sixty what?
    rules = Rules.from_options({"preset": "classic", "time_limit": 60})
    app, _clock = make_app(
        GameConfig(rules=rules, seed=1), {"casual": ScriptedBot()}, lang=lang, skip_setup=False
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        screen = app.screen
        assert isinstance(screen, StartScreen)
        row = screen.query_one("#row-time_limit")
        assert str(row.query_one(Label).render()) == label
        lines = screen_text(app).splitlines()
        assert any(label in line and " 60 " in line for line in lines)
        turn = tr(lang, "turn_timer")  # the row it reads like: "Turn timer (s, 0 = off)"
        assert label.endswith(turn[turn.index(" (") :])
        # a wrong number is named by the same label
        screen.query_one("#opt-time_limit", Input).value = "-3"
        screen.action_start()
        await idle(pilot)
        assert f"{label}: {error}" in screen_text(app)


async def test_start_screen_two_humans_with_the_same_key_is_an_error() -> None:
    app, _clock = make_app(GameConfig(seed=1), {"casual": ScriptedBot()}, skip_setup=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await idle(pilot)
        screen = app.screen
        assert isinstance(screen, StartScreen)
        screen.query_one("#kind-1", Select).value = "human"
        screen.query_one("#slap-1", Input).value = "a"
        screen.action_start()
        await idle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert "The key “a” is used twice" in screen_text(app)


# --------------------------------------------------------------- save and replay


async def test_save_writes_a_record_that_replays_to_the_same_game(tmp_path: Path) -> None:
    cfg = anna_and_ben(deck("JC", "5D", "8H"))
    app, clock = make_app(cfg, {"casual": ScriptedBot(jack_ms=263, flip_ms=150)}, save_dir=tmp_path)
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("space")
        await idle(pilot)
        await advance(pilot, clock, 212)
        await pilot.press("a")
        await advance(pilot, clock, 900)  # Anna wins; Ben flips 5♦
        await pilot.press("space")  # Anna flips 8♥
        await pilot.press("s")
        files = list(tmp_path.glob("slapjack-*.json"))
        assert len(files) == 1
        assert f"Game saved to {files[0].name}" in screen_text(app)
        data = json.loads(files[0].read_text(encoding="utf-8"))
        assert data["format"] == "slapjack-record/1"
        assert data["players"] == ["Anna", "Ben"]
        assert data["meta"] == {"app": "slapjack tui", "bots": {"Ben": "casual"}}
        record = Record.from_json(files[0].read_text(encoding="utf-8"))
        result = replay(record, check=True)
        assert result.game.snapshot()[:3] == c.game.snapshot()[:3]  # stacks and centre
        assert [e for e in result.events if isinstance(e, RaceWon)] == [
            RaceWon(0, 1, ((0, 212.0), (1, 263.0)))
        ]
        assert final_position(result)["turn"] == "Ben"
    # and the project's replay command accepts it
    out = CliRunner().invoke(cli, ["replay", "--json", str(files[0])])
    assert out.exit_code == 0, out.output
    position = json.loads(out.stdout)
    assert position == final_position(result)
    assert position["stacks"]["Anna"] == [card_name(x) for x in c.game.stacks[0]]


# ---------------------------------------------------------------------- German


async def test_german_texts_everywhere() -> None:
    app, clock = make_app(anna_and_ben(deck("JC")), {"casual": ScriptedBot(jack_ms=300)}, lang="de")
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        text = screen_text(app)
        assert "Spieler" in text and "Verlauf" in text
        assert "Anna: Z oder Leertaste zum Aufdecken" in text
        c = ctl(app)
        await pilot.press("space")
        await idle(pilot)
        await advance(pilot, clock, 250)
        await pilot.press("a")
        await advance(pilot, clock, 700)
        text = screen_text(app)
        assert "Anna deckt B♣ auf" in text
        assert "Anna gewinnt den Buben und nimmt 1 Karte" in text
        assert "Anna 250 ms · Ben 300 ms" in text
        assert c.state.stats[0].jacks == 1
        await pilot.press("question_mark")
        await idle(pilot)
        assert isinstance(app.screen, RulesScreen)
        source = app.screen.query_one(Markdown).source
        assert "Klassisch" in source and "Bube" in source
        await pilot.press("escape")
        await pilot.press("escape")
        await idle(pilot)
        assert isinstance(app.screen, ConfirmQuit)
        assert "Dieses Spiel beenden?" in screen_text(app)
        await pilot.press("j")
        await idle(pilot)
        assert app.return_code == 0


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_start_screen_hint_fits_80_columns(lang: str) -> None:
    app, _clock = make_app(
        GameConfig(seed=1), {"casual": ScriptedBot()}, lang=lang, skip_setup=False
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        assert isinstance(app.screen, StartScreen)
        hint = tr(lang, "start_hint")
        assert hint.endswith(("Esc quits", "Esc beendet"))
        assert hint in screen_text(app)  # whole, not cut at the right edge


async def test_rules_screen_shows_the_chosen_preset_and_pauses_the_game() -> None:
    cfg = anna_and_ben(deck("5C"), preset="klatsch-bube")
    app, clock = make_app(cfg, {"casual": ScriptedBot()})
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("question_mark")
        await idle(pilot)
        assert isinstance(app.screen, RulesScreen)
        source = app.screen.query_one(Markdown).source
        assert "Klatsch-Bube" in source and "empty_stack = until_turn" in source
        assert c.paused
        await advance(pilot, clock, 60_000)  # a minute reading: no idle flip meanwhile
        assert c.game.flips == 0
        await pilot.press("question_mark")
        await idle(pilot)
        assert isinstance(app.screen, TableScreen) and not c.paused
        await advance(pilot, clock, 4999)
        assert c.game.flips == 0
        await advance(pilot, clock, 2)
        assert c.game.flips == 1


# -------------------------------------------------------------------- quitting


async def test_quitting_mid_game_asks_first() -> None:
    app, clock = make_app(anna_and_ben(deck("5C")), {"casual": ScriptedBot()})
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("escape")
        await idle(pilot)
        assert isinstance(app.screen, ConfirmQuit)
        assert "Quit this game?" in screen_text(app)
        assert c.paused
        await advance(pilot, clock, 10_000)
        assert c.game.flips == 0  # the turn timer stood still
        await pilot.press("n")
        await idle(pilot)
        assert isinstance(app.screen, TableScreen) and not c.paused
        assert app.return_code is None
        await pilot.press("ctrl+q")
        await idle(pilot)
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("y")
        await idle(pilot)
        assert app.return_code == 0


async def test_no_color_is_respected(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("NO_COLOR", "1")
    app, _clock = make_app(anna_and_ben(deck("JH")), {"casual": ScriptedBot()})
    assert app.no_color
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        assert "▶ Anna" in screen_text(app)  # whose turn: a mark, not a colour
        await pilot.press("space")
        await idle(pilot)
        text = screen_text(app)
        # the card and its suit are in the text, not only in colour
        assert "Jack of hearts" in text and "♥" in text


# ------------------------------------------------------- focus, keys, the size


async def test_every_tab_stop_is_a_field_and_shows_its_focus() -> None:
    from textual.widgets import Button

    app, _clock = make_app(GameConfig(seed=7), {"casual": ScriptedBot()}, skip_setup=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await idle(pilot)
        seen = []
        for _ in range(20):
            focused = app.focused
            assert isinstance(focused, Button | Select | Input), focused  # never a container
            seen.append(focused.id)
            await pilot.press("tab")
        assert seen[:4] == ["start", "rules", "game", "preset"]
        app.screen.query_one("#preset", Select).focus()
        await idle(pilot)
        # the focused drop-down is drawn in the accent colour, not a shade of grey
        current = app.screen.query_one("#preset").query_one("SelectCurrent")
        background = current.styles.background
        assert background.a > 0 and abs(background.r - background.b) > 60


async def test_enter_on_a_drop_down_starts_and_space_opens_it() -> None:
    app, _clock = make_app(GameConfig(seed=7), {"casual": ScriptedBot()}, skip_setup=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await idle(pilot)
        select = app.screen.query_one("#preset", Select)
        select.focus()
        await pilot.press("space")
        await idle(pilot)
        assert select.expanded
        await pilot.press("escape")
        await idle(pilot)
        assert isinstance(app.screen, StartScreen) and not select.expanded
        select.focus()
        await pilot.press("enter")
        await idle(pilot)
        assert isinstance(app.screen, TableScreen)


async def test_a_key_field_takes_the_new_key_without_emptying_it_first() -> None:
    app, _clock = make_app(GameConfig(seed=7), {"casual": ScriptedBot()}, skip_setup=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await idle(pilot)
        field = app.screen.query_one("#slap-0", Input)
        assert field.value == "A"  # keys are shown as the key bar shows them
        field.focus()
        await pilot.press("x")
        assert field.value == "X"
        await pilot.press("k")
        assert field.value == "K"
        await pilot.press("backspace")
        assert field.value == ""
        await pilot.press("j")
        await pilot.press("enter")
        await idle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert ctl(app).seats[0].slap_key == "j"


async def test_shift_s_saves_too_and_a_note_names_the_file(tmp_path: Path) -> None:
    app, _clock = make_app(anna_and_ben(deck("5C")), {"casual": ScriptedBot()}, save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        await pilot.press("S")  # the key bar shows "S"
        await idle(pilot)
        files = list(tmp_path.glob("slapjack-*.json"))
        assert len(files) == 1
        notes = [n.message for n in app._notifications]
        assert any(str(files[0]) in n for n in notes), notes  # the whole path, one line


async def test_a_terminal_below_80x24_gets_a_notice_and_the_game_waits() -> None:
    app, _clock = make_app(anna_and_ben(deck("5C")), {"casual": ScriptedBot()})
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        c = ctl(app)
        assert not c.paused
        await pilot.resize_terminal(70, 20)
        await idle(pilot)
        assert "Slapjack needs at least 80×24" in screen_text(app)
        assert c.paused
        await pilot.press("space")  # keys do not reach the table meanwhile
        assert c.state.view.flips == 0
        await pilot.resize_terminal(80, 24)
        await idle(pilot)
        assert isinstance(app.screen, TableScreen) and not c.paused
        assert "needs at least" not in screen_text(app)
