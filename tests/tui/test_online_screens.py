"""The online table's screens, fed the frames a server sends (built from the
engine's own views and events, as the server builds them), without a
network: the waiting room with the seat's token, a race whose slaps arrive
out of order, the results with a rematch asked for by another player. Pinned
as SVG snapshots at 80×24, 100×30, 150×45 and in German."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from slapjack import tui
from slapjack.core import Rules, Table, event_to_dict, observe
from slapjack.core.events import Event
from slapjack.protocol import decode_server_frame
from slapjack.tui.app import BaseApp
from slapjack.tui.i18n import tr
from slapjack.tui.online import Target
from slapjack.tui.remote import RemoteGame
from slapjack.tui.screens.online import OnlineScreen

from .util import assert_pile_empty_said_once, blank_rows_between, deck, idle, screen_text

SIZES = [(80, 24), (100, 30), (150, 45)]
NAMES = ("Anna", "Ben", "Carla")
TOKEN = "q3XfT9bLw2mZ8cK1vR5nY7hJ0dGsA4uE"  # as long as the server's (token_urlsafe(24))
TARGET = Target("http://127.0.0.1:8000", "K7Q2PX")


class FedApp(BaseApp):
    """The online screen of seat 0 (Anna) with a token, frames fed by the test."""

    CSS_PATH = str(Path(tui.__file__).parent / "slapjack.tcss")

    def __init__(self, lang: str = "en") -> None:
        super().__init__()
        self.lang = lang
        self.token = TOKEN
        self.target = TARGET
        self.game = RemoteGame(code=TARGET.code, name="Anna", seat=0, clock_ms=lambda: 1000.0)

    def on_mount(self) -> None:
        self.push_screen(OnlineScreen(self.game, self.lang, tick_s=0))


def room(
    status: str = "playing",
    rematch: tuple[int, ...] = (),
    names: Any = NAMES,
    resume: float | None = None,
) -> Any:
    timers: dict[str, float | None] = dict.fromkeys(
        ("start", "turn", "race", "deadlock", "time_limit")
    )
    timers["resume"] = resume
    return {
        "code": TARGET.code,
        "status": status,
        "game_no": 1,
        "now": 0.0,
        "timers": timers,
        "grace": {},
        "names": list(names),
        "connected": [True, True, False],
        "bots": {"2": "casual"},
        "covered": [],
        "rematch": list(rematch),
        "spectators": 0,
        "game_id": None,
    }


SEQ = iter(range(1, 1_000_000))


def frame(data: dict[str, Any]) -> Any:
    """``data`` as the terminal client gets it: JSON text, decoded and checked."""
    return decode_server_frame(json.dumps(data))


def welcome(game: RemoteGame) -> None:
    info = {
        "code": TARGET.code,
        "name": "Friday table",
        "game": "slapjack",
        "preset": "classic",
        "rules": {"preset": "classic"},
        "tempo": "turn_timer",
        "turn_seconds": 5.0,
        "time_limit": 60,
        "public": True,
        "status": "waiting",
        "seats": [
            {"seat": 0, "name": "Anna", "bot": None, "connected": True},
            {"seat": 1, "name": "Ben", "bot": None, "connected": True},
            {"seat": 2, "name": None, "bot": None, "connected": False},
        ],
        "free_seats": 1,
        "spectators": 0,
        "url": f"/r/{TARGET.code}",
        "game_no": 0,
    }
    welcome = {"type": "welcome", "v": 1, "room": info, "seat": 0, "name": "Anna", "id": None}
    game.on_welcome(frame(welcome))


def update(game: RemoteGame, table: Table, events: list[Event], **kw: Any) -> None:
    view = observe(table.game, 0)
    game.on_update(
        frame(
            {
                "type": "update",
                "seq": next(SEQ),
                "events": [event_to_dict(e) for e in events],
                "view": {**view.to_dict(), "flip_id": view.flips},
                "room": room(**kw),
            }
        )
    )


def new_table() -> Table:
    rules = Rules.from_options({"preset": "classic", "time_limit": 60})
    return Table.new(rules, NAMES, deck=deck("5C", "KD", "JS"))


async def race_open(pilot: Pilot[None]) -> Table:
    """Anna 5♣, Ben K♦, Carla J♠; Carla's slap (240 ms) arrives before Ben's (212)."""
    game: RemoteGame = pilot.app.game  # type: ignore[attr-defined]
    table = new_table()
    welcome(game)
    update(game, table, [])
    for seat in range(3):
        update(game, table, table.flip(seat, seat + 1))
    await idle(pilot)  # the J♠ is on screen: the race shows
    update(game, table, table.slap(2, 240.0, False, 5))
    update(game, table, table.slap(1, 212.0, False, 6))
    await idle(pilot)
    return table


async def race_won(pilot: Pilot[None]) -> Table:
    table = await race_open(pilot)
    game: RemoteGame = pilot.app.game  # type: ignore[attr-defined]
    update(game, table, table.slap(0, 263.0, False, 7) + table.settle(True, 8))
    await idle(pilot)
    return table


async def game_over(pilot: Pilot[None], table: Table | None = None) -> None:
    """After Ben's Jack the time is up; Ben asks for a rematch."""
    table = table or await race_won(pilot)
    game: RemoteGame = pilot.app.game  # type: ignore[attr-defined]
    update(game, table, table.time_up(9), status="over", rematch=(1,))
    await idle(pilot)


