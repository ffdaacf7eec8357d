"""The database stops answering mid-game (as PostgreSQL down would): the room
pauses with a visible message instead of playing on unrecorded, and goes on by
itself, with nothing lost, once the store answers again.

The store is a real SQLite store whose action appends fail with
``StoreUnavailable`` while ``down`` is set (the shared PostgreSQL of this
machine is not ours to stop)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from slapjack.store import SqliteStore, StoreUnavailable

from .conftest import Client, join, make_room, start_server


class Unplugged:
    """A store whose appends fail while ``down`` (everything else is the real store)."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store
        self.down = False
        self.refused = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def append_action(self, *args: Any, **kw: Any) -> None:
        await self.start_append(*args, **kw)

    def start_append(self, *args: Any, **kw: Any) -> asyncio.Future[None]:
        """An append begun at once (as a room's task begins one, see
        ``Actor.submit``): while down, a future that fails as the write would."""
        if self.down:
            self.refused += 1
            failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            failed.set_exception(
                StoreUnavailable("connection refused (the test unplugged the database)")
            )
            return failed
        return self._store.start_append(*args, **kw)


async def test_the_room_pauses_while_the_store_is_down_and_goes_on_after(tmp_path: Path) -> None:
    real = await SqliteStore.open(tmp_path / "s.sqlite3")
    store = Unplugged(real)
    server = await asyncio.to_thread(start_server, None, tmp_path, store=store)
    try:
        timing = {"start_delay_ms": 0.0, "turn_ms": 40.0, "bot_pace": 0.05, "grace_ms": 60_000.0}
        code = await make_room(server, seats=3, bots={"1": "casual", "2": "casual"}, timing=timing)
        seat = await join(server, code, "Ann")
        client = await Client(server.ws_url, code, seat["token"]).connect()
        for _ in range(500):
            if client.view is not None and client.view["flips"] >= 3:
                break
            await asyncio.sleep(0.02)
        store.down = True
        for _ in range(300):
            if client.errors():
                break
            await asyncio.sleep(0.01)
        (paused,) = client.errors()
        assert paused["code"] == "store_unavailable" and "paused" in paused["message"]
        assert "id" not in paused
        seen = client.view["flips"] if client.view else 0
        await asyncio.sleep(0.6)
        assert client.view is not None and client.view["flips"] <= seen + 1  # nothing more told
        assert store.refused >= 2  # the write was tried again
        stored = len((await real.load_room(code)).actions)
        store.down = False
        for _ in range(500):
            if client.view["flips"] > seen + 3 or client.view["over"]:
                break
            await asyncio.sleep(0.02)
        assert client.view["flips"] > seen + 3 or client.view["over"]  # it went on
        state = await real.load_room(code)
        assert len(state.actions) > stored
        # everything the client saw is stored: the record replays to at least its view
        assert state.record().actions and len(client.errors()) == 1
        await client.ws.close()
    finally:
        await asyncio.to_thread(server.stop)
        await real.close()
