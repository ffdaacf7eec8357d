"""``slapjack serve``: the web game (lobby, rooms, history) on one address."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer

from .common import CommandError, VersionOption

if TYPE_CHECKING:
    import uvicorn

LOG_LEVELS = ("debug", "info", "warning", "error")
WS_IMPLEMENTATIONS = ("auto", "websockets-sansio", "websockets", "wsproto")
"""uvicorn's WebSocket implementations (``--ws``); ``auto`` is its own choice."""

MAX_WS_FRAME = 65536
"""Frames above this are refused by the WebSocket layer itself (close 1009);
frames above 4 KiB but below it get a ``too_large`` error frame."""

SWITCH_INTERVAL_S = 0.0005
"""How long a thread waiting for the GIL waits before the running one must let
go (Python's default: 5 ms). The SQLite store's thread needs the GIL back after
each statement; with the default it could wait 5 ms a statement while the event
loop is busy, and rooms waiting for their commit (write-ahead) with it."""


def tune_runtime(lobby: Any = None) -> None:
    """Once the server has started (on its event loop): hand the garbage
    collector to :data:`~slapjack.server.heap.HEAP` (young collections on a
    clock, their survivors frozen: no stall of the loop walks the whole heap,
    see :mod:`slapjack.server.heap`), told how many players ``lobby`` has
    connected, and shorten the GIL switch interval."""
    from slapjack.server.heap import HEAP

    if lobby is not None:
        HEAP.players = lobby.connections
    HEAP.start()
    sys.setswitchinterval(SWITCH_INTERVAL_S)


LOOPBACK: Final = ("127.0.0.1", "::1")
"""Whose ``X-Forwarded-For`` is trusted by default: a proxy on this machine."""

NODE_TTL_MIN_S: Final = 0.5
NODE_TTL_MAX_S: Final = 300.0
"""The bounds of ``--node-ttl`` (seconds)."""


def trusted_proxies(given: list[str] | None) -> list[str]:
    """``--trusted-proxy`` values (addresses or networks) checked; none: loopback."""
    if not given:
        return list(LOOPBACK)
    out: list[str] = []
    for value in given:
        for item in value.split(","):
            try:
                out.append(str(ipaddress.ip_network(item.strip(), strict=False)))
            except ValueError:
                raise CommandError(
                    f"--trusted-proxy: {item.strip()!r} is not an IP address or network"
                ) from None
    return out


