"""``POST /api/practice``: the guided first game. The route over real HTTP and
WebSockets (its room, its deal, its bots, its limit, its typed 422s), and the
stacked deck replayed by the real engine along the paths a newcomer takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from slapjack.core import JACK, Game, Rules, card_name, parse_deck
from slapjack.server.connection import Limits
from slapjack.server.routes.practice import (
    PRACTICE_DECK,
    PRACTICE_LEVEL,
    PRACTICE_TURN_SECONDS,
    practice_timing,
)
from slapjack.server.settings import RoomTiming

from .conftest import Client, LiveServer
from .test_limits import http_from, server


async def practice(live: LiveServer, body: dict[str, Any]) -> httpx.Response:
    async with httpx.AsyncClient(base_url=live.url) as http:
        return await http.post("/api/practice", json=body)


async def test_practice_seats_you_with_two_slow_bots_in_a_private_room(live: LiveServer) -> None:
    r = await practice(live, {"name": "Anna", "lang": "de"})
    assert r.status_code == 200, r.text
    joined = r.json()
    assert joined["seat"] == 0 and joined["name"] == "Anna" and joined["token"]
    assert joined["url"] == f"/r/{joined['code']}"
    async with httpx.AsyncClient(base_url=live.url) as http:
        info = (await http.get(f"/api/rooms/{joined['code']}")).json()
        listed = (await http.get("/api/rooms", params={"all": True})).json()["rooms"]
    assert info["name"] == "Übungsspiel: Anna"
    assert info["public"] is False and joined["code"] not in {x["code"] for x in listed}
    assert info["preset"] == "classic" and info["turn_seconds"] == PRACTICE_TURN_SECONDS
    assert [s["bot"] for s in info["seats"]] == [None, PRACTICE_LEVEL, PRACTICE_LEVEL]
    assert PRACTICE_LEVEL == "beginner"
    english = (await practice(live, {"name": "Ben"})).json()
    async with httpx.AsyncClient(base_url=live.url) as http:
        info = (await http.get(f"/api/rooms/{english['code']}")).json()
    assert info["name"] == "Practice: Ben"


async def test_practice_deals_the_stacked_deck_and_the_bots_play_it(live: LiveServer) -> None:
    """You flip the 7 of clubs, the bot after you the Jack of hearts; the bots
    slap that Jack themselves when you don't."""
    joined = (await practice(live, {"name": "Cleo"})).json()
    client = await Client(live.ws_url, joined["code"], joined["token"]).connect()
    try:
        await client.wait(lambda c: (v := c.view) is not None and v["turn"] == 0, timeout=15)
        view = client.view
        assert view is not None and view["seat"] == 0 and view["stacks"] == [18, 17, 17]
        await client.act("flip", flip_id=view["flip_id"])

        def events(c: Client) -> list[dict[str, Any]]:
            return [e for u in c.updates for e in u["events"]]

        await client.wait(lambda c: any(e["type"] == "race_won" for e in events(c)), timeout=15)
        flipped = [(e["seat"], e["card"]) for e in events(client) if e["type"] == "flipped"]
        assert flipped[:2] == [(0, "7C"), (1, "JH")]
        won = next(e for e in events(client) if e["type"] == "race_won")
        assert won["winner"] in (1, 2) and won["cards"] == 2
    finally:
        await client.close()


async def test_practice_shares_the_play_now_limit(tmp_path: Path) -> None:
    with server(tmp_path, Limits(play_now_burst=3)) as live:
        async with http_from(live, "127.0.0.2") as a, http_from(live, "127.0.0.3") as b:
            assert (await a.post("/api/practice", json={})).status_code == 200
            assert (await a.post("/api/play-now", json={})).status_code == 200
            assert (await a.post("/api/practice", json={"name": "Dan"})).status_code == 200
            r = await a.post("/api/practice", json={"name": "Dan"})
            assert r.status_code == 429 and r.json()["code"] == "rate_limited"
            assert int(r.headers["Retry-After"]) >= 1
            assert (await a.post("/api/play-now", json={})).status_code == 429
            assert (await b.post("/api/practice", json={})).status_code == 200


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"name": ""}, 422, "bad_name"),
        ({"name": "x" * 25}, 422, "bad_name"),
        ({"name": 7}, 422, "bad_request"),
        ({"lang": "fr"}, 422, "bad_request"),
        ({"level": "pro"}, 422, "bad_request"),
        (["Anna"], 422, "bad_request"),
        ("not json", 400, "bad_json"),
    ],
    ids=["empty-name", "long-name", "number-name", "unknown-lang", "extra-field", "list", "text"],
)
async def test_a_bad_practice_body_gets_a_typed_error(
    live: LiveServer, body: Any, status: int, code: str
) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        if isinstance(body, str):
            r = await http.post(
                "/api/practice", content=body, headers={"content-type": "application/json"}
            )
        else:
            r = await http.post("/api/practice", json=body)
    assert r.status_code == status, r.text
    assert set(r.json()) == {"code", "message"} and r.json()["code"] == code


