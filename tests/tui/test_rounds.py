"""Longer stretches of play: running out of cards under both empty_stack
options, an Irish Snap pick-up, say-it calls, reslap rounds, the end screen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from slapjack.core import FULL_DECK, Card, is_jack, parse_card
from slapjack.core.events import (
    Eliminated,
    Forfeit,
    PickedUp,
    RaceTied,
    RaceWon,
    Slapped,
    WrongSlap,
)
from slapjack.tui import ManualClock, SeatSpec, SlapjackApp
from slapjack.tui.i18n import tr
from slapjack.tui.screens.end import KEY_GRACE_S, EndScreen
from slapjack.tui.screens.start import StartScreen
from slapjack.tui.screens.table import TableScreen
from slapjack.tui.widgets import EndBody

from .test_snapshot import game_over, worked_example_app
from .util import (
    ScriptedBot,
    advance,
    blank_rows_between,
    config,
    ctl,
    deck,
    human,
    idle,
    make_app,
    screen_text,
)

BIG = (160, 40)


def ten_seat_deck(jacks_at: dict[int, str]) -> tuple[Card, ...]:
    """52 cards with the named Jacks at the given deal positions, the other
    48 cards elsewhere. With ten seats, seat 0 holds positions 0, 10, … 50."""
    others = iter(c for c in FULL_DECK if not is_jack(c))
    return tuple(
        parse_card(jacks_at[pos]) if pos in jacks_at else next(others) for pos in range(52)
    )


def ten_seats(cards: tuple[Card, ...], bot1: ScriptedBot, **options: object):
    """Anna and nine bots: Bot1 plays ``bot1``; the others flip and never slap."""
    seats = [human(0, "Anna"), SeatSpec("Bot1", "pro")]
    seats += [SeatSpec(f"Bot{i}", "casual") for i in range(2, 10)]
    bots = {"pro": bot1, "casual": ScriptedBot(flip_ms=100)}
    return make_app(config(seats, cards, **options), bots)


async def play_until(
    pilot: Pilot[None], clock: ManualClock, app: SlapjackApp, done: Callable[[], bool]
) -> None:
    """Fast-forward: Anna flips whenever it is her turn (what Space does), each
    card counts as shown at once, and time runs to the next timer (bots flip,
    Jack windows close), until ``done()``; then the screen catches up."""
    c = ctl(app)

    def run() -> None:
        for _ in range(2000):
            if done():
                return
            if not c.state.shown and not c.game.over:
                c.shown(c.cue)
                continue
            game = c.game
            if game.turn == 0 and not game.needs_settle:
                assert c.flip(None)
                continue
            due = clock.next_due()
            assert due is not None, "the game hangs: no timer is pending"
            clock.advance(due - clock.now())
        raise AssertionError("did not get there")

    pilot.app.call_later(run)
    await idle(pilot)
    assert done()


async def anna_slaps_the_jack(
    pilot: Pilot[None], clock: ManualClock, app: SlapjackApp, done: Callable[[], bool]
) -> None:
    """:func:`play_until` ``done()`` (a Jack's race open), then Anna slaps it
    230 ms after it shows (A) and the race runs to its end."""
    await play_until(pilot, clock, app, done)
    await advance(pilot, clock, 230)
    await pilot.press("a")
    await advance(pilot, clock, 600)


def anna_is_empty(app: SlapjackApp) -> Callable[[], bool]:
    c = ctl(app)
    return lambda: c.game.flips >= 51 and not c.game.stacks[0]


async def test_next_jack_run_out_and_come_back_by_winning_the_jack() -> None:
    cards = ten_seat_deck({47: "JC", 48: "JD", 49: "JH", 51: "JS"})
    app, clock = ten_seats(cards, ScriptedBot(cards={"JS": 400}, flip_ms=100))
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await play_until(pilot, clock, app, anna_is_empty(app))
        # out of cards but still in: her turns are skipped
        assert not c.game.is_out[0]
        assert c.game.turn == 1
        assert "empty" in screen_text(app)
        await anna_slaps_the_jack(pilot, clock, app, lambda: c.game.race_open and c.state.shown)
        won = [e for e in c.state.log if isinstance(e, RaceWon)]
        assert [(w.winner, w.cards) for w in won] == [(0, 52)]
        out = [e for e in c.state.log if isinstance(e, Eliminated)]
        assert {e.reason for e in out} == {"lost_jack"} and len(out) == 9
        await idle(pilot)
        assert isinstance(app.screen, EndScreen)
        text = screen_text(app)
        assert "Anna won!" in text
        assert "230 ms" in text


async def test_next_jack_run_out_and_go_out_when_another_wins_the_jack() -> None:
    cards = ten_seat_deck({47: "JC", 48: "JD", 49: "JH", 51: "JS"})
    app, clock = ten_seats(cards, ScriptedBot(cards={"JS": 150}, flip_ms=100))
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await anna_slaps_the_jack(
            pilot, clock, app, lambda: c.game.race_open and c.game.flips == 52
        )
        won = [e for e in c.state.log if isinstance(e, RaceWon)]
        assert [w.winner for w in won] == [1]
        assert Eliminated(0, "lost_jack") in c.state.log
        assert c.game.over and c.game.winners == (1,)
        await idle(pilot)
        assert isinstance(app.screen, EndScreen)


async def test_until_turn_come_back_by_winning_a_jack_first() -> None:
    cards = ten_seat_deck({47: "JC", 48: "JD", 49: "JH", 51: "JS"})
    app, clock = ten_seats(
        cards, ScriptedBot(cards={"JS": 400}, flip_ms=100), empty_stack="until_turn"
    )
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await play_until(pilot, clock, app, lambda: c.game.race_open and c.game.flips == 52)
        assert not c.game.is_out[0] and not c.game.stacks[0]
        await advance(pilot, clock, 200)
        await pilot.press("a")
        await advance(pilot, clock, 600)
        assert [e.winner for e in c.state.log if isinstance(e, RaceWon)] == [0]
        assert not c.game.is_out[0]
        assert c.game.over and c.game.winners == (0,)
        assert {e.reason for e in c.state.log if isinstance(e, Eliminated)} == {"turn"}


async def test_until_turn_out_when_the_turn_comes_with_no_cards() -> None:
    cards = ten_seat_deck({46: "JC", 47: "JD", 48: "JH", 49: "JS"})
    app, clock = ten_seats(cards, ScriptedBot(flip_ms=100), empty_stack="until_turn")
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await play_until(pilot, clock, app, lambda: c.game.over)
        assert Eliminated(0, "turn") in c.state.log
        assert c.game.winners == (1,)
        await idle(pilot)
        assert isinstance(app.screen, EndScreen)
        assert "Bot1 won!" in screen_text(app)


async def test_irish_snap_last_slapper_picks_up_the_pile() -> None:
    cfg = config([human(0, "Anna"), SeatSpec("Ben", "casual")], deck("5C", "9D", "3H"),
                 preset="irish-snap")  # fmt: skip
    app, clock = make_app(cfg, {"casual": ScriptedBot(jack_ms=250, flip_ms=100)})
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        assert "Next call: A" in screen_text(app)
        await pilot.press("space")  # 5♣ on Ace
        await advance(pilot, clock, 100)  # Ben: 9♦ on 2
        await pilot.press("space")  # 3♥ on 3: a match
        await idle(pilot)
        assert c.game.race_open
        assert "Call: 3" in screen_text(app)
        await advance(pilot, clock, 400)  # Ben slapped at 250
        await pilot.press("a")  # Anna at 400: everyone has slapped, settled at once
        assert not c.game.race_open
        picked = [e for e in c.state.log if isinstance(e, PickedUp)]
        assert picked == [PickedUp(0, 3, "last", ((1, 250.0), (0, 400.0)))]
        assert c.state.view.stack_sizes == (27, 25)
        text = screen_text(app)
        assert "Anna was last and picks up 3 cards" in text
        assert "Ben 250 ms · Anna 400 ms" in text
        assert c.state.stats[0].pickups == 1


async def test_irish_snap_wrong_slap_picks_up() -> None:
    cfg = config([human(0, "Anna"), SeatSpec("Ben", "casual")], deck("5C", "9D"),
                 preset="irish-snap")  # fmt: skip
    app, clock = make_app(cfg, {"casual": ScriptedBot(flip_ms=100)})
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("space")
        await advance(pilot, clock, 100)
        await pilot.press("a")
        assert WrongSlap(0, "pickup") in c.state.log
        assert PickedUp(0, 2, "wrong") in c.state.log
        assert c.state.view.stack_sizes == (27, 25)
        assert c.state.banner[-1] == PickedUp(0, 2, "wrong") and c.state.reactions == ()


async def test_say_it_slap_with_the_call_wins_and_without_forfeits() -> None:
    cfg = config([human(0, "Anna"), SeatSpec("Ben", "casual")], deck("JC", "5D", "JH"),
                 preset="say-it")  # fmt: skip
    app, clock = make_app(cfg, {"casual": ScriptedBot(flip_ms=100)})
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        assert "[A+Q]" in screen_text(app)
        await pilot.press("space")
        await idle(pilot)
        await advance(pilot, clock, 200)
        await pilot.press("a")  # the slap waits for the call
        assert not [e for e in c.state.log if isinstance(e, Slapped)]
        await advance(pilot, clock, 120)
        await pilot.press("q")
        assert [e for e in c.state.log if isinstance(e, Slapped)] == [Slapped(0, 200.0, True)]
        await advance(pilot, clock, 600)
        assert [e.winner for e in c.state.log if isinstance(e, RaceWon)] == [0]
        # Ben flips 5♦, Anna flips J♥ and slaps without calling
        await advance(pilot, clock, 100)
        await pilot.press("space")
        await idle(pilot)
        assert c.game.race_open
        await advance(pilot, clock, 180)
        await pilot.press("a")  # no call: in after the call wait, then the window
        await advance(pilot, clock, 1200)
        forfeits = [e for e in c.state.log if isinstance(e, Forfeit)]
        assert len(forfeits) == 1 and forfeits[0].seat == 0
        assert "Anna forfeits the pile" in screen_text(app)


async def test_exact_tie_opens_a_reslap_round_with_a_new_cue() -> None:
    bots = {
        "casual": ScriptedBot(jack_ms=200, reslap_ms=[260], flip_ms=100),
        "pro": ScriptedBot(jack_ms=200, reslap_ms=[240], flip_ms=100),
    }
    seats = [human(0, "Anna"), SeatSpec("Ben", "casual"), SeatSpec("Carla", "pro")]
    app, clock = make_app(config(seats, deck("JC")), bots)
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        await pilot.press("space")
        await idle(pilot)
        first_cue = c.cue
        await advance(pilot, clock, 900)  # both at 200; the window closes at 800
        assert [e for e in c.state.log if isinstance(e, RaceTied)] == [RaceTied((1, 2), 200.0)]
        assert c.game.race_open and c.cue == first_cue + 1
        assert "Tie! Ben and Carla: slap again!" in screen_text(app)
        # Anna is not in the reslap round: her key does nothing
        await pilot.press("a")
        await advance(pilot, clock, 700)
        won = [e for e in c.state.log if isinstance(e, RaceWon)]
        assert [w.winner for w in won] == [2]


async def test_end_screen_ranking_save_and_play_again(tmp_path: Path) -> None:
    seats = [human(0, "Anna"), SeatSpec("Ben", "casual")]
    cfg = config(seats, deck("5C", "JD"), time_limit=3)
    bots = {"casual": ScriptedBot(jack_ms=200, flip_ms=100)}
    app, clock = make_app(cfg, bots, save_dir=tmp_path)
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        c = ctl(app)
        assert "Time 0:03" in screen_text(app)
        await pilot.press("space")
        await advance(pilot, clock, 100)  # Ben flips the Jack
        await advance(pilot, clock, 300)
        await pilot.press("a")  # too slow: Ben slapped at 200
        await advance(pilot, clock, 3000)
        assert c.game.over and c.game.winners == (1,)
        await idle(pilot)
        assert isinstance(app.screen, EndScreen)
        text = screen_text(app)
        assert "Ben won!" in text
        lines = [line for line in text.splitlines() if "Ben" in line and "200 ms" in line]
        assert lines and lines[0].strip(" │").split()[:3] == [
            "1.",
            "Ben",
            "27",
        ]  # 25 + the pile of two
        anna = [line for line in text.splitlines() if "Anna" in line and "300 ms" in line]
        assert anna and anna[0].strip(" │").split()[:3] == ["2.", "Anna", "25"]
        await advance(pilot, clock, 1000 * KEY_GRACE_S)  # keys count from then on
        await pilot.press("s")
        assert len(list(tmp_path.glob("slapjack-*.json"))) == 1
        assert "Game saved to slapjack-" in screen_text(app)
        await pilot.press("enter")  # play again: same deck, same seats
        await idle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert app.games_started == 2 and ctl(app) is not c
        assert ctl(app).state.view.stack_sizes == (26, 26)
        assert ctl(app).game.deck == c.game.deck


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_end_screen_has_one_blank_line_between_its_parts(lang: str) -> None:
    """Two blank rows stood between the headline and the ranking and between
    the ranking and the last result (the headline's margin or the ranking's,
    and the table's empty edge): one each now, as in the online results."""
    app, clock = worked_example_app(lang, time_limit=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await game_over(clock)(pilot)
        assert isinstance(app.screen, EndScreen)
        text = screen_text(app)
        winner = tr(lang, "end.winner", names="Ben")
        assert blank_rows_between(text, winner, tr(lang, "end.place")) == 1
        assert blank_rows_between(text, "4.", tr(lang, "ev.time_up")) == 1


async def test_end_screen_new_setup_goes_back_to_the_start_screen() -> None:
    seats = [human(0, "Anna"), SeatSpec("Ben", "casual")]
    app, clock = make_app(config(seats, deck("5C"), time_limit=1), {"casual": ScriptedBot()})
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        await advance(pilot, clock, 1000)
        assert isinstance(app.screen, EndScreen)
        await advance(pilot, clock, 1000 * KEY_GRACE_S)
        await pilot.press("n")
        await idle(pilot)
        assert isinstance(app.screen, StartScreen)


async def test_end_screen_takes_no_key_for_a_moment_after_the_last_race(tmp_path: Path) -> None:
    """Hands are still on the keys when the game ends: a late slap or call (Q is
    seat 1's call key, Enter and N flip keys) must not quit or leave the
    results unread. After :data:`KEY_GRACE_S` the keys work (and Enter plays again)."""
    seats = [human(0, "Anna"), SeatSpec("Ben", "casual")]
    bots = {"casual": ScriptedBot()}
    app, clock = make_app(config(seats, deck("5C"), time_limit=1), bots, save_dir=tmp_path)
    async with app.run_test(size=BIG) as pilot:
        await idle(pilot)
        await advance(pilot, clock, 1000)
        assert isinstance(app.screen, EndScreen)
        end = app.screen
        await pilot.press("q", "escape", "n", "enter", "s")
        await idle(pilot)
        assert app.screen is end and app.is_running and app.games_started == 1
        assert "Game saved" not in screen_text(app) and not list(tmp_path.iterdir())
        await advance(pilot, clock, 1000 * KEY_GRACE_S)
        await pilot.press("enter")  # the "play again" button has the focus now
        await idle(pilot)
        assert isinstance(app.screen, TableScreen) and app.games_started == 2


OTHERS = ["Ben", "Carla", "Dan", *(f"Bot{i}" for i in range(4, 10))]


def everyone_out_app(seats: int, save_dir: Path) -> tuple[SlapjackApp, ManualClock]:
    """Anna and ``seats - 1`` bots that flip and never slap; the last card is a Jack."""
    table = [human(0, "Anna"), *(SeatSpec(name, "casual") for name in OTHERS[: seats - 1])]
    cards = ten_seat_deck({47: "JC", 48: "JD", 49: "JH", 51: "JS"})
    bots = {"casual": ScriptedBot(flip_ms=100)}
    return make_app(config(table, cards), bots, save_dir=save_dir)


async def last_jack_to_anna(pilot: Pilot[None], clock: ManualClock, app: SlapjackApp) -> None:
    """Anna wins the last Jack, everyone else goes out with no cards: the end
    screen, once it takes keys."""
    await idle(pilot)
    c = ctl(app)
    await anna_slaps_the_jack(pilot, clock, app, lambda: c.game.race_open and c.game.flips == 52)
    assert c.game.winners == (0,) and sum(c.game.is_out) == len(c.game.is_out) - 1
    await advance(pilot, clock, 1000 * KEY_GRACE_S)
    assert isinstance(app.screen, EndScreen)


@pytest.mark.parametrize("seats", [4, 10])
async def test_at_80x24_the_end_screen_keeps_its_buttons_and_keys_in_sight(
    seats: int, tmp_path: Path
) -> None:
    """Anna wins the last Jack and everyone else, out of cards, goes out: one
    line of last result per player. At 80×24 that pushed the key hint out of
    the box (four seats, the default game) and the buttons too (ten seats).
    The ranking and the last result scroll instead; the buttons and the hint
    stay, also once the record is saved."""
    others = OTHERS[: seats - 1]
    app, clock = everyone_out_app(seats, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await last_jack_to_anna(pilot, clock, app)
        hint = tr("en", "end.hint")
        text = screen_text(app)
        assert "Anna won!" in text and "1.   Anna" in text
        assert "Play again" in text and "Quit" in text and hint in text
        seen = text
        if seats == 10:  # the last result is below the ranking: Shift+Tab, End
            assert "Bot9 is out" not in text
            await pilot.press("shift+tab", "end")
            await idle(pilot)
            seen = screen_text(app)
            assert "Play again" in seen and hint in seen
        for name in others:
            assert f"{name} is out: no cards" in seen
        await pilot.press("s")
        await idle(pilot)
        app.clear_notifications()  # the note in the corner covers the buttons for a while
        await idle(pilot)
        text = screen_text(app)
        assert "Game saved to slapjack-" in text
        assert "Play again" in text and hint in text


async def test_enter_plays_again_when_the_scrolling_ranking_has_the_focus(tmp_path: Path) -> None:
    """With ten seats at 80×24 the ranking scrolls, and Shift+Tab puts the focus
    on it; Enter did nothing there. It plays again, as the hint says ("Enter:
    play again"); only on one of the other buttons does Enter press that one."""
    app, clock = everyone_out_app(10, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await last_jack_to_anna(pilot, clock, app)
        await pilot.press("shift+tab")
        await idle(pilot)
        assert isinstance(app.focused, EndBody)
        await pilot.press("enter")
        await idle(pilot)
        assert isinstance(app.screen, TableScreen) and app.games_started == 2