async def lobby(pilot: Pilot[None]) -> None:
    game: RemoteGame = pilot.app.game  # type: ignore[attr-defined]
    welcome(game)
    game.on_update(
        frame(
            {
                "type": "update",
                "seq": next(SEQ),
                "events": [],
                "view": None,
                "room": room("waiting", names=("Anna", "Ben", None)),
            }
        )
    )
    await idle(pilot)


async def test_slaps_show_in_rank_order_and_the_rematch_to_everyone() -> None:
    app = FedApp()
    async with app.run_test(size=(100, 30)) as pilot:
        table = await race_won(pilot)
        text = screen_text(app)
        ben, carla = text.index("Ben slaps in 212 ms"), text.index("Carla slaps in 240 ms")
        assert ben < carla < text.index("Anna slaps in 263 ms")  # arrival was Carla, Ben, Anna
        assert "Ben wins the Jack and takes 3 cards" in text
        assert app.game.state is not None
        assert app.game.state.view.stack_sizes == (17, 19, 16)  # 18, 17, 17 dealt
        await game_over(pilot, table)
        text = screen_text(app)
        assert "Ben asks for a rematch: R to play again" in text  # Anna's status line
        assert "Rematch asked for by Ben. Waiting for Anna." in text
        assert re.search(r"1\.\s+Ben\s+19\s+1\s+212 ms\s+0", text)  # the results table
        assert TOKEN in text and f"--join {TARGET.invite} --token {TOKEN}" in text


