"""A real server on a loopback port and real WebSocket clients for the server tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from slapjack.server import RoomTiming, create_app
from slapjack.server.connection import Limits
from slapjack.server.routes.play import served

FAST = {
    "start_delay_ms": 0.0,
    "jack_timeout_ms": 400.0,
    "irish_timeout_ms": 400.0,
    "deadlock_ms": 0.0,
    "grace_ms": 300.0,
    "call_grace_ms": 80.0,
}


LOADED = httpx.Timeout(20.0, connect=20.0)
"""The test clients' timeouts: a test that runs tens of rooms at once, on a
loaded CI machine, had a connect take longer than httpx's default 5 s."""
CONNECT_RETRIES = 2
"""A connection that still fails is tried again (a refused or timed-out
connect only: no request was sent, so a POST is never sent twice)."""


def http_client(server: LiveServer) -> httpx.AsyncClient:
    """An HTTP client for ``server`` with :data:`LOADED` timeouts and bounded
    retries of a failed connect (:data:`CONNECT_RETRIES`); never of a request."""
    transport = httpx.AsyncHTTPTransport(retries=CONNECT_RETRIES)
    return httpx.AsyncClient(base_url=server.url, timeout=LOADED, transport=transport)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    url: str
    ws_url: str
    app: Any
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def start_server(
    database_url: str | None, data_dir: Path, *, fastapi_only: bool = False, **kw: Any
) -> LiveServer:
    """``fastapi_only``: uvicorn runs the FastAPI app itself, not :func:`served`
    (game sockets through FastAPI's routes, as under another ASGI server)."""
    kw.setdefault("timing", RoomTiming(**FAST))
    kw.setdefault("limits", Limits.relaxed())  # the limits' own tests (test_limits.py) set them
    app = create_app(data_dir=data_dir, database_url=database_url, test_hooks=True, **kw)
    port = free_port()
    config = uvicorn.Config(  # the app as `slapjack serve` runs it
        app if fastapi_only else served(app),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_max_size=65536,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    return LiveServer(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", app, server, thread)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server (SQLite in a temp dir) for a whole test module."""
    data = tmp_path_factory.mktemp("serverdata")
    server = start_server(None, data)
    yield server
    server.stop()


class Client:
    """One WebSocket client: records every frame it receives (raw text too)."""

    def __init__(self, ws_url: str, code: str, token: str | None = None) -> None:
        self.url = f"{ws_url}/ws/{code}"
        self.token = token
        self.raw: list[str] = []
        self.frames: list[dict[str, Any]] = []
        self.ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self.closed: tuple[int | None, str | None] | None = None
        self.on_update: Callable[[Client, dict[str, Any]], Any] | None = None

    async def connect(self, hello: bool = True, compression: str | None = "deflate") -> Client:
        """``compression=None``: no permessage-deflate (as browsers without
        it, and the load generator: the server then cuts frames out itself)."""
        # the opening handshake may wait on a loaded machine (default 10 s)
        self.ws = await websockets.connect(
            self.url, max_size=2**22, open_timeout=LOADED.connect, compression=compression
        )
        self._reader = asyncio.create_task(self._read())
        if hello:
            with contextlib.suppress(websockets.ConnectionClosed):
                await self.send({"type": "hello", "token": self.token})
        return self

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                self.raw.append(text)
                frame = json.loads(text)
                self.frames.append(frame)
                if frame["type"] == "update" and self.on_update is not None:
                    result = self.on_update(self, frame)
                    if asyncio.iscoroutine(result):
                        await result
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = (self.ws.close_code, self.ws.close_reason)
            self._changed.set()

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps({"v": 1, **message}))

    async def send_raw(self, text: str | bytes) -> None:
        await self.ws.send(text)

    async def act(self, kind: str, **fields: Any) -> None:
        await self.send({"type": kind, "token": self.token, **fields})

    @property
    def updates(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "update"]

    @property
    def view(self) -> dict[str, Any] | None:
        ups = self.updates
        return ups[-1]["view"] if ups else None

    def errors(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "error"]

    async def wait(self, pred: Callable[[Client], bool], timeout: float = 10.0) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not pred(self):
            if self.closed is not None and not pred(self):
                raise AssertionError(f"closed {self.closed} while waiting")
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"timed out; last frame: {self.frames[-1:]}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def wait_frame(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0, start: int = 0
    ) -> dict[str, Any]:
        found: list[dict[str, Any]] = []

        def check(c: Client) -> bool:
            for f in c.frames[start:]:
                if pred(f):
                    found.append(f)
                    return True
            return False

        await self.wait(check, timeout)
        return found[0]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5)


async def make_room(
    server: LiveServer,
    *,
    seats: int = 3,
    preset: str = "classic",
    bots: dict[str, str] | None = None,
    seed: int | None = 9,
    deck: list[str] | None = None,
    timing: dict[str, float] | None = None,
    referee: str | None = "arrival",
    **create: Any,
) -> str:
    game = "irish-snap" if preset.startswith("irish") else "slapjack"
    body: dict[str, Any] = {
        "create": {
            "game": game,
            "rules": {"preset": preset},
            "seats": seats,
            "bots": bots or {},
            **create,
        },
        "timing": {**FAST, **(timing or {})},
        "referee": referee,
    }
    if deck is not None:
        body["deck"] = deck
    else:
        body["seed"] = seed
    async with http_client(server) as http:
        r = await http.post("/api/test/rooms", json=body)
        assert r.status_code == 200, r.text
        return str(r.json()["code"])


async def join(server: LiveServer, code: str, name: str) -> dict[str, Any]:
    async with http_client(server) as http:
        r = await http.post(f"/api/rooms/{code}/join", json={"name": name})
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data
