"""Text frames handled in uvicorn's ``data_received`` (:func:`inline_frames`,
with the frame splitter of :mod:`slapjack.server.wsframes`): over a raw TCP
socket, good and bad frames get the same close code, the same replies and
the same texts to the app with it as without it."""

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

from slapjack.server.sockets import _ws_protocol, inline_frames

from .conftest import free_port
from .test_wsframes import BAD, CLOSES, OTHER, PONG, raw, text

seen: dict[str, list[tuple[str, str]]] = {}
"""Per socket (the query's ``id``): the texts its app got, and which way."""


async def endpoint(ws: WebSocket) -> None:
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
        assert _ws_protocol(ws).conn.receive_data.__self__.cut == 0
    await ws.send_text("ready")
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        got.append(("queue", message.get("text") or repr(message.get("bytes"))))
        if message.get("text") == "close 4003":
            await ws.close(4003)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    port = free_port()
    config = uvicorn.Config(
        Starlette(routes=[WebSocketRoute("/ws", endpoint)]),
        host="127.0.0.1",
        port=port,
        log_level="critical",
        ws="websockets-sansio",
        ws_max_size=65536,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)


class Client(asyncio.Protocol):
    """Every byte the server sends, kept even if the connection ends in a reset."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.more = asyncio.Event()
        self.lost = asyncio.get_running_loop().create_future()
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.data += data
        self.more.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.more.set()
        if not self.lost.done():
            self.lost.set_result(None)

    async def until(self, marker: bytes) -> None:
        while marker not in self.data:
            assert not self.lost.done(), bytes(self.data)
            self.more.clear()
            await asyncio.wait_for(self.more.wait(), 5.0)


def frames_of(data: bytes) -> list[tuple[int, bytes]]:
    """The server's (unmasked) frames in ``data``: ``(opcode, payload)``."""
    out = []
    i = 0
    while i + 2 <= len(data):
        n = data[i + 1] & 0x7F
        start = i + 2
        if n == 126:
            n, start = int.from_bytes(data[i + 2 : i + 4], "big"), i + 4
        elif n == 127:
            n, start = int.from_bytes(data[i + 2 : i + 10], "big"), i + 10
        out.append((data[i] & 0x0F, data[start : start + n]))
        i = start + n
    return out


counter = [0]


async def talk(port: int, writes: list[bytes], inline: bool) -> dict[str, Any]:
    """Open a socket, write ``writes`` (one write each, 30 ms apart), read to
    the end: the server's frames after ``ready``, its close code, what the app got."""
    counter[0] += 1
    key = f"{counter[0]}-{int(inline)}"
    _, client = await asyncio.get_running_loop().create_connection(Client, "127.0.0.1", port)
    nonce = base64.b64encode(os.urandom(16)).decode()
    client.transport.write(
        (
            f"GET /ws?id={key}&inline={int(inline)} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    ready = b"\r\n\r\n\x81\x05ready"  # the app has put its inline handler in
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
        "code": code,
        "texts": [t for _, t in got],
        "ways": [w for w, _ in got],
    }


async def both(port: int, writes: list[bytes]) -> dict[str, Any]:
    plain = await talk(port, writes, inline=False)
    inline = await talk(port, writes, inline=True)
    assert inline["code"] == plain["code"]
    assert inline["frames"] == plain["frames"]
    assert inline["texts"] == plain["texts"]
    return plain


END = raw(8, (1000).to_bytes(2, "big"))


@pytest.mark.parametrize("name", list(BAD))
async def test_bad_frames_close_as_without_it(port: int, name: str) -> None:
    frame, code = BAD[name]
    # the bad frame in its own read: the pongs before it reach the app either way
    got = await both(port, [text(PONG), text(PONG), frame, text(PONG), END])
    assert got["code"] == code
    assert got["texts"] == [PONG.decode()] * 2
    # in one read with frames before it: the close code is the same (uvicorn
    # drops the events of a read that ends in a parser error, the splitter
    # has handed its frames on by then)
    plain = await talk(port, [text(PONG) + frame + text(PONG)], inline=False)
    inline = await talk(port, [text(PONG) + frame + text(PONG)], inline=True)
    assert plain["code"] == inline["code"] == code


async def test_bad_utf8_is_1007_either_way(port: int) -> None:
    got = await both(port, [text(PONG), text(b"\xff\xfe"), text(PONG), END])
    assert got["code"] == 1007
    assert got["texts"] == [PONG.decode()]


@pytest.mark.parametrize("name", list(OTHER))
async def test_other_frames_as_without_it(port: int, name: str) -> None:
    got = await both(port, [text(PONG), OTHER[name], text(PONG), text("queue me"), END])
    assert got["code"] == 1000
    if name.startswith("ping"):
        assert got["frames"][-1][0] == 10  # websockets answered the ping


@pytest.mark.parametrize("name", list(CLOSES))
async def test_client_closes_as_without_it(port: int, name: str) -> None:
    got = await both(port, [text(PONG), CLOSES[name], text(PONG)])
    assert got["texts"] == [PONG.decode()]


async def test_frames_keep_their_order_across_both_ways(port: int) -> None:
    """A frame the inline handler declines goes to the queue; the frames after
    it follow it there until the app has read it (nothing overtakes)."""
    stream = text("queue me") + b"".join(text(f"n{i}") for i in range(5)) + raw(2, b"b") + text("x")
    got = await talk(port, [stream, text("close 4003"), END], inline=True)
    assert got["code"] == 4003
    assert got["ways"] == ["queue"] * 9
    assert got["texts"] == ["queue me", *(f"n{i}" for i in range(5)), "b'b'", "x", "close 4003"]
    plain = await talk(port, [stream, text("close 4003"), END], inline=False)
    assert plain["texts"] == got["texts"]
