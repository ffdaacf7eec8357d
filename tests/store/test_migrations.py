"""Versioned schema migrations: idempotent, upgrading, refusing a newer schema."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slapjack.store import SchemaTooNew, StoreUnavailable
from slapjack.store.migrations import POSTGRES, SQLITE, Migration, check_migrations

from .conftest import header_of, play


def steps(backend: str) -> tuple[Migration, ...]:
    return SQLITE if backend == "sqlite" else POSTGRES


async def test_opening_twice_changes_nothing(opener: Any, backend: str) -> None:
    store = await opener()
    assert await store.schema_version() == len(steps(backend))
    table, _ = play(1)
    await store.create_room("KEEP", {"a": 1}, header_of(table))
    await store.close()
    again = await opener()
    assert await again.schema_version() == len(steps(backend))
    assert await again.live_rooms() == ["KEEP"]
    async with again._read() as conn:
        rows = await conn.fetch("SELECT version, name FROM schema_version ORDER BY version")
    assert [(int(r[0]), r[1]) for r in rows] == [(s.version, s.name) for s in steps(backend)]


async def test_an_older_schema_is_upgraded_in_place(opener: Any, backend: str) -> None:
    old = await opener(migrations=steps(backend)[:1])
    assert await old.schema_version() == 1
    table, _ = play(2)
    await old.create_room("OLD", {"x": True}, header_of(table))
    await old.append_action("OLD", 0, {"t": 0, "flip": "Anna"})
    with pytest.raises(StoreUnavailable):  # version 1 has no finished games yet
        await old.finish_game(None, table.record.to_dict())
    await old.close()

    new = await opener()
    assert await new.schema_version() == len(steps(backend))
    room = await new.load_room("OLD")
    assert room.settings == {"x": True}
    assert room.actions == ({"t": 0, "flip": "Anna"},)
    game_id = await new.finish_game("OLD", table.record.to_dict())
    assert (await new.get_summary(game_id)).room == "OLD"


async def test_a_newer_schema_is_refused(opener: Any, backend: str) -> None:
    store = await opener()
    async with store._tx() as conn:
        await conn.execute(
            "INSERT INTO schema_version (version, name, applied_ms) VALUES (?, ?, ?)",
            len(steps(backend)) + 1,
            "from the future",
            0,
        )
    await store.close()
    with pytest.raises(SchemaTooNew, match="upgrade"):
        await opener()


async def test_concurrent_opens_migrate_once(opener: Any, backend: str) -> None:
    stores = await asyncio.gather(opener(), opener(), opener())
    for store in stores:
        assert await store.schema_version() == len(steps(backend))
    async with stores[0]._read() as conn:
        row = await conn.fetchone("SELECT COUNT(*) FROM schema_version")
    assert row is not None and int(row[0]) == len(steps(backend))


def test_migration_versions_have_no_holes() -> None:
    check_migrations(SQLITE)
    check_migrations(POSTGRES)
    assert [s.name for s in SQLITE] == [s.name for s in POSTGRES]
    with pytest.raises(RuntimeError):
        check_migrations((SQLITE[1],))


async def test_many_processes_opening_a_new_sqlite_file_together(tmp_path: Any) -> None:
    """Switching a new file to WAL answers "database is locked" at once to the
    others (no busy handler); every open still succeeds and migrates once."""
    from slapjack.store.sqlite import SqliteStore

    for attempt in range(30):
        path = tmp_path / f"new{attempt}" / "store.sqlite3"
        stores = await asyncio.gather(*(SqliteStore.open(path) for _ in range(6)))
        try:
            for store in stores:
                assert await store.schema_version() == len(SQLITE)
        finally:
            for store in stores:
                await store.close()
