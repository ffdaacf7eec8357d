"""Ownership with fencing: every write of a room carries its writer's epoch and is
refused once another node has claimed the room; on SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import asyncpg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slapjack.store import (
    ActionConflict,
    BadInput,
    FencedRoom,
    PostgresStore,
    SqliteStore,
    StaleOwner,
    StoreUnavailable,
    UnknownRoom,
    hash_token,
)
from slapjack.store._sql import BatchPlan, SqlStore, _Pending
from slapjack.store.postgres import CLAIM_LOCK_TIMEOUT_MS

from .conftest import header_of, play

HEADER = header_of(play(1)[0])
DEAD_SESSION = (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError)
"""What asyncpg raises on a session the server ended (the error arrives while idle)."""


def flip(i: int) -> dict[str, Any]:
    return {"t": i * 100, "flip": ("Anna", "Ben", "Cem")[i % 3]}


async def test_create_gives_the_first_epoch_and_claims_raise_it(store: SqlStore) -> None:
    e1 = await store.create_room("F1", {}, HEADER, owner="node-a")
    e2 = await store.create_room("F2", {}, HEADER)  # no owner: the single-node default
    assert e2 > e1 >= 1
    own = await store.room_owner("F1")
    assert (own.code, own.owner, own.epoch) == ("F1", "node-a", e1) and own.since is not None
    assert (await store.room_owner("F2")).owner is None
    e3 = await store.claim_room("F1", "node-b", expected_epoch=e1)
    assert e3 > e2
    assert (await store.room_owner("F1")).owner == "node-b"
    e4 = await store.claim_room("F1", "node-b")  # a claim without a condition
    assert e4 > e3
    assert await store.room_owners() == {"node-b": 1, None: 1}
    assert await store.owned_rooms("node-b") == [await store.room_owner("F1")]
    assert await store.owned_rooms("node-a") == []
    # Closed and created again under the same code: the epoch still only grows.
    await store.close_room("F1", epoch=e4)
    assert await store.create_room("F1", {}, HEADER, owner="node-a") > e4


async def test_every_room_write_is_refused_at_a_stale_epoch(store: SqlStore) -> None:
    table, _ = play(2)
    old = await store.create_room("W1", {"v": 1}, header_of(table), owner="node-a")
    await store.set_seat("W1", 0, "Anna", hash_token("a"), epoch=old)
    await store.append_action("W1", 0, flip(0), epoch=old)
    new = await store.claim_room("W1", "node-b", expected_epoch=old)
    before = await store.load_room("W1")

    writes = [
        store.append_action("W1", 1, flip(1), epoch=old),
        store.append_action("W1", 0, flip(0), epoch=old),  # even a repeat of a stored one
        store.set_seat("W1", 1, "Ben", None, epoch=old),
        store.clear_seat("W1", 0, epoch=old),
        store.update_settings("W1", {"v": 2}, epoch=old),
        store.reset_room("W1", header_of(table), epoch=old),
        store.finish_game("W1", table.record.to_dict(), epoch=old),
        store.close_room("W1", epoch=old),
    ]
    for write in writes:
        with pytest.raises(StaleOwner) as caught:
            await write
        err = caught.value
        assert (err.code, err.room, err.epoch, err.current, err.owner) == (
            "stale_owner",
            "W1",
            old,
            new,
            "node-b",
        )
        assert "epoch" in err.message and "node-b" in err.message
    assert await store.load_room("W1") == before  # nothing changed
    assert await store.count_games() == 0

    # The new owner writes on from where the record stands.
    room = store.fenced("W1", new)
    assert isinstance(room, FencedRoom) and await room.still_owned()
    await room.append_action(1, flip(1))
    await room.set_seat(1, "Ben", None, is_bot=True, bot_level="pro")
    await room.clear_seat(0)
    await room.update_settings({"v": 3})
    state = await room.load()
    assert state.actions == (flip(0), flip(1)) and state.settings == {"v": 3}
    assert [s.name for s in state.seats] == ["Ben"]
    game_id = await room.finish_game(table.record.to_dict(), {"reason": "done"})
    assert await store.get_result(game_id) == {"reason": "done"}
    await room.reset_room(header_of(table))
    assert (await room.load()).actions == ()
    assert not await store.fenced("W1", old).still_owned()
    await room.close_room()
    with pytest.raises(UnknownRoom):
        await room.append_action(0, flip(0))


async def test_unfenced_writes_work_as_before(store: SqlStore) -> None:
    """The single-node server writes without an epoch: nothing changes for it."""
    await store.create_room("U1", {}, HEADER)
    await store.claim_room("U1", "node-x")
    for i in range(3):
        await store.append_action("U1", i, flip(i))
    await store.set_seat("U1", 0, "Anna", None)
    await store.update_settings("U1", {"k": 1})
    assert len((await store.load_room("U1")).actions) == 3


async def test_a_stale_append_fails_alone_in_its_group_commit(store: SqlStore) -> None:
    """One batch: fresh and stale appends to several rooms; only the stale fail,
    and they take no index."""
    epochs = {}
    for code in ("G1", "G2", "G3"):
        epochs[code] = await store.create_room(code, {}, HEADER, owner="node-a")
    newer = await store.claim_room("G2", "node-b")
    results = await asyncio.gather(
        store.append_action("G1", 0, flip(0), epoch=epochs["G1"]),
        store.append_action("G2", 0, flip(0), epoch=epochs["G2"]),
        store.append_action("G3", 0, flip(0), epoch=epochs["G3"]),
        store.append_action("G2", 0, flip(5), epoch=newer),
        store.append_action("G3", 1, flip(1)),
        return_exceptions=True,
    )
    assert [type(r).__name__ for r in results] == [
        "NoneType",
        "StaleOwner",
        "NoneType",
        "NoneType",
        "NoneType",
    ]
    assert (await store.load_room("G2")).actions == (flip(5),)
    assert (await store.load_room("G3")).actions == (flip(0), flip(1))


async def test_bad_owners_and_epochs_are_typed_errors(store: SqlStore) -> None:
    await store.create_room("B1", {}, HEADER)
    for epoch in (-1, True, "3", 2**63, 1.0):
        with pytest.raises(BadInput):
            await store.append_action("B1", 0, flip(0), epoch=epoch)  # type: ignore[arg-type]
        with pytest.raises(BadInput):
            await store.claim_room("B1", "node-a", expected_epoch=epoch)  # type: ignore[arg-type]
    for owner in ("", "a b", "a#1", "x" * 101, None, 7, "tab\there"):
        with pytest.raises(BadInput):
            await store.claim_room("B1", owner)  # type: ignore[arg-type]
        if owner is not None:
            with pytest.raises(BadInput):
                await store.create_room("B2", {}, HEADER, owner=owner)  # type: ignore[arg-type]
    with pytest.raises(BadInput, match="names its room"):
        await store.finish_game(None, play(1)[0].record.to_dict(), epoch=1)
    with pytest.raises(UnknownRoom):
        await store.claim_room("NOPE", "node-a")
    with pytest.raises(UnknownRoom):
        await store.room_owner("NOPE")
    with pytest.raises(UnknownRoom):
        await store.append_action("NOPE", 0, flip(0), epoch=1)
    with pytest.raises(BadInput):
        FencedRoom(store, "B1", -5)
    assert await store.live_rooms() == ["B1"]


# ------------------------------------------------------------- concurrency


async def _second_store(store: SqlStore, opener: Any) -> SqlStore:
    """Another store (another connection or pool) on the same database."""
    other: SqlStore = await opener()
    return other


async def test_concurrent_claims_of_one_epoch_have_one_winner(store: SqlStore, opener: Any) -> None:
    other = await _second_store(store, opener)
    third = await _second_store(store, opener)
    codes = [f"C{i}" for i in range(12)]
    start = {c: await store.create_room(c, {}, HEADER, owner="dead") for c in codes}
    claimers = {"node-a": store, "node-b": other, "node-c": third}

    async def claim(node: str, code: str) -> tuple[str, str, int | None]:
        try:
            return (
                node,
                code,
                await claimers[node].claim_room(code, node, expected_epoch=start[code]),
            )
        except StaleOwner:
            return node, code, None

    results = await asyncio.gather(*(claim(n, c) for c in codes for n in claimers))
    for code in codes:
        won = [(n, e) for n, c, e in results if c == code and e is not None]
        assert len(won) == 1, (code, won)
        node, epoch = won[0]
        assert (await store.room_owner(code)).owner == node
        assert (await store.room_owner(code)).epoch == epoch


async def test_two_writers_racing_across_a_takeover(store: SqlStore, opener: Any) -> None:
    """Writer A appends as fast as it can at its epoch to several rooms; node B
    claims each room mid-stream, loads it and writes on at its own epoch. A's
    acknowledged appends are exactly the actions B found when it loaded the room
    after its claim: none lost, none after the claim, no hole, no duplicate."""
    other = await _second_store(store, opener)
    codes = [f"R{i}" for i in range(6)]
    old = {c: await store.create_room(c, {}, HEADER, owner="node-a") for c in codes}
    acked: dict[str, list[int]] = {c: [] for c in codes}
    refused: dict[str, int] = dict.fromkeys(codes, 0)
    stop = asyncio.Event()

    # A writes until it is refused (bounded in time, not in count: on a fast
    # machine 5,000 appends a room were done before B's claim came).
    deadline = time.monotonic() + 10.0

    async def writer_a(code: str) -> None:
        i = 0
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                await store.append_action(code, i, flip(i), epoch=old[code])
            except StaleOwner:
                refused[code] += 1
                return  # a real owner stops here: the room is not its own any more
            acked[code].append(i)
            i += 1

    async def node_b(code: str, delay: float) -> tuple[int, int]:
        await asyncio.sleep(delay)
        new = await other.claim_room(code, "node-b", expected_epoch=old[code])
        found = len((await other.load_room(code)).actions)
        for k in range(found, found + 5):
            await other.append_action(code, k, flip(k + 1), epoch=new)
        return new, found

    writers = [asyncio.create_task(writer_a(c)) for c in codes]
    try:
        takeovers = await asyncio.gather(*(node_b(c, 0.05 + 0.02 * k) for k, c in enumerate(codes)))
        await asyncio.wait_for(asyncio.gather(*writers), 10)
    finally:
        stop.set()
        for task in writers:
            task.cancel()
        await asyncio.gather(*writers, return_exceptions=True)
    for code, (new, found) in zip(codes, takeovers, strict=True):
        assert refused[code] == 1, code
        assert acked[code] == list(range(found)), code
        assert found > 0, "the claim came before any write: the race was not exercised"
        state = await store.load_room(code)
        assert state.actions == (
            *(flip(i) for i in range(found)),
            *(flip(k + 1) for k in range(found, found + 5)),
        )
        assert (await store.room_owner(code)).epoch == new


async def test_a_paused_writer_that_wakes_after_a_takeover_is_refused(
    store: SqlStore, opener: Any
) -> None:
    other = await _second_store(store, opener)
    epoch = await store.create_room("P1", {}, HEADER, owner="node-a")
    await store.append_action("P1", 0, flip(0), epoch=epoch)
    wake = asyncio.Event()

    async def paused_owner() -> BaseException | None:
        await wake.wait()  # frozen (SIGSTOP) here, its next action already decided
        try:
            await store.append_action("P1", 1, flip(1), epoch=epoch)
        except StaleOwner as exc:
            return exc
        return None

    task = asyncio.create_task(paused_owner())
    await asyncio.sleep(0.01)
    new = await other.claim_room("P1", "node-b", expected_epoch=epoch)
    await other.append_action("P1", 1, flip(7), epoch=new)
    wake.set()
    err = await task
    assert isinstance(err, StaleOwner) and err.current == new
    # Without its epoch the old owner's write would have been an ActionConflict
    # at best and, one index further, a silently accepted second history.
    with pytest.raises(ActionConflict):
        await store.append_action("P1", 1, flip(1))
    assert (await store.load_room("P1")).actions == (flip(0), flip(7))


# ------------------------------------------------------------- the plan and a model


def test_batch_plan_judges_epochs_before_indices() -> None:
    loop = asyncio.new_event_loop()
    try:
        fut = loop.create_future
        batch = [
            _Pending("A", 0, '{"t":0}', fut(), 7),
            _Pending("A", 0, '{"t":0}', fut(), 6),  # stale: takes no index
            _Pending("A", 1, '{"t":1}', fut(), None),
            _Pending("B", 3, '{"t":3}', fut(), 9),  # stale before it is a gap
            _Pending("C", 0, '{"t":0}', fut(), 1),
        ]
        plan = BatchPlan(batch, {"A": 0, "B": 0}, {"A": (7, "n1"), "B": (8, None)})
        names = [type(o).__name__ if o else None for o in plan.outcomes]
        assert names == [None, "StaleOwner", None, "StaleOwner", "UnknownRoom"]
        assert plan.insert_rows() == [("A", 0, '{"t":0}'), ("A", 1, '{"t":1}')]
        stale = plan.outcomes[3]
        assert isinstance(stale, StaleOwner) and (stale.current, stale.owner) == (8, None)
        with pytest.raises(RuntimeError):
            BatchPlan(batch[:1], {"A": 0})  # a fenced append needs the epochs
    finally:
        loop.close()


op = st.one_of(
    st.tuples(st.just("append"), st.integers(0, 4), st.sampled_from(["now", "old", "none"])),
    st.tuples(st.just("claim"), st.just(0), st.sampled_from(["now", "old", "none"])),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(op, min_size=1, max_size=6), min_size=1, max_size=6))
def test_fenced_appends_and_claims_follow_a_model(groups: list[list[tuple[str, int, str]]]) -> None:
    """Bursts of appends (at the current, an old or no epoch) and claims
    (conditional on the current or an old epoch, or not) against a model."""

    async def run() -> None:
        store = await SqliteStore.open(":memory:")
        try:
            epochs = [await store.create_room("M", {}, HEADER, owner="n0")]
            actions: list[dict[str, Any]] = []

            def pick(which: str) -> int | None:
                # "old": any epoch but the current one (epochs start at 1).
                return {"now": epochs[-1], "old": epochs[-1] - 1, "none": None}[which]

            for group in groups:
                # The claims of a burst commit first, then its appends run at once.
                for _, _, which in (o for o in group if o[0] == "claim"):
                    try:
                        got = await store.claim_room("M", "n1", expected_epoch=pick(which))
                    except StaleOwner:
                        assert which == "old"
                    else:
                        assert which != "old" and got > epochs[-1]
                        epochs.append(got)
                appends = [o for o in group if o[0] == "append"]
                expect: list[str | None] = []
                for _, index, which in appends:
                    if which == "old":
                        expect.append("StaleOwner")  # before its index is looked at
                    elif index == len(actions):
                        actions.append(flip(index))
                        expect.append(None)
                    elif index > len(actions):
                        expect.append("ActionGap")
                    else:
                        expect.append(None)  # the same content again: a no-op
                got = await asyncio.gather(
                    *(store.append_action("M", i, flip(i), epoch=pick(w)) for _, i, w in appends),
                    return_exceptions=True,
                )
                names = [type(g).__name__ if isinstance(g, BaseException) else None for g in got]
                assert names == expect
            assert list((await store.load_room("M")).actions) == actions
            owner = await store.room_owner("M")
            assert (owner.owner, owner.epoch) == ("n0" if len(epochs) == 1 else "n1", epochs[-1])
        finally:
            with contextlib.suppress(Exception):
                await store.close()

    asyncio.run(run())


# ------------------------------------------------------------- a writer frozen mid-commit


async def test_a_writer_frozen_inside_its_transaction_cannot_block_a_takeover(
    pg_url: str,
) -> None:
    """A node stopped (SIGSTOP) between the statements of a commit keeps the room
    row locked; PostgreSQL ends its session after idle_in_transaction_ms and the
    claim goes through. Its write is rolled back, not half-done."""
    frozen = await PostgresStore.open(pg_url, idle_in_transaction_ms=500)
    taker = await PostgresStore.open(pg_url)
    try:
        epoch = await frozen.create_room("Z1", {}, HEADER, owner="node-a")
        async with frozen._pool.acquire() as conn:
            tx = conn.transaction()
            await tx.start()
            await conn.execute("SELECT 1 FROM rooms WHERE code = 'Z1' FOR UPDATE")
            await conn.execute(
                "INSERT INTO room_actions (code, idx, action) VALUES ('Z1', 0, '{\"t\":0}')"
            )
            began = time.monotonic()
            new = await taker.claim_room("Z1", "node-b", expected_epoch=epoch)  # waits, then wins
            waited = time.monotonic() - began
            assert 0.3 < waited < 3.0, waited
            assert new > epoch
            with pytest.raises(DEAD_SESSION):  # its session is gone
                await conn.execute("UPDATE rooms SET header = '{}' WHERE code = 'Z1'")
            with contextlib.suppress(Exception):
                await tx.rollback()
        assert (await taker.load_room("Z1")).actions == ()
        with pytest.raises(StaleOwner):
            await frozen.append_action("Z1", 0, flip(0), epoch=epoch)  # a fresh session
    finally:
        await frozen.close()
        await taker.close()


async def test_a_claim_gives_up_on_a_row_locked_too_long(pg_url: str) -> None:
    """With the idle timeout off, a claim waits at most its lock timeout."""
    holder = await PostgresStore.open(pg_url, idle_in_transaction_ms=0)
    taker = await PostgresStore.open(pg_url)
    try:
        await holder.create_room("Z2", {}, HEADER, owner="node-a")
        async with holder._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT 1 FROM rooms WHERE code = 'Z2' FOR UPDATE")
            began = time.monotonic()
            with pytest.raises(StoreUnavailable, match="lock"):
                await taker.claim_room("Z2", "node-b")
            waited = time.monotonic() - began
        assert CLAIM_LOCK_TIMEOUT_MS / 1000 - 0.2 < waited < CLAIM_LOCK_TIMEOUT_MS / 1000 + 3
        assert (await taker.room_owner("Z2")).owner == "node-a"
        assert await taker.claim_room("Z2", "node-b") > 0  # free now
    finally:
        await holder.close()
        await taker.close()
