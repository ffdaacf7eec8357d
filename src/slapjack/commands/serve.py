"""``slapjack serve``: the web game (lobby, rooms, history) on one address."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

MAX_WS_FRAME = 65536
"""Frames above this are refused by the WebSocket layer itself (close 1009);
frames above 4 KiB but below it get a ``too_large`` error frame."""


def register(app: typer.Typer) -> None:
    app.command()(serve)


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8000,
    data_dir: Annotated[
        Path, typer.Option("--data-dir", help="Where the SQLite file lives.")
    ] = Path("data"),
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="postgresql://… or sqlite:///path (default: SQLite in --data-dir).",
        ),
    ] = None,
    referee: Annotated[
        str | None,
        typer.Option(help="fair or arrival (default: fair when available, else arrival)."),
    ] = None,
    log_level: Annotated[str, typer.Option(help="debug, info, warning, error.")] = "info",
    write_behind: Annotated[
        bool,
        typer.Option(
            "--write-behind",
            help="Send frames before their actions are stored (lower latency; "
            "kill -9 may lose the last milliseconds of play).",
        ),
    ] = False,
) -> None:
    """Start the web game and print its address."""
    import asyncio
    import socket

    import uvicorn

    from slapjack.server import create_app
    from slapjack.server.referee import REFEREES

    if referee is not None and referee not in REFEREES:
        raise typer.BadParameter(f"--referee must be one of {', '.join(REFEREES)}")
    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if database_url is None:
        data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(
        data_dir=data_dir,
        database_url=database_url,
        referee=referee,
        write_ahead=not write_behind,
    )
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise typer.BadParameter(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"Slapjack is served at http://{shown}:{bound}/", err=False)
    config = uvicorn.Config(
        app,
        log_level=log_level.lower(),
        ws_max_size=MAX_WS_FRAME,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        access_log=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    asyncio.run(server.serve(sockets=[sock]))
