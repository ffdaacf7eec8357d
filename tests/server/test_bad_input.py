"""Hostile and mistaken frames: a typed error each, nothing changes, the room plays on."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from .conftest import Client, LiveServer, join, make_room


async def two_players(live: LiveServer, **kw: Any) -> tuple[Client, Client]:
    code = await make_room(live, seats=2, **kw)
    a, b = await join(live, code, "A"), await join(live, code, "B")
    ca, cb = Client(live.ws_url, code, a["token"]), Client(live.ws_url, code, b["token"])
    await ca.connect()
    await cb.connect()
    await ca.wait(lambda c: c.view is not None and c.view["turn"] == 0)
    return ca, cb


async def expect_error(client: Client, code: str) -> dict[str, Any]:
    start = len(client.frames)
    return await client.wait_frame(
        lambda f: f["type"] == "error" and f["code"] == code, timeout=5, start=start - 1
    )


def version(client: Client) -> tuple[int, int]:
    view = client.view
    assert view is not None
    return view["version"], view["flips"]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", "bad_json"),
        ('{"v": 1, "type": "dance"}', "bad_message"),
        ('{"type": "flip", "token": "x", "flip_id": 0}', "bad_message"),
        ('{"v": 2, "type": "flip", "token": "x", "flip_id": 0}', "bad_message"),
        ('{"v": 1, "type": "flip", "flip_id": 0}', "bad_message"),
        ('{"v": 1, "type": "flip", "token": "x", "flip_id": "0"}', "bad_message"),
        ('{"v": 1, "type": "slap", "token": "x", "flip_id": 0, "reaction_ms": -5}', "bad_message"),
        (
            '{"v": 1, "type": "slap", "token": "x", "flip_id": 0, "reaction_ms": 1e400}',
            "bad_message",
        ),
        ('{"v": 1, "type": "flip", "token": "x", "flip_id": 0, "extra": 1}', "bad_message"),
        ("[1, 2, 3]", "bad_message"),
        ('"hello"', "bad_message"),
        ("x" * 5000, "too_large"),
        ('{"v": 1, "type": "hello", "token": null, "lang": "' + "é" * 2100 + '"}', "too_large"),
    ],
)
async def test_malformed_frames_get_typed_errors(live: LiveServer, frame: str, code: str) -> None:
    ca, cb = await two_players(live)
    try:
        before = version(ca)
        await ca.send_raw(frame)
        await expect_error(ca, code)
        assert version(ca) == before
        # the room and the socket still work
        await ca.act("flip", flip_id=0)
        await ca.wait(lambda c: c.view is not None and c.view["flips"] == 1)
    finally:
        await ca.close()
        await cb.close()


async def test_binary_frame_is_refused(live: LiveServer) -> None:
    ca, cb = await two_players(live)
    try:
        await ca.send_raw(b"\x00\x01")
        await expect_error(ca, "bad_message")
    finally:
        await ca.close()
        await cb.close()


async def test_game_errors_change_nothing(live: LiveServer) -> None:
    ca, cb = await two_players(live)
    try:
        before = version(ca)
        await cb.act("flip", flip_id=0)  # B is not on turn
        await expect_error(cb, "not_your_turn")
        await ca.act("flip", flip_id=5)  # stale flip id
        await expect_error(ca, "stale_flip")
        await ca.send({"type": "flip", "token": "not-a-token", "flip_id": 0})
        await expect_error(ca, "bad_token")
        await ca.send({"type": "flip", "token": cb.token, "flip_id": 0})  # B's token on A's socket
        await expect_error(ca, "bad_token")
        await ca.act("slap", flip_id=3, reaction_ms=200.0)
        await expect_error(ca, "stale_flip")
        await ca.act("rematch")
        await expect_error(ca, "bad_message")
        await ca.send({"type": "hello", "token": ca.token})
        await expect_error(ca, "bad_message")
        assert version(ca) == before
        assert version(cb) == before
        await ca.act("flip", flip_id=0)
        await cb.wait(lambda c: c.view is not None and c.view["flips"] == 1)
    finally:
        await ca.close()
        await cb.close()


async def test_bad_token_at_hello_closes(live: LiveServer) -> None:
    code = await make_room(live, seats=2)
    client = Client(live.ws_url, code, "forged")
    await client.connect()
    err = await client.wait_frame(lambda f: f["type"] == "error")
    assert err["code"] == "bad_token"
    await client.wait(lambda c: c.closed is not None)
    assert client.closed is not None and client.closed[0] == 4001
    await client.close()


async def test_unknown_room_closes(live: LiveServer) -> None:
    client = Client(live.ws_url, "NOROOM", None)
    await client.connect()
    await client.wait(lambda c: c.closed is not None)
    assert client.errors()[0]["code"] == "room_closed"
    assert client.closed is not None and client.closed[0] == 4004


async def test_actions_before_hello(live: LiveServer) -> None:
    code = await make_room(live, seats=2)
    a = await join(live, code, "A")
    client = Client(live.ws_url, code, a["token"])
    await client.connect(hello=False)
    try:
        await client.act("flip", flip_id=0)
        err = await client.wait_frame(lambda f: f["type"] == "error")
        assert err["code"] == "bad_message"
    finally:
        await client.close()


async def test_flood_is_closed_with_1008(live: LiveServer) -> None:
    ca, cb = await two_players(live)
    try:
        for _ in range(80):
            if ca.closed is not None:
                break
            try:
                await ca.act("slap", flip_id=0, reaction_ms=100.0)
            except Exception:
                break
        await ca.wait(lambda c: c.closed is not None)
        assert ca.closed is not None and ca.closed[0] == 1008
        assert any(e["code"] == "rate_limited" for e in ca.errors())
        # the room plays on: A reconnects with the token, B still sees updates
        again = Client(ca.url.rsplit("/ws/", 1)[0], ca.url.rsplit("/", 1)[1], ca.token)
        await again.connect()
        await again.wait(lambda c: c.view is not None and c.view["seat"] == 0)
        await again.act("flip", flip_id=again.view["flip_id"] if again.view else 0)
        await cb.wait(lambda c: c.view is not None and c.view["flips"] >= 1)
        await again.close()
    finally:
        await ca.close()
        await cb.close()


# -------------------------------------------------------------- fuzz

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
types = st.sampled_from(["hello", "flip", "slap", "call", "pong", "rematch", "leave", "start", "x"])
fields = st.fixed_dictionaries(
    {"type": types},
    optional={
        "v": st.sampled_from([1, 2, "1", None, 1.0]),
        "token": st.text(max_size=30) | st.none() | st.integers(),
        "flip_id": st.integers(-5, 10**7) | st.text(max_size=4) | st.floats(),
        "reaction_ms": st.floats() | st.integers() | st.text(max_size=4),
        "shown_at": st.floats(),
        "input_at": st.floats(),
        "call": json_values,
        "id": st.integers(-3, 10**20),
        "client_time": st.floats(),
        "lang": json_values,
        "junk": json_values,
    },
)
frames = (
    fields.map(json.dumps)
    | json_values.map(json.dumps)
    | st.text(max_size=200)
    | st.binary(max_size=64).map(lambda b: b.decode("latin-1"))
)


@settings(
    max_examples=40,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=st.lists(frames, min_size=1, max_size=8))
def test_fuzzed_frames_never_change_the_game(live: LiveServer, batch: list[str]) -> None:
    """Frames from a spectator and from a seat without its token: whatever they
    hold, the game state stays as it was and the room still answers."""

    async def run() -> None:
        code = await make_room(live, seats=2, timing={"turn_ms": 60000.0})
        a = await join(live, code, "A")
        b = await join(live, code, "B")
        owner = Client(live.ws_url, code, a["token"])
        spectator = Client(live.ws_url, code, None)
        player = Client(live.ws_url, code, b["token"])
        await owner.connect()
        await player.connect()
        await spectator.connect()
        try:
            await player.wait(lambda c: c.view is not None, timeout=5)
            await spectator.wait(lambda c: c.view is not None, timeout=5)
            before = player.view
            for frame in batch:
                await spectator.send_raw(frame)
                # the player's socket: never its own token, so nothing is accepted
                await player.send_raw(frame.replace(str(b["token"]), "x"))
            # a valid round trip proves the room is alive and has seen every frame
            await player.send({"type": "call", "token": b["token"], "flip_id": 99})
            await player.wait_frame(
                lambda f: f["type"] == "error" and f["code"] in ("stale_flip",), timeout=10
            )
            after = player.view
            assert after is not None and before is not None
            assert after["version"] == before["version"]
            assert after["stacks"] == before["stacks"] and after["flips"] == before["flips"]
        finally:
            await spectator.close()
            await player.close()
            await owner.close()

    asyncio.run(run())


# -------------------------------------------------------------- strictness, ids


@pytest.mark.parametrize(
    ("frame", "where"),
    [
        ('{"v": true, "type": "flip", "token": "T", "flip_id": 0}', "v"),
        ('{"v": 1.0, "type": "flip", "token": "T", "flip_id": 0}', "v"),
        ('{"v": "1", "type": "flip", "token": "T", "flip_id": 0}', "v"),
        ('{"v": 1, "type": "flip", "token": "T", "flip_id": 0.0}', "flip_id"),
        ('{"v": 1, "type": "flip", "token": "T", "flip_id": false}', "flip_id"),
        ('{"v": 1, "type": "slap", "token": "T", "flip_id": 0, "reaction_ms": "5"}', "reaction_ms"),
        (
            '{"v": 1, "type": "slap", "token": "T", "flip_id": 0, "reaction_ms": 5, "call": "true"}',
            "call",
        ),
        (
            '{"v": 1, "type": "slap", "token": "T", "flip_id": 0, "reaction_ms": 5, "call": 1}',
            "call",
        ),
        (
            '{"v": 1, "type": "slap", "token": "T", "flip_id": 0, "reaction_ms": true}',
            "reaction_ms",
        ),
        (
            '{"v": 1, "type": "slap", "token": "T", "flip_id": 0, "reaction_ms": 5, "shown_at": "1"}',
            "shown_at",
        ),
        ('{"v": 1, "type": "pong", "id": "1", "client_time": 0}', "id"),
        ('{"v": 1, "type": "pong", "id": 1, "client_time": "0"}', "client_time"),
        ('{"v": 1, "type": "flip", "token": 5, "flip_id": 0}', "token"),
        ('{"v": 1, "type": "flip", "token": "a b", "flip_id": 0}', "token"),
        ('{"v": 1, "type": "flip", "token": "T", "flip_id": 0, "id": true}', "id"),
        ('{"v": 1, "type": "flip", "token": "T", "flip_id": 0, "id": 1.5}', "id"),
        ('{"v": 1, "type": "flip", "token": "T", "flip_id": 0, "id": "with space"}', "id"),
        ('{"v": 1, "type": "flip", "token": "T", "flip_id": 0, "id": -1}', "id"),
        (
            '{"v": 1, "type": "flip", "token": "T", "flip_id": 0, "id": ' + '"' + "x" * 33 + '"}',
            "id",
        ),
    ],
)
async def test_no_field_is_coerced(live: LiveServer, frame: str, where: str) -> None:
    """Every field strict: a near miss is a typed ``bad_message`` naming the
    field, and nothing happens (the token is the seat's own, so only the type
    stops it)."""
    ca, cb = await two_players(live)
    try:
        before = version(ca)
        await ca.send_raw(frame.replace('"T"', json.dumps(ca.token)))
        err = await expect_error(ca, "bad_message")
        assert where in err["message"], err
        assert version(ca) == before
        await ca.act("flip", flip_id=0)
        await ca.wait(lambda c: c.view is not None and c.view["flips"] == 1)
    finally:
        await ca.close()
        await cb.close()


async def answer(client: Client, frame: str | dict[str, Any]) -> dict[str, Any]:
    """Send ``frame`` and return the next error frame after it."""
    start = len(client.frames)
    if isinstance(frame, str):
        await client.send_raw(frame)
    else:
        await client.send(frame)
    return await client.wait_frame(lambda f: f["type"] == "error", timeout=5, start=start)


async def test_error_frames_carry_the_id_they_answer(live: LiveServer) -> None:
    ca, cb = await two_players(live)
    try:
        flip = {"type": "flip", "token": ca.token}
        err = await answer(ca, {**flip, "flip_id": 7, "id": "f-1"})  # refused by the room
        assert (err["code"], err["id"]) == ("stale_flip", "f-1")
        err = await answer(cb, {"type": "flip", "token": cb.token, "flip_id": 0, "id": 41})
        assert (err["code"], err["id"]) == ("not_your_turn", 41)
        err = await answer(ca, '{"v": 1, "type": "flip", "token": 5, "flip_id": 0, "id": 9}')
        assert (err["code"], err["id"]) == ("bad_message", 9)  # refused at the edge
        err = await answer(ca, '{"v": 1, "type": "dance", "id": "x:2"}')
        assert (err["code"], err["id"]) == ("bad_message", "x:2")
        err = await answer(ca, '{"v": 1, "type": "flip", "id": true}')
        assert (err["code"], err["id"]) == ("bad_message", None)  # a bad id is not echoed
        err = await answer(ca, "{broken")
        assert (err["code"], err["id"]) == ("bad_json", None)
        err = await answer(ca, {**flip, "flip_id": 9})
        assert (err["code"], err["id"]) == ("stale_flip", None)  # no id: null
    finally:
        await ca.close()
        await cb.close()


async def test_hello_answers_with_its_id(live: LiveServer) -> None:
    code = await make_room(live, seats=2)
    a = await join(live, code, "A")
    client = Client(live.ws_url, code, a["token"])
    await client.connect(hello=False)
    try:
        await client.send({"type": "hello", "token": a["token"], "id": "h1"})
        welcome = await client.wait_frame(lambda f: f["type"] == "welcome")
        assert welcome["id"] == "h1" and welcome["seat"] == 0
        await client.send({"type": "hello", "token": a["token"], "id": 2})
        assert (await expect_error(client, "bad_message"))["id"] == 2
    finally:
        await client.close()


@pytest.mark.parametrize("playing", [False, True])
async def test_leave_gives_a_fresh_spectator_welcome(live: LiveServer, playing: bool) -> None:
    code = await make_room(live, seats=2 if playing else 3)
    a, b = await join(live, code, "A"), await join(live, code, "B")
    ca, cb = Client(live.ws_url, code, a["token"]), Client(live.ws_url, code, b["token"])
    await ca.connect()
    await cb.connect()
    try:
        if playing:
            await ca.wait(lambda c: c.view is not None)
        else:
            await ca.wait(lambda c: bool(c.updates))
        start = len(ca.frames)
        await ca.act("leave", id="bye")
        welcome = await ca.wait_frame(lambda f: f["type"] == "welcome", start=start)
        assert welcome["seat"] is None and welcome["name"] is None and welcome["id"] == "bye"
        seats = welcome["room"]["seats"]
        if playing:
            assert seats[0]["name"] == "A" and seats[0]["bot"] == "casual"
        else:
            assert seats[0]["name"] is None
        after = ca.frames.index(welcome)
        update = await ca.wait_frame(lambda f: f["type"] == "update", start=after)
        if playing:
            assert update["view"]["seat"] is None
        # the old token is spent: acting now is a spectator's error
        await ca.act("flip", flip_id=0, id=3)
        assert (await expect_error(ca, "spectator"))["id"] == 3
    finally:
        await ca.close()
        await cb.close()
