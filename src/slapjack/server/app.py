"""The web server: lobby and history over HTTP, the game over WebSockets.

``create_app()`` builds the FastAPI application; ``slapjack serve`` runs it on
uvicorn. See docs/protocol.md for every route and message.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import ipaddress
import logging
import os
import socket
import time
import unicodedata
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import fields
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Final, Literal

import segno
from fastapi import FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from slapjack.core import SlapjackError, parse_deck
from slapjack.protocol import (
    CLIENT_MESSAGE,
    MAX_FRAME_BYTES,
    NAME_FORM,
    CreateRoom,
    ErrorCode,
    Hello,
    Joined,
    JoinRoom,
    PlayNow,
    Pong,
    RoomCreated,
    RoomPage,
    answer_id,
    error_frame,
    ping_frame,
    refusal,
)
from slapjack.store import SqliteStore, StoreError, open_store
from slapjack.store.base import Store

from .clocksync import TCP_INFO_SIZE, parse_tcp_info
from .connection import (
    CLOSE_NOT_READING,
    Conn,
    KeyedLimiter,
    Limits,
    client_key,
    per_minute,
    retry_seconds,
)
from .lobby import Lobby
from .metrics import METRICS
from .referee import RefereeFactory, TrustingReferee, referee_factory
from .room import Room, RoomError, RoomSetup, RoomTiming

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"
PAGES = {
    "index": "index.html",
    "room": "room.html",
    "party": "party.html",
    "history": "history.html",
    "replay": "replay.html",
    "rules": "rules.html",
}
PING_FIRST_S = 0.25
PING_FIRST_COUNT = 8
"""Clock-sync pings sent quickly after hello (the fair referee needs a few samples)."""
PING_EVERY_S = 1.0
"""Then one a second: the referee's shift tests compare a seat's slaps with its
pings, and a phone's jitter needs many pings for a small forgery to show
(measured in docs/benchmarks.md: a ping every 2 s let a 30 ms forger on a 4G
seat keep its gain twice as long). A ping is a few dozen bytes each way."""
TEST_HOOKS_ENV = "SLAPJACK_TEST_HOOKS"
CLOSE_FLOOD: Final = 1008
"""Close code of a socket that sends too many frames, or one socket too many from its address."""
ABORT_AFTER_S: Final = 2.0
"""A socket closed as not reading whose close frame cannot even be written
after this long is dropped (TCP abort)."""

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


class TestRoom(BaseModel):
    """``POST /api/test/rooms`` (test hooks only): a room with a chosen deck and timing."""

    model_config = ConfigDict(extra="forbid")

    create: CreateRoom = Field(default_factory=CreateRoom)
    deck: list[str] | None = None
    seed: int | None = None
    bot_seed: int | None = None
    timing: dict[str, float | str] = Field(default_factory=dict)
    referee: Literal["fair", "arrival", "trusting"] | None = None


def lookup_name(name: str) -> str:
    """A name to look up (history, stats) in the form names are kept in (NFKC,
    single spaces), so ``Ａｎｎａ`` finds ``Anna``; nothing is refused here."""
    return " ".join(unicodedata.normalize(NAME_FORM, name).split())


def _error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)


def _validation_error(exc: RequestValidationError) -> JSONResponse:
    """A request that did not validate: 400 for a body that is not JSON (malformed,
    too deeply nested, or not sent as JSON), else 422; ``bad_name`` for a refused name."""
    errors = exc.errors()
    first = errors[0] if errors else {}
    kind = first.get("type", "")
    loc = tuple(first.get("loc", ()))
    if kind == "json_invalid":
        detail = (first.get("ctx") or {}).get("error") or first.get("msg", "")
        return _error(400, "bad_json", f"the body is not valid JSON: {detail}")
    if loc == ("body",) and isinstance(first.get("input"), bytes | bytearray):
        return _error(400, "bad_content_type", "the body must be JSON (application/json)")
    where = ".".join(str(p) for p in loc if p != "body")
    code = kind if kind in ("bad_name",) else "bad_request"
    return _error(422, code, f"{where}: {first.get('msg', 'invalid')}".strip(": "))


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
    ``limits``: what one client may ask (:class:`Limits`; ``None``: the defaults)."""
    factory: RefereeFactory = referee_factory(
        referee, floor_ms=floor_ms, resolution_ms=resolution_ms
    )
    hooks = test_hooks if test_hooks is not None else os.environ.get(TEST_HOOKS_ENV) == "1"
    static = static_dir or STATIC_DIR
    state: dict[str, Any] = {}
    lim = limits or Limits()
    creations = per_minute(lim.create_burst, lim.create_per_minute)
    joins = per_minute(lim.join_burst, lim.join_per_minute)
    quick_games = per_minute(lim.play_now_burst, lim.play_now_per_minute)
    tokens = KeyedLimiter(lim.token_frames_per_second, lim.token_frames_per_second)
    sockets: Counter[str] = Counter()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own = store is None
        st = store if store is not None else await open_store(database_url, data_dir)
        lobby = Lobby(
            st,
            factory,
            timing=timing,
            write_ahead=write_ahead,
            max_rooms=lim.max_rooms,
            empty_room_s=lim.empty_room_s,
        )
        state["lobby"] = lobby
        app.state.lobby = lobby
        logging.getLogger("uvicorn.error").addFilter(BAD_UTF8_FILTER)
        lobby.start()
        watcher = asyncio.create_task(METRICS.watch_loop())
        METRICS.watch_gc()
        resumed = await lobby.resume()
        if resumed:
            log.info("resumed %d live room(s)", resumed)
        try:
            yield
        finally:
            watcher.cancel()
            await lobby.shutdown()
            if own:
                await st.close()

    app = FastAPI(title="Slapjack", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)

    def lobby() -> Lobby:
        lb: Lobby = state["lobby"]
        return lb

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _validation_error(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        return _error(exc.status_code, code, message, dict(exc.headers or {}))

    @app.exception_handler(Exception)
    async def _server_error(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed: %r", request.method, request.url.path, exc)
        return _error(500, "internal_error", "the server failed on this request (it is logged)")

    def limited(request: Request, limiter: KeyedLimiter, what: str) -> JSONResponse | None:
        """``None`` if the client may go on, else its ``429`` with ``Retry-After``."""
        wait = limiter.hit(client_key(request.client.host if request.client else None))
        if wait is None:
            return None
        METRICS.count(f"rate_limited:{what}")
        seconds = retry_seconds(wait)
        return _error(
            429,
            "rate_limited",
            f"too many {what} requests from your address: try again in {seconds} s",
            {"Retry-After": str(seconds)},
        )

    # ------------------------------------------------------------- pages

    def page(name: str) -> Response:
        path = static / PAGES[name]
        if not path.is_file():
            return _error(404, "no_page", f"the client page {PAGES[name]} is missing")
        return FileResponse(path, media_type="text/html")

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return page("index")

    @app.get("/r/{code}", include_in_schema=False)
    async def room_page(code: str) -> Response:
        return page("room")

    @app.get("/party", include_in_schema=False)
    async def party_page() -> Response:
        return page("party")

    @app.get("/history", include_in_schema=False)
    async def history_page() -> Response:
        return page("history")

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> Response:
        return page("replay")

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> Response:
        return page("rules")

    if static.is_dir():
        app.mount("/static", StaticFiles(directory=static), name="static")

    # ------------------------------------------------------------- rooms

    def create_room(
        settings: CreateRoom,
        setup: RoomSetup | None = None,
        room_timing: RoomTiming | None = None,
        ref: RefereeFactory | None = None,
    ) -> Room | JSONResponse:
        bad = [k for k in settings.bots if int(k) >= settings.seats]
        if bad:
            return _error(422, "bad_request", f"bot seat {bad[0]} is beyond {settings.seats} seats")
        try:
            return lobby().create(settings, setup=setup, timing=room_timing, referee=ref)
        except SlapjackError as exc:
            if exc.code == "server_full":
                after = str(lim.full_retry_after_s)
                return _error(503, exc.code, exc.message, {"Retry-After": after})
            return _error(422, exc.code, exc.message)

    @app.get("/api/rooms", response_model=None)
    async def list_rooms(
        all: bool = False,
        limit: Annotated[int, Query(ge=1)] = 50,
        offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    ) -> RoomPage | JSONResponse:
        if limit > lim.rooms_page_max:
            return _error(422, "bad_request", f"limit: at most {lim.rooms_page_max} rooms a page")
        listed = [
            room
            for room in lobby().rooms.values()
            if room.settings.public
            and room.status != "closed"
            and (all or (room.status == "waiting" and room.free_seats() > 0))
        ]
        page = [room.info() for room in listed[offset : offset + limit]]
        return RoomPage(rooms=page, total=len(listed), limit=limit, offset=offset)

    @app.post("/api/rooms", response_model=None)
    async def post_room(request: Request, settings: CreateRoom) -> RoomCreated | JSONResponse:
        refused = limited(request, creations, "room creation")
        if refused is not None:
            return refused
        room = create_room(settings)
        if isinstance(room, JSONResponse):
            return room
        return RoomCreated(code=room.code, url=f"/r/{room.code}")

    async def join(room: Room, name: str) -> Joined | JSONResponse:
        try:
            seat, token, taken = await room.call(partial(room.join, name))
        except RoomError as exc:
            return _error(409, exc.code, exc.message)
        return Joined(code=room.code, seat=seat, token=token, name=taken, url=f"/r/{room.code}")

    @app.post("/api/play-now", response_model=None)
    async def play_now(request: Request, body: PlayNow) -> Joined | JSONResponse:
        refused = limited(request, quick_games, "play-now")
        if refused is not None:
            return refused
        settings = CreateRoom(
            name=f"{body.name} vs bots",
            bots={"1": "casual", "2": "casual", "3": "casual"},
            public=False,
        )
        room = create_room(settings)
        if isinstance(room, JSONResponse):
            return room
        return await join(room, body.name)

    @app.get("/api/rooms/{code}", response_model=None)
    async def get_room(code: str) -> dict[str, Any] | JSONResponse:
        room = lobby().get(code)
        if room is None:
            return _error(404, "unknown_room", f"no room {code!r}")
        return room.info().model_dump()

    @app.post("/api/rooms/{code}/join", response_model=None)
    async def join_room(request: Request, code: str, body: JoinRoom) -> Joined | JSONResponse:
        refused = limited(request, joins, "join")
        if refused is not None:
            return refused
        room = lobby().get(code)
        if room is None:
            return _error(404, "unknown_room", f"no room {code!r}")
        return await join(room, body.name)

    @app.get("/api/rooms/{code}/qr.svg", response_model=None)
    async def room_qr(code: str, request: Request) -> Response:
        room = lobby().get(code)
        if room is None:
            return _error(404, "unknown_room", f"no room {code!r}")
        url = str(request.base_url).rstrip("/") + f"/r/{room.code}"
        qr = segno.make(url, error="m")
        # A standalone SVG file needs its xmlns (svg_inline omits it: an <img> won't show it).
        buf = io.BytesIO()
        qr.save(buf, kind="svg", scale=4, dark="#111", light="#fff", xmldecl=False)
        svg = buf.getvalue().decode()
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})

    @app.get("/api/metrics")
    async def metrics(reset: bool = False, objects: bool = False) -> dict[str, Any]:
        lb = lobby()
        out = METRICS.to_dict()
        if objects:
            import gc

            out["gc_objects"] = len(gc.get_objects())
            out["gc_counts"] = gc.get_count()
            out["gc_frozen"] = gc.get_freeze_count()
        if isinstance(lb.store, SqliteStore):
            out["store_batches"] = lb.store.batch_summary()
            if reset:
                lb.store.batch_timings.clear()
        out["pid"] = os.getpid()
        out["rooms"] = len(lb.rooms)
        out["connections"] = sum(len(room.conns) for room in lb.rooms.values())
        if reset:
            METRICS.reset()
        return out

    # ------------------------------------------------------------- history

    @app.get("/api/games", response_model=None)
    async def list_games(
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        offset: Annotated[int, Query(ge=0)] = 0,
        player: Annotated[str | None, Query(max_length=100)] = None,
    ) -> dict[str, Any] | JSONResponse:
        if player is not None:
            player = lookup_name(player)
        try:
            st = lobby().store
            games = await st.list_games(limit, offset, player)
            total = await st.count_games(player)
        except StoreError as exc:
            return _error(400, exc.code, exc.message)
        return {"games": [g.to_dict() for g in games], "total": total}

    @app.get("/api/games/{game_id}", response_model=None)
    async def get_game(game_id: int, download: bool = False) -> Response:
        try:
            record = await lobby().store.get_game(game_id)
        except StoreError as exc:
            return _error(404 if exc.code == "unknown_game" else 400, exc.code, exc.message)
        headers = {}
        if download:
            headers["Content-Disposition"] = f'attachment; filename="slapjack-{game_id}.json"'
        return JSONResponse(record, headers=headers)

    @app.get("/api/games/{game_id}/replay", response_model=None)
    async def get_replay(game_id: int) -> dict[str, Any] | JSONResponse:
        from slapjack.core import Record
        from slapjack.web.replay import replay_steps

        try:
            data = await lobby().store.get_game(game_id)
        except StoreError as exc:
            return _error(404 if exc.code == "unknown_game" else 400, exc.code, exc.message)
        try:
            steps = await asyncio.to_thread(replay_steps, Record.from_dict(data))
        except SlapjackError as exc:
            return _error(422, exc.code, exc.message)
        return {"id": game_id, "record": data, **steps}

    @app.get("/api/stats/{name}", response_model=None)
    async def stats(name: str) -> dict[str, Any] | JSONResponse:
        try:
            figures = await lobby().store.player_stats(lookup_name(name))
        except StoreError as exc:
            return _error(400, exc.code, exc.message)
        return figures.to_dict()

    @app.get("/api/rules/{preset}", response_model=None)
    async def rules(preset: str, lang: str = "en") -> dict[str, Any] | JSONResponse:
        from slapjack.core import Rules
        from slapjack.texts import LanguageError, check_lang, rules_text

        try:
            language = check_lang(lang)
            text = rules_text(Rules.preset_rules(preset), language)
        except LanguageError as exc:
            return _error(404, "unknown_lang", str(exc))
        except SlapjackError as exc:
            return _error(404, exc.code, exc.message)
        return {"preset": preset, "lang": language, "markdown": text}

    # ------------------------------------------------------------- test hooks

    if hooks:

        @app.post("/api/test/rooms", response_model=None)
        async def test_room(body: TestRoom) -> dict[str, str] | JSONResponse:
            try:
                deck = tuple(parse_deck(body.deck)) if body.deck is not None else None
                ref: RefereeFactory | None = None
                if body.referee == "trusting":
                    ref = TrustingReferee
                elif body.referee:
                    ref = referee_factory(body.referee)
            except (SlapjackError, ValueError) as exc:
                return _error(422, "bad_request", str(exc))
            names = {f.name for f in fields(RoomTiming)}
            unknown = sorted(set(body.timing) - names)
            if unknown:
                return _error(422, "bad_request", f"unknown timing {unknown[0]!r}")
            room_timing = RoomTiming(**body.timing)  # type: ignore[arg-type]
            setup = RoomSetup(deck=deck, seed=body.seed, bot_seed=body.bot_seed)
            room = create_room(body.create, setup, room_timing, ref)
            if isinstance(room, JSONResponse):
                return room
            return {"code": room.code, "url": f"/r/{room.code}"}

    # ------------------------------------------------------------- WebSocket

    @app.websocket("/ws/{code}")
    async def ws_endpoint(ws: WebSocket, code: str) -> None:
        await ws.accept()
        room = lobby().get(code)
        if room is None or room.status == "closed":
            await ws.send_text(error_frame(ErrorCode.ROOM_CLOSED, "no such room"))
            await ws.close(4004, "no such room")
            return
        key = client_key(ws.client.host if ws.client else None)
        if sockets[key] >= lim.sockets_per_address:
            METRICS.count("rate_limited:sockets")
            await ws.send_text(
                error_frame(
                    ErrorCode.TOO_MANY_SOCKETS,
                    f"at most {lim.sockets_per_address} sockets from one address",
                )
            )
            await ws.close(CLOSE_FLOOD, "too many sockets")
            return
        sockets[key] += 1
        try:
            await serve_socket(room, ws, transport_rtt=transport_rtt, limits=lim, tokens=tokens)
        finally:
            sockets[key] -= 1
            if sockets[key] <= 0:
                del sockets[key]

    return app


