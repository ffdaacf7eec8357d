"""``slapjack serve --ws picows`` (:mod:`slapjack.server.picows_front`): the
same server to a client as uvicorn's websockets-sansio protocol (the default).

Over raw TCP sockets, two servers with the same app side by side: every
hostile frame gets the same close code, every other frame the same replies
and the same texts to the app, with and without the inline handler; the
handshake's refusals are the same. Then the game itself: whole games, bad
input, the limits and the not-reading check of ``test_play``,
``test_bad_input`` and ``test_limits``, run here against a server whose
WebSockets are picows' (the ``live`` fixture below and :func:`picows_config`).
"""

from __future__ import annotations

import asyncio
import base64
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from slapjack.commands.serve import server_config
from slapjack.server.picows_front import PicowsFront
from slapjack.server.sockets import _ws_protocol, direct_writer, inline_frames

from . import conftest
from .conftest import LiveServer, free_port
from .test_inline_frames import END, Client, frames_of, seen
from .test_wsframes import BAD, CLOSES, OTHER, PONG, raw, text

# ---------------------------------------------------------------- frames, side by side

UvicornConfig = uvicorn.Config
"""uvicorn's own (the fixtures below put :class:`PicowsConfig` in its place)."""


async def endpoint(ws: WebSocket) -> None:
    """``test_inline_frames``' app, under either protocol."""
    await ws.accept()
    key = ws.query_params["id"]
    got = seen.setdefault(key, [])
    if ws.query_params.get("inline") == "1":

        def on_text(text: str) -> bool:
            if text == "queue me" or text.startswith("close"):
                return False
            got.append(("inline", text))
            return True

        assert inline_frames(ws, on_text)
    await ws.send_text("ready")
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        got.append(("queue", message.get("text") or repr(message.get("bytes"))))
        if message.get("text") == "close 4003":
            await ws.close(4003)


def run_server(ws: Any) -> tuple[uvicorn.Server, threading.Thread, int]:
    port = free_port()
    config = UvicornConfig(
        Starlette(routes=[WebSocketRoute("/ws", endpoint)]),
        host="127.0.0.1",
        port=port,
        log_level="critical",
        ws=ws,
        ws_max_size=65536,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.02)
    return server, thread, port


@pytest.fixture(scope="module")
def ports() -> Iterator[dict[str, int]]:
    """Two servers, one app: ``sansio`` (uvicorn's default) and ``picows``."""
    running = {"sansio": run_server("websockets-sansio"), "picows": run_server(PicowsFront)}
    yield {name: port for name, (_, _, port) in running.items()}
    for server, thread, _ in running.values():
        server.should_exit = True
        thread.join(10)


counter = [0]


