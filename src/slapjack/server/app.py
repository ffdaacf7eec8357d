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
from starlette.websockets import WebSocketDisconnect

from slapjack.core import SlapjackError, parse_deck
from slapjack.store import SqliteStore, StoreError, open_store
from slapjack.store.base import Store

from .clocksync import TCP_INFO_SIZE, parse_tcp_info
from .connection import Conn, RateLimit
from .lobby import Lobby
from .metrics import METRICS
from .models import (
    CLIENT_MESSAGE,
    MAX_FRAME_BYTES,
    CreateRoom,
    Joined,
    JoinRoom,
    PlayNow,
    Pong,
)
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


class TestRoom(BaseModel):
    """``POST /api/test/rooms`` (test hooks only): a room with a chosen deck and timing."""

    model_config = ConfigDict(extra="forbid")

    create: CreateRoom = Field(default_factory=CreateRoom)
    deck: list[str] | None = None
    seed: int | None = None
    bot_seed: int | None = None
    timing: dict[str, float | str] = Field(default_factory=dict)
    referee: Literal["fair", "arrival", "trusting"] | None = None


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status)


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
    tie resolution (``None``: its defaults; ``ValueError`` when out of range)."""
    factory: RefereeFactory = referee_factory(
        referee, floor_ms=floor_ms, resolution_ms=resolution_ms
    )
    hooks = test_hooks if test_hooks is not None else os.environ.get(TEST_HOOKS_ENV) == "1"
    static = static_dir or STATIC_DIR
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own = store is None
        st = store if store is not None else await open_store(database_url, data_dir)
        lobby = Lobby(st, factory, timing=timing, write_ahead=write_ahead)
        state["lobby"] = lobby
        app.state.lobby = lobby
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
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return _error(422, "bad_request", f"{where}: {first.get('msg', 'invalid')}".strip(": "))

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
            return _error(422 if exc.code != "server_full" else 503, exc.code, exc.message)

    @app.get("/api/rooms")
    async def list_rooms(all: bool = False) -> dict[str, Any]:
        rooms = [
            room.info().model_dump()
            for room in lobby().rooms.values()
            if room.settings.public
            and room.status != "closed"
            and (all or (room.status == "waiting" and room.free_seats() > 0))
        ]
        return {"rooms": rooms}

    @app.post("/api/rooms", response_model=None)
    async def post_room(settings: CreateRoom) -> dict[str, str] | JSONResponse:
        room = create_room(settings)
        if isinstance(room, JSONResponse):
            return room
        return {"code": room.code, "url": f"/r/{room.code}"}

    async def join(room: Room, name: str) -> Joined | JSONResponse:
        try:
            seat, token, taken = await room.call(partial(room.join, name))
        except RoomError as exc:
            return _error(409, exc.code, exc.message)
        return Joined(code=room.code, seat=seat, token=token, name=taken, url=f"/r/{room.code}")

    @app.post("/api/play-now", response_model=None)
    async def play_now(body: PlayNow) -> Joined | JSONResponse:
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
    async def join_room(code: str, body: JoinRoom) -> Joined | JSONResponse:
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
            figures = await lobby().store.player_stats(name)
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
            await ws.send_json({"type": "error", "code": "room_closed", "message": "no such room"})
            await ws.close(4004, "no such room")
            return
        await serve_socket(room, ws, transport_rtt=transport_rtt)

    return app


async def _pinger(room: Room, conn: Conn) -> None:
    ping_id = 0
    delay = PING_FIRST_S
    while not conn.closed:
        await asyncio.sleep(delay)
        if not conn.greeted:
            continue
        ping_id += 1
        now = room.now()
        conn.send_json({"type": "ping", "id": ping_id, "server_time": round(now, 3)})
        room.on_ping_sent(conn, ping_id, now)
        delay = PING_FIRST_S if ping_id < PING_FIRST_COUNT else PING_EVERY_S


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


async def serve_socket(room: Room, ws: WebSocket, *, transport_rtt: bool = True) -> None:
    """Read one client's frames until it leaves; check each at the edge.
    ``transport_rtt``: after each pong, pass the kernel's round-trip estimate
    (:func:`tcp_rtt`) to the room's referee."""
    conn = Conn(ws)
    conn.limit = RateLimit(room.timing.rate_limit, room.timing.rate_limit)
    writer = asyncio.create_task(conn.writer())
    pinger = asyncio.create_task(_pinger(room, conn))
    try:
        while not conn.closed:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            at = room.now()
            if not conn.limit.allow():
                log.warning("room %s: %r floods: closing it", room.code, conn)
                conn.error("rate_limited", "more than 30 frames a second")
                conn.close(1008, "rate limited")
                break
            text = message.get("text")
            if text is None:
                conn.error("bad_message", "frames are JSON text, not binary")
                continue
            if len(text) > MAX_FRAME_BYTES or len(text.encode()) > MAX_FRAME_BYTES:
                log.info("room %s: %r: frame of %d chars", room.code, conn, len(text))
                conn.error("too_large", f"frames are at most {MAX_FRAME_BYTES} bytes")
                continue
            try:
                msg = CLIENT_MESSAGE.validate_json(text)
            except ValidationError as exc:
                errors = exc.errors()
                if any(e["type"] == "json_invalid" for e in errors):
                    conn.error("bad_json", "not valid JSON")
                else:
                    first = errors[0]
                    where = ".".join(str(p) for p in first["loc"])
                    conn.error("bad_message", f"{where}: {first['msg']}"[:200])
                log.info("room %s: %r: bad frame", room.code, conn)
                continue
            if isinstance(msg, Pong):
                room.on_pong(conn, msg, at)
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
