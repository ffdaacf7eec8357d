"""``open_store``: choosing the adapter from ``--database-url`` and ``--data-dir``."""

from __future__ import annotations

from pathlib import Path

import pytest

from slapjack.store import (
    DEFAULT_FILE,
    BadDatabaseUrl,
    PostgresStore,
    SqliteStore,
    Store,
    StoreUnavailable,
    open_store,
)
from slapjack.store.migrations import POSTGRES

from .conftest import header_of, play


async def test_no_url_means_a_sqlite_file_in_the_data_dir(tmp_path: Path) -> None:
    data_dir = tmp_path / "new" / "data"
    store = await open_store(None, data_dir)
    try:
        assert isinstance(store, SqliteStore)
        assert isinstance(store, Store)
        assert store.dialect == "sqlite"
        assert (data_dir / DEFAULT_FILE).is_file()
        assert await store.pragma("journal_mode") == "wal"
        assert await store.pragma("synchronous") == 1  # NORMAL
        assert await store.pragma("foreign_keys") == 1
    finally:
        await store.close()


async def test_sqlite_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    absolute = tmp_path / "abs.db"
    store = await open_store(f"sqlite:///{absolute}?synchronous=FULL", tmp_path / "unused")
    try:
        assert isinstance(store, SqliteStore)
        assert Path(store.path) == absolute
        assert await store.pragma("synchronous") == 2  # FULL
    finally:
        await store.close()
    monkeypatch.chdir(tmp_path)
    relative = await open_store("sqlite:///rel/x.db", tmp_path / "unused")
    await relative.close()
    assert (tmp_path / "rel" / "x.db").is_file()
    memory = await open_store("sqlite:///:memory:", tmp_path)
    try:
        table, _ = play(1)
        await memory.create_room("M", {}, header_of(table))
        assert await memory.live_rooms() == ["M"]
    finally:
        await memory.close()
    assert not (tmp_path / "unused").exists()


@pytest.mark.parametrize(
    "url",
    [
        "mysql://root@localhost/db",
        "sqlite://relative-without-third-slash.db",
        "sqlite:///",
        "sqlite:///x.db?journal=off",
        "sqlite:///x.db?synchronous=SOMETIMES",
        "no url at all",
        "",
    ],
)
async def test_bad_urls_are_typed_errors(url: str, tmp_path: Path) -> None:
    with pytest.raises(BadDatabaseUrl):
        await open_store(url, tmp_path)


async def test_a_postgresql_url(pg_url: str, tmp_path: Path) -> None:
    store = await open_store(pg_url, tmp_path)
    try:
        assert isinstance(store, PostgresStore)
        assert store.dialect == "postgresql"
        assert await store.schema_version() == len(POSTGRES)
    finally:
        await store.close()
    assert not any(tmp_path.iterdir())


async def test_unreachable_postgresql_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable):
        await open_store("postgresql://postgres@127.0.0.1:1/test", tmp_path)
    with pytest.raises(StoreUnavailable):
        await open_store("postgresql://postgres@127.0.0.1:5432/no_such_database_xyz", tmp_path)


async def test_a_search_path_without_a_schema_is_a_typed_error(tmp_path: Path) -> None:
    from .conftest import PG_URL

    with pytest.raises(StoreUnavailable, match="schema"):
        await open_store(f"{PG_URL}?search_path=no_such_schema_xyz", tmp_path)


async def test_an_unwritable_sqlite_path_is_a_typed_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreUnavailable):
        await open_store(None, blocker / "data")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database file at all" * 100)
    with pytest.raises(StoreUnavailable):
        await open_store(f"sqlite:///{garbage}", tmp_path)
