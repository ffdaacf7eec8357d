"""The test hooks' rooms (``POST /api/test/rooms``) keep the promises of the
real routes that the tests built on them rely on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from .conftest import start_server


async def test_a_hook_room_is_answered_once_it_is_stored(tmp_path: Path) -> None:
    """As ``POST /api/rooms`` is: the answer comes after the room's write, so a
    server killed right after it still has the room (the soak restarts its
    server under rooms just made; before, the answer came first and a room
    made just before a ``kill -9`` was lost)."""
    live = start_server(None, tmp_path)
    try:
        store = live.app.state.ctx.lobby.store
        real = store.create_room
        stored: list[str] = []

        async def slow_create(code: str, *args: Any, **kw: Any) -> int:
            await asyncio.sleep(0.5)  # a store that takes its time
            epoch: int = await real(code, *args, **kw)
            stored.append(code)
            return epoch

        store.create_room = slow_create
        async with httpx.AsyncClient(base_url=live.url, timeout=10) as http:
            r = await http.post("/api/test/rooms", json={"create": {"seats": 2}})
            assert r.status_code == 200, r.text
            code = r.json()["code"]
            assert stored == [code]  # in the store before the answer
            r = await http.post(f"/api/rooms/{code}/join", json={"name": "Ann"})
            assert r.status_code == 200, r.text
    finally:
        live.stop()