def own_address(host: str) -> str | None:
    """The one IP address ``--host`` names (``None``: a name, or every address)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    return None if address.is_unspecified else str(address)


def server_config(
    app: Any,
    log_level: str,
    *,
    compress: bool = False,
    ws: str = "auto",
    trusted: list[str] | None = None,
) -> uvicorn.Config:
    """uvicorn's settings for the game server.

    Game frames are small (under 2 KB) and latency matters more than bytes:
    permessage-deflate is off unless ``compress``; the event loop is uvloop
    when installed (uvicorn's ``auto``); ``ws`` is one of
    :data:`WS_IMPLEMENTATIONS`."""
    import uvicorn

    return uvicorn.Config(
        app,
        ws=ws,
        log_level=log_level.lower(),
        ws_max_size=MAX_WS_FRAME,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        ws_per_message_deflate=compress,
        loop="auto",
        access_log=False,
        lifespan="on",
        proxy_headers=True,  # X-Forwarded-For, from the trusted addresses only
        forwarded_allow_ips=list(LOOPBACK) if trusted is None else trusted,
    )


async def _serve(server: uvicorn.Server, sock: socket.socket, app: Any = None) -> None:
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.wait({task}, timeout=0.05)
    if server.started:
        ctx = getattr(getattr(app, "state", None), "ctx", None)
        tune_runtime(getattr(ctx, "lobby", None))
        member = getattr(ctx, "member", None)
        if member is not None:
            drain_on_sigterm(server, member)
    await task


def drain_on_sigterm(server: uvicorn.Server, member: Any) -> None:
    """A cluster node's SIGTERM (or ``slapjack cluster drain NODE``, through
    Redis): stop taking rooms, hand every room to another node (its clients
    get ``moved``), then shut down as usual. A second SIGTERM (or SIGINT)
    shuts down at once."""
    import signal

    loop = asyncio.get_running_loop()
    log = logging.getLogger("slapjack.cluster")
    tasks: list[asyncio.Task[None]] = []
    signalled: list[int] = []

    async def drain_then_exit(why: str = "SIGTERM") -> None:
        try:
            log.warning("cluster: %s: node %s drains", why, member.node.node)
            await member.drain()
            log.warning("cluster: node %s drained; shutting down", member.node.node)
        finally:
            server.should_exit = True

    def on_sigterm(sig: int, frame: Any) -> None:
        if signalled:  # the second one: at once
            server.handle_exit(sig, frame)
            return
        signalled.append(sig)
        loop.call_soon_threadsafe(lambda: tasks.append(loop.create_task(drain_then_exit())))

    signal.signal(signal.SIGTERM, on_sigterm)
    member.leave = lambda: drain_then_exit("asked to leave (slapjack cluster drain)")


def register(app: typer.Typer) -> None:
    app.command()(serve)


def serve(
    host: Annotated[
        str | None,
        typer.Option(help="Address to listen on (default 127.0.0.1; with --lan 0.0.0.0)."),
    ] = None,
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8000,
    lan: Annotated[
        bool,
        typer.Option(
            "--lan",
            help="Listen on the local network too; invite links use this machine's LAN address.",
        ),
    ] = False,
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            metavar="URL",
            help="The URL players reach this server at; invite links and QR codes use it.",
        ),
    ] = None,
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
        typer.Option(
            metavar="NAME",
            help="fair or arrival (default: fair when available, else arrival).",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option(help=f"{', '.join(LOG_LEVELS)}.")] = "info",
    write_behind: Annotated[
        bool,
        typer.Option(
            "--write-behind",
            help="Send frames before their actions are stored (lower latency; "
            "kill -9 may lose the last milliseconds of play).",
        ),
    ] = False,
    tcp_info: Annotated[
        bool,
        typer.Option(
            "--tcp-info/--no-tcp-info",
            help="Give the fair referee the kernel's round-trip estimate of each "
            "connection (Linux TCP_INFO; never for loopback or proxied clients).",
        ),
    ] = True,
    anticipation_floor_ms: Annotated[
        float | None,
        typer.Option(
            "--anticipation-floor-ms",
            help="Fair referee: a claimed reaction below this cannot win a race (default 100).",
        ),
    ] = None,
    tie_resolution_ms: Annotated[
        float | None,
        typer.Option(
            "--tie-resolution-ms",
            help="Fair referee: reactions closer than this are a tie, settled by "
            "the room's tie rule (default 1).",
        ),
    ] = None,
    compress: Annotated[
        bool,
        typer.Option(
            "--compress",
            help="Offer permessage-deflate on WebSockets (fewer bytes, more CPU and latency).",
        ),
    ] = False,
    rate_limits: Annotated[
        bool,
        typer.Option(
            "--rate-limits/--no-rate-limits",
            help="Limit each client address's room creations, joins, play-now games, "
            "sockets, and each seat token's frames (docs/protocol.md, Limits). "
            "Off: for load tests on one machine; the room cap, the expiry of "
            "empty rooms and each socket's flood limits stay.",
        ),
    ] = True,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            metavar="ADDR",
            help="An address or network (repeatable, or comma-separated) whose "
            "X-Forwarded-For is believed: the reverse proxy and, on a cluster, the "
            "other nodes (a request one node forwards to another is rate-limited by "
            "its client's address). Default: this machine (127.0.0.1, ::1).",
        ),
    ] = None,
    ws: Annotated[
        str,
        typer.Option(
            "--ws",
            metavar="IMPL",
            help="uvicorn's WebSocket implementation: " + ", ".join(WS_IMPLEMENTATIONS) + ".",
        ),
    ] = "auto",
    redis_url: Annotated[
        str | None,
        typer.Option(
            "--redis-url",
            metavar="URL",
            help="Run as one node of a cluster (redis://host:6379/0) sharing "
            "--database-url postgresql://… with the other nodes (docs/deploy.md).",
        ),
    ] = None,
    node_id: Annotated[
        str | None,
        typer.Option("--node-id", help="This node's id in the cluster (default host:port)."),
    ] = None,
    cluster_prefix: Annotated[
        str,
        typer.Option("--cluster-prefix", help="The cluster's Redis key prefix."),
    ] = "slapjack",
    node_ttl: Annotated[
        float | None,
        typer.Option(
            "--node-ttl",
            metavar="SECONDS",
            help="How long a node may go without a heartbeat before the others take "
            "its rooms (default 2; it beats every quarter of this, at most every 0.5 s). "
            "Give every node the same value.",
        ),
    ] = None,
    _version: VersionOption = False,
) -> None:
    """Start the web game and print its address."""
    import uvicorn

    from slapjack.server import create_app
    from slapjack.server.connection import Limits
    from slapjack.server.referee import REFEREES, referee_factory

    if referee is not None and referee not in REFEREES:
        raise CommandError(f"--referee must be one of {', '.join(REFEREES)}, got {referee!r}")
    if ws not in WS_IMPLEMENTATIONS:
        raise CommandError(f"--ws must be one of {', '.join(WS_IMPLEMENTATIONS)}, got {ws!r}")
    if log_level.lower() not in LOG_LEVELS:
        raise CommandError(f"--log-level must be one of {', '.join(LOG_LEVELS)}, got {log_level!r}")
    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        referee_factory(referee, floor_ms=anticipation_floor_ms, resolution_ms=tie_resolution_ms)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    from slapjack.server.invite import (
        PublicUrlError,
        check_public_url,
        http_url,
        lan_address,
        listen_addresses,
        local_only,
    )

    if public_url is not None:
        try:
            public_url = check_public_url(public_url)
        except PublicUrlError as exc:
            raise CommandError(f"--public-url: {exc.message}") from None
    if host is None:
        host = "0.0.0.0" if lan else "127.0.0.1"
    trusted = trusted_proxies(trusted_proxy)
    forward_from = own_address(host)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    bound = sock.getsockname()[1]
    addresses = listen_addresses(host, bound)
    invite = public_url
    if invite is None and lan:
        lan_ip = lan_address()
        if lan_ip is None:
            typer.echo("slapjack serve: --lan: this machine has no local network address", err=True)
        else:
            invite = http_url(lan_ip, bound)
    if database_url is None:
        data_dir.mkdir(parents=True, exist_ok=True)
    node_url: str | None = None
    if redis_url is not None:
        if database_url is None or not database_url.startswith(("postgresql:", "postgres:")):
            raise CommandError(
                "--redis-url: the nodes of a cluster share one PostgreSQL database:"
                " give --database-url postgresql://…"
            )
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        node_id = node_id or f"{shown}:{bound}"
        node_url = invite or http_url(shown, bound)
    elif node_id is not None:
        raise CommandError("--node-id needs --redis-url (a node of a cluster)")
    heartbeat_s: float | None = None
    if node_ttl is not None:
        if redis_url is None:
            raise CommandError("--node-ttl needs --redis-url (a node of a cluster)")
        if not NODE_TTL_MIN_S <= node_ttl <= NODE_TTL_MAX_S:
            raise CommandError(
                f"--node-ttl is {NODE_TTL_MIN_S:g} to {NODE_TTL_MAX_S:g} seconds, got {node_ttl:g}"
            )
        from slapjack.cluster.node import HEARTBEAT_S

        heartbeat_s = min(HEARTBEAT_S, node_ttl / 4)
    app = create_app(
        data_dir=data_dir,
        database_url=database_url,
        referee=referee,
        write_ahead=not write_behind,
        transport_rtt=tcp_info,
        floor_ms=anticipation_floor_ms,
        resolution_ms=tie_resolution_ms,
        limits=Limits() if rate_limits else Limits.relaxed(),
        public_url=invite,
        redis_url=redis_url,
        node_id=node_id,
        node_url=node_url,
        cluster_prefix=cluster_prefix,
        heartbeat_s=heartbeat_s,
        node_ttl_s=node_ttl,
    )
    typer.echo(f"Slapjack is served at {addresses[0]}/")
    for other in addresses[1:]:
        typer.echo(f"  also at {other}/")
    if invite is not None:
        typer.echo(f"Invite links use {invite}/")
    if redis_url is not None:
        typer.echo(f"Cluster node {node_id} at {node_url}/ (Redis {redis_url})")
    if local_only(invite or addresses[0]):
        typer.echo("  (they work on this machine only: --lan invites your local network)")
    if forward_from is not None:
        app.state.ctx.forward_from = forward_from
    from slapjack.server.routes.play import served

    config = server_config(served(app), log_level, compress=compress, ws=ws, trusted=trusted)
    server = uvicorn.Server(config)
    with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
        runner.run(_serve(server, sock, app))
