"""The web server: lobby and history over HTTP, the game over WebSockets.

``create_app()`` assembles the FastAPI application from the routers of
:mod:`.routes` (one per resource); ``slapjack serve`` runs it on uvicorn.
See docs/protocol.md for every route and message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from slapjack.store import open_store
from slapjack.store.base import Store

from .clustering import Member
from .connection import Limits
from .invite import check_public_url
from .lobby import Lobby
from .metrics import METRICS
from .referee import referee_factory
from .room import RoomTiming
from .routes import cluster, games, info, pages, play, practice, rooms, testhooks
from .routes.context import ServerContext, error

log = logging.getLogger(__name__)

HTTP_CODES: Final = {
    400: "bad_json",
    404: "not_found",
    405: "method_not_allowed",
    500: "internal_error",
}
"""The ``code`` of an HTTP error the framework raises (not one of the game's
own): FastAPI's only 400 is a body it could not parse; any other status
becomes ``http_<status>``."""


class _QuietBadUtf8(logging.Filter):
    """uvicorn logs an ERROR with a traceback for every text frame that is not
    UTF-8 (it closes that socket with 1007 before the app sees the frame): a
    log flood anyone can cause. This filter on ``uvicorn.error`` counts them
    (``/api/metrics`` ``counts.bad_utf8``) and lets at most one line through
    every ``every_s`` seconds, as a warning without the traceback."""

    MESSAGE: Final = "Invalid UTF-8 sequence received from client."

    def __init__(self, every_s: float = 60.0) -> None:
        super().__init__()
        self.every_s = every_s
        self._last = -float("inf")
        self._since = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != self.MESSAGE:
            return True
        METRICS.count("bad_utf8")
        self._since += 1
        now = time.monotonic()
        if now - self._last < self.every_s:
            return False
        self._last = now
        record.msg = (
            "invalid UTF-8 in a text frame: socket closed with 1007 "
            "(%d such frame(s) since the last line like this)"
        )
        record.args = (self._since,)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = None
        record.exc_text = None
        self._since = 0
        return True


BAD_UTF8_FILTER: Final = _QuietBadUtf8()


def _validation_error(exc: RequestValidationError) -> JSONResponse:
    """A request that did not validate: 400 for a body that is not JSON (malformed,
    too deeply nested, or not sent as JSON), else 422; ``bad_name`` for a refused name."""
    errors = exc.errors()
    first = errors[0] if errors else {}
    kind = first.get("type", "")
    loc = tuple(first.get("loc", ()))
    if kind == "json_invalid":
        detail = (first.get("ctx") or {}).get("error") or first.get("msg", "")
        return error(400, "bad_json", f"the body is not valid JSON: {detail}")
    if loc == ("body",) and isinstance(first.get("input"), bytes | bytearray):
        return error(400, "bad_content_type", "the body must be JSON (application/json)")
    where = ".".join(str(p) for p in loc if p != "body")
    code = kind if kind in ("bad_name",) else "bad_request"
    return error(422, code, f"{where}: {first.get('msg', 'invalid')}".strip(": "))


METHODS: Final = ("GET", "POST", "PUT", "PATCH", "DELETE")
"""The methods an ``Allow`` header may name (the app serves no others)."""


def _allowed(app: FastAPI, request: Request) -> str:
    """The ``Allow`` header of a 405: the methods of every route of this path
    (Starlette names only the first route's, so ``/api/rooms`` said ``GET``
    without its ``POST``)."""
    routes = app.router.routes
    return ", ".join(
        method
        for method in METHODS
        if any(r.matches({**request.scope, "method": method})[0] is Match.FULL for r in routes)
    )


def create_app(
    *,
    data_dir: str | Path = "data",
    database_url: str | None = None,
    referee: str | None = None,
    store: Store | None = None,
    timing: RoomTiming | None = None,
    test_hooks: bool | None = None,
    static_dir: Path | None = None,
    write_ahead: bool = True,
    transport_rtt: bool = True,
    floor_ms: float | None = None,
    resolution_ms: float | None = None,
    limits: Limits | None = None,
    clock: Callable[[], float] | None = None,
    public_url: str | None = None,
    redis_url: str | None = None,
    node_id: str | None = None,
    node_url: str | None = None,
    cluster_prefix: str = "slapjack",
    heartbeat_s: float | None = None,
    node_ttl_s: float | None = None,
) -> FastAPI:
    """The application. ``store`` (else ``database_url``/``data_dir``) keeps the
    records; ``referee`` is ``fair``/``arrival`` (``None``: the default);
    ``timing`` sets room timers; ``test_hooks`` enables ``/api/test/rooms``
    (also with the environment variable ``SLAPJACK_TEST_HOOKS=1``).
    ``write_ahead``: a room stores each input's actions before sending its
    frames (a restart shows exactly what players saw); ``False`` sends first
    and stores right after (lower latency; a ``kill -9`` may lose the last
    few milliseconds of play). ``transport_rtt``: read the kernel's round-trip
    estimate of each client's connection (``TCP_INFO``, see :func:`tcp_rtt`) for
    the fair referee; ``False`` leaves the referee to the clock-sync pings alone.
    ``floor_ms``, ``resolution_ms``: the fair referee's anticipation floor and
    tie resolution (``None``: its defaults; ``ValueError`` when out of range).
    ``limits``: what one client may ask (:class:`Limits`; ``None``: the defaults).
    ``clock``: the rooms' clock in ms (``None``: the monotonic clock); with the
    test hooks, a :class:`~.routes.testhooks.HandClock` lets ``/api/test/rooms/{code}/run`` play a
    room's game deadline by deadline. ``public_url``: the address invite links
    use (``http(s)://host[:port]``; ``None``: the address each request came to;
    :class:`~.invite.PublicUrlError` when malformed).

    ``redis_url``: run as a node of a cluster (docs/deploy.md) with the id
    ``node_id`` at ``node_url`` (the address clients reach this node at),
    its Redis keys under ``cluster_prefix``; ``heartbeat_s`` and
    ``node_ttl_s`` override the heartbeat period and the silence after
    which a node counts as dead (tests)."""
    factory = referee_factory(referee, floor_ms=floor_ms, resolution_ms=resolution_ms)
    hooks = test_hooks if test_hooks is not None else os.environ.get(testhooks.ENV) == "1"
    static = static_dir or pages.STATIC_DIR
    ctx = ServerContext(
        limits=limits or Limits(),
        static=static,
        transport_rtt=transport_rtt,
        clock=clock,
        public_url=check_public_url(public_url) if public_url is not None else None,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own = store is None
        st = store if store is not None else await open_store(database_url, data_dir)
        lobby = Lobby(
            st,
            factory,
            timing=timing,
            clock=clock,
            write_ahead=write_ahead,
            max_rooms=ctx.limits.max_rooms,
            empty_room_s=ctx.limits.empty_room_s,
        )
        ctx.lobby = lobby
        app.state.lobby = lobby
        member: Member | None = None
        if redis_url is not None:
            member = Member(
                lobby,
                st,
                redis_url,
                node_id or "node",
                node_url or public_url or "http://127.0.0.1:8000",
                prefix=cluster_prefix,
                interval_s=heartbeat_s,
                ttl_s=node_ttl_s,
            )
            ctx.member = member
        logging.getLogger("uvicorn.error").addFilter(BAD_UTF8_FILTER)
        lobby.start()
        watcher = asyncio.create_task(METRICS.watch_loop())
        METRICS.watch_gc()
        if member is not None:
            await member.start()
        resumed = await lobby.resume()
        if resumed:
            log.info("resumed %d live room(s)", resumed)
        try:
            yield
        finally:
            watcher.cancel()
            if member is not None:
                await member.drain()
            await lobby.shutdown()
            if member is not None:
                await member.close()
            await ctx.close()
            if own:
                await st.close()

    app = FastAPI(title="Slapjack", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.ctx = ctx

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _validation_error(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = _allowed(app, request)
        return error(exc.status_code, code, message, headers)

    @app.exception_handler(Exception)
    async def _server_error(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed: %r", request.method, request.url.path, exc)
        return error(500, "internal_error", "the server failed on this request (it is logged)")

    for module in (pages, rooms, games, info, play, practice, cluster):
        app.include_router(module.router)
    if hooks:
        app.include_router(testhooks.router)
    if static.is_dir():
        app.mount("/static", StaticFiles(directory=static), name="static")
    return app