def test_practice_timing_is_slower_than_the_servers() -> None:
    base = RoomTiming(start_delay_ms=0.0, jack_timeout_ms=400.0, bot_pace=0.5)
    slow = practice_timing(base)
    assert slow.start_delay_ms == 2500.0 and slow.jack_timeout_ms == 3000.0
    assert slow.bot_pace == pytest.approx(0.8)
    assert base.bot_pace == 0.5  # the server's own timing is untouched
    default = practice_timing(None)
    assert default.bot_pace > RoomTiming().bot_pace


async def test_the_test_hook_sets_the_practice_rooms_timers_until_reset(
    live: LiveServer,
) -> None:
    """``POST /api/test/practice`` (test hooks only): practice rooms made after
    it get its timers, the others their own; ``{}`` brings back the real ones;
    a timer that is no field or no good number is a typed 422 and changes nothing."""
    lobby = live.app.state.ctx.lobby
    real = practice_timing(lobby.timing)

    async def room_timing() -> RoomTiming:
        code = (await practice(live, {"name": "Eve"})).json()["code"]
        timing: RoomTiming = lobby.get(code).timing
        return timing

    async with httpx.AsyncClient(base_url=live.url) as http:
        try:
            quick = {"bot_pace": 0.4, "start_delay_ms": 1000.0}
            r = await http.post("/api/test/practice", json={"timing": quick})
            assert r.status_code == 200, r.text
            assert r.json()["timing"]["bot_pace"] == 0.4
            got = await room_timing()
            assert (got.bot_pace, got.start_delay_ms) == (0.4, 1000.0)
            assert got.jack_timeout_ms == real.jack_timeout_ms  # the rest as practice has it
            for bad in ({"bot_pace": -1.0}, {"nope": 1.0}, {"cover_level": 1.0}):
                r = await http.post("/api/test/practice", json={"timing": bad})
                assert r.status_code == 422 and r.json()["code"] == "bad_request", r.text
            r = await http.post("/api/test/practice", json={"timing": {}, "x": 1})
            assert r.status_code == 422, r.text
            assert (await room_timing()).bot_pace == 0.4  # refused: nothing changed
        finally:
            r = await http.post("/api/test/practice", json={"timing": {}})
        assert r.status_code == 200, r.text
    assert await room_timing() == real


# ------------------------------------------------- the deck, played by the engine


def play(
    *, slap_jack: Any, slap_queen: bool, you_ms: float = 300.0, bot_ms: float = 470.0
) -> dict[str, Any]:
    """Play the practice deck with the real engine: seat 0 is you (``slap_jack(game)``
    decides whether you slap an open Jack, at ``you_ms``; ``slap_queen``: you slap
    the first Queen), seats 1 and 2 slap every Jack at ``bot_ms`` and nothing else."""
    game = Game(Rules(), ["you", "bot 1", "bot 2"], parse_deck(PRACTICE_DECK))
    moments: dict[str, int] = {}
    order: list[str] = []
    while not game.over and game.flips < 300:
        if game.turn is None:
            game.settle()
            continue
        game.flip(game.turn)
        top = game.top
        assert top is not None
        order.append(card_name(top))
        if game.race_open:
            moments.setdefault("jack", game.flips)
            if slap_jack(game, moments):
                game.slap(0, you_ms)
            for seat in (1, 2):
                if not game.is_out[seat]:
                    game.slap(seat, bot_ms + seat)
            game.settle()
        elif top >> 2 == JACK + 1 and slap_queen and "wrong_slap" not in moments:
            moments["wrong_slap"] = game.flips
            game.slap(0, 300.0)
        if not game.over and not game.stacks[0] and not game.is_out[0]:
            moments.setdefault("last_chance", game.flips)
        if game.turn is None and not game.over:
            game.settle()
    return {"flips": game.flips, "winners": game.winners, "moments": moments, "order": order}


def test_the_deck_opens_with_a_plain_card_then_a_jack_then_a_queen() -> None:
    always = play(slap_jack=lambda g, m: True, slap_queen=True)
    assert always["order"][:3] == ["7C", "JH", "QS"]
    assert always["moments"]["jack"] == 2 and always["moments"]["wrong_slap"] == 3


def test_a_player_who_wins_every_jack_wins_a_short_game() -> None:
    for queen in (True, False):
        game = play(slap_jack=lambda g, m: True, slap_queen=queen)
        assert game["winners"] == (0,)
        assert game["flips"] <= 60, game["flips"]
        assert "last_chance" not in game["moments"]  # the won Jack is your last card


def test_a_player_who_lets_the_bots_take_the_jacks_gets_a_last_chance_and_can_win() -> None:
    """Slap only once your stack is empty (a newcomer too slow for the bots):
    the last chance comes after about 50 flips, and winning it wins the game."""
    game = play(slap_jack=lambda g, m: "last_chance" in m, slap_queen=True)
    assert 40 <= game["moments"]["last_chance"] <= 55, game["moments"]
    assert game["winners"] == (0,) and game["flips"] <= 70


def test_a_player_slower_than_the_bots_gets_a_last_chance_and_loses() -> None:
    game = play(slap_jack=lambda g, m: True, slap_queen=False, you_ms=600.0)
    assert "last_chance" in game["moments"]
    assert game["winners"] != (0,) and game["flips"] <= 60
