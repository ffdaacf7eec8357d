"""``served``: the ASGI app ``slapjack serve`` runs hands a game socket to the
endpoint past FastAPI's middleware and routers, and everything else to FastAPI."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from slapjack.server.routes.play import _route_path

from .conftest import Client, LiveServer, join, make_room, start_server

FASTAPI_LAYERS = ("Router.__call__", "APIRouter.app", "ServerErrorMiddleware.__call__")


def coroutines(*names: str) -> int:
    """Suspended coroutines of these qualified names, in this process (every
    server of these tests runs in a thread of it)."""
    return sum(
        1
        for obj in gc.get_objects()
        if type(obj).__name__ == "coroutine" and obj.__qualname__ in names
    )


@pytest.fixture(params=[False, True], ids=["served", "fastapi-only"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    live = start_server(None, tmp_path, fastapi_only=request.param)
    yield live, request.param
    live.stop()


async def test_a_game_socket_skips_fastapis_stack(server: tuple[LiveServer, bool]) -> None:
    live, fastapi_only = server
    code = await make_room(live, seats=3)
    seats = [await join(live, code, name) for name in ("A", "B", "C")]
    before = coroutines(*FASTAPI_LAYERS), coroutines("ws_endpoint")
    clients = [await Client(live.ws_url, code, s["token"]).connect() for s in seats]
    try:
        for c in clients:  # each is in the room: its welcome came
            await c.wait_frame(lambda f: f["type"] == "welcome")
        layers, endpoints = coroutines(*FASTAPI_LAYERS), coroutines("ws_endpoint")
    finally:
        for c in clients:
            await c.close()
    assert endpoints - before[1] == 3  # one endpoint per socket either way
    # through FastAPI each socket holds a stack of its layers its whole life; served: none
    assert layers - before[0] == (3 * len(FASTAPI_LAYERS) if fastapi_only else 0)


async def test_what_is_not_a_game_socket_goes_to_fastapi(server: tuple[LiveServer, bool]) -> None:
    live, _ = server
    async with httpx.AsyncClient(base_url=live.url) as http:
        assert (await http.get("/api/rooms")).status_code == 200
        assert (await http.get("/ws/ABCD")).status_code == 404  # a plain GET: no route
    # a socket to a path with no route is refused by FastAPI's router (403)
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(f"{live.ws_url}/ws/ABCD/more"):
            pass
    assert refused.value.response.status_code == 403
    # a game socket to a room that does not exist: accepted, told, closed 4004
    async with websockets.connect(f"{live.ws_url}/ws/NOPE") as ws:
        frame = await asyncio.wait_for(ws.recv(), 5)
        assert '"room_closed"' in str(frame)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4004


@pytest.mark.parametrize(
    ("path", "root", "expected"),
    [
        ("/ws/AB12", "", "/ws/AB12"),
        ("/game/ws/AB12", "/game", "/ws/AB12"),
        ("/gamex/ws/AB12", "/game", "/gamex/ws/AB12"),  # not under the root: as it is
        ("/ws/AB12", "/game", "/ws/AB12"),  # a server that gives the path without its root
        ("/game", "/game", ""),
    ],
)
def test_the_route_path_leaves_the_root_path_out(path: str, root: str, expected: str) -> None:
    assert _route_path({"path": path, "root_path": root}) == expected
