"""The append benchmark runs (a tiny shape, so the suite stays fast)."""

from __future__ import annotations

from slapjack.store._sql import SqlStore
from slapjack.store.bench import _run


async def test_bench_shape_runs_and_reports(store: SqlStore) -> None:
    line = await _run(store, rooms=3, per_room=5)
    assert "3 rooms x    5 appends" in line
    assert "appends/s" in line
    assert await store.live_rooms() == ["B0", "B1", "B2"]
    for code in ("B0", "B1", "B2"):
        assert len((await store.load_room(code)).actions) == 5
