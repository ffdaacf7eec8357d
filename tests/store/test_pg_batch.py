"""The PostgreSQL adapter's group commit: the inserts and index updates in one statement."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slapjack.store import ActionConflict, ActionGap, PostgresStore
from slapjack.store import postgres as pg

from .conftest import header_of, play
from .test_rooms import SETTINGS, actions_of


async def test_a_group_commit_stores_its_rows_in_one_statement(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await PostgresStore.open(pg_url)
    try:
        table, _ = play(9)
        acts = actions_of(table)[:3]
        codes = [f"P{i}" for i in range(30)]
        for code in codes:
            await store.create_room(code, SETTINGS, header_of(table))
        await store.append_action("P0", 0, acts[0])
        statements: list[str] = []
        real_execute = pg._PgConn.execute

        async def execute(self: Any, sql: str, *args: Any) -> int:
            statements.append(sql)
            return await real_execute(self, sql, *args)

        async def executemany(self: Any, sql: str, rows: Any) -> None:
            raise AssertionError(f"a group commit ran executemany: {sql}")

        monkeypatch.setattr(pg._PgConn, "execute", execute)
        monkeypatch.setattr(pg._PgConn, "executemany", executemany)
        batches = store.batches_written
        results = await asyncio.gather(
            *(store.append_action(code, 0, acts[0]) for code in codes),  # P0: a repeat
            store.append_action("P1", 2, acts[2]),  # a gap
            store.append_action("P0", 0, acts[1]),  # other content at a stored index
            return_exceptions=True,
        )
        await store._drain()
        monkeypatch.undo()
        assert results[: len(codes)] == [None] * len(codes)
        assert isinstance(results[-2], ActionGap) and isinstance(results[-1], ActionConflict)
        assert statements.count(pg.STORE_BATCH_SQL) == store.batches_written - batches
        for code in codes:
            assert list((await store.load_room(code)).actions) == acts[:1]
        await asyncio.gather(*(store.append_action(code, 1, acts[1]) for code in codes))
        for code in codes:
            assert list((await store.load_room(code)).actions) == acts[:2]
    finally:
        await store.close()
