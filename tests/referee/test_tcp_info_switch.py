"""The switch that keeps the kernel's round-trip estimate from the referee:
``create_app(transport_rtt=False)`` and ``slapjack serve --no-tcp-info``."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets
from typer.testing import CliRunner

import slapjack.server
import slapjack.server.pings as pings_module
import slapjack.server.sockets as app_module
from slapjack.cli import app as cli
from slapjack.server import create_app
from slapjack.server.fair import FairReferee

KERNEL_SAYS = (31.0, 2.0, 29.0)


async def pongs_and_transport_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kw: Any
) -> list[tuple[float, float, float | None]]:
    """Answer two pings of a real server whose kernel always has an estimate;
    what reached the room's referee."""
    monkeypatch.setattr(pings_module, "PING_FIRST_S", 0.01)
    monkeypatch.setattr(app_module, "tcp_rtt", lambda ws: KERNEL_SAYS)
    seen: list[tuple[float, float, float | None]] = []
    original = FairReferee.on_transport_rtt

    def record(
        self: FairReferee,
        seat: int,
        srtt_ms: float,
        rttvar_ms: float,
        min_rtt_ms: float | None = None,
        now_ms: float = 0.0,
    ) -> None:
        seen.append((srtt_ms, rttvar_ms, min_rtt_ms))
        original(self, seat, srtt_ms, rttvar_ms, min_rtt_ms, now_ms)

    monkeypatch.setattr(FairReferee, "on_transport_rtt", record)
    app = create_app(data_dir=tmp_path, test_hooks=True, **kw)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done()
        await asyncio.sleep(0.01)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            created = await http.post(
                "/api/test/rooms",
                json={"create": {"name": "t", "seats": 2, "public": False}, "referee": "fair"},
            )
            created.raise_for_status()
            code = created.json()["code"]
            joined = (await http.post(f"/api/rooms/{code}/join", json={"name": "P0"})).json()
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{code}") as ws:
            await ws.send(json.dumps({"type": "hello", "v": 1, "token": joined["token"]}))
            pings = []
            while len(pings) < 3:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if msg["type"] == "ping":
                    pings.append(msg["id"])
                    pong = {"type": "pong", "v": 1, "id": msg["id"], "client_time": 1.0}
                    await ws.send(json.dumps(pong))
            # the server has handled the first two pongs once it sent the third ping
    finally:
        server.should_exit = True
        await task
    return seen


async def test_the_kernel_estimate_reaches_the_referee_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = await pongs_and_transport_calls(tmp_path, monkeypatch)
    assert seen and all(rtt == KERNEL_SAYS for rtt in seen)


async def test_transport_rtt_false_keeps_it_from_the_referee(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await pongs_and_transport_calls(tmp_path, monkeypatch, transport_rtt=False) == []


@pytest.mark.parametrize(("flag", "expected"), [([], True), (["--no-tcp-info"], False)])
def test_serve_no_tcp_info_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: list[str], expected: bool
) -> None:
    got: dict[str, Any] = {}

    class Stop(Exception):
        pass

    def fake_create_app(**kw: Any) -> Any:
        got.update(kw)
        raise Stop

    monkeypatch.setattr(slapjack.server, "create_app", fake_create_app)
    result = CliRunner().invoke(cli, ["serve", "--port", "0", "--data-dir", str(tmp_path), *flag])
    assert isinstance(result.exception, Stop), result.output
    assert got["transport_rtt"] is expected
