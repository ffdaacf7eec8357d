"""The server on PostgreSQL (``--database-url postgresql://…``): a whole game
into the history, and a room that survives a server restart."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from .conftest import Client, LiveServer, join, make_room, start_server
from .test_play import play_room

pytestmark = pytest.mark.postgres

PG_URL = os.environ.get("SLAPJACK_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


async def _exec(sql: str) -> None:
    conn = await asyncpg.connect(PG_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def fresh_schema(prefix: str) -> Iterator[str]:
    """A database URL on a fresh PostgreSQL schema, dropped afterwards (fixtures
    yield from it); under CI=true an unreachable server fails the test."""
    schema = f"{prefix}_{uuid.uuid4().hex[:10]}"
    try:
        asyncio.run(_exec(f'CREATE SCHEMA "{schema}"'))
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL at {PG_URL} is required under CI=true: {exc}")
        pytest.skip(f"PostgreSQL at {PG_URL} is not reachable: {exc}")
    try:
        yield f"{PG_URL}?search_path={schema}"
    finally:
        asyncio.run(_exec(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A fresh schema for this module, dropped afterwards."""
    yield from fresh_schema("slapjack_server")


@pytest.fixture(scope="module")
def pg_live(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(pg_url, tmp_path_factory.mktemp("pg"))
    yield server
    server.stop()


async def test_a_game_on_postgres_lands_in_the_history(pg_live: LiveServer) -> None:
    clients = await play_room(pg_live, "classic")
    try:
        code = clients[0].url.rsplit("/", 1)[1]
        async with httpx.AsyncClient(base_url=pg_live.url) as http:
            for _ in range(50):
                games = (await http.get("/api/games")).json()["games"]
                mine = [g for g in games if g["room"] == code]
                if mine:
                    break
                await asyncio.sleep(0.05)
            assert mine
            record = (await http.get(f"/api/games/{mine[0]['id']}")).json()
            assert record["format"] == "slapjack-record/1"
            stats = (await http.get("/api/stats/P0")).json()
            assert stats["games"] >= 1
    finally:
        for c in clients:
            await c.close()


async def test_a_room_survives_a_restart_on_postgres(pg_url: str, tmp_path: Path) -> None:
    first = start_server(pg_url, tmp_path)
    try:
        code = await make_room(first, seats=2, timing={"turn_ms": 60000.0, "grace_ms": 60000.0})
        seats = [await join(first, code, n) for n in ("Anna", "Ben")]
        a, b = (Client(first.ws_url, code, s["token"]) for s in seats)
        await a.connect()
        await b.connect()
        await a.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        await a.act("flip", flip_id=0)
        await b.wait(lambda c: c.view is not None and c.view["turn"] == 1)
        await b.act("flip", flip_id=1)
        await a.wait(lambda c: c.view is not None and c.view["flips"] == 2)
        before = a.view
        await a.close()
        await b.close()
    finally:
        first.stop()
    second = start_server(pg_url, tmp_path)
    try:
        again = Client(second.ws_url, code, seats[0]["token"])
        await again.connect()
        await again.wait(lambda c: c.view is not None)
        assert again.view == before
        await again.close()
    finally:
        second.stop()
