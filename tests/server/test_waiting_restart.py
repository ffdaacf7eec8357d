"""A room that waits for its players survives ``kill -9``: real ``slapjack
serve`` processes, real sockets, on SQLite and on PostgreSQL.

Before its first game a room is stored when it is made and at every join
(docs/protocol.md, Persistence): after a restart ``GET /api/rooms/{code}``
shows it with the seats taken, each seat's token reconnects to its seat, the
free seats can be joined and the game starts and plays. An empty waiting room
that has expired is not resumed (tests/server/test_room_restore.py has the
in-process cases)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from slapjack.store import open_store
from slapjack.store.base import token_matches

from .conftest import FAST, Client, free_port
from .crashkit import Serve, cards_in
from .test_postgres import fresh_schema

PG_URL = os.environ.get("SLAPJACK_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
SLOW = {"turn_ms": 60_000.0, "grace_ms": 60_000.0, "jack_timeout_ms": 300.0}


async def _exec(sql: str) -> None:
    conn = await asyncpg.connect(PG_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL schema for one test, dropped afterwards."""
    yield from fresh_schema("slapjack_waiting")


async def get_room(server: Serve, code: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url) as http:
        return await http.get(f"/api/rooms/{code}")


async def join(server: Serve, code: str, name: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.url) as http:
        r = await http.post(f"/api/rooms/{code}/join", json={"name": name})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


async def waiting_room_survives(tmp_path: Path, database_url: str | None) -> None:
    server = Serve(tmp_path / "data", free_port(), tmp_path / "serve.log", database_url)
    server.start()
    clients: list[Client] = []
    try:
        body = {
            "create": {"seats": 3, "rules": {"preset": "classic"}, "name": "Waiting"},
            "timing": {**FAST, **SLOW},
            "seed": 5,
            "referee": "trusting",
        }
        async with httpx.AsyncClient(base_url=server.url) as http:
            r = await http.post("/api/test/rooms", json=body)
            assert r.status_code == 200, r.text
            code = r.json()["code"]
        anna = await join(server, code, "Anna")
        assert anna["seat"] == 0
        first = Client(server.ws_url, code, anna["token"])
        await first.connect()
        welcome = await first.wait_frame(lambda f: f["type"] == "welcome")
        assert welcome["seat"] == 0 and welcome["room"]["status"] == "waiting"
        await asyncio.sleep(0.2)  # nothing more is written: the room just waits

        server.kill9()
        await first.wait(lambda c: c.closed is not None)
        await first.close()
        assert first.closed is not None and first.closed[0] != 4004

        # what the dead server left: the waiting room, Anna's seat with her token's hash
        store = await open_store(database_url, server.data_dir)
        try:
            assert code in await store.live_rooms()
            state = await store.load_room(code)
        finally:
            await store.close()
        assert state.settings["waiting"] is True and state.settings["seen"] == [0]
        assert [(s.seat, s.name) for s in state.seats] == [(0, "Anna")]
        assert token_matches(anna["token"], state.seats[0].token_hash)

        server.start()
        r = await get_room(server, code)
        assert r.status_code == 200, r.text
        info = r.json()
        assert info["status"] == "waiting" and info["free_seats"] == 2 and info["name"] == "Waiting"
        assert [s["name"] for s in info["seats"]] == ["Anna", None, None]

        again = Client(server.ws_url, code, anna["token"])
        clients.append(again)
        await again.connect()
        welcome = await again.wait_frame(lambda f: f["type"] == "welcome")
        assert welcome["seat"] == 0 and welcome["name"] == "Anna"
        assert welcome["room"]["status"] == "waiting"

        ben = await join(server, code, "Ben")
        assert ben["seat"] == 1
        cleo = await join(server, code, "Anna")  # a name taken is made unique
        assert cleo["seat"] == 2 and cleo["name"] == "Anna 2"
        for seat in (ben, cleo):
            c = Client(server.ws_url, code, seat["token"])
            clients.append(c)
            await c.connect()
        for c in clients:  # every seat taken and connected: the game starts
            await c.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        assert clients[0].updates[-1]["room"]["status"] == "playing"
        assert clients[0].updates[-1]["room"]["names"] == ["Anna", "Ben", "Anna 2"]
        for flip in range(6):  # and plays: each seat flips in turn
            await clients[0].wait(
                lambda c: (
                    c.view is not None and not c.view["race_open"] and c.view["turn"] is not None
                )
            )
            turn = clients[0].view["turn"] if clients[0].view else None
            assert turn is not None
            await clients[turn].act("flip", flip_id=clients[0].view["flips"])  # type: ignore[index]
            for c in clients:
                await c.wait(lambda c, n=flip + 1: c.view is not None and c.view["flips"] >= n)
        for c in clients:
            assert c.view is not None and cards_in(c.view) == 52
    finally:
        for c in clients:
            await c.close()
        server.stop()


async def test_kill_9_keeps_a_waiting_room_with_its_seats(tmp_path: Path) -> None:
    await waiting_room_survives(tmp_path, None)


@pytest.mark.postgres
async def test_kill_9_keeps_a_waiting_room_on_postgres(tmp_path: Path, pg_url: str) -> None:
    await waiting_room_survives(tmp_path, pg_url)


async def test_a_seat_left_while_waiting_stays_free_after_kill_9(tmp_path: Path) -> None:
    """A player who left a waiting room's seat has no seat after the restart:
    the seat is free, the old token is refused (4001)."""
    server = Serve(tmp_path / "data", free_port(), tmp_path / "serve.log")
    server.start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            r = await http.post("/api/rooms", json={"seats": 2})
            assert r.status_code == 200, r.text
            code = r.json()["code"]
        anna = await join(server, code, "Anna")
        c = Client(server.ws_url, code, anna["token"])
        await c.connect()
        await c.wait_frame(lambda f: f["type"] == "welcome")
        await c.act("leave")
        await c.wait_frame(lambda f: f["type"] == "welcome" and f["seat"] is None)
        await c.close()
        server.kill9()
        server.start()
        info = (await get_room(server, code)).json()
        assert info["status"] == "waiting" and info["free_seats"] == 2
        gone = Client(server.ws_url, code, anna["token"])
        await gone.connect()
        await gone.wait(lambda c: c.closed is not None)
        await gone.close()
        assert gone.closed is not None and gone.closed[0] == 4001
        assert [e["code"] for e in gone.errors()] == ["bad_token"]
    finally:
        server.stop()
