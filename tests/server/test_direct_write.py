"""Frames written straight onto uvicorn's protocol (:func:`direct_writer`):
the same bytes a client reads as through the ASGI send, in order with the
frames the writer task sends, and queued while the transport is paused."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import uvicorn
import websockets
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from slapjack.server.connection import Conn
from slapjack.server.sockets import _text_header, _ws_protocol, direct_writer, inline_pongs

from .conftest import free_port

SIZES = [0, 1, 125, 126, 127, 65535, 65536, 70000, 3]


def texts(prefix: str) -> list[str]:
    return [(prefix + "é" * n)[: max(n, len(prefix))] for n in SIZES]


@pytest.mark.parametrize(
    ("n", "header"),
    [
        (0, b"\x81\x00"),
        (125, b"\x81\x7d"),
        (126, b"\x81\x7e\x00\x7e"),
        (65535, b"\x81\x7e\xff\xff"),
        (65536, b"\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00"),
    ],
)
def test_text_header(n: int, header: bytes) -> None:
    assert _text_header(n) == header


class Probe:
    """What the test app saw: was the direct path there, how many frames went which way."""

    def __init__(self) -> None:
        self.direct: bool | None = None
        self.direct_sent = 0
        self.queued_sent = 0
        self.tasks: list[bool] = []
        """On demand: was there a writer task after a's, b's (queued), the drain, the close."""


def app(probe: Probe, on_demand: bool) -> Starlette:
    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        conn = Conn(ws)
        direct = direct_writer(ws)
        probe.direct = direct is not None
        if direct is not None:

            def counted(text: str) -> bool:
                ok = direct(text)
                probe.direct_sent += ok
                return ok

            conn.direct = counted
        if on_demand:
            conn.write_on_demand()
        else:
            writer = asyncio.create_task(conn.writer())
        for text in texts("a"):
            conn.send(text)
        probe.tasks.append(conn.writer_task is not None)
        proto = _ws_protocol(ws)
        proto.pause_writing()  # as the transport does over its high-water mark
        for text in texts("b"):
            conn.send(text)
        probe.queued_sent = len(conn._queue)
        probe.tasks.append(conn.writer_task is not None)
        await asyncio.sleep(0.05)
        assert conn.waiting_s() > 0.0  # the not-reading check sees the frames wait
        proto.resume_writing()
        await asyncio.sleep(0.05)
        probe.tasks.append(conn.writer_task is not None)
        for text in texts("c"):
            conn.send(text)
        conn.close(4001, "done")
        probe.tasks.append(conn.writer_task is not None)
        if on_demand:
            assert conn.writer_task is not None
            writer = conn.writer_task
        await writer

    return Starlette(routes=[WebSocketRoute("/ws", endpoint)])


@contextlib.contextmanager
def serve(probe: Probe, on_demand: bool = False, **config: Any) -> Iterator[str]:
    port = free_port()
    config.setdefault("ws", "websockets-sansio")
    server = uvicorn.Server(
        uvicorn.Config(
            app(probe, on_demand), host="127.0.0.1", port=port, log_level="warning", **config
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.02)
    try:
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.asynccontextmanager
async def endpoint_served(endpoint: Any, **config: Any) -> AsyncIterator[str]:
    """``endpoint`` at ``/ws`` under uvicorn's websockets-sansio protocol, in
    this event loop; yields its URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            Starlette(routes=[WebSocketRoute("/ws", endpoint)]),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            ws="websockets-sansio",
            **config,
        )
    )
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.02)
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        server.should_exit = True
        await task


async def read_all(ws: Any) -> list[str]:
    got: list[str] = []
    with contextlib.suppress(websockets.ConnectionClosed):
        async for text in ws:
            got.append(text)
    return got


