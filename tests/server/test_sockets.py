"""The game socket's edge (:mod:`slapjack.server.sockets`): what a socket
leaves behind when its player goes.

The server runs the collector on its own schedule (:mod:`slapjack.server.heap`):
what a player holds while connected is frozen, and freed by reference counting
when the player goes, unless it is part of a reference cycle: then it waits
for a full collection, which walks the whole heap (most of a second at 8,000
players). So a socket that ends, and a room that closes, must leave no cycle.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from slapjack.server import sockets
from slapjack.server.settings import RoomTiming
from slapjack.server.wsframes import FrameSplitter

from .conftest import FAST, Client, LiveServer, join, make_room, start_server

SERVER_SIDE = ("slapjack.", "uvicorn.protocols.websockets", "websockets.server")
"""Modules whose objects belong to the server's side of a game socket (the
test's own clients, in the same process, use websockets' client)."""
SERVER_CODE = ("serve_socket", "inline_frames", "direct_writer", "Room", "Actor", "Conn")


@pytest.fixture
def no_auto_gc() -> Iterator[None]:
    """The automatic collector off (as in ``slapjack serve``), so that a cycle
    stays garbage until the test looks for it."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
        gc.collect()


def server_garbage() -> Counter[str]:
    """What a full collection finds unreachable, of the server's side."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found: Counter[str] = Counter()
        for obj in gc.garbage:
            kind = type(obj)
            name = f"{kind.__module__}.{kind.__qualname__}"
            code = getattr(obj, "__qualname__", None)
            if not isinstance(code, str):
                code = getattr(getattr(obj, "__func__", None), "__qualname__", "")
            if name.startswith(SERVER_SIDE):
                found[name] += 1
            elif isinstance(code, str) and code.startswith(SERVER_CODE):
                found[f"{name} {code}"] += 1
        return found
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def splitter_in(proto: Any) -> bool:
    """Is a :class:`~slapjack.server.wsframes.FrameSplitter` in front of this
    uvicorn protocol object's parser?"""
    bound = vars(proto.conn).get("receive_data")
    return isinstance(getattr(bound, "__self__", None), FrameSplitter)


async def reads_past_websockets(clients: list[Client], protos: list[Any]) -> Counter[int]:
    """Every client sends a frame (a pong no ping asked for: dropped); how
    often uvicorn asked websockets for events while each socket's frame came
    (by ``id`` of the protocol object), once every splitter has cut its out."""
    asked: Counter[int] = Counter()
    usual = WebSocketsSansIOProtocol.handle_events

    def counting(self: WebSocketsSansIOProtocol) -> None:
        asked[id(self)] += 1
        usual(self)

    splitters = [vars(p.conn)["receive_data"].__self__ for p in protos if splitter_in(p)]
    cut = [s.cut for s in splitters]
    WebSocketsSansIOProtocol.handle_events = counting  # type: ignore[method-assign]
    try:
        for c in clients:
            await c.send({"type": "pong", "id": 10**6, "client_time": 1.0})
        await wait_until(lambda: all(s.cut > n for s, n in zip(splitters, cut, strict=True)))
        await asyncio.sleep(0.2)  # (the other, parsed by websockets)
    finally:
        WebSocketsSansIOProtocol.handle_events = usual  # type: ignore[method-assign]
    return asked


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    server = start_server(None, tmp_path, timing=RoomTiming(**FAST, idle_close_ms=300.0))
    yield server
    server.stop()


async def wait_until(pred: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not pred():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_player_who_leaves_and_a_closed_room_leave_no_cycles(
    live: LiveServer, no_auto_gc: None
) -> None:
    lobby = live.app.state.ctx.lobby
    code = await make_room(live, seats=2, timing={"idle_close_ms": 300.0})
    seats = [await join(live, code, name) for name in ("Ana", "Ben")]
    # one with permessage-deflate, one without (its frames are cut out before
    # websockets' parser: wsframes.FrameSplitter)
    clients = [
        await Client(live.ws_url, code, s["token"]).connect(compression=compression)
        for s, compression in zip(seats, ("deflate", None), strict=True)
    ]
    for c in clients:
        await c.wait(lambda c: c.view is not None and not c.view["race_open"])
    view = clients[0].view
    assert view is not None
    turn = clients[view["turn"]]
    # the game's state moves (its record, the referee's)
    await turn.act("flip", flip_id=view["flip_id"])
    for c in clients:
        await c.wait(lambda c: c.view is not None and c.view["flip_id"] > view["flip_id"])
    room = lobby.rooms[code]
    protos = [sockets._sansio(conn.ws) for conn in room.conns]
    # the one without deflate has its frames cut out before websockets' parser,
    # and the event loop hands its reads to the splitter before uvicorn's
    # data_received (which would then ask websockets for its events)
    assert sorted(splitter_in(p) for p in protos) == [False, True]
    events = await reads_past_websockets(clients, protos)
    assert [events[id(p)] > 0 for p in protos] == [not splitter_in(p) for p in protos]
    held = [weakref.ref(obj) for obj in [*room.conns, *protos]]
    assert len(held) == 4
    del protos
    for c in clients:
        await c.close()
    conns = room.conns  # (the set, not the room: the test holds no reference to it)
    await wait_until(lambda: not conns)
    await asyncio.sleep(0.3)  # the sockets' tasks end after the room is told
    left = server_garbage()
    assert not left, f"a socket that ended left cycles: {dict(left)}"
    assert [ref() for ref in held] == [None] * 4  # freed by reference counting
    closed = weakref.ref(room)
    del room
    await wait_until(lambda: code not in lobby.rooms)
    await asyncio.sleep(0.3)  # the room's task ends after its close is stored
    left = server_garbage()
    assert not left, f"a room that closed left cycles: {dict(left)}"
    assert closed() is None  # freed by reference counting
