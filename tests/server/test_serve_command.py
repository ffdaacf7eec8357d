"""``slapjack serve``: refuses bad options with a clear message."""

from __future__ import annotations

import socket
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from slapjack.cli import app


def test_unknown_referee_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["serve", "--referee", "coin", "--port", "0", "--data-dir", str(tmp_path)]
    )
    assert result.exit_code != 0
    assert "--referee must be one of fair, arrival" in result.output


def test_a_busy_port_is_named(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(
            app, ["serve", "--port", str(port), "--data-dir", str(tmp_path)]
        )
    assert result.exit_code != 0
    assert f"cannot listen on 127.0.0.1:{port}" in result.output


def test_unknown_websocket_implementation_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["serve", "--ws", "picows", "--port", "0", "--data-dir", str(tmp_path)]
    )
    assert result.exit_code != 0
    assert "--ws must be one of auto, websockets-sansio, websockets, wsproto" in result.output


def test_the_websocket_implementation_reaches_uvicorn() -> None:
    from slapjack.commands.serve import WS_IMPLEMENTATIONS, server_config

    async def asgi(scope: object, receive: object, send: object) -> None:
        raise AssertionError("not served")

    classes = set()
    for ws in WS_IMPLEMENTATIONS:
        config = server_config(asgi, "warning", ws=ws)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # uvicorn deprecates its legacy websockets
            config.load()
        assert config.ws == ws
        classes.add(config.ws_protocol_class)
    assert len(classes) == len(WS_IMPLEMENTATIONS) - 1  # auto is one of the others


def test_game_sockets_skip_compression_unless_asked() -> None:
    from slapjack.commands.serve import MAX_WS_FRAME, server_config

    plain = server_config(object(), "warning")
    assert plain.ws_per_message_deflate is False
    assert plain.ws_max_size == MAX_WS_FRAME
    assert server_config(object(), "warning", compress=True).ws_per_message_deflate is True


def test_the_server_loop_is_uvloop() -> None:
    import asyncio

    import uvloop

    from slapjack.commands.serve import server_config

    factory = server_config(object(), "warning").get_loop_factory()
    assert factory is not None
    loop = factory()
    try:
        assert isinstance(loop, uvloop.Loop)
        assert isinstance(loop, asyncio.AbstractEventLoop)
    finally:
        loop.close()


async def test_tune_runtime_hands_the_heap_to_the_keeper() -> None:
    import gc
    import sys

    from slapjack.commands.serve import SWITCH_INTERVAL_S, tune_runtime
    from slapjack.server.heap import HEAP

    enabled, interval = gc.isenabled(), sys.getswitchinterval()
    room = SimpleNamespace(conns={"a", "b"})
    from slapjack.server.lobby import Lobby

    lobby = SimpleNamespace(rooms={"AAAA": room, "BBBB": SimpleNamespace(conns={"c"})})
    lobby.connections = lambda: Lobby.connections(lobby)  # type: ignore[arg-type]
    try:
        tune_runtime(lobby)
        assert HEAP.running and not gc.isenabled()  # young collections on the keeper's clock
        assert gc.get_freeze_count() > 10_000  # every module loaded so far
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL_S)
        assert HEAP.players is not None and HEAP.players() == 3  # the lobby's connections
        room.conns = set()
        assert HEAP.players() == 1
    finally:
        HEAP.stop()
        HEAP.players = None
        if enabled:
            gc.enable()
        sys.setswitchinterval(interval)
    assert gc.get_freeze_count() == 0


def test_a_started_server_has_tuned_its_runtime(tmp_path: Path) -> None:
    import httpx

    from .test_restart import start_serve

    proc, url = start_serve(tmp_path)
    try:
        deadline = time.monotonic() + 10
        while True:  # tune_runtime runs right after uvicorn reports it started
            metrics = httpx.get(f"{url}/api/metrics", params={"objects": True}).json()
            if metrics["gc"]["young"] >= 2 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert metrics["gc_frozen"] > 10_000
        assert metrics["gc"]["policy"] == "young+freeze" and metrics["gc"]["full"] >= 1
        assert metrics["gc"]["players"] == 0  # the keeper counts the lobby's players
        assert metrics["gc0_ms"]["n"] >= 2
        assert metrics["store_batches"]["n"] == 0
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--referee", "arrival", "--anticipation-floor-ms", "80"], "setting of the fair referee"),
        (["--anticipation-floor-ms", "900"], "floor_ms must be within 0..500 ms"),
        (["--tie-resolution-ms", "0"], "resolution_ms must be within"),
    ],
)
def test_impossible_referee_settings_are_refused(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = CliRunner().invoke(app, ["serve", *args, "--port", "0", "--data-dir", str(tmp_path)])
    assert result.exit_code != 0
    assert message in result.output
    assert not any(tmp_path.iterdir())  # refused before anything was created


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--node-ttl", "5"], "--node-ttl needs --redis-url"),
        (
            [
                "--node-ttl",
                "0.1",
                "--redis-url",
                "redis://127.0.0.1:6379/0",
                "--database-url",
                "postgresql://127.0.0.1/test",
            ],
            "--node-ttl is 0.5 to 300 seconds, got 0.1",
        ),
    ],
)
def test_impossible_node_ttls_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["serve", *args, "--port", "0", "--data-dir", str(tmp_path)])
    assert result.exit_code != 0
    assert message in result.output