async def _pinger(room: Room, conn: Conn, ws: WebSocket | None, not_reading_s: float) -> None:
    """Clock-sync pings, and the check that the client still reads its frames."""
    ping_id = 0
    delay = PING_FIRST_S
    while not conn.closed:
        await asyncio.sleep(delay)
        if ws is not None and not conn.closed and not_reading(conn, ws, not_reading_s):
            log.warning("room %s: %r does not read its frames: closing it (1013)", room.code, conn)
            METRICS.count(f"close:{CLOSE_NOT_READING}")
            conn.close(CLOSE_NOT_READING, "not reading", drop=True)
            await asyncio.sleep(ABORT_AFTER_S)
            if conn.waiting_s() >= ABORT_AFTER_S:  # not even the close frame went out
                _abort(ws)
            return
        if not conn.greeted:
            continue
        ping_id += 1
        now = room.now()
        conn.send(ping_frame(ping_id, round(now, 3)))
        room.on_ping_sent(conn, ping_id, now)
        delay = PING_FIRST_S if ping_id < PING_FIRST_COUNT else PING_EVERY_S


def _ws_protocol(ws: WebSocket) -> Any:
    """uvicorn's protocol object behind ``ws`` (``None`` under other servers)."""
    return getattr(getattr(ws, "_receive", None), "__self__", None)


