"""Playing at the table with Pilot: flips, races, wrong slaps, reaction times."""

from __future__ import annotations

import pytest

from slapjack.core.events import Flipped, RaceWon, Slapped, WrongSlap
from slapjack.tui import SeatSpec
from slapjack.tui.i18n import tr
from slapjack.tui.screens.table import TableScreen
from slapjack.tui.state import Note

from .util import (
    ScriptedBot,
    advance,
    assert_pile_empty_said_once,
    config,
    ctl,
    deck,
    human,
    idle,
    make_app,
    screen_text,
)


def two_seats(cards: tuple[int, ...], bot: ScriptedBot, lang: str = "en", **options: object):
    cfg = config([human(0, "Anna"), _bot("Ben")], cards, **options)
    return make_app(cfg, {"casual": bot}, lang=lang)


def _bot(name: str, level: str = "casual"):
    from slapjack.tui import SeatSpec

    return SeatSpec(name, level)


async def test_space_flips_and_the_card_is_drawn() -> None:
    app, clock = two_seats(deck("5C", "7D"), ScriptedBot(flip_ms=400))
    async with app.run_test(size=(160, 40)) as pilot:
        await idle(pilot)
        assert isinstance(app.screen, TableScreen)
        c = ctl(app)
        assert c.game.turn == 0
        await pilot.press("space")
        await idle(pilot)
        assert c.state.view.top is not None and c.state.view.centre_size == 1
        assert c.state.shown  # the reaction clock started after the refresh
        text = screen_text(app)
        assert "Anna flips 5♣" in text
        assert "Five of clubs" in text
        # Ben is a bot: he flips after his delay
        assert c.game.turn == 1
        await advance(pilot, clock, 399)
        assert c.game.flips == 1
        await advance(pilot, clock, 2)
        assert c.game.flips == 2
        assert "Ben flips 7♦" in screen_text(app)
        assert c.game.turn == 0


async def test_slap_a_jack_and_win_with_measured_reaction() -> None:
    bot = ScriptedBot(jack_ms=263, flip_ms=1000)
    app, clock = two_seats(deck("JC", "5D", "8H"), bot)
    async with app.run_test(size=(160, 40)) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("space")
        await idle(pilot)
        assert c.game.race_open
        await advance(pilot, clock, 212)
        await pilot.press("a")
        await advance(pilot, clock, 800)  # past the window and the bot's slap
        assert not c.game.race_open
        slaps = [e for e in c.state.log if isinstance(e, Slapped)]
        assert [(s.seat, s.reaction_ms) for s in slaps] == [(0, 212.0), (1, 263.0)]
        won = [e for e in c.state.log if isinstance(e, RaceWon)]
        assert won == [RaceWon(0, 1, ((0, 212.0), (1, 263.0)))]
        assert c.state.view.stack_sizes == (26, 26)
        text = screen_text(app)
        assert "Anna wins the Jack and takes 1 card" in text
        assert "Anna 212 ms · Ben 263 ms" in text
        assert c.state.stats[0].jacks == 1 and c.state.stats[0].fastest == 212.0
        # the winner's left (Ben) flips next
        assert c.game.turn == 1


async def test_a_bot_wins_the_race_when_faster() -> None:
    app, clock = two_seats(deck("JC"), ScriptedBot(jack_ms=180))
    async with app.run_test(size=(160, 40)) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("space")
        await idle(pilot)
        await advance(pilot, clock, 300)
        await pilot.press("a")
        await advance(pilot, clock, 400)
        won = [e for e in c.state.log if isinstance(e, RaceWon)]
        assert [w.winner for w in won] == [1]
        assert won[0].reactions == ((1, 180.0), (0, 300.0))


async def test_a_key_before_the_card_is_on_screen_does_not_count() -> None:
    app, clock = two_seats(deck("JC"), ScriptedBot())
    async with app.run_test(size=(160, 40)) as pilot:
        await idle(pilot)
        c = ctl(app)
        # flip and slap in the same moment: the slap is handled before the
        # refresh that draws the Jack, so it cannot be a reaction to it
        pilot.app.call_later(c.flip, None)
        pilot.app.call_later(c.slap, 0)
        await idle(pilot)
        assert c.game.race_open and c.state.shown
        assert not [e for e in c.state.log if isinstance(e, Slapped)]
        await advance(pilot, clock, 250)
        await pilot.press("A")  # Shift does not matter
        slaps = [e for e in c.state.log if isinstance(e, Slapped)]
        assert [(s.seat, s.reaction_ms) for s in slaps] == [(0, 250.0)]


