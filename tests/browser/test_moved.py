"""The browser follows ``moved``: a room page opened on a node that does not run
the room joins through that node (forwarded over HTTP), its WebSocket is sent
on to the owner and the game plays there (two in-process nodes on a Redis of
the test's own and a fresh PostgreSQL schema)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from cluster.conftest import PG_URL, OwnRedis, drop_schema, pg_schema
from cluster.test_served_outage import serve_node

from .conftest import Pages, table_state, wait_for
from .test_room import join_through_page

T = TypeVar("T")


def in_thread(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to its end in a thread of its own (Playwright's sync API
    keeps an event loop running in this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def test_the_browser_follows_moved_to_the_node_that_runs_the_room(
    browser: Any, tmp_path: Path
) -> None:
    import httpx

    own_redis = OwnRedis(tmp_path)
    own_redis.start()

    schema = in_thread(pg_schema)
    db = f"{PG_URL}?search_path={schema}"
    a = serve_node(db, own_redis.url, "a", tmp_path / "a")
    b = serve_node(db, own_redis.url, "b", tmp_path / "b")
    pages = Pages(browser, b.url)
    try:
        body = {
            "create": {"name": "Moved table", "seats": 2, "bots": {"1": "casual"}},
            "timing": {"start_delay_ms": 0.0, "bot_pace": 0.2},
        }
        code = httpx.post(f"{a.url}/api/test/rooms", json=body, timeout=10).json()["code"]
        page = pages.page()
        join_through_page(page, code, "Anna")  # on node b
        room = a.app.state.lobby.rooms[code]
        wait_for(lambda: room.seats[0].conns == 1)  # Anna's socket is on node a
        assert code not in b.app.state.lobby.rooms
        wait_for(lambda: table_state(page)["flip"] not in (None, 0))  # and the game plays
        assert not pages.unexpected_errors(), pages.unexpected_errors()
    finally:
        for ctx in pages.contexts:
            ctx.close()
        b.stop()
        a.stop()
        own_redis.kill()
        in_thread(lambda: drop_schema(schema))
