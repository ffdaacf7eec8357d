"""Every frame a real server sends, decoded by the protocol's models: whole games
over real WebSockets under every preset, a leave, a rematch; an error frame of
every code a client can provoke, and the HTTP bodies and error bodies."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from server.conftest import Client, LiveServer, join, make_room, start_server
from server.test_play import SHORT_SEEDS, play_room
from slapjack.core import Event
from slapjack.protocol import (
    ErrorBody,
    ErrorCode,
    ErrorFrame,
    Joined,
    Ping,
    RoomCreated,
    RoomInfo,
    RoomPage,
    UnknownEvent,
    Update,
    Welcome,
    decode_server_frame,
)
from slapjack.server.connection import Limits

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(None, tmp_path_factory.mktemp("wire"))
    yield server
    server.stop()


def decoded(client: Client) -> list[Any]:
    """Every frame ``client`` received, decoded and checked: it encodes back to
    the very JSON it came as; views and events become the engine's objects."""
    out = []
    for text in client.raw:
        msg = decode_server_frame(text)
        assert msg.model_dump(mode="json", exclude_unset=True) == json.loads(text), text[:300]
        if isinstance(msg, Update):
            view = msg.view.to_view() if msg.view is not None else None
            if view is not None:
                assert view.flips == msg.view.flip_id  # type: ignore[union-attr]
            for event in msg.events:
                assert not isinstance(event, UnknownEvent), event
                engine: Event = event.to_event(len(view.players) if view else None)
                assert engine is not None
        out.append(msg)
    return out


@pytest.mark.parametrize("preset", sorted(SHORT_SEEDS))
async def test_every_frame_of_a_whole_game_decodes(live: LiveServer, preset: str) -> None:
    clients = await play_room(live, preset)
    try:
        player, spectator = clients[0], clients[-1]
        # a ping comes at least every second: wait for one on each socket
        for client in clients:
            await client.wait(lambda c: any(f["type"] == "ping" for f in c.frames), timeout=5)
        # the finished game's id arrives in a last update; then a rematch and a leave
        await player.wait(lambda c: c.updates[-1]["room"]["game_id"] is not None, timeout=10)
        for client in clients[:-1]:
            await client.act("rematch", id="r")
        await player.wait(lambda c: c.updates[-1]["room"]["game_no"] == 2, timeout=10)
        start = len(player.frames)
        await player.act("leave", id="bye")
        await player.wait_frame(lambda f: f["type"] == "welcome", start=start)
        kinds: dict[type, int] = {}
        events: set[str] = set()
        for client in clients:
            for msg in decoded(client):
                kinds[type(msg)] = kinds.get(type(msg), 0) + 1
                if isinstance(msg, Update):
                    events |= {e.type for e in msg.events}
        assert kinds[Welcome] >= len(clients) + 1  # one each, and the spectator's after leave
        assert kinds[Update] > 20 and kinds[Ping] >= len(clients)
        assert {"flipped", "slapped", "game_over"} <= events
        assert "race_won" in events or "picked_up" in events
        last = decode_server_frame(spectator.raw[-1])
        assert isinstance(last, Update | Ping)
    finally:
        for client in clients:
            await client.close()


async def error_of(client: Client, frame: str | dict[str, Any]) -> ErrorFrame:
    start = len(client.frames)
    if isinstance(frame, str):
        await client.send_raw(frame)
    else:
        await client.send(frame)
    got = await client.wait_frame(lambda f: f["type"] == "error", timeout=5, start=start)
    msg = decode_server_frame(json.dumps(got))
    assert isinstance(msg, ErrorFrame)
    return msg


