"""What the routes share: the lobby, the limits, the per-address limiters and the pinger."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from ..clustering import Member
from ..connection import KeyedLimiter, Limits, client_key, per_minute, retry_seconds
from ..lobby import Lobby
from ..metrics import METRICS
from ..pings import Pinger

if TYPE_CHECKING:
    import httpx


def error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The body every refused request gets: ``{"code": ..., "message": ...}``."""
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)


@dataclass
class ServerContext:
    """One app's shared state; ``lobby`` is set when the app starts (its lifespan)."""

    limits: Limits
    static: Path
    transport_rtt: bool = True
    clock: Callable[[], float] | None = None
    public_url: str | None = None
    """The address invite links use (``--public-url``, ``--lan``); ``None``: the
    address each request came to."""
    lobby: Lobby = field(init=False)
    member: Member | None = None
    """This node in the cluster (``--redis-url``); ``None``: a single server."""
    forward_from: str | None = None
    """The local address requests forwarded to other nodes leave from (the
    node's own ``--host`` when it is one address), so that the receiving
    node can tell a cluster peer (``--trusted-proxy``) from a client."""
    _http: httpx.AsyncClient | None = None
    creations: KeyedLimiter = field(init=False)
    joins: KeyedLimiter = field(init=False)
    quick_games: KeyedLimiter = field(init=False)
    tokens: KeyedLimiter = field(init=False)
    sockets: Counter[str] = field(default_factory=Counter)
    """Open WebSockets per client address."""
    pinger: Pinger = field(default_factory=Pinger)
    """Every socket's clock-sync pings, on one timer."""
    practice_timing: dict[str, float] = field(default_factory=dict)
    """Timers a practice room gets instead of its own (``RoomTiming`` fields);
    set only by the test hook ``POST /api/test/practice``, empty otherwise."""

    def __post_init__(self) -> None:
        lim = self.limits
        self.creations = per_minute(lim.create_burst, lim.create_per_minute)
        self.joins = per_minute(lim.join_burst, lim.join_per_minute)
        self.quick_games = per_minute(lim.play_now_burst, lim.play_now_per_minute)
        self.tokens = KeyedLimiter(lim.token_frames_per_second, lim.token_frames_per_second)

    def limited(
        self, conn: HTTPConnection, limiter: KeyedLimiter, what: str
    ) -> JSONResponse | None:
        """``None`` if the client may go on, else its ``429`` with ``Retry-After``."""
        wait = limiter.hit(client_key(conn.client.host if conn.client else None))
        if wait is None:
            return None
        METRICS.count(f"rate_limited:{what}")
        seconds = retry_seconds(wait)
        return error(
            429,
            "rate_limited",
            f"too many {what} requests from your address: try again in {seconds} s",
            {"Retry-After": str(seconds)},
        )

    def http(self) -> httpx.AsyncClient:
        """The client that forwards requests to the node that runs a room."""
        if self._http is None:
            import httpx

            transport = None
            if self.forward_from is not None:
                transport = httpx.AsyncHTTPTransport(local_address=self.forward_from)
            self._http = httpx.AsyncClient(timeout=10.0, transport=transport)
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def node_url(self, conn: HTTPConnection) -> str:
        """This node's own address: its cluster URL, else :meth:`base_url`."""
        if self.member is not None:
            return self.member.node.url
        return self.base_url(conn)

    def base_url(self, conn: HTTPConnection) -> str:
        """The address an invite link starts with, without the trailing slash."""
        return self.public_url or str(conn.base_url).rstrip("/")


def context(conn: HTTPConnection) -> ServerContext:
    """The app's :class:`ServerContext` (a FastAPI dependency for requests and sockets)."""
    ctx: ServerContext = conn.app.state.ctx
    return ctx


Ctx = Annotated[ServerContext, Depends(context)]
"""A route parameter that receives the :class:`ServerContext`."""
