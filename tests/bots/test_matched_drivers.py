"""Where bots are driven, a ``matched`` bot learns from the people's races: the
terminal game's controller and a live server room (real WebSockets)."""

from __future__ import annotations

import asyncio

from server.conftest import Client, LiveServer, join, live, make_room  # noqa: F401
from slapjack.bots import MatchedBot, make_bot
from slapjack.core import card_name
from slapjack.core.events import RaceWon
from slapjack.tui import GameController, ManualClock, SeatSpec
from tui.util import config, deck, human


def test_the_terminal_game_teaches_its_matched_bot_the_players_speed() -> None:
    bot = make_bot("matched", 1)
    assert isinstance(bot, MatchedBot)
    cfg = config([human(0, "Anna"), SeatSpec("Ben", "matched")], deck("JC"))
    clock = ManualClock()
    c = GameController(cfg, clock, bots={1: bot})
    c.start()
    assert c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(300)
    c.slap(0)
    clock.advance_ms(1500)
    won = [e for e in c.state.log if isinstance(e, RaceWon)]
    assert len(won) == 1 and won[0].winner == 0
    assert bot.tracker.exact == 1
    assert bot.estimate_ms == 300.0  # Anna's reaction; Ben's own does not count
    assert bot.aim_ms < 330.0


def _jack_first() -> list[str]:
    cards = [card_name(c) for c in range(52)]
    cards.remove("JS")
    return ["JS", *cards]


async def test_a_server_rooms_matched_bot_learns_from_the_person(live: LiveServer) -> None:  # noqa: F811
    code = await make_room(
        live, seats=2, deck=_jack_first(), bots={"1": "matched"}, referee="trusting"
    )
    joined = await join(live, code, "Anna")
    anna = Client(live.ws_url, code, joined["token"])
    await anna.connect()
    try:
        await anna.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        await anna.act("flip", flip_id=0)
        await anna.wait(lambda c: c.view is not None and c.view["race_open"])
        await anna.act("slap", flip_id=1, reaction_ms=312.0)
        await anna.wait_frame(
            lambda f: f["type"] == "update" and any(e["type"] == "race_won" for e in f["events"])
        )
        await asyncio.sleep(0.05)
        room = live.app.state.lobby.get(code)
        bot = room.live.seating.bots.get(1)  # the room's bot for seat 1
        assert isinstance(bot, MatchedBot)
        # Both slapped (the bot after its own reaction), so the race listed Anna's 312 ms.
        assert bot.tracker.seen == bot.tracker.exact == 1
        assert bot.estimate_ms == 312.0
        assert bot.aim_ms < 340.0
    finally:
        await anna.close()
