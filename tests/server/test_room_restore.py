"""Room.restore and the room's settle path, one case at a time (in-process, see
``roomkit``): what the property test and the crash tests found."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from slapjack.core import card_name, parse_card
from slapjack.server.referee import TrustingReferee
from slapjack.store import open_store
from slapjack.store.base import Store

from .roomkit import FakeClock, Input, apply, new_room, restored, stop


def deck_with(first: list[str]) -> list[int]:
    rest = [card_name(c) for c in range(52) if card_name(c) not in first]
    return [parse_card(c) for c in [*first, *rest]]


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    st = await open_store("sqlite:///:memory:", ".")
    yield st
    await st.close()


async def test_a_test_room_keeps_its_referee_and_deck_across_a_restart(store: Store) -> None:
    """The test hooks' room (stacked deck, the referee that takes claimed
    reactions as sent) is the same room after a restart, also for its rematch."""
    clock = FakeClock()
    deck = deck_with(["JS"])
    room = await new_room(store, clock, deck=deck, referee=TrustingReferee)
    back = await restored(room, clock)  # the server's own referee is arrival
    try:
        assert back.referee_factory is TrustingReferee
        assert back.setup.deck == tuple(deck) and back.setup.seed == room.setup.seed
        apply(back, Input("flip"), clock)
        apply(back, Input("slap", 1, 321.0), clock)
        assert back.table is not None
        assert back.table.game.race_slaps == {1: [(321.0, False)]}  # the claim, as sent
    finally:
        await stop(room)
        await stop(back)
