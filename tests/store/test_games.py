"""The finished-games half of the store contract: history, records and stats."""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from slapjack.core import Record, Table, replay
from slapjack.core.events import Event, PickedUp, RaceWon, Slapped
from slapjack.store import BadInput, CorruptRow, InvalidRecord, UnknownGame
from slapjack.store._sql import SqlStore

from .conftest import header_of, play


def live_figures(table: Table, events: list[Event], name: str) -> tuple[int, list[float]]:
    """Jacks won and reaction times of ``name``, from the events seen while playing."""
    seat = table.record.players.index(name)
    jacks = sum(1 for e in events if isinstance(e, RaceWon) and e.winner == seat)
    reactions = [e.reaction_ms for e in events if isinstance(e, Slapped) and e.seat == seat]
    return jacks, reactions


async def test_finish_game_stores_the_record_and_its_summary(store: SqlStore) -> None:
    table, _ = play(7)
    record = table.record.to_dict()
    game_id = await store.finish_game(None, record, {"reason": "won"})
    assert await store.get_game(game_id) == record
    assert Record.from_dict(await store.get_game(game_id)).to_dict() == record
    assert await store.get_result(game_id) == {"reason": "won"}
    summary = await store.get_summary(game_id)
    game = table.game
    assert summary.id == game_id
    assert summary.room is None
    assert (summary.game, summary.preset) == ("slapjack", "classic")
    assert summary.players == ("Anna", "Ben", "Cem")
    assert summary.winners == tuple(game.players[s] for s in game.winners)
    assert summary.loser is None
    assert summary.flips == game.flips
    assert summary.actions == len(table.record.actions)
    assert summary.complete is True
    assert summary.started_at <= summary.finished_at
    data = summary.to_dict()
    assert data["winners"] == list(summary.winners)
    assert data["finished_at"].endswith("+00:00")


async def test_finishing_the_same_record_twice_stores_it_once(store: SqlStore) -> None:
    table, _ = play(8)
    first = await store.finish_game("ROOM", table.record.to_dict())
    second = await store.finish_game("ROOM", table.record.to_dict())
    assert first == second
    assert await store.count_games() == 1
    assert (await store.player_stats("Anna")).games == 1


async def test_history_is_newest_first_with_paging_and_a_player_filter(store: SqlStore) -> None:
    ids = []
    for seed in range(5):
        names = ("Anna", "Ben") if seed % 2 else ("Anna", "Cem", "Dora")
        table, _ = play(seed, names=names)
        ids.append(await store.finish_game(None, table.record.to_dict()))
    assert len(set(ids)) == 5
    listed = await store.list_games()
    assert [g.id for g in listed] == ids[::-1]
    assert [g.id for g in await store.list_games(limit=2, offset=1)] == ids[::-1][1:3]
    assert await store.list_games(limit=10, offset=5) == []
    with_ben = await store.list_games(player="Ben")
    assert [g.id for g in with_ben] == [ids[3], ids[1]]
    assert await store.count_games() == 5
    assert await store.count_games(player="Ben") == 2
    assert await store.count_games(player="Zed") == 0
    for bad in ({"limit": 0}, {"limit": 1001}, {"offset": -1}, {"limit": True}):
        with pytest.raises(BadInput):
            await store.list_games(**bad)


async def test_player_stats_agree_with_the_live_game(store: SqlStore) -> None:
    plays = [play(seed) for seed in (3, 4, 5)]
    for table, _ in plays:
        await store.finish_game(None, table.record.to_dict())
    for name in ("Anna", "Ben", "Cem"):
        stats = await store.player_stats(name)
        jacks = 0
        reactions: list[float] = []
        wins = 0
        for table, events in plays:
            j, r = live_figures(table, events, name)
            jacks += j
            reactions += r
            wins += table.record.players.index(name) in table.game.winners
        assert stats.games == 3
        assert stats.wins == wins
        assert stats.jacks == jacks
        assert stats.slaps == len(reactions)
        assert reactions, "the test games must contain slaps"
        assert stats.median_reaction_ms == pytest.approx(statistics.median(reactions))
        assert stats.last_played is not None
        assert stats.to_dict()["median_reaction_ms"] == stats.median_reaction_ms
    everyone = [await store.player_stats(n) for n in ("Anna", "Ben", "Cem")]
    assert sum(s.wins for s in everyone) >= 3
    assert sum(s.wrong_slaps for s in everyone) > 0


async def test_stats_of_an_unknown_name_are_empty(store: SqlStore) -> None:
    stats = await store.player_stats("Nobody")
    assert (stats.games, stats.wins, stats.jacks, stats.median_reaction_ms) == (0, 0, 0, None)
    with pytest.raises(BadInput):
        await store.player_stats("")


async def test_a_name_is_found_whatever_its_case(store: SqlStore) -> None:
    table, _ = play(5, names=("Änne", "Ben"))
    await store.finish_game(None, table.record.to_dict())
    exact = await store.player_stats("Änne")
    assert exact.games == 1
    for other in ("änne", "ÄNNE", "äNnE"):
        stats = await store.player_stats(other)
        assert (stats.games, stats.wins, stats.jacks, stats.slaps, stats.wrong_slaps) == (
            exact.games,
            exact.wins,
            exact.jacks,
            exact.slaps,
            exact.wrong_slaps,
        )
        assert stats.median_reaction_ms == exact.median_reaction_ms
        assert await store.count_games(other) == 1
        assert [g.id for g in await store.list_games(10, 0, other)] == [
            g.id for g in await store.list_games(10, 0, "Änne")
        ]
    assert (await store.player_stats("Anne")).games == 0  # case, not accents
    assert await store.count_games("BENJAMIN") == 0