def not_reading(conn: Conn, ws: WebSocket, limit_s: float) -> bool:
    """True when the client has stopped reading: a frame queued for it has not
    gone out for ``limit_s`` seconds, or the WebSocket layer's keepalive ping
    has gone unanswered for ``limit_s`` (at most half of uvicorn's ping
    timeout, so this is seen before uvicorn would drop the socket with 1011)."""
    if conn.waiting_s() > limit_s:
        return True
    proto = _ws_protocol(ws)
    if proto is None:
        return False
    timeout = getattr(proto, "ping_timeout", None)
    if isinstance(timeout, int | float) and timeout > 0:
        limit_s = min(limit_s, timeout / 2)
    loop = getattr(proto, "loop", None)
    if loop is None:
        return False
    sent: float | None = None
    if getattr(proto, "pending_ping_payload", None) is not None:  # uvicorn's websockets-sansio
        sent = getattr(proto, "ping_sent_at", None)
    else:  # uvicorn's legacy websockets protocol: {payload: (future, sent_at)}
        pings = getattr(proto, "pings", None)
        if isinstance(pings, dict) and pings:
            stamps = [v[1] for v in pings.values() if isinstance(v, tuple) and len(v) == 2]
            sent = min(stamps) if stamps else None
    return isinstance(sent, float) and loop.time() - sent > limit_s