async def test_an_error_frame_of_every_code_a_client_can_provoke(live: LiveServer) -> None:
    seen: set[ErrorCode] = set()
    # a room that waits for its second player: not started yet
    code = await make_room(live, seats=2, timing={"turn_ms": 60000.0})
    a = await join(live, code, "A")
    ca = await Client(live.ws_url, code, a["token"]).connect()
    spectator = await Client(live.ws_url, code, None).connect()
    try:
        await ca.wait(lambda c: bool(c.updates))
        seen.add((await error_of(ca, {"type": "flip", "token": a["token"], "flip_id": 0})).code)
        b = await join(live, code, "B")
        cb = await Client(live.ws_url, code, b["token"]).connect()
        await ca.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        for frame in ("{broken", '{"v": 1, "type": "dance"}', "x" * 5000):
            seen.add((await error_of(ca, frame)).code)
        seen.add((await error_of(ca, {"type": "flip", "token": "forged", "flip_id": 0})).code)
        seen.add((await error_of(cb, {"type": "flip", "token": b["token"], "flip_id": 0})).code)
        seen.add((await error_of(ca, {"type": "flip", "token": a["token"], "flip_id": 9})).code)
        seen.add((await error_of(spectator, {"type": "flip", "token": "x", "flip_id": 0})).code)
        # a Jack is not on the table at once: flip until a race is open, then flip again
        while True:
            view = ca.view
            assert view is not None
            if view["race_open"]:
                break
            turn = view["turn"]
            who, token = (ca, a["token"]) if turn == 0 else (cb, b["token"])
            flips = view["flips"]
            await who.send({"type": "flip", "token": token, "flip_id": flips})
            await ca.wait(lambda c, f=flips: c.view is not None and c.view["flips"] > f)
        view = ca.view
        err = await error_of(ca, {"type": "flip", "token": a["token"], "flip_id": view["flips"]})
        seen.add(err.code)
        await cb.close()
    finally:
        await spectator.close()
        await ca.close()
    # no such room; a flood; hello twice
    nobody = await Client(live.ws_url, "NOROOM", None).connect()
    await nobody.wait(lambda c: c.closed is not None)
    seen.add(ErrorFrame.model_validate_json(nobody.raw[0]).code)
    flood_code = await make_room(live, seats=2, timing={"rate_limit": 5.0})
    flooder = await Client(live.ws_url, flood_code, None).connect()
    for _ in range(40):
        if flooder.closed is not None:
            break
        with contextlib.suppress(websockets.ConnectionClosed):
            await flooder.send_raw("{broken")
    await flooder.wait(lambda c: c.closed is not None)
    seen |= {ErrorFrame.model_validate_json(t).code for t in flooder.raw if '"error"' in t}
    assert seen >= {
        ErrorCode.NOT_STARTED,
        ErrorCode.BAD_JSON,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.TOO_LARGE,
        ErrorCode.BAD_TOKEN,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.STALE_FLIP,
        ErrorCode.SPECTATOR,
        ErrorCode.NOT_SETTLED,
        ErrorCode.ROOM_CLOSED,
        ErrorCode.RATE_LIMITED,
    }, seen


async def test_a_closing_room_and_a_game_over_send_their_errors(live: LiveServer) -> None:
    """``game_over`` after the end; ``room_closed`` (without an ``id``) when it closes."""
    clients = await play_room(live, "classic", spectate=False)
    try:
        player = clients[0]
        view = player.view
        assert view is not None and view["over"]
        err = await error_of(
            player,
            {"type": "slap", "token": player.token, "flip_id": view["flip_id"], "reaction_ms": 9},
        )
        assert err.code is ErrorCode.GAME_OVER
        room = live.app.state.lobby.get(player.url.rsplit("/", 1)[1])
        room.submit(room.close)
        await player.wait(lambda c: c.closed is not None)
        closing = ErrorFrame.model_validate_json(
            next(t for t in player.raw if '"room_closed"' in t)
        )
        assert closing.code is ErrorCode.ROOM_CLOSED and "id" not in closing.model_fields_set
    finally:
        for client in clients:
            await client.close()


async def test_http_bodies_and_error_bodies_decode(live: LiveServer, tmp_path: Path) -> None:
    seen: set[str] = set()
    async with httpx.AsyncClient(base_url=live.url) as http:

        async def refused(method: str, url: str, status: int, **kw: Any) -> None:
            r = await http.request(method, url, **kw)
            assert r.status_code == status, (url, r.status_code, r.text)
            seen.add(ErrorBody.model_validate_json(r.content).code)

        created = RoomCreated.model_validate_json(
            (await http.post("/api/rooms", json={"seats": 2})).content
        )
        info = RoomInfo.model_validate_json((await http.get(f"/api/rooms/{created.code}")).content)
        assert info.code == created.code and info.status == "waiting"
        page = RoomPage.model_validate_json((await http.get("/api/rooms?all=true")).content)
        assert any(r.code == created.code for r in page.rooms)
        for name in ("Anna", "Ben"):
            r = await http.post(f"/api/rooms/{created.code}/join", json={"name": name})
            assert Joined.model_validate_json(r.content).name == name
        Joined.model_validate_json((await http.post("/api/play-now", json={})).content)

        await refused("POST", f"/api/rooms/{created.code}/join", 409, json={"name": "Carla"})
        await refused(
            "POST",
            "/api/rooms",
            400,
            content=b"{nope",
            headers={"content-type": "application/json"},
        )
        await refused(
            "POST", "/api/rooms", 400, content=b"x", headers={"content-type": "text/plain"}
        )
        await refused("POST", "/api/rooms", 422, json={"seats": "4"})
        await refused("POST", "/api/rooms", 422, json={"rules": {"preset": "nope"}})
        await refused("POST", "/api/rooms", 422, json={"rules": {"colour": "red"}})
        await refused("POST", "/api/rooms", 422, json={"rules": {"tie": "coin"}})
        await refused(
            "POST", "/api/rooms", 422, json={"game": "irish-snap", "rules": {"tie": "split"}}
        )
        await refused("POST", "/api/rooms/NOROOM/join", 422, json={"name": "\u202e"})
        await refused("POST", "/api/rooms/NOROOM/join", 404, json={"name": "Anna"})
        await refused("GET", "/api/games/987654", 404)
        await refused("GET", "/api/rules/nope", 404)
        await refused("GET", "/api/rules/classic?lang=xx", 404)
        await refused("GET", "/api/nothing-here", 404)
        await refused("DELETE", "/api/rooms", 405)
    assert seen >= {
        "room_full",
        "bad_json",
        "bad_content_type",
        "bad_request",
        "unknown_preset",
        "unknown_option",
        "bad_option",
        "impossible_combination",
        "bad_name",
        "unknown_room",
        "unknown_game",
        "unknown_lang",
        "not_found",
        "method_not_allowed",
    }, seen


