"""Choose and open a store from ``--database-url`` and ``--data-dir``."""

from __future__ import annotations

from pathlib import Path
from typing import Final
from urllib.parse import parse_qs

from .base import Store
from .errors import BadDatabaseUrl, BadInput
from .postgres import PostgresStore
from .sqlite import SqliteStore

DEFAULT_FILE: Final = "slapjack.sqlite3"


async def open_store(database_url: str | None, data_dir: Path | str) -> Store:
    """Open the store a server should use.

    * ``None``: the SQLite file ``data_dir/slapjack.sqlite3`` (created if missing);
    * ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` or
      ``sqlite:///:memory:``; an optional ``?synchronous=FULL`` (default NORMAL);
    * ``postgresql://…`` (or ``postgres://…``): a PostgreSQL database, e.g.
      ``postgresql://postgres@127.0.0.1:5432/slapjack?search_path=public``.

    Raises :class:`BadDatabaseUrl` for anything else and
    :class:`StoreUnavailable` when the database cannot be reached.
    """
    if database_url is None:
        return await SqliteStore.open(Path(data_dir) / DEFAULT_FILE)
    if not isinstance(database_url, str):
        raise BadDatabaseUrl(f"a database URL is text, got {type(database_url).__name__}")
    scheme = database_url.split(":", 1)[0].lower()
    if scheme in ("postgresql", "postgres"):
        return await PostgresStore.open(database_url)
    if scheme == "sqlite":
        if not database_url.startswith("sqlite:///"):
            raise BadDatabaseUrl("a SQLite URL is sqlite:///relative/path or sqlite:////abs/path")
        rest = database_url[len("sqlite:///") :]
        path, _, query = rest.partition("?")
        if not path:
            raise BadDatabaseUrl("the SQLite URL names no file")
        options = parse_qs(query, strict_parsing=False)
        unknown = sorted(set(options) - {"synchronous"})
        if unknown:
            raise BadDatabaseUrl(f"unknown SQLite URL option {unknown[0]!r}")
        synchronous = options.get("synchronous", ["NORMAL"])[-1]
        try:
            return await SqliteStore.open(path, synchronous=synchronous)
        except BadInput as exc:  # a bad synchronous= value: the URL's fault
            raise BadDatabaseUrl(str(exc)) from None
    raise BadDatabaseUrl(
        f"unsupported database URL {database_url.split('://', 1)[0]!r}://…:"
        " use postgresql://… or sqlite:///path"
    )
