"""Versioned schema migrations: idempotent, upgrading, refusing a newer schema."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slapjack.store import (
    ActionConflict,
    ActionGap,
    Ownership,
    SchemaTooNew,
    StaleOwner,
    StoreUnavailable,
)
from slapjack.store.base import dump_json
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
    # A room as a version-1 program wrote it (today's create_room needs version 3).
    async with old._tx() as conn:
        await conn.execute(
            "INSERT INTO rooms (code, settings, header, next_index, created_ms, game_started_ms)"
            " VALUES (?, ?, ?, 1, 1000, 1000)",
            "OLD",
            dump_json({"x": True}, "settings"),
            dump_json(header_of(table), "header"),
        )
        await conn.execute(
            "INSERT INTO room_actions (code, idx, action) VALUES (?, 0, ?)",
            "OLD",
            dump_json({"t": 0, "flip": "Anna"}, "action"),
        )
    with pytest.raises(StoreUnavailable):  # version 1 has no finished games yet
        await old.finish_game(None, table.record.to_dict())
    await old.close()

    new = await opener()
    assert await new.schema_version() == len(steps(backend))
    room = await new.load_room("OLD")
    assert room.settings == {"x": True}
    assert room.actions == ({"t": 0, "flip": "Anna"},)
    # Version 3: the old room is nobody's, at epoch 0, and can be claimed and fenced.
    assert await new.room_owner("OLD") == Ownership("OLD", None, 0, None)
    await new.append_action("OLD", 1, {"t": 100, "flip": "Ben"})  # unfenced, as before
    epoch = await new.claim_room("OLD", "node-a", expected_epoch=0)
    assert epoch > 0
    await new.append_action("OLD", 2, {"t": 200, "flip": "Cem"}, epoch=epoch)
    with pytest.raises(StaleOwner):
        await new.append_action("OLD", 3, {"t": 300, "flip": "Anna"}, epoch=0)
    game_id = await new.finish_game("OLD", table.record.to_dict(), epoch=epoch)
    assert (await new.get_summary(game_id)).room == "OLD"


async def test_a_version_2_database_gets_owners_and_epochs(opener: Any, backend: str) -> None:
    old = await opener(migrations=steps(backend)[:2])
    table, _ = play(4)
    async with old._tx() as conn:
        for code in ("R1", "R2"):
            await conn.execute(
                "INSERT INTO rooms (code, settings, header, next_index, created_ms,"
                " game_started_ms) VALUES (?, '{}', ?, 0, 1000, 1000)",
                code,
                dump_json(header_of(table), "header"),
            )
    await old.close()
    new = await opener()
    assert await new.room_owners() == {None: 2}
    first = await new.create_room("R3", {}, header_of(table), owner="node-b")
    assert first >= 1
    claimed = await new.claim_room("R1", "node-b")
    assert claimed > first  # one counter for every room: epochs only grow
    assert await new.room_owners() == {None: 1, "node-b": 2}
    assert [o.code for o in await new.owned_rooms("node-b")] == ["R1", "R3"]


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


async def test_a_version_3_database_gets_folded_names(opener: Any, backend: str) -> None:
    """Names stored before version 4 are folded by the upgrade: found in any case."""
    store = await opener(migrations=steps(backend)[:4])
    table, _ = play(5, names=("Änne", "Ben"))
    game_id = await store.finish_game(None, table.record.to_dict())
    before = await store.player_stats("Änne")
    assert before.games == 1 and before.median_reaction_ms is not None
    # Back to the schema of a version-3 program, which wrote no name_key.
    async with store._tx() as conn:
        for index in ("game_players_by_key", "reactions_by_key"):
            await conn.execute(f"DROP INDEX {index}")
        for name in ("game_players", "reactions"):
            await conn.execute(f"ALTER TABLE {name} DROP COLUMN name_key")
        await conn.execute("DELETE FROM schema_version WHERE version = 4")
    await store.close()
    new = await opener()
    assert await new.schema_version() == len(steps(backend))
    for other in ("änne", "ÄNNE"):
        stats = await new.player_stats(other)
        assert (stats.games, stats.median_reaction_ms) == (1, before.median_reaction_ms)
        assert [g.id for g in await new.list_games(10, 0, other)] == [game_id]
    assert await new.count_games("ben") == 1


async def test_a_version_4_database_reads_next_indices_from_the_actions(
    opener: Any, backend: str
) -> None:
    """Version 5 drops ``rooms.next_index``: a room stored before it goes on
    at one past its last stored action, refuses a gap, and keeps what it had."""
    old = await opener(migrations=steps(backend)[:4])
    table, _ = play(6)
    # Two rooms as a version-4 program wrote them: UP with three actions.
    async with old._tx() as conn:
        for code, n in (("UP", 3), ("NONE", 0)):
            await conn.execute(
                "INSERT INTO rooms (code, settings, header, next_index, created_ms,"
                " game_started_ms) VALUES (?, '{}', ?, ?, 1000, 1000)",
                code,
                dump_json(header_of(table), "header"),
                n,
            )
        for i in range(3):
            await conn.execute(
                "INSERT INTO room_actions (code, idx, action) VALUES ('UP', ?, ?)",
                i,
                dump_json({"t": i * 100, "flip": "Anna"}, "action"),
            )
    await old.close()

    new = await opener()
    assert await new.schema_version() == len(steps(backend)) == 5
    async with new._read() as conn:
        columns = (
            [str(r[1]) for r in await conn.fetch("PRAGMA table_info(rooms)")]
            if backend == "sqlite"
            else [
                str(r[0])
                for r in await conn.fetch(
                    "SELECT column_name FROM information_schema.columns"
                    " WHERE table_name = 'rooms' AND table_schema = current_schema()"
                )
            ]
        )
    assert "next_index" not in columns and "epoch" in columns
    with pytest.raises(ActionGap):
        await new.append_action("UP", 4, {"t": 400, "flip": "Ben"})
    await new.append_action("UP", 2, {"t": 200, "flip": "Anna"})  # stored already: the same
    with pytest.raises(ActionConflict):
        await new.append_action("UP", 2, {"t": 200, "flip": "Ben"})
    await new.append_action("UP", 3, {"t": 300, "flip": "Ben"})
    await new.append_action("NONE", 0, {"t": 0, "flip": "Anna"})
    assert len((await new.load_room("UP")).actions) == 4
    assert len((await new.load_room("NONE")).actions) == 1


async def test_a_player_is_looked_up_through_an_index(opener: Any, backend: str) -> None:
    store = await opener()
    table, _ = play(5, names=("Anna", "Ben"))
    await store.finish_game(None, table.record.to_dict())
    async with store._read() as conn:
        for sql in (
            "SELECT game_id FROM game_players WHERE name_key = ?",
            "SELECT reaction_ms FROM reactions WHERE name_key = ? ORDER BY reaction_ms",
        ):
            if backend == "sqlite":
                plan = " ".join(
                    str(r[-1]) for r in await conn.fetch(f"EXPLAIN QUERY PLAN {sql}", "anna")
                )
                assert "USING COVERING INDEX" in plan or "USING INDEX" in plan, plan
            else:
                await conn.execute("SET enable_seqscan = off")  # a tiny table: ask if it could
                plan = " ".join(str(r[0]) for r in await conn.fetch(f"EXPLAIN {sql}", "anna"))
                await conn.execute("SET enable_seqscan = on")
                assert "_by_key" in plan, plan
