"""The servers of the fairness study (:mod:`slapjack.netlab.fairness`): the real
server on uvicorn in the study's event loop (on loopback, or in a tun
network's server namespace), the setup client of tun mode
(:class:`NamespaceHTTP`), and what the server reads of the kernel's TCP
round-trip estimate (:func:`kernel_readings`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import socket
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from slapjack.server import create_app
from slapjack.server.connection import Limits


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def serve(data_dir: str, transport_rtt: bool = True, net: Any = None) -> Any:
    """The real server, in this event loop, on a free port of 127.0.0.1, or
    with a started ``tunnet.TunNet`` as ``net`` on its server address, on a
    socket made in the server's namespace (reachable only from the clients'
    namespace); ``transport_rtt``: it reads its connections' ``TCP_INFO`` for
    the referee."""
    app = create_app(
        data_dir=data_dir,
        test_hooks=True,
        transport_rtt=transport_rtt,
        limits=Limits.relaxed(),  # every seat joins from one address
    )
    sock: socket.socket | None = None
    if net is None:
        host = "127.0.0.1"
        port = free_port(host)
    else:
        sock = net.server_socket()
        host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on", ws="auto"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=None if sock is None else [sock]))
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield app, f"http://{host}:{port}", f"ws://{host}:{port}"
    finally:
        server.should_exit = True
        await task
        if sock is not None:
            sock.close()


class NamespaceHTTP:
    """The harness's HTTP client in tun mode: plain ``httpx`` on threads that
    live in the tun network's clients' namespace, from its control address
    (no seat's, no delay), so the server is reached only inside the network's
    own namespaces. Offers the one call the harness makes, ``post``."""

    def __init__(self, net: Any, base_url: str, workers: int = 4) -> None:
        self._executor: concurrent.futures.ThreadPoolExecutor = net.executor("clients", workers)
        self._client = httpx.Client(
            base_url=base_url,
            timeout=30.0,
            transport=httpx.HTTPTransport(local_address=net.control_addr),
        )

    async def post(self, url: str, *, json: Any) -> httpx.Response:
        call = functools.partial(self._client.post, url, json=json)
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    async def __aenter__(self) -> NamespaceHTTP:
        return self

    async def __aexit__(self, *exc: object) -> None:
        # not waiting: a call still in its thread waits for this event loop's server
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._client.close()


@contextlib.contextmanager
def kernel_readings() -> Any:
    """Records what the server reads with ``tcp_rtt`` (``(srtt, rttvar, min_rtt)``
    ms), by client address, while the block runs (tun mode: how the kernel's
    estimate compares with the seats' true round trips)."""
    import slapjack.server.sockets as app_module

    real = app_module.tcp_rtt
    seen: dict[str, list[tuple[float, float, float | None]]] = {}

    def spy(ws: Any) -> Any:
        got = real(ws)
        if got is not None:
            seen.setdefault(ws.client.host, []).append(got)
        return got

    app_module.tcp_rtt = spy
    try:
        yield seen
    finally:
        app_module.tcp_rtt = real


@contextlib.asynccontextmanager
async def servers(data_dir: str, net: Any = None) -> Any:
    """Yields ``pick(referee) -> (app, http_base, ws_base)``. Harness mode: one
    loopback server. Tun mode: two on the tun network's server address (in its
    server namespace), one reading ``TCP_INFO`` (for ``fair+tcp`` and
    ``arrival``), one not (``fair``)."""
    if net is None:
        async with serve(data_dir) as one:
            yield lambda referee: one
        return
    async with (
        serve(str(Path(data_dir, "tcp")), True, net) as with_tcp,
        serve(str(Path(data_dir, "notcp")), False, net) as without,
    ):
        yield lambda referee: without if referee == "fair" else with_tcp
