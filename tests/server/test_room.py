"""Room life: races by reaction time, reslap on a tie, disconnect grace and the
covering bot, leave, start early, fixed tempo, time limit, rematch."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from slapjack.core import card_name

from .conftest import Client, LiveServer, join, make_room, start_server
from .test_play import autoplay


def jack_first() -> list[str]:
    deck = [card_name(c) for c in range(52)]
    deck.remove("JS")
    return ["JS", *deck]


async def seated(live: LiveServer, code: str, names: list[str]) -> list[Client]:
    clients = []
    for name in names:
        joined = await join(live, code, name)
        client = Client(live.ws_url, code, joined["token"])
        await client.connect()
        clients.append(client)
    return clients


def has_event(kind: str) -> Any:
    return lambda f: f["type"] == "update" and any(e["type"] == kind for e in f["events"])


async def jack_race_open(a: Client, b: Client) -> None:
    """A (seat 0) flips the Jack of ``jack_first()``; B sees the race open."""
    await a.wait(lambda c: c.view is not None and c.view["turn"] == 0)
    await a.act("flip", flip_id=0)
    await b.wait(lambda c: c.view is not None and c.view["race_open"])


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        await c.close()


async def test_the_smaller_reaction_wins_not_the_first_arrival(live: LiveServer) -> None:
    code = await make_room(live, seats=2, deck=jack_first(), referee="trusting")
    a, b = await seated(live, code, ["A", "B"])
    try:
        await jack_race_open(a, b)
        await a.act("slap", flip_id=1, reaction_ms=320.0)  # arrives first, slower hand
        await asyncio.sleep(0.05)
        await b.act("slap", flip_id=1, reaction_ms=250.0)
        won = await a.wait_frame(has_event("race_won"))
        event = next(e for e in won["events"] if e["type"] == "race_won")
        assert event["winner"] == 1
        assert event["reactions"] == [[1, 250.0], [0, 320.0]]
    finally:
        await close_all([a, b])


async def test_an_exact_tie_opens_a_reslap_round(live: LiveServer) -> None:
    code = await make_room(live, seats=2, deck=jack_first(), referee="trusting")
    a, b = await seated(live, code, ["A", "B"])
    try:
        await jack_race_open(a, b)
        await a.act("slap", flip_id=1, reaction_ms=300.0)
        await b.act("slap", flip_id=1, reaction_ms=300.0)
        tied = await a.wait_frame(has_event("race_tied"))
        assert tied["view"]["race_open"] and tied["view"]["reslap_among"] == [0, 1]
        start = len(a.frames)
        await a.act("slap", flip_id=1, reaction_ms=280.0)
        await b.act("slap", flip_id=1, reaction_ms=260.0)
        won = await a.wait_frame(has_event("race_won"), start=start)
        assert next(e for e in won["events"] if e["type"] == "race_won")["winner"] == 1
    finally:
        await close_all([a, b])


async def test_nobody_slaps_the_jack_and_play_goes_on(live: LiveServer) -> None:
    code = await make_room(live, seats=2, deck=jack_first())
    a, b = await seated(live, code, ["A", "B"])
    try:
        await a.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        await a.act("flip", flip_id=0)
        frame = await b.wait_frame(has_event("no_slap"))
        assert frame["view"]["turn"] == 1 and frame["view"]["centre_size"] == 1
    finally:
        await close_all([a, b])


async def test_a_disconnected_seat_is_covered_then_returned(live: LiveServer) -> None:
    code = await make_room(live, seats=2, timing={"grace_ms": 200.0, "turn_ms": 60000.0})
    a, b = await seated(live, code, ["A", "B"])
    try:
        await a.wait(lambda c: c.view is not None)
        await b.close()
        frame = await a.wait_frame(lambda f: f["type"] == "update" and 1 in f["room"]["covered"])
        assert frame["room"]["bots"] == {"1": "casual"}
        assert frame["room"]["connected"] == [True, False]
        back = Client(live.ws_url, code, b.token)
        await back.connect()
        welcome = await back.wait_frame(lambda f: f["type"] == "welcome")
        assert welcome["seat"] == 1 and welcome["name"] == "B"
        frame = await a.wait_frame(
            lambda f: f["type"] == "update" and f["room"]["connected"] == [True, True]
        )
        assert frame["room"]["covered"] == [] and frame["room"]["bots"] == {}
        await back.close()
    finally:
        await close_all([a, b])


async def test_a_covering_bot_plays_the_absent_seat(live: LiveServer) -> None:
    code = await make_room(
        live, seats=2, timing={"grace_ms": 50.0, "turn_ms": 60000.0, "bot_pace": 0.05}
    )
    a, b = await seated(live, code, ["A", "B"])
    try:
        await a.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        await b.close()
        await a.wait_frame(lambda f: f["type"] == "update" and 1 in f["room"]["covered"])
        await a.act("flip", flip_id=0)
        # B's turn: the covering bot flips long before the 60 s turn timer
        await a.wait(lambda c: c.view is not None and c.view["flips"] >= 2, timeout=5)
    finally:
        await close_all([a, b])


async def test_leave_hands_the_seat_to_a_bot(live: LiveServer) -> None:
    code = await make_room(live, seats=2, timing={"turn_ms": 60000.0})
    a, b = await seated(live, code, ["A", "B"])
    try:
        await a.wait(lambda c: c.view is not None)
        await b.act("leave")
        frame = await a.wait_frame(
            lambda f: f["type"] == "update" and f["room"]["bots"] == {"1": "casual"}
        )
        assert frame["room"]["names"] == ["A", "B"]
        await b.wait(lambda c: c.view is not None and c.view["seat"] is None)
        await b.act("flip", flip_id=0)
        err = await b.wait_frame(lambda f: f["type"] == "error")
        assert err["code"] == "spectator"
        again = Client(live.ws_url, code, b.token)
        await again.connect()
        assert (await again.wait_frame(lambda f: f["type"] == "error"))["code"] == "bad_token"
        await again.close()
    finally:
        await close_all([a, b])


async def test_start_fills_empty_seats_with_bots(live: LiveServer) -> None:
    code = await make_room(live, seats=3, timing={"start_delay_ms": 60000.0})
    (a,) = await seated(live, code, ["A"])
    try:
        await a.wait(lambda c: bool(c.updates))
        assert a.view is None and a.updates[-1]["room"]["status"] == "waiting"
        await a.act("start")
        await a.wait(lambda c: c.view is not None)
        room = a.updates[-1]["room"]
        assert room["status"] == "playing"
        assert room["bots"] == {"1": "casual", "2": "casual"}
    finally:
        await a.close()


async def test_fixed_tempo_flips_for_everyone(live: LiveServer) -> None:
    code = await make_room(live, seats=2, tempo="fixed", timing={"turn_ms": 50.0})
    a, b = await seated(live, code, ["A", "B"])
    try:
        await a.wait(lambda c: c.view is not None and c.view["flips"] >= 3, timeout=5)
        await a.act("flip", flip_id=a.view["flip_id"] if a.view else 0)
        err = await a.wait_frame(lambda f: f["type"] == "error")
        assert err["code"] == "not_your_turn"
    finally:
        await close_all([a, b])


async def test_time_limit_ends_the_game(live: LiveServer) -> None:
    code = await make_room(live, seats=2, time_limit=1, timing={"turn_ms": 60000.0})
    a, b = await seated(live, code, ["A", "B"])
    try:
        frame = await a.wait_frame(has_event("time_is_up"), timeout=5)
        assert frame["view"]["over"] and frame["view"]["winners"] == [0, 1]
        assert frame["room"]["status"] == "over"
    finally:
        await close_all([a, b])


async def test_rematch_keeps_the_seats(live: LiveServer) -> None:
    code = await make_room(live, seats=2, seed=3, timing={"rate_limit": 1000.0})
    a, b = await seated(live, code, ["A", "B"])
    for c in (a, b):
        c.on_update = autoplay()
    try:
        await a.wait(lambda c: c.view is not None and c.view["over"], timeout=60)
        for c in (a, b):
            c.on_update = None
        await a.act("rematch")
        frame = await b.wait_frame(lambda f: f["type"] == "update" and f["room"]["rematch"] == [0])
        assert frame["view"]["over"]
        await b.act("rematch")
        frame = await a.wait_frame(
            lambda f: f["type"] == "update" and f["room"]["game_no"] == 2 and not f["view"]["over"]
        )
        assert frame["view"]["players"] == ["A", "B"] and frame["view"]["flips"] == 0
        assert frame["room"]["status"] == "playing"
    finally:
        await close_all([a, b])


async def test_a_rematch_that_ends_never_names_the_previous_game(live: LiveServer) -> None:
    """Found by the soak (bench/soak.py): the updates that showed a rematch's end
    carried the previous game's ``game_id`` until the new game was stored, so the
    end dialog's replay link opened the wrong game. Now ``game_id`` is null
    until the game that ended is stored, then its own id."""
    import httpx

    code = await make_room(live, seats=2, time_limit=1, timing={"turn_ms": 60000.0})
    a, b = await seated(live, code, ["A", "B"])
    try:
        ids = []
        for game_no in (1, 2):
            ended = len(a.frames)
            await a.wait_frame(has_event("time_is_up"), timeout=5, start=ended)
            stored = await a.wait_frame(
                lambda f: f["type"] == "update" and f["room"]["game_id"] is not None,
                start=ended,
            )
            shown_over = [
                f["room"]["game_id"]
                for f in a.frames[ended:]
                if f["type"] == "update" and f["room"]["status"] == "over"
            ]
            assert set(shown_over) <= {None, stored["room"]["game_id"]}, shown_over
            ids.append(stored["room"]["game_id"])
            async with httpx.AsyncClient(base_url=live.url) as http:
                record = (await http.get(f"/api/games/{ids[-1]}")).json()
            assert record["meta"]["game_no"] == game_no
            if game_no == 1:
                await a.act("rematch")
                await b.act("rematch")
                await a.wait(lambda c: c.updates[-1]["room"]["game_no"] == 2)
        assert ids[0] != ids[1]
    finally:
        await close_all([a, b])


async def test_an_abandoned_room_closes_and_its_game_is_kept(live: LiveServer) -> None:
    import httpx

    code = await make_room(live, seats=2, timing={"idle_close_ms": 300.0, "turn_ms": 60000.0})
    a, b = await seated(live, code, ["Idle A", "Idle B"])
    await a.wait(lambda c: c.view is not None and c.view["turn"] == 0)
    await a.act("flip", flip_id=0)
    await b.wait(lambda c: c.view is not None and c.view["flips"] == 1)
    await close_all([a, b])
    async with httpx.AsyncClient(base_url=live.url) as http:
        for _ in range(100):
            if (await http.get(f"/api/rooms/{code}")).status_code == 404:
                break
            await asyncio.sleep(0.05)
        assert (await http.get(f"/api/rooms/{code}")).status_code == 404
        games = (await http.get("/api/games", params={"player": "Idle A"})).json()["games"]
        assert [g["room"] for g in games] == [code]
        assert games[0]["complete"] is False and games[0]["flips"] == 1


async def test_a_seat_taken_but_never_connected_is_covered(live: LiveServer) -> None:
    code = await make_room(
        live, seats=2, timing={"start_delay_ms": 60000.0, "grace_ms": 100.0, "turn_ms": 60000.0}
    )
    (a,) = await seated(live, code, ["A"])
    await join(live, code, "Ghost")
    try:
        await a.wait(lambda c: bool(c.updates))
        await a.act("start")
        frame = await a.wait_frame(lambda f: f["type"] == "update" and 1 in f["room"]["covered"])
        assert frame["room"]["names"] == ["A", "Ghost"]
    finally:
        await a.close()


@pytest.mark.parametrize(("floor", "winner"), [(None, 0), (150.0, 1)])
async def test_the_anticipation_floor_is_the_servers_setting(
    tmp_path: Path, floor: float | None, winner: int
) -> None:
    """``slapjack serve --anticipation-floor-ms``: 120 ms wins under the default
    floor (100 ms) and is a false start under a floor of 150 ms."""
    live = start_server(None, tmp_path, floor_ms=floor)
    try:
        code = await make_room(live, seats=2, deck=jack_first(), referee=None)
        a, b = await seated(live, code, ["A", "B"])
        try:
            await jack_race_open(a, b)
            await a.act("slap", flip_id=1, reaction_ms=120.0)
            await b.act("slap", flip_id=1, reaction_ms=300.0)
            won = await a.wait_frame(has_event("race_won"))
            event = next(e for e in won["events"] if e["type"] == "race_won")
            assert event["winner"] == winner, event
        finally:
            await close_all([a, b])
    finally:
        live.stop()