async def test_median_of_an_even_count_is_the_mean_of_the_middle_two(store: SqlStore) -> None:
    table, events = play(5, names=("Anna", "Ben"))
    await store.finish_game(None, table.record.to_dict())
    _, reactions = live_figures(table, events, "Ben")
    stats = await store.player_stats("Ben")
    assert stats.median_reaction_ms == pytest.approx(statistics.median(reactions))
    # Add one game more to flip the parity of the count.
    other, other_events = play(6, names=("Anna", "Ben"))
    await store.finish_game(None, other.record.to_dict())
    _, more = live_figures(other, other_events, "Ben")
    assert (len(reactions) + len(more)) % 2 != len(reactions) % 2 or not more
    stats = await store.player_stats("Ben")
    assert stats.median_reaction_ms == pytest.approx(statistics.median(reactions + more))


async def test_irish_snap_and_an_abandoned_game(store: SqlStore) -> None:
    table, events = play(9, names=("Anna", "Ben", "Cem", "Dora"), preset="irish-snap")
    assert table.game.over
    game_id = await store.finish_game(None, table.record.to_dict())
    summary = await store.get_summary(game_id)
    assert (summary.game, summary.preset) == ("irish-snap", "irish-snap")
    loser = table.game.loser
    assert summary.loser == (table.game.players[loser] if loser is not None else None)
    wrong = sum(1 for e in events if isinstance(e, PickedUp) and e.reason == "wrong")
    stored_wrong = 0
    for name in table.game.players:
        stored_wrong += (await store.player_stats(name)).wrong_slaps
    assert stored_wrong == wrong
    # A game stopped half-way is kept, marked incomplete.
    half, _ = play(10)
    record = half.record.to_dict()
    record["actions"] = record["actions"][:15]
    half_id = await store.finish_game(None, record)
    half_summary = await store.get_summary(half_id)
    assert half_summary.complete is False
    assert half_summary.winners == ()
    assert half_summary.actions == 15


async def test_finish_uses_the_rooms_start_time_and_bot_seats(store: SqlStore) -> None:
    table, _ = play(11)
    await store.create_room("LIVE", {}, header_of(table))
    await store.set_seat("LIVE", 0, "Anna", None)
    await store.set_seat("LIVE", 1, "Ben", None, is_bot=True, bot_level="casual")
    room = await store.load_room("LIVE")
    game_id = await store.finish_game("LIVE", table.record.to_dict())
    summary = await store.get_summary(game_id)
    assert summary.room == "LIVE"
    assert summary.started_at == room.game_started_at
    async with store._read() as conn:
        rows = await conn.fetch(
            "SELECT seat, is_bot FROM game_players WHERE game_id = ? ORDER BY seat", game_id
        )
    assert [(int(r[0]), int(r[1])) for r in rows] == [(0, 0), (1, 1), (2, 0)]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: {**r, "format": "slapjack-record/0"},
        lambda r: {**r, "players": ["Anna"]},
        lambda r: {**r, "actions": [{"t": 0, "flip": "Ben"}]},  # not Ben's turn
        lambda r: {**r, "actions": [*r["actions"], {"t": 10**9, "flip": "Anna"}]},  # after the end
        lambda r: {**r, "unknown": 1},
        lambda r: [r],
    ],
)
async def test_invalid_records_are_refused(store: SqlStore, mutate: Any) -> None:
    table, _ = play(12)
    with pytest.raises((InvalidRecord, BadInput)):
        await store.finish_game(None, mutate(table.record.to_dict()))
    assert await store.count_games() == 0


async def test_unknown_and_corrupt_games(store: SqlStore) -> None:
    with pytest.raises(UnknownGame):
        await store.get_game(12345)
    with pytest.raises(UnknownGame):
        await store.get_summary(12345)
    with pytest.raises(UnknownGame):
        await store.get_result(12345)
    for bad in (0, -1, "1", 1.5, True):
        with pytest.raises(BadInput):
            await store.get_game(bad)  # type: ignore[arg-type]
    table, _ = play(13)
    game_id = await store.finish_game(None, table.record.to_dict())
    async with store._tx() as conn:
        await conn.execute(
            "UPDATE games SET record = ?, players = ? WHERE id = ?", "{", "7", game_id
        )
    with pytest.raises(CorruptRow):
        await store.get_game(game_id)
    with pytest.raises(CorruptRow):
        await store.list_games()
    with pytest.raises(CorruptRow):
        await store.get_summary(game_id)


async def test_replaying_a_stored_game_gives_the_same_end(store: SqlStore) -> None:
    table, _ = play(14, names=("Anna", "Ben", "Cem", "Dora"), preset="say-it")
    game_id = await store.finish_game(None, table.record.to_dict())
    again = replay(Record.from_dict(await store.get_game(game_id))).game
    assert again.snapshot() == table.game.snapshot()