async def test_wrong_slap_pays_a_card_to_the_cards_player() -> None:
    cfg = config([human(0, "Anna"), _bot("Ben"), _bot("Carla")], deck("5C", "7D", "9H"))
    app, clock = make_app(cfg, {"casual": ScriptedBot(flip_ms=100)})
    async with app.run_test(size=(160, 40)) as pilot:
        await idle(pilot)
        c = ctl(app)
        assert c.state.view.stack_sizes == (18, 17, 17)
        await pilot.press("space")
        await advance(pilot, clock, 100)  # Ben flips 7♦
        assert c.game.flips == 2
        await advance(pilot, clock, 30)
        await pilot.press("a")
        wrong = [e for e in c.state.log if isinstance(e, WrongSlap)]
        assert wrong == [WrongSlap(0, "pay_player", 1)]
        assert c.state.view.stack_sizes == (16, 17, 17)
        assert "Anna slapped wrongly and pays a card to Ben" in screen_text(app)
        assert c.state.stats[0].wrong == 1
        # a second slap on the same card is ignored
        await pilot.press("a")
        assert len([e for e in c.state.log if isinstance(e, WrongSlap)]) == 1


async def test_wrong_slap_pays_under_the_pile_in_klatsch_bube() -> None:
    cfg = config([human(0, "Anna"), _bot("Ben")], deck("5C", "7D"), preset="klatsch-bube")
    app, clock = make_app(cfg, {"casual": ScriptedBot(flip_ms=100)})
    async with app.run_test(size=(160, 40)) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("space")
        await advance(pilot, clock, 100)
        await pilot.press("a")
        assert [e for e in c.state.log if isinstance(e, WrongSlap)] == [WrongSlap(0, "pay_pile")]
        view = c.state.view
        assert view.centre_size == 3 and view.centre_face_down == 1
        text = screen_text(app)
        assert "Pile: 3 (1 face down)" in text
        assert "pays a card under the pile" in text


async def test_idle_human_is_flipped_for_after_the_turn_timer() -> None:
    app, clock = two_seats(deck("5C", "7D"), ScriptedBot(flip_ms=100))
    async with app.run_test(size=(160, 40)) as pilot:
        await idle(pilot)
        c = ctl(app)
        assert "5.0s" in screen_text(app)
        await advance(pilot, clock, 4000)
        app.screen.now_ms = c.now_ms()
        await idle(pilot)
        assert "1.0s" in screen_text(app)
        assert c.game.flips == 0
        await advance(pilot, clock, 1001)
        assert Note("idle_flip", (("seat", 0),)) in c.state.log
        assert next(e for e in c.state.log if isinstance(e, Flipped)).seat == 0
        assert "Turn time over: flipped for Anna" in screen_text(app)  # not the game's time limit


async def test_hot_seat_two_humans_race_with_their_own_keys() -> None:
    cfg = config([human(0, "Anna"), human(1, "Ben")], deck("5C", "JD"))
    app, clock = make_app(cfg)
    async with app.run_test(size=(160, 40)) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("m")  # Ben's flip key: not his turn
        assert c.game.flips == 0
        await pilot.press("z")  # Anna's flip key
        assert c.game.flips == 1
        await pilot.press("space")  # Space flips for Ben, who is on turn
        await idle(pilot)
        assert c.game.race_open
        await advance(pilot, clock, 240)
        await pilot.press("l")
        await advance(pilot, clock, 10)
        await pilot.press("a")
        await advance(pilot, clock, 600)
        won = [e for e in c.state.log if isinstance(e, RaceWon)]
        assert won == [RaceWon(1, 2, ((1, 240.0), (0, 250.0)))]
        assert "Ben 240 ms · Anna 250 ms" in screen_text(app)


