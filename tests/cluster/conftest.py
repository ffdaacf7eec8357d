"""Fixtures for the cluster tests: real Redis and real PostgreSQL on loopback.

Redis is ``SLAPJACK_TEST_REDIS`` (default ``redis://127.0.0.1:6379/0``); each
test uses its own key prefix and deletes its keys afterwards. PostgreSQL is
``SLAPJACK_TEST_PG``; each test gets a fresh schema. Without either server
these tests skip, except under ``CI=true``, where they fail. Tests that stop
and restart Redis start a ``redis-server`` of their own on a free port.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from slapjack.cluster import ClusterView, Node, NodeLoad, connect
from slapjack.store import PostgresStore

REDIS_URL = os.environ.get("SLAPJACK_TEST_REDIS", "redis://127.0.0.1:6379/0")
PG_URL = os.environ.get("SLAPJACK_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def _missing(what: str, exc: BaseException) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required under CI=true: {exc}")
    pytest.skip(f"{what} is not reachable: {exc}")


async def redis_or_skip(url: str = REDIS_URL) -> aioredis.Redis:
    client = connect(url)
    try:
        await client.ping()
    except (RedisError, OSError) as exc:
        await client.aclose()
        _missing(f"Redis at {url}", exc)
    return client


async def pg_schema() -> str:
    name = f"slapjack_test_{uuid.uuid4().hex[:12]}"
    try:
        conn = await asyncpg.connect(PG_URL, timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        _missing(f"PostgreSQL at {PG_URL}", exc)
    try:
        await conn.execute(f'CREATE SCHEMA "{name}"')
    finally:
        await conn.close()
    return name


async def drop_schema(name: str) -> None:
    conn = await asyncpg.connect(PG_URL, timeout=5)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    finally:
        await conn.close()


async def delete_prefix(client: aioredis.Redis, prefix: str) -> None:
    keys = [k async for k in client.scan_iter(match=f"{prefix}:*", count=1000)]
    if keys:
        await client.delete(*keys)


class Cluster:
    """Views and nodes of one test cluster (one key prefix) on one Redis."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix
        self.clients: list[aioredis.Redis] = []
        self.nodes: list[Node] = []
        self.loads: dict[str, NodeLoad] = {}

    def view(self, store: Any = None) -> ClusterView:
        client = connect(self.url, timeout_s=0.5)
        self.clients.append(client)
        return ClusterView(client, prefix=self.prefix, store=store)

    def node(
        self,
        node_id: str,
        *,
        interval_s: float = 0.1,
        ttl_s: float = 0.5,
        store: Any = None,
        **kw: Any,
    ) -> Node:
        self.loads.setdefault(node_id, NodeLoad())
        node = Node(
            self.view(store),
            node_id,
            f"http://127.0.0.1:{8000 + len(self.nodes)}",
            interval_s=interval_s,
            ttl_s=ttl_s,
            load=lambda: self.loads[node_id],
            **kw,
        )
        self.nodes.append(node)
        return node

    async def close(self) -> None:
        for node in self.nodes:
            with contextlib.suppress(Exception):  # cleanup goes on
                await asyncio.wait_for(node.close(), 5)
        for client in self.clients:
            await client.aclose()


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    first = await redis_or_skip()
    prefix = f"slapjack-test-{uuid.uuid4().hex[:12]}"
    c = Cluster(REDIS_URL, prefix)
    try:
        yield c
    finally:
        await c.close()
        await delete_prefix(first, prefix)
        await first.aclose()


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    schema = await pg_schema()
    try:
        yield f"{PG_URL}?search_path={schema}"
    finally:
        await drop_schema(schema)


@pytest.fixture
async def stores(pg_url: str) -> AsyncIterator[Callable[[], Any]]:
    """``await stores()`` opens another store (its own pool) on one fresh schema."""
    opened: list[PostgresStore] = []

    async def open_one() -> PostgresStore:
        store = await PostgresStore.open(pg_url)
        opened.append(store)
        return store

    try:
        yield open_one
    finally:
        for store in opened:
            await store.close()


# ------------------------------------------------------------- a Redis of our own


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class OwnRedis:
    """A ``redis-server`` this test starts, stops, pauses and restarts (empty:
    as after a failover to a replica that had not received the last writes)."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.dir = directory
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            _missing("redis-server", FileNotFoundError("redis-server"))
        assert exe is not None
        self.proc = subprocess.Popen(
            [
                exe,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None:
            server.resume()
        server.kill()


async def eventually(check: Callable[[], Any], timeout: float = 5.0, every: float = 0.02) -> Any:
    """Poll ``check()`` (sync or async) until it returns something true."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {check}")
        await asyncio.sleep(every)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A hung Redis or process must fail a cluster test, not stall the suite."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(120))


def nodes_http(timeout: float = 10) -> httpx.AsyncClient:
    """A client for the nodes' HTTP API that never reuses a connection idle
    for more than 1 s: uvicorn closes one idle for 5 s (its keep-alive timeout),
    and a request sent on it as it closes fails with "Server disconnected"."""
    return httpx.AsyncClient(timeout=timeout, limits=httpx.Limits(keepalive_expiry=1.0))