async def test_the_limits_errors_decode(tmp_path: Path) -> None:
    """``rate_limited`` (429), ``server_full`` (503) and ``too_many_sockets`` on a strict server."""
    limits = Limits(create_burst=2, create_per_minute=1.0, max_rooms=1, sockets_per_address=1)
    live = start_server(None, tmp_path, limits=limits)
    try:
        async with httpx.AsyncClient(base_url=live.url) as http:
            made = RoomCreated.model_validate_json((await http.post("/api/rooms", json={})).content)
            seat = Joined.model_validate_json(
                (await http.post(f"/api/rooms/{made.code}/join", json={"name": "A"})).content
            )
            holder = await Client(live.ws_url, made.code, seat.token).connect()
            await holder.wait(lambda c: bool(c.updates))
            full = await http.post("/api/rooms", json={})
            assert full.status_code == 503
            assert ErrorBody.model_validate_json(full.content).code is ErrorCode.SERVER_FULL
            limited = await http.post("/api/rooms", json={})
            assert limited.status_code == 429
            assert ErrorBody.model_validate_json(limited.content).code is ErrorCode.RATE_LIMITED
            second = await Client(live.ws_url, made.code, None).connect(hello=False)
            await second.wait(lambda c: c.closed is not None)
            err = ErrorFrame.model_validate_json(second.raw[0])
            assert err.code is ErrorCode.TOO_MANY_SOCKETS and second.closed[0] == 1008  # type: ignore[index]
            await holder.close()
            await second.close()
    finally:
        live.stop()


def test_an_error_frame_of_every_code_decodes() -> None:
    """Codes no client can provoke on purpose (the engine's own refusals behind
    the room's checks, the store's failures) still make frames the models take."""
    from slapjack.protocol import ErrorBody, error_frame

    for code in ErrorCode:
        frame = decode_server_frame(error_frame(code, f"a {code}", "x1"))
        assert isinstance(frame, ErrorFrame) and frame.code is code and frame.id == "x1"
        assert (
            ErrorBody.model_validate_json(json.dumps({"code": code, "message": "m"})).code is code
        )
    assert (
        ErrorBody.model_validate_json('{"code": "http_418", "message": "tea"}').code == "http_418"
    )
    with pytest.raises(ValueError):
        decode_server_frame(error_frame("no_such_code", "m"))


async def test_pings_answered_are_pongs_the_server_takes(live: LiveServer) -> None:
    """A ping decodes; the pong built from it with the models is what the edge accepts."""
    from slapjack.protocol import CLIENT_MESSAGE, Pong

    code = await make_room(live, seats=2)
    client = await Client(live.ws_url, code, None).connect()
    try:
        await client.wait(lambda c: any(f["type"] == "ping" for f in c.frames), timeout=5)
        ping = next(decode_server_frame(t) for t in client.raw if '"ping"' in t)
        assert isinstance(ping, Ping)
        pong = CLIENT_MESSAGE.validate_python(
            {"v": 1, "type": "pong", "id": ping.id, "client_time": 12.5}
        )
        assert isinstance(pong, Pong)
        await client.send_raw(pong.model_dump_json())
        await asyncio.sleep(0.1)
        assert not client.errors()
    finally:
        await client.close()