async def talk(port: int, writes: list[bytes], inline: bool) -> dict[str, Any]:
    """Open a socket, write ``writes`` (one write each, 30 ms apart), read to
    the end: the server's frames after ``ready``, its close code, what the app got."""
    counter[0] += 1
    key = f"pw{counter[0]}-{int(inline)}"
    _, client = await asyncio.get_running_loop().create_connection(Client, "127.0.0.1", port)
    nonce = base64.b64encode(os.urandom(16)).decode()
    client.transport.write(
        (
            f"GET /ws?id={key}&inline={int(inline)} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    ready = b"\r\n\r\n\x81\x05ready"
    await client.until(ready)
    assert client.data.startswith(b"HTTP/1.1 101")
    del client.data[: client.data.index(ready) + len(ready)]
    for data in writes:
        if client.lost.done():
            break
        client.transport.write(data)
        await asyncio.sleep(0.03)
    try:
        await asyncio.wait_for(asyncio.shield(client.lost), 5.0)
    finally:
        client.transport.close()
    frames = frames_of(bytes(client.data))
    closes = [payload for op, payload in frames if op == 8]
    code = int.from_bytes(closes[0][:2], "big") if closes and len(closes[0]) >= 2 else None
    await asyncio.sleep(0.05)
    got = seen.pop(key, [])
    return {
        "frames": [(op, payload) for op, payload in frames if op != 8],
        "closes": len(closes),
        "code": code,
        "texts": [t for _, t in got],
        "ways": [w for w, _ in got],
    }


async def same(ports: dict[str, int], writes: list[bytes]) -> dict[str, Any]:
    """The same writes to both servers, with and without the inline handler:
    the same close code, frames and texts; picows' answer."""
    answers = {}
    for inline in (False, True):
        plain = await talk(ports["sansio"], writes, inline)
        ours = await talk(ports["picows"], writes, inline)
        for field in ("code", "frames", "texts", "closes"):
            assert ours[field] == plain[field], (field, inline, ours, plain)
        answers[inline] = ours
    return answers[True]


LONG_FORMS = {"text in a 64-bit length"}
"""Frames websockets accepts and picows refuses (1002): a length not in its
shortest form (RFC 6455 5.2: "the minimal number of bytes MUST be used")."""


@pytest.mark.parametrize("name", list(BAD))
async def test_bad_frames_get_the_same_close_code(ports: dict[str, int], name: str) -> None:
    frame, code = BAD[name]
    got = await same(ports, [text(PONG), text(PONG), frame, text(PONG), END])
    assert got["code"] == code
    assert got["texts"] == [PONG.decode()] * 2
    # in one read with frames before and after it: the same close code
    for inline in (False, True):
        ours = await talk(ports["picows"], [text(PONG) + frame + text(PONG)], inline)
        assert ours["code"] == code


async def test_bad_utf8_is_1007(ports: dict[str, int]) -> None:
    got = await same(ports, [text(PONG), text(b"\xff\xfe"), text(PONG), END])
    assert got["code"] == 1007
    assert got["texts"] == [PONG.decode()]
    got = await same(ports, [raw(1, b"\xc3", fin=False) + raw(0, b"\x28"), END])
    assert got["code"] == 1007


@pytest.mark.parametrize("name", sorted(set(OTHER) - LONG_FORMS))
async def test_other_frames_as_under_uvicorn(ports: dict[str, int], name: str) -> None:
    got = await same(ports, [text(PONG), OTHER[name], text(PONG), text("queue me"), END])
    assert got["code"] == 1000
    if name.startswith("ping"):
        assert got["frames"][-1][0] == 10  # the ping answered


@pytest.mark.parametrize("name", sorted(LONG_FORMS))
async def test_a_length_not_in_its_shortest_form_is_1002(ports: dict[str, int], name: str) -> None:
    got = await talk(ports["picows"], [text(PONG), OTHER[name], text(PONG), END], True)
    assert got["code"] == 1002
    assert got["texts"] == [PONG.decode()]


@pytest.mark.parametrize(
    "name, frames",
    [
        ("a message of 65,536 bytes in frames", [b"m" * 40000, b"m" * 25536]),
        ("one byte over", [b"m" * 40000, b"m" * 25537]),
        ("binary over", [b"b" * 65536, b"b"]),
    ],
)
async def test_a_fragmented_message_is_limited_as_a_whole(
    ports: dict[str, int], name: str, frames: list[bytes]
) -> None:
    opcode = 2 if name.startswith("binary") else 1
    stream = raw(opcode, frames[0], fin=False) + b"".join(
        raw(0, part, fin=i == len(frames) - 2) for i, part in enumerate(frames[1:])
    )
    got = await same(ports, [stream, text(PONG), END])
    assert got["code"] == (1000 if name.startswith("a message") else 1009)


@pytest.mark.parametrize("name", list(CLOSES))
async def test_client_closes_are_echoed(ports: dict[str, int], name: str) -> None:
    got = await same(ports, [text(PONG), CLOSES[name], text(PONG)])
    assert got["texts"] == [PONG.decode()]
    assert got["closes"] == 1


@pytest.mark.parametrize("code", [1004, 1005, 1006, 1015, 2999, 5000, 65535, 0])
async def test_close_codes_no_client_may_send_are_1002(ports: dict[str, int], code: int) -> None:
    got = await same(ports, [text(PONG), raw(8, code.to_bytes(2, "big")), END])
    assert got["code"] == 1002


async def test_frames_keep_their_order_across_both_ways(ports: dict[str, int]) -> None:
    stream = text("queue me") + b"".join(text(f"n{i}") for i in range(5)) + raw(2, b"b") + text("x")
    got = await same(ports, [stream, text("close 4003"), END])
    assert got["code"] == 4003
    assert got["ways"] == ["queue"] * 9
    assert got["texts"] == ["queue me", *(f"n{i}" for i in range(5)), "b'b'", "x", "close 4003"]


async def handshake(port: int, head: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head.encode())
    try:
        data = await asyncio.wait_for(reader.read(4096), 5.0)
    finally:
        writer.close()
    return data


@pytest.mark.parametrize(
    "head, status",
    [
        (
            "GET /nowhere HTTP/1.1\r\n{ws}Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n",
            403,
        ),
        (
            "GET /ws?id=h HTTP/1.1\r\n{ws}Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 8\r\n\r\n",
            400,
        ),
        (
            "GET /ws?id=h HTTP/1.1\r\n{ws}Sec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n",
            400,
        ),
        ("GET /ws?id=h HTTP/1.1\r\n{ws}Sec-WebSocket-Version: 13\r\n\r\n", 400),
    ],
)
async def test_refused_handshakes_get_the_same_status(
    ports: dict[str, int], head: str, status: int
) -> None:
    key = base64.b64encode(os.urandom(16)).decode()
    request = head.format(
        ws="Host: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n", key=key
    )
    for port in ports.values():
        data = await handshake(port, request)
        assert data.startswith(f"HTTP/1.1 {status} ".encode()), data


# ---------------------------------------------------------------- the game over picows


class PicowsConfig(UvicornConfig):
    """``uvicorn.Config`` with picows' WebSockets, whatever ``ws`` says."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        kw["ws"] = PicowsFront
        super().__init__(*args, **kw)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """``conftest.live`` with picows' WebSockets."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(conftest.uvicorn, "Config", PicowsConfig)
        server = conftest.start_server(None, tmp_path_factory.mktemp("picowsdata"))
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def picows_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers a test starts itself (``test_limits``) have picows' WebSockets too."""
    monkeypatch.setattr(conftest.uvicorn, "Config", PicowsConfig)


def test_serve_picows_sets_the_protocol_class() -> None:
    config = server_config(Starlette(), "warning", ws="picows")
    config.load()
    assert config.ws_protocol_class is PicowsFront


async def test_the_live_server_is_picows(live: LiveServer) -> None:
    assert live.server.config.ws_protocol_class is PicowsFront
    seen_protocols: list[Any] = []

    async def probe(ws: WebSocket) -> None:
        await ws.accept()
        seen_protocols.append((type(_ws_protocol(ws)), direct_writer(ws) is not None))
        await ws.close()

    app = Starlette(routes=[WebSocketRoute("/ws", probe)])
    port = free_port()
    server = uvicorn.Server(PicowsConfig(app, host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        await asyncio.sleep(0.02)
    try:
        _, client = await asyncio.get_running_loop().create_connection(Client, "127.0.0.1", port)
        nonce = base64.b64encode(os.urandom(16)).decode()
        client.transport.write(
            (
                "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        await client.until(b"\r\n\r\n\x88\x02\x03\xe8")  # the 101, then the app's close 1000
        client.transport.close()
    finally:
        server.should_exit = True
        thread.join(10)
    assert seen_protocols == [(PicowsFront, True)]


from .test_bad_input import (  # noqa: E402
    test_binary_frame_is_refused,
    test_error_frames_carry_the_id_they_answer,
    test_flood_is_closed_with_1008,
    test_game_errors_change_nothing,
    test_malformed_frames_get_typed_errors,
    test_unknown_room_closes,
)
from .test_limits import (  # noqa: E402
    test_a_frozen_client_may_answer_every_ping_at_once,
    test_a_socket_that_stops_reading_is_closed_with_1013,
    test_invalid_utf8_is_closed_1007_quietly,
    test_one_token_on_many_sockets_shares_one_limit,
    test_pongs_and_hello_do_not_count_as_game_frames,
    test_sockets_per_address,
)
from .test_play import (  # noqa: E402
    test_a_stacked_game_plays_to_the_end,
    test_play_now_and_bots_finish_a_game,
    test_several_rooms_at_once,
    test_spectator_sees_no_seat_and_cannot_act,
)

__all__ = [
    "test_a_frozen_client_may_answer_every_ping_at_once",
    "test_a_socket_that_stops_reading_is_closed_with_1013",
    "test_a_stacked_game_plays_to_the_end",
    "test_binary_frame_is_refused",
    "test_error_frames_carry_the_id_they_answer",
    "test_flood_is_closed_with_1008",
    "test_game_errors_change_nothing",
    "test_invalid_utf8_is_closed_1007_quietly",
    "test_malformed_frames_get_typed_errors",
    "test_one_token_on_many_sockets_shares_one_limit",
    "test_play_now_and_bots_finish_a_game",
    "test_pongs_and_hello_do_not_count_as_game_frames",
    "test_several_rooms_at_once",
    "test_sockets_per_address",
    "test_spectator_sees_no_seat_and_cannot_act",
    "test_unknown_room_closes",
]