async def test_t_copies_the_token() -> None:
    app = FedApp()
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await lobby(pilot)
        assert TOKEN in screen_text(app)  # whole, on one line, in the waiting room
        await pilot.press("T")
        assert copied == [TOKEN]


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_an_empty_pile_says_so_once(lang: str) -> None:
    """Before the first flip the pile is empty: it said so twice, under the
    empty place and on the panel's lower border; now under the place only."""
    app = FedApp(lang)
    async with app.run_test(size=(80, 24)) as pilot:
        welcome(app.game)
        update(app.game, new_table(), [])
        await idle(pilot)
        assert app.game.state is not None and app.game.state.view.centre_size == 0
        assert_pile_empty_said_once(app, lang)


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_results_have_one_blank_line_between_their_parts(lang: str) -> None:
    """Two blank rows stood between the headline and the ranking (a blank
    line and the table's empty top edge): one now, as between the ranking
    and the rematch line, so that more fits at 80×24."""
    app = FedApp(lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await game_over(pilot)
        text = screen_text(app)
        winner = tr(lang, "end.winner", names="Ben")
        assert blank_rows_between(text, winner, tr(lang, "end.place")) == 1
        rematch = tr(lang, "online.rematch_by", names="Ben")
        assert blank_rows_between(text, "3.", rematch) == 1


TEN = ("Anna", "Ben", "Carla", "Dan", "Eve", "Frank", "Gina", "Hugo", "Ines", "Jonas")


async def ten_seats_over(pilot: Pilot[None]) -> None:
    """Ten seats; the time is up after the deal; Ben asks for a rematch."""
    game: RemoteGame = pilot.app.game  # type: ignore[attr-defined]
    welcome(game)
    rules = Rules.from_options({"preset": "classic", "time_limit": 60})
    table = Table.new(rules, TEN, deck=deck("5C", "KD", "JS"))
    update(game, table, [], names=TEN)
    update(game, table, table.time_up(1), status="over", rematch=(1,), names=TEN)
    await idle(pilot)


async def test_at_80x24_the_results_of_ten_seats_scroll_and_the_keys_stay() -> None:
    """The results of ten seats are higher than 80×24 leaves them: they were
    cut in the middle of the rematch line (whom it waits for, the seat's token
    and the way back into the seat out of reach). They scroll now (End, the
    arrows, the wheel), with the focus on them; the status line and the keys
    stay on screen."""
    app = FedApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await ten_seats_over(pilot)
        screen = app.screen
        results = screen.query_one("#results")
        assert screen.region.contains_region(results.region)
        for line in ("#status", "#keys"):
            region = screen.query_one(line).region
            assert region.height == 1 and screen.region.contains_region(region)
            assert not region.overlaps(results.region)
        text = screen_text(app)
        assert "R Rematch" in text and "Esc Quit" in text
        assert "Ben asks for a rematch: R to play again" in text
        assert re.search(r"1\.\s+Anna", text)
        assert app.focused is results
        await pilot.press("end")
        await idle(pilot)
        text = screen_text(app)
        assert re.search(r"10\.\s+Jonas", text) and TOKEN in text
        assert "Ines and Jonas." in text  # the end of the rematch line
        assert "R Rematch" in text and "Esc Quit" in text


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_online_race(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(FedApp(), terminal_size=size, run_before=race_open)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_online_results(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(FedApp(), terminal_size=size, run_before=game_over)


def test_online_results_german(snap_compare: Any) -> None:
    assert snap_compare(FedApp("de"), terminal_size=(100, 30), run_before=game_over)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_online_lobby(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(FedApp(), terminal_size=size, run_before=lobby)


def test_a_card_held_by_a_rebuilt_game_is_timed_from_when_it_goes_on() -> None:
    """The server restarted with the J♠ on the pile: its rebuilt game counts
    down (``timers.resume``) and then goes on with the same card and flip id.
    A slap during the countdown sends nothing; after it, the reaction counts
    from the card shown again, not from the stamp before the restart (the
    outage and the countdown would be added to it: issue 12)."""
    now = [1000.0]
    game = RemoteGame(code=TARGET.code, name="Anna", seat=0, clock_ms=lambda: now[0])
    sent: list[tuple[str, dict[str, Any]]] = []
    game.send = lambda kind, **fields: bool(sent.append((kind, fields))) or True
    game.on_status("open", {})
    table = new_table()
    welcome(game)
    update(game, table, [])
    for seat in range(3):
        update(game, table, table.flip(seat, seat + 1))
    game.shown(game.cue)  # the J♠ painted at 1000
    now[0] = 6000.0  # the server went away; its rebuilt game counts down
    update(game, table, [], resume=2000.0)
    assert game.slap(6100.0) is None
    now[0] = 8000.0
    update(game, table, [])  # it goes on
    game.shown(game.cue)
    now[0] = 8400.0
    fields = game.slap(8300.0)
    assert fields is not None
    assert fields["shown_at"] == 8000.0 and fields["reaction_ms"] == 300.0
    assert [kind for kind, _ in sent] == ["slap"]
