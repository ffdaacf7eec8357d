"""The append benchmark runs (a tiny shape, so the suite stays fast)."""

from __future__ import annotations

import pytest

from slapjack.store._sql import SqlStore
from slapjack.store.bench import _run, measure, median


async def test_bench_shape_runs_and_reports(store: SqlStore) -> None:
    line = await _run(store, rooms=3, per_room=5)
    assert "3 rooms x    5 appends" in line
    assert "appends/s" in line
    assert await store.live_rooms() == ["B0", "B1", "B2"]
    for code in ("B0", "B1", "B2"):
        assert len((await store.load_room(code)).actions) == 5


async def test_the_fenced_shape_writes_with_epochs(store: SqlStore) -> None:
    figures = await measure(store, rooms=2, per_room=4, fenced=True)
    assert figures.rate > 0 and figures.p99_ms >= figures.p50_ms
    owners = await store.room_owners()
    assert owners == {"bench": 2}
    for code in ("B0", "B1"):
        assert len((await store.load_room(code)).actions) == 4
    again = median([figures, figures])
    assert again == figures
    with pytest.raises(IndexError):
        median([])
