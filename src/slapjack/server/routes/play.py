"""``/ws/{code}``: the game itself, one WebSocket per seat or spectator (docs/protocol.md).

The route is FastAPI's like every other; the server itself runs :func:`served`,
which hands a game socket to the same endpoint without FastAPI's stack of
middleware and routers in between: those layers are some twenty suspended
coroutines and their closures for each open socket, its whole life long
(docs/benchmarks.md, "Game sockets past FastAPI's stack")."""

from __future__ import annotations

import re
from typing import Any, Final

from fastapi import APIRouter, FastAPI, WebSocket

from slapjack.cluster import ClusterUnavailable
from slapjack.protocol import CLOSE_MOVED as MOVED_CODE
from slapjack.protocol import ErrorCode, Moved, encode, error_frame

from ..clustering import RETRY_MS, Member, moved
from ..connection import client_key
from ..metrics import METRICS
from ..sockets import CLOSE_FLOOD, serve_socket
from .context import context

router = APIRouter()

CLOSE_NO_ROOM = 4004
CLOSE_MOVED: Final = 4010
"""Close code after a ``moved`` frame (the protocol's ``CLOSE_MOVED``)."""
assert CLOSE_MOVED == MOVED_CODE
"""Close code of a socket to a room that does not exist or has closed."""


@router.websocket("/ws/{code}")
async def ws_endpoint(ws: WebSocket, code: str) -> None:
    ctx = context(ws)
    await ws.accept()
    room = ctx.lobby.get(code)
    if (room is None or room.status == "closed") and ctx.member is not None:
        frame = await _where(ctx.member, code.strip().upper())
        if frame is not None:
            await ws.send_text(encode(frame))
            await ws.close(CLOSE_MOVED, "moved")
            return
    if room is None or room.status == "closed":
        await ws.send_text(error_frame(ErrorCode.ROOM_CLOSED, "no such room"))
        await ws.close(CLOSE_NO_ROOM, "no such room")
        return
    lim = ctx.limits
    key = client_key(ws.client.host if ws.client else None)
    if ctx.sockets[key] >= lim.sockets_per_address:
        METRICS.count("rate_limited:sockets")
        await ws.send_text(
            error_frame(
                ErrorCode.TOO_MANY_SOCKETS,
                f"at most {lim.sockets_per_address} sockets from one address",
            )
        )
        await ws.close(CLOSE_FLOOD, "too many sockets")
        return
    ctx.sockets[key] += 1
    try:
        await serve_socket(
            room,
            ws,
            transport_rtt=ctx.transport_rtt,
            limits=lim,
            tokens=ctx.tokens,
            pinger=ctx.pinger,
        )
    finally:
        ctx.sockets[key] -= 1
        if ctx.sockets[key] <= 0:
            del ctx.sockets[key]


Scope = dict[str, Any]
_GAME_SOCKET: Final = re.compile(r"/ws/([^/]+)")
"""The path of ``ws_endpoint``'s route (a room code: one path segment)."""


def served(app: FastAPI) -> Any:
    """The ASGI application ``slapjack serve`` runs: a WebSocket to
    ``/ws/{code}`` goes straight to :func:`ws_endpoint` (as the route would
    call it: ``scope["app"]`` set, the code from the path), everything else
    (the lobby, the API, the pages, other sockets, the lifespan) to ``app``."""

    async def asgi(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            match = _GAME_SOCKET.fullmatch(_route_path(scope))
            if match is not None:
                code = match.group(1)
                scope["app"] = app
                scope["path_params"] = {"code": code}
                await ws_endpoint(WebSocket(scope, receive, send), code)
                return
        await app(scope, receive, send)

    return asgi


def _route_path(scope: Scope) -> str:
    """The path the routes match: without the ``root_path`` a proxy mounts the app at."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and path[len(root) : len(root) + 1] in ("", "/"):
        return path[len(root) :]
    return path


async def _where(member: Member, code: str) -> Moved | None:
    """The ``moved`` frame for a room this node does not run (``None``: no such room)."""
    try:
        where = await member.locate(code)
        if where is None:
            return None
        if where.node == member.node.node:  # ours, but not running (yet): being rebuilt
            return moved(code, None, "takeover")
        return moved(code, where)
    except ClusterUnavailable:
        return Moved(
            code=code, node=None, url=None, ws=None, retry_ms=RETRY_MS, reason="unavailable"
        )
    except ValueError:  # not a room code at all
        return None
