"""The takeover story end to end, with a real game: node A plays half of it with
fenced writes and stops; node B's watcher claims the room, rebuilds the
identical game from PostgreSQL and finishes it; A's late writes are refused,
and the stored record equals the game played without a break."""

from __future__ import annotations

from typing import Any

import pytest

from slapjack.cluster import Watcher
from slapjack.core import Flip, Record, Rules, Slap, Table, replay
from slapjack.core.record import action_to_dict
from slapjack.store import StaleOwner

from .conftest import Cluster
from .test_takeover import pause, scan_until


def full_game() -> Table:
    table = Table.new(Rules.from_options({"preset": "classic"}), ["Anna", "Ben", "Cem"], seed=21)
    t = 0
    while not table.game.over:
        g = table.game
        if g.race_open:
            for s in g.in_seats():
                table.apply(Slap(s, 180 + 30 * ((s + t // 100) % 3), False, t))
            table.settle(final=True)
        elif g.turn is None:
            table.settle(final=True)
        else:
            table.apply(Flip(g.turn, t))
        t += 100
    return table


async def test_a_room_survives_its_node(cluster: Cluster, stores: Any) -> None:
    store_a, store_b = await stores(), await stores()
    a = cluster.node("a", interval_s=0.1, ttl_s=0.5)
    b = cluster.node("b", interval_s=0.1, ttl_s=0.5)
    await a.start()
    await b.start()
    reference = full_game()
    names = reference.record.players
    actions = [action_to_dict(x, names) for x in reference.record.actions]
    half = len(actions) // 2
    header = reference.record.to_dict()
    header.pop("actions")

    epoch_a = await store_a.create_room("FO1", {"owner": "a"}, header, owner="a")
    a.own("FO1", epoch_a)
    room_a = store_a.fenced("FO1", epoch_a)
    await room_a.set_seat(0, "Anna", None)
    for i in range(half):
        await room_a.append_action(i, actions[i])

    watcher = Watcher(b, store_b)
    assert await watcher.scan() == []
    pause(a)  # node A dies here
    (claim,) = await scan_until([watcher], 1)
    room_b = store_b.fenced("FO1", claim.epoch)
    state = await room_b.load()
    table = Table(state.record())
    rec = reference.record
    partial = Table(Record(rec.rules, rec.players, rec.deck, rec.seed, rec.actions[:half]))
    assert table.game.snapshot() == partial.game.snapshot()
    assert [s.name for s in state.seats] == ["Anna"]
    for i in range(half, len(actions)):
        await room_b.append_action(i, actions[i])
        if i == half + 3:
            # The zombie writes late, the same action or another: refused either way.
            for late in (actions[half], {"t": 1, "flip": "Cem"}):
                with pytest.raises(StaleOwner):
                    await room_a.append_action(half, late)
            with pytest.raises(StaleOwner):
                await room_a.set_seat(1, "Mallory", None)
    final = (await room_b.load()).record()
    assert final.to_dict() == reference.record.to_dict()
    assert replay(final).game.over
    with pytest.raises(StaleOwner):
        await room_a.finish_game(final.to_dict())
    game_id = await room_b.finish_game(final.to_dict(), {"reason": "finished"})
    assert (await store_b.get_game(game_id)) == reference.record.to_dict()
    await room_b.close_room()
