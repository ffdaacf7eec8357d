"""Property test: appends (one by one and in concurrent bursts) behave like a simple model."""

from __future__ import annotations

import asyncio
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
    async def run() -> None:
        store = await SqliteStore.open(":memory:")
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
        finally:
            await store.close()

    asyncio.run(run())
