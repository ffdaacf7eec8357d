"""A request one node forwards to another is rate-limited there by its
client's address, not the forwarding node's: real ``slapjack serve`` nodes on
their own loopback addresses (as if on other machines), rate limits on.

Node ``a`` trusts ``X-Forwarded-For`` from node ``b``'s address
(``--trusted-proxy``); node ``c`` trusts only this machine's 127.0.0.1, so
``b``'s forwards count against ``b`` there (what happened before the fix,
and what happens with a peer left out of ``--trusted-proxy``). A client
that sends its own ``X-Forwarded-For`` is not believed."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from .conftest import PG_URL, delete_prefix, drop_schema, nodes_http, pg_schema, redis_or_skip
from .test_serve_nodes import NodeProc, room_on

CLIENTS = 45
"""More than the join burst (30) of one address, each joining once."""


@pytest.fixture
async def peers(tmp_path: Path) -> AsyncIterator[dict[str, NodeProc]]:
    client = await redis_or_skip()
    schema = await pg_schema()
    prefix = f"sjt-{uuid.uuid4().hex[:10]}"
    db = f"{PG_URL}?search_path={schema}"
    procs = {
        "a": NodeProc("a", db, prefix, tmp_path / "a.log", host="127.0.0.3",
                      extra=("--trusted-proxy", "127.0.0.4")),
        "b": NodeProc("b", db, prefix, tmp_path / "b.log", host="127.0.0.4", extra=()),
        "c": NodeProc("c", db, prefix, tmp_path / "c.log", host="127.0.0.5", extra=()),
    }  # fmt: skip
    try:
        for p in procs.values():
            await asyncio.to_thread(p.start)
        yield procs
    finally:
        for p in procs.values():
            p.stop()
        await delete_prefix(client, prefix)
        await client.aclose()
        await drop_schema(schema)


def from_address(address: str) -> httpx.AsyncClient:
    """A client whose requests leave from ``address`` (one loopback address per player)."""
    return httpx.AsyncClient(timeout=10, transport=httpx.AsyncHTTPTransport(local_address=address))


async def join_once_each(via: NodeProc, code: str) -> list[int]:
    """Each of :data:`CLIENTS` clients, from its own address, joins ``code`` through ``via``."""

    async def one(i: int) -> int:
        async with from_address(f"127.0.1.{i + 10}") as http:
            r = await http.post(f"{via.url}/api/rooms/{code}/join", json={"name": f"P{i}"})
            return r.status_code

    return [await one(i) for i in range(CLIENTS)]


async def test_forwarded_joins_are_limited_by_the_clients_address(
    peers: dict[str, NodeProc],
) -> None:
    a, b, c = peers["a"], peers["b"], peers["c"]
    async with nodes_http() as http:
        on_a, on_c = await room_on(a, http, seed=4), await room_on(c, http, seed=5)
    # a believes b: every client has its own budget there (2 seats, then room_full)
    statuses = await join_once_each(b, on_a)
    assert statuses[:2] == [200, 200] and set(statuses[2:]) == {409}, statuses
    # c does not believe b: all of them share b's budget at c
    statuses = await join_once_each(b, on_c)
    assert 429 not in statuses[:30] and 429 in statuses[30:], statuses
    # one client that asks too often is still limited, forwarded or not
    async with from_address("127.0.2.1") as http:
        codes = [
            (await http.post(f"{b.url}/api/rooms/{on_a}/join", json={"name": "Z"})).status_code
            for _ in range(35)
        ]
    assert codes[-1] == 429 and 429 not in codes[:25], codes
    # a client's own X-Forwarded-For is not believed: each spoofed address
    # still counts against the client's real one
    async with from_address("127.0.2.2") as http:
        codes = [
            (
                await http.post(
                    f"{a.url}/api/rooms/{on_a}/join",
                    json={"name": "S"},
                    headers={"x-forwarded-for": f"10.9.{i}.1"},
                )
            ).status_code
            for i in range(35)
        ]
    assert codes[-1] == 429 and 429 not in codes[:25], codes