@pytest.mark.parametrize("on_demand", [False, True])
@pytest.mark.parametrize("deflate", [False, True])
async def test_direct_frames_arrive_whole_and_in_order(deflate: bool, on_demand: bool) -> None:
    probe = Probe()
    with serve(probe, on_demand, ws_per_message_deflate=deflate) as url:
        async with websockets.connect(url, max_size=None) as ws:
            got = await read_all(ws)
            assert ws.close_code == 4001 and ws.close_reason == "done"
    assert got == texts("a") + texts("b") + texts("c")
    assert probe.direct is True
    # a's and c's went straight to the transport, b's waited for the writer task
    assert probe.direct_sent == 2 * len(SIZES)
    assert probe.queued_sent == len(SIZES)
    if on_demand:  # a writer task only while b's waited, and for the close
        assert probe.tasks == [False, True, False, True]


async def test_no_direct_path_under_other_servers() -> None:
    probe = Probe()
    with serve(probe, ws="wsproto") as url:
        async with websockets.connect(url, max_size=None) as ws:
            await read_all(ws)
    assert probe.direct is False


async def test_pongs_answered_inline_skip_the_queue() -> None:
    """A pong that ``answer`` takes never reaches ``ws.receive()``; one it
    declines, and every other frame, arrive there in order."""
    answered: list[tuple[int, float]] = []
    read: list[str] = []

    def answer(ping_id: int, client_time: float) -> bool:
        answered.append((ping_id, client_time))
        return ping_id % 2 == 1

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        assert inline_pongs(ws, answer)
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            read.append(message["text"])
            if message["text"] == "end":
                await ws.close(4002)
                return

    def pong(i: int) -> str:
        return f'{{"v":1,"type":"pong","id":{i},"client_time":{10 * i}}}'

    async with endpoint_served(endpoint) as url, websockets.connect(url) as ws:
        for text in [pong(1), "a", pong(2), pong(3), '{"type":"pong"}', "end"]:
            await ws.send(text)
            await asyncio.sleep(0.02)  # one at a time: nothing waits in the queue
        await read_all(ws)
        assert ws.close_code == 4002
    assert answered == [(1, 10.0), (2, 20.0), (3, 30.0)]
    assert read == ["a", pong(2), '{"type":"pong"}', "end"]


class CountedTransport:
    """uvicorn's transport, counting its writes (everything else passes through)."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


@pytest.mark.parametrize("deflate", [False, True])
async def test_a_ping_that_rides_goes_in_the_same_write_before_the_frame(deflate: bool) -> None:
    """``direct(text, ride)``: what ``ride()`` returns, then the frame, in one
    ``transport.write``, two WebSocket frames as the client reads them;
    ``ride`` is asked only when the frame is written (not while paused)."""
    asked: list[str] = []
    counted: list[CountedTransport] = []

    def ride() -> str | None:
        asked.append("ping")
        return f'{{"type":"ping","id":{len(asked)},"server_time":1.5}}'

    def nothing() -> str | None:
        asked.append("none")
        return None

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        proto = _ws_protocol(ws)
        transport = CountedTransport(proto.transport)
        proto.transport = transport
        counted.append(transport)
        direct = direct_writer(ws)
        assert direct is not None
        assert direct('{"type":"update","seq":1}', ride)
        assert direct('{"type":"update","seq":2}', nothing)
        assert direct('{"type":"update","seq":3}')
        proto.pause_writing()
        assert not direct('{"type":"update","seq":4}', ride)
        proto.resume_writing()
        await ws.close(4003)

    served = endpoint_served(endpoint, ws_per_message_deflate=deflate)
    async with served as url, websockets.connect(url) as ws:
        got = await read_all(ws)
        assert ws.close_code == 4003
    assert got == [
        '{"type":"ping","id":1,"server_time":1.5}',
        '{"type":"update","seq":1}',
        '{"type":"update","seq":2}',
        '{"type":"update","seq":3}',
    ]
    assert asked == ["ping", "none"], "asked only for frames it wrote"
    writes = counted[0].writes
    assert len(writes) >= 3  # (then the close frame)
    first = writes[0]
    if not deflate:
        assert first == (
            _text_header(40)
            + b'{"type":"ping","id":1,"server_time":1.5}'
            + _text_header(25)
            + b'{"type":"update","seq":1}'
        )
    else:  # two compressed frames (RSV1 set), one after the other
        assert first[0] == 0xC1 and first[2 + first[1]] == 0xC1
