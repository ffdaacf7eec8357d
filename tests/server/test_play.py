"""Whole games over real WebSockets: several clients in one room play a stacked
deck to the end under every preset; every frame is checked for leaked cards."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from slapjack.core import PRESETS, Record, card_name, replay
from slapjack.core.events import Flipped

from .conftest import Client, LiveServer, http_client, join, make_room

# Seeds whose games are short when every seat slaps every Jack (match), seat 0 first.
SHORT_SEEDS = {
    "classic": 9,
    "klatsch-bube": 0,
    "say-it": 9,
    "irish-snap": 93,
    "irish-snap-winner": 202,
}
CARD_RE = re.compile(r'"((?:10|[2-9AJQK])[CDHS])"')


def autoplay(seat_delay_ms: float = 25.0, call: bool = True) -> Any:
    """An update handler: flip on your turn, slap every race (seat s after s*delay)."""

    async def on_update(client: Client, frame: dict[str, Any]) -> None:
        view = frame["view"]
        if view is None or view["over"] or view["seat"] is None:
            return
        me = view["seat"]
        if view["turn"] == me and not view["race_open"]:
            await client.act("flip", flip_id=view["flip_id"])
        elif (
            view["race_open"]
            and me not in view["slapped"]
            and not view["out"][me]
            and (view["reslap_among"] is None or me in view["reslap_among"])
        ):
            flip_id = view["flip_id"]

            async def later() -> None:
                await asyncio.sleep((5 + me * seat_delay_ms) / 1000)
                await client.act(
                    "slap",
                    flip_id=flip_id,
                    reaction_ms=200 + me,
                    shown_at=1.0,
                    input_at=201.0,
                    call=call,
                )

            asyncio.get_running_loop().create_task(later())

    return on_update


def check_frames(client: Client, flip_order: list[str] | None = None) -> None:
    """Sequence numbers count up by one; 52 cards in every view; no card in any
    frame before it is flipped. ``flip_order`` (from the stored record) lists the
    cards in the order they were flipped: a frame showing ``flip_id`` F may name
    only the first F of them. Without it, the check is against the ``flipped``
    events this client saw (plus the face-up cards of its first view)."""
    seen: set[str] = set()
    seqs = []
    allowed: set[str] = set()
    for text, frame in zip(client.raw, client.frames, strict=True):
        if frame["type"] == "update":
            seqs.append(frame["seq"])
            view = frame["view"]
            if flip_order is not None:
                allowed = set(flip_order[: view["flip_id"]]) if view else set()
            else:
                if view is not None and not seqs[:-1]:
                    seen |= set(view["centre_top"])
                seen |= {e["card"] for e in frame["events"] if e["type"] == "flipped"}
                allowed = seen
            if view is not None:
                assert sum(view["stacks"]) + view["centre_size"] == 52
                assert set(view["centre_top"]) <= allowed
        leaked = set(CARD_RE.findall(text)) - allowed
        assert not leaked, f"cards {leaked} sent before they were flipped: {text[:300]}"
    assert seqs == list(range(1, len(seqs) + 1))


def flip_order(record: Record) -> list[str]:
    return [card_name(e.card) for e in replay(record).events if isinstance(e, Flipped)]


async def play_room(live: LiveServer, preset: str, *, spectate: bool = True) -> list[Client]:
    code = await make_room(
        live, seats=3, preset=preset, seed=SHORT_SEEDS[preset], timing={"rate_limit": 1000.0}
    )
    seats = [await join(live, code, f"P{i}") for i in range(3)]
    clients = [Client(live.ws_url, code, s["token"]) for s in seats]
    for client in clients:
        client.on_update = autoplay()
    if spectate:
        clients.append(Client(live.ws_url, code, None))
    for client in clients:
        await client.connect()
    for client in clients:
        await client.wait(lambda c: c.view is not None and c.view["over"], timeout=60)
    return clients


@pytest.mark.parametrize("preset", list(PRESETS))
async def test_a_stacked_game_plays_to_the_end(live: LiveServer, preset: str) -> None:
    clients = await play_room(live, preset)
    try:
        final = [c.view for c in clients]
        assert all(v is not None and v["over"] for v in final)
        first = final[0]
        assert first is not None
        # every socket sees the same table at the end
        for view in final[1:]:
            assert view is not None
            for key in ("stacks", "winners", "loser", "out_order", "flips", "centre_size"):
                assert view[key] == first[key]
        assert [v["seat"] for v in final if v] == [0, 1, 2, None]
        # the finished game is in the history (its id announced) and replays to the same end
        await clients[0].wait(lambda c: c.updates[-1]["room"]["game_id"] is not None)
        game_id = clients[0].updates[-1]["room"]["game_id"]
        async with httpx.AsyncClient(base_url=live.url) as http:
            for _ in range(50):
                games = (await http.get("/api/games", params={"player": "P0"})).json()["games"]
                mine = [g for g in games if g["room"] == clients[0].url.rsplit("/", 1)[1]]
                if mine:
                    break
                await asyncio.sleep(0.05)
            assert mine, "the finished game was not stored"
            assert mine[0]["id"] == game_id
            data = (await http.get(f"/api/games/{mine[0]['id']}")).json()
            steps = (await http.get(f"/api/games/{mine[0]['id']}/replay")).json()
            download = await http.get(f"/api/games/{mine[0]['id']}", params={"download": 1})
        assert "attachment" in download.headers["content-disposition"]
        assert steps["record"] == data and not steps["truncated"]
        assert steps["steps"][-1]["view"]["winners"] == first["winners"]
        assert steps["steps"][-1]["view"]["stacks"] == first["stacks"]
        record = Record.from_dict(data)
        order = flip_order(record)
        assert len(order) == first["flips"]
        for client in clients:
            check_frames(client, order)
            assert client.frames[0]["type"] == "welcome"
        result = replay(record)
        game = result.game
        assert game.over
        assert list(game.winners) == first["winners"]
        assert [len(s) for s in game.stacks] == first["stacks"]
        assert game.flips == first["flips"]
        assert record.players == ("P0", "P1", "P2")
    finally:
        for client in clients:
            await client.close()


async def test_play_now_and_bots_finish_a_game(live: LiveServer) -> None:
    """You + 3 bots: the bots flip and slap server-side; an idle human is flipped for."""
    code = await make_room(
        live,
        seats=3,
        seed=9,
        bots={"1": "pro", "2": "casual"},
        timing={"turn_ms": 60.0, "bot_pace": 0.05},
    )
    me = await join(live, code, "Solo")
    client = Client(live.ws_url, code, me["token"])
    await client.connect()
    try:
        # the human never acts: the turn timer flips for them; bots slap the Jacks
        await client.wait(lambda c: c.view is not None and c.view["over"], timeout=90)
        check_frames(client)
        events = [e for u in client.updates for e in u["events"]]
        assert any(e["type"] == "slapped" and e["seat"] in (1, 2) for e in events)
        assert any(e["type"] == "flipped" and e["seat"] == 0 for e in events)
        room = client.updates[-1]["room"]
        assert room["bots"] == {"1": "pro", "2": "casual"}
    finally:
        await client.close()


@contextlib.asynccontextmanager
async def say_it_jack(live: LiveServer, timing: dict[str, float]) -> AsyncIterator[list[Client]]:
    """A say-it room of two, A and B: A has flipped the JS on top of its stack
    and the race is open; their clients, closed afterwards."""
    deck = [card_name(c) for c in range(52)]
    deck.remove("JS")
    deck.insert(0, "JS")  # seat 0 flips first: a Jack on top of its stack
    code = await make_room(live, seats=2, preset="say-it", deck=deck, timing=timing)
    a, b = (await join(live, code, "A")), (await join(live, code, "B"))
    clients = [Client(live.ws_url, code, a["token"]), Client(live.ws_url, code, b["token"])]
    try:
        for client in clients:
            await client.connect()
        ca = clients[0]
        await ca.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        await ca.act("flip", flip_id=0)
        await ca.wait(lambda c: c.view is not None and c.view["race_open"])
        yield clients
    finally:
        for client in clients:
            await client.close()


async def test_say_it_call_as_a_separate_message(live: LiveServer) -> None:
    """A slap without the call waits for a ``call`` frame; with it, the Jack is won."""
    async with say_it_jack(live, {"call_grace_ms": 2000.0}) as (ca, cb):
        await cb.act("slap", flip_id=1, reaction_ms=250.0, call=False)
        await asyncio.sleep(0.1)
        assert ca.view is not None and ca.view["race_open"] and ca.view["slapped"] == []
        await cb.act("call", flip_id=1)
        won = await ca.wait_frame(
            lambda f: f["type"] == "update" and any(e["type"] == "race_won" for e in f["events"])
        )
        assert next(e for e in won["events"] if e["type"] == "race_won")["winner"] == 1
        assert won["view"]["stacks"] == [25, 27]


async def test_say_it_the_race_waits_past_its_window_for_a_call_to_come(live: LiveServer) -> None:
    """B slaps first without the call, A just after with it; B's call comes
    after the referee's window (here the arrival referee's 500 ms; the fair
    referee's is tens of ms on loopback) but within B's wait for it: the race
    waited for it, and B, the faster, wins (no forfeit)."""
    timing = {"call_grace_ms": 1000.0, "jack_timeout_ms": 2500.0}
    async with say_it_jack(live, timing) as (ca, cb):
        await cb.act("slap", flip_id=1, reaction_ms=250.0, call=False)
        await asyncio.sleep(0.02)
        await ca.act("slap", flip_id=1, reaction_ms=261.0, call=True)
        await asyncio.sleep(0.7)  # past the window, within B's wait
        assert ca.view is not None and ca.view["race_open"], "the race closed on a waiting slap"
        await cb.act("call", flip_id=1)
        won = await ca.wait_frame(
            lambda f: f["type"] == "update" and any(e["type"] == "race_won" for e in f["events"])
        )
        events = won["events"]
        assert next(e for e in events if e["type"] == "race_won")["winner"] == 1
        assert not any(e["type"] == "forfeit" for e in events)


async def test_spectator_sees_no_seat_and_cannot_act(live: LiveServer) -> None:
    code = await make_room(live, seats=2)
    a = await join(live, code, "A")
    await join(live, code, "B")
    spectator = Client(live.ws_url, code, None)
    await spectator.connect()
    try:
        welcome = await spectator.wait_frame(lambda f: f["type"] == "welcome")
        assert welcome["seat"] is None
        await spectator.send({"type": "flip", "token": a["token"], "flip_id": 0})
        err = await spectator.wait_frame(lambda f: f["type"] == "error")
        assert err["code"] == "spectator"
        for text in spectator.raw:
            assert "token" not in json.loads(text).get("room", {})
            assert a["token"] not in text
    finally:
        await spectator.close()


async def rooms_at_once(live: LiveServer, rooms: int) -> None:
    """``rooms`` rooms play stacked games at the same time; each ends, each is
    stored once, each socket's frames are in order and leak nothing."""
    presets = list(SHORT_SEEDS)
    games = await asyncio.gather(
        *(play_room(live, presets[i % len(presets)], spectate=False) for i in range(rooms))
    )
    try:
        codes = {clients[0].url.rsplit("/", 1)[1] for clients in games}
        assert len(codes) == rooms
        async with http_client(live) as http:
            for clients in games:
                await clients[0].wait(lambda c: c.updates[-1]["room"]["game_id"] is not None)
                game_id = clients[0].updates[-1]["room"]["game_id"]
                record = Record.from_dict((await http.get(f"/api/games/{game_id}")).json())
                assert record.meta["room"] == clients[0].url.rsplit("/", 1)[1]
                order = flip_order(record)
                for client in clients:
                    check_frames(client, order)
                    assert client.view is not None and client.view["flips"] == len(order)
    finally:
        for clients in games:
            for client in clients:
                await client.close()


async def test_several_rooms_at_once(live: LiveServer) -> None:
    await rooms_at_once(live, 8)


@pytest.mark.slow
async def test_many_rooms_at_once(live: LiveServer) -> None:
    await rooms_at_once(live, 60)