def _abort(ws: WebSocket) -> None:
    transport = getattr(_ws_protocol(ws), "transport", None)
    if transport is not None:
        with contextlib.suppress(Exception):
            transport.abort()


def tcp_rtt(ws: WebSocket) -> tuple[float, float, float | None] | None:
    """The kernel's round-trip estimate for this client's TCP connection (Linux
    ``TCP_INFO``), for the fair referee: a client can hold back its pongs, not
    its TCP acknowledgements. ``None`` where it would not measure the client:
    a loopback or proxied peer (the TCP connection ends at the proxy), no socket
    (tests over ASGI), or another OS. Called for every pong: which socket to
    read (if any) is worked out once per connection and kept in its scope."""
    scope = getattr(ws, "scope", None)
    sock = scope.get(_TCP_SOCKET, _UNKNOWN) if isinstance(scope, dict) else _UNKNOWN
    if sock is _UNKNOWN:
        sock = _measurable_socket(ws)
        if isinstance(scope, dict):
            scope[_TCP_SOCKET] = sock
    if sock is None:
        return None
    try:
        return parse_tcp_info(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_SIZE))
    except (OSError, ValueError, AttributeError):
        return None


_TCP_SOCKET: Final = "slapjack.tcp_socket"
_UNKNOWN: Final[Any] = object()


