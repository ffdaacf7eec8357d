"""Property test: appends (one by one and in concurrent bursts) behave like a simple model."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from slapjack.store import ActionConflict, ActionGap, SqliteStore, UnknownRoom

from .conftest import header_of, play

HEADER = header_of(play(1)[0])

op = st.tuples(
    st.sampled_from(["A", "B", "GONE"]),  # GONE is never created
    st.integers(min_value=0, max_value=6),
    st.sampled_from([{"t": 0, "flip": "Anna"}, {"t": 5, "flip": "Ben"}]),
)
bursts = st.lists(st.lists(op, min_size=1, max_size=8), min_size=1, max_size=6)


def expect(model: dict[str, list[Any]], code: str, index: int, action: Any) -> str | None:
    if code not in model:
        return "UnknownRoom"
    stored = model[code]
    if index == len(stored):
        stored.append(action)
        return None
    if index > len(stored):
        return "ActionGap"
    return None if stored[index] == action else "ActionConflict"


@settings(max_examples=60, deadline=None)
@given(bursts)
def test_appends_follow_the_model(groups: list[list[tuple[str, int, dict[str, Any]]]]) -> None:
    check_model(groups, ":memory:")  # the thread's group commits


@settings(max_examples=30, deadline=None)
@given(bursts)
def test_appends_committed_on_the_event_loop_follow_the_model(
    groups: list[list[tuple[str, int, dict[str, Any]]]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        check_model(groups, str(Path(tmp) / "model.sqlite3"), on_loop=True)


def check_model(
    groups: list[list[tuple[str, int, dict[str, Any]]]], where: str, *, on_loop: bool = False
) -> None:
    async def run() -> None:
        store = await SqliteStore.open(where)
        assert (store._loop_conn is not None) == on_loop
        try:
            for code in ("A", "B"):
                await store.create_room(code, {}, HEADER)
            model: dict[str, list[Any]] = {"A": [], "B": []}
            for group in groups:
                wanted = [expect(model, *o) for o in group]
                got = await asyncio.gather(
                    *(store.append_action(*o) for o in group), return_exceptions=True
                )
                names = [type(g).__name__ if isinstance(g, BaseException) else None for g in got]
                assert names == wanted
                for g in got:
                    if isinstance(g, BaseException):
                        assert isinstance(g, ActionConflict | ActionGap | UnknownRoom)
            for code in ("A", "B"):
                assert list((await store.load_room(code)).actions) == model[code]
            if on_loop:
                assert store.loop_batches > 0
        finally:
            await store.close()

    asyncio.run(run())