async def test_real_timers_play_a_game_to_the_end_screen() -> None:
    """The real clock and Textual timers, made fast: idle flips for Anna, bots
    flipping and slapping, windows closing, until the end screen."""
    import asyncio
    import time

    from slapjack.tui import SlapjackApp, Timing
    from slapjack.tui.screens.end import EndScreen

    timing = Timing(
        slap_window_ms=15,
        jack_timeout_ms=60,
        irish_timeout_ms=60,
        call_window_ms=10,
        turn_ms=10,
        pause_ms=0,
    )
    seats = [human(0, "Anna"), _bot("Ben"), _bot("Carla", "pro")]
    bots = {"casual": ScriptedBot(jack_ms=5, flip_ms=1), "pro": ScriptedBot(jack_ms=8, flip_ms=1)}
    cfg = config(seats, deck("5C"), timing=timing)
    app = SlapjackApp(
        cfg, lang="en", bot_factory=lambda level, seed: bots[level], skip_setup=True, tick_s=0.05
    )
    async with app.run_test(size=(100, 30)) as pilot:
        deadline = time.monotonic() + 60
        while not isinstance(app.screen, EndScreen):
            assert time.monotonic() < deadline, "no end in 60 s"
            await asyncio.sleep(0.05)
        c = ctl(app)
        assert c.game.over and c.game.winners == (1,)  # Ben is fastest on every Jack
        c.game.check_invariant()
        assert Note("idle_flip", (("seat", 0),)) in c.state.log
        await pilot.pause()


async def test_the_last_result_panel_grows_to_show_every_line() -> None:
    """Four slaps at 80×24: the reaction times take two lines and both show."""
    seats = [
        human(0, "Anna"),
        SeatSpec("Ben", "casual"),
        SeatSpec("Carla", "pro"),
        SeatSpec("Dan", "beginner"),
    ]
    bots = {
        "casual": ScriptedBot(jack_ms=336, flip_ms=100),
        "pro": ScriptedBot(jack_ms=375, flip_ms=100),
        "beginner": ScriptedBot(jack_ms=386, flip_ms=100),
    }
    app, clock = make_app(config(seats, deck("5C", "KD", "JS")), bots)
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        await pilot.press("space")
        await advance(pilot, clock, 100)
        await advance(pilot, clock, 100)
        await advance(pilot, clock, 300)
        await pilot.press("a")  # Anna first, at 300 ms
        await advance(pilot, clock, 1200)
        text = screen_text(app)
        for who in ("Anna 300 ms", "Ben 336 ms", "Carla 375 ms", "Dan 386 ms"):
            assert who in text, text


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_an_empty_pile_says_so_once(lang: str) -> None:
    """At the start "The pile is empty" stood twice, under the empty place
    and again on the panel's lower border: it is said under the place only."""
    app, _clock = two_seats(deck("5C", "7D"), ScriptedBot(flip_ms=400), lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        assert ctl(app).state.view.centre_size == 0
        assert_pile_empty_said_once(app, lang)


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_log_wraps_a_long_preset_title_instead_of_cutting_it(lang: str) -> None:
    """At 80×24 the log's first line read "Irish Snap: Wer zuerst fertig ist,…
    4 Spieler": the preset's name was one unbreakable value, wider than the log.
    And the English one broke between the count and its noun ("…first out
    wins, 4" / "players")."""
    seats = [human(0, "Anna"), _bot("Ben"), _bot("Carla"), _bot("Dan")]
    cfg = config(seats, deck("5C", "KD", "JS"), preset="irish-snap-winner")
    app, _clock = make_app(cfg, {"casual": ScriptedBot()}, lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        box = app.screen.query_one("#log").content_region
        rows = screen_text(app).splitlines()[box.y : box.bottom]
        text = " ".join(" ".join(row[box.x : box.right].split()) for row in rows).strip()
        title = tr(lang, "game_start", title=tr(lang, "preset.irish-snap-winner"), count=4)
        assert text == title.replace("\u00a0", " ") and "…" not in text
        lines = [row[box.x : box.right].strip() for row in rows]
        assert not any(line.endswith(" 4") for line in lines), lines