def _measurable_socket(ws: WebSocket) -> Any:
    """The client's TCP socket where ``TCP_INFO`` measures the client itself,
    else ``None`` (see :func:`tcp_rtt`)."""
    client = ws.client
    if client is None or ws.headers.get("x-forwarded-for") or ws.headers.get("forwarded"):
        return None
    try:
        if ipaddress.ip_address(client.host).is_loopback:
            return None
        owner = getattr(ws._receive, "__self__", None)  # uvicorn's protocol object
        transport = getattr(owner, "transport", None)
        sock = transport.get_extra_info("socket") if transport is not None else None
    except (ValueError, AttributeError):
        return None
    if sock is None or not hasattr(socket, "TCP_INFO"):
        return None
    return sock


async def serve_socket(
    room: Room,
    ws: WebSocket,
    *,
    transport_rtt: bool = True,
    limits: Limits | None = None,
    tokens: KeyedLimiter | None = None,
) -> None:
    """Read one client's frames until it leaves; check each at the edge.
    ``transport_rtt``: after each pong, pass the kernel's round-trip estimate
    (:func:`tcp_rtt`) to the room's referee. ``tokens`` limits the game frames
    of one seat token over all of its sockets.

    Each frame counts toward one of the socket's limits: ``hello`` and ``pong``
    toward ``control`` (``limits.control_*``), everything else (game frames and
    frames that do not validate) toward ``limit`` (``room.timing.rate_limit``).
    Beyond either the socket gets a ``rate_limited`` error and is closed (1008)."""
    lim = limits or Limits()
    conn = Conn(
        ws,
        frame_rate=room.timing.rate_limit,
        control_rate=lim.control_per_second,
        control_burst=lim.control_burst,
    )
    writer = asyncio.create_task(conn.writer())
    pinger = asyncio.create_task(_pinger(room, conn, ws, lim.not_reading_s))
    try:
        while not conn.closed:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            at = room.now()
            text = message.get("text")
            msg: Any = None
            refused: tuple[ErrorCode, str] | None = None
            if text is None:
                refused = (ErrorCode.BAD_MESSAGE, "frames are JSON text, not binary")
            elif len(text) > MAX_FRAME_BYTES or len(text.encode()) > MAX_FRAME_BYTES:
                log.info("room %s: %r: frame of %d chars", room.code, conn, len(text))
                refused = (ErrorCode.TOO_LARGE, f"frames are at most {MAX_FRAME_BYTES} bytes")
            else:
                try:
                    msg = CLIENT_MESSAGE.validate_json(text)
                except ValidationError as exc:
                    refused = refusal(exc)
            control = isinstance(msg, Pong | Hello)
            bucket = conn.control if control else conn.limit
            flood = not bucket.allow()
            token = getattr(msg, "token", None) if msg is not None and not control else None
            if not flood and token is not None and tokens is not None:
                flood = tokens.hit(token) is not None
            if flood:
                what = "hello/pong" if control else "game"
                log.warning("room %s: %r floods (%s frames): closing it", room.code, conn, what)
                METRICS.count(f"close:{CLOSE_FLOOD}")
                limit = lim.control_per_second if control else room.timing.rate_limit
                conn.error(
                    ErrorCode.RATE_LIMITED,
                    f"more than {limit:g} {what} frames a second",
                    msg.id if msg is not None else answer_id(text) if text else None,
                )
                conn.close(CLOSE_FLOOD, "rate limited")
                break
            if refused is not None:
                conn.error(
                    *refused, answer_id(text) if text and len(text) <= MAX_FRAME_BYTES else None
                )
                log.info("room %s: %r: bad frame (%s)", room.code, conn, refused[0])
                continue
            if isinstance(msg, Pong):
                room.on_pong(conn, msg.id, msg.client_time, at)
                rtt = tcp_rtt(ws) if transport_rtt else None
                if rtt is not None:
                    room.on_transport_rtt(conn, rtt, at)
                continue
            room.submit(partial(room.handle, conn, msg, at))
    except WebSocketDisconnect:
        pass
    finally:
        pinger.cancel()
        room.submit(partial(room.disconnect, conn))
        conn.close(1000)
        try:
            await asyncio.wait_for(writer, 2.0)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()
        except Exception:
            log.debug("writer of %r ended with an error", conn, exc_info=True)
