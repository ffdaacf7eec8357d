"""Fixtures for the store tests: every contract test runs on SQLite and on PostgreSQL.

PostgreSQL is the local server (``SLAPJACK_TEST_PG``, default
``postgresql://postgres@127.0.0.1:5432/test``); each test gets a fresh schema
through ``search_path`` and drops it afterwards. Without the server the
PostgreSQL cases skip, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from slapjack.core import Flip, Rules, Slap, Table
from slapjack.core.events import Event
from slapjack.store import PostgresStore, SqliteStore
from slapjack.store._sql import SqlStore

PG_URL = os.environ.get("SLAPJACK_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


async def _pg_schema() -> str:
    """Create a fresh schema; skip (or, under CI, fail) when PostgreSQL is not there."""
    name = f"slapjack_test_{uuid.uuid4().hex[:12]}"
    try:
        conn = await asyncpg.connect(PG_URL, timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL at {PG_URL} is required under CI=true: {exc}")
        pytest.skip(f"PostgreSQL at {PG_URL} is not reachable: {exc}")
    try:
        await conn.execute(f'CREATE SCHEMA "{name}"')
    finally:
        await conn.close()
    return name


async def _drop_schema(name: str) -> None:
    conn = await asyncpg.connect(PG_URL, timeout=5)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    finally:
        await conn.close()


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    """A PostgreSQL URL whose search_path is a fresh, empty schema."""
    schema = await _pg_schema()
    try:
        yield f"{PG_URL}?search_path={schema}"
    finally:
        await _drop_schema(schema)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def opener(backend: str, tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """``await opener(**kw)`` opens a store on the same database each time it is called."""
    opened: list[SqlStore] = []
    schema: str | None = None
    if backend == "sqlite":
        path = tmp_path / "data" / "store.sqlite3"

        async def open_store(**kw: Any) -> SqlStore:
            store = await SqliteStore.open(path, **kw)
            opened.append(store)
            return store
    else:
        schema = await _pg_schema()
        url = f"{PG_URL}?search_path={schema}"

        async def open_store(**kw: Any) -> SqlStore:
            store = await PostgresStore.open(url, **kw)
            opened.append(store)
            return store

    try:
        yield open_store
    finally:
        for store in opened:
            await store.close()
        if schema is not None:
            await _drop_schema(schema)


@pytest.fixture
async def store(opener: Callable[..., Any]) -> SqlStore:
    result: SqlStore = await opener()
    return result


# ------------------------------------------------------------------ games


def play(
    seed: int,
    names: tuple[str, ...] = ("Anna", "Ben", "Cem"),
    preset: str = "classic",
    game: str | None = None,
    max_steps: int = 20_000,
) -> tuple[Table, list[Event]]:
    """Play a whole game deterministically (with some wrong slaps); return it and its live events."""
    rules = Rules.from_options({"preset": preset}, game=game)
    table = Table.new(rules, list(names), seed=seed)
    events: list[Event] = []
    t = 0
    for step in range(max_steps):
        g = table.game
        if g.over:
            break
        if g.race_open:
            for s in g.in_seats():
                events += table.apply(Slap(s, 150 + ((step + 3 * s) % 7) * 20, False, t))
            events += table.settle(final=True)
        elif g.turn is None:
            events += table.settle(final=True)
        else:
            if step % 13 == 5 and g.top is not None:
                seat = g.in_seats()[step % len(g.in_seats())]
                events += table.apply(Slap(seat, 400.0, False, t))
                t += 10
            if not table.game.over and table.game.turn is not None:
                events += table.apply(Flip(table.game.turn, t))
        t += 100
    return table, events


def header_of(table: Table) -> dict[str, Any]:
    data = table.record.to_dict()
    data.pop("actions")
    return data


@pytest.fixture
def played() -> Iterator[tuple[Table, list[Event]]]:
    yield play(3)
