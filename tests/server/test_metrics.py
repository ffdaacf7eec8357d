"""``GET /api/metrics``: the store's WAL figures (``store_wal``) on SQLite, and
their absence on PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import slapjack.store.sqlite as sq

from .conftest import LiveServer, start_server
from .test_play import play_room
from .test_postgres import fresh_schema

WAL_FIELDS = {
    "truncations",
    "busy",
    "last_ms",
    "max_ms",
    "wal_bytes",
    "log_bytes",
    "limit_bytes",
    "mode",
    "checkpoints",
}


@pytest.fixture
def tiny_wal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[LiveServer]:
    """A server whose store checkpoints after every commit and resets any WAL."""
    monkeypatch.setattr(sq, "CHECKPOINT_EVERY", 1)
    monkeypatch.setattr(sq, "WAL_LIMIT_BYTES", 1)
    server = start_server(None, tmp_path)
    yield server
    server.stop()


async def test_metrics_carry_the_wal_figures_of_a_fresh_store(tmp_path: Path) -> None:
    server = start_server(None, tmp_path)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            wal = (await http.get("/api/metrics")).json()["store_wal"]
    finally:
        server.stop()
    assert set(wal) == WAL_FIELDS
    assert wal["truncations"] == 0 and wal["last_ms"] is None and wal["max_ms"] is None
    assert wal["limit_bytes"] == sq.WAL_LIMIT_BYTES == 64 * 1024 * 1024
    assert wal["mode"] == sq.WAL_RESET and wal["log_bytes"] is None  # no checkpoint yet
    assert isinstance(wal["wal_bytes"], int) and wal["wal_bytes"] >= 0


async def test_metrics_count_and_time_the_resets_of_a_game(tiny_wal: LiveServer) -> None:
    clients = await play_room(tiny_wal, "classic", spectate=False)
    try:
        async with httpx.AsyncClient(base_url=tiny_wal.url) as http:
            for _ in range(100):  # the last checkpoint may still run
                body = (await http.get("/api/metrics", params={"wal": True})).json()
                wal = body["store_wal"]
                if wal["truncations"] >= 3:
                    break
                await asyncio.sleep(0.05)
            again = (await http.get("/api/metrics", params={"reset": True})).json()["store_wal"]
    finally:
        for c in clients:
            await c.close()
    assert set(wal) == WAL_FIELDS | {"recent"}
    assert wal["truncations"] >= 3, wal
    assert wal["checkpoints"] >= wal["truncations"]
    assert isinstance(wal["log_bytes"], int) and wal["log_bytes"] >= 0
    assert 0 <= wal["last_ms"] <= wal["max_ms"]
    recent = wal["recent"]
    assert len(recent) == min(sq.WAL_LOG, wal["truncations"] + wal["busy"])
    assert all(ms >= 0 for _, ms in recent) and max(ms for _, ms in recent) <= wal["max_ms"]
    assert recent[-1][1] == wal["last_ms"]
    assert "recent" not in again and again["truncations"] >= wal["truncations"]


@pytest.fixture
def pg_server(tmp_path: Path) -> Iterator[LiveServer]:
    for url in fresh_schema("slapjack_metrics"):
        server = start_server(url, tmp_path)
        try:
            yield server
        finally:
            server.stop()


@pytest.mark.postgres
async def test_on_postgres_the_wal_figures_are_null(pg_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=pg_server.url) as http:
        body = (await http.get("/api/metrics", params={"wal": True})).json()
    assert "store_wal" in body and body["store_wal"] is None
    assert "store_batches" not in body
