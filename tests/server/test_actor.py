"""The actor (server/actor.py): batched inputs (one wake-up for a burst, order
kept) and named timers (moved, cancelled, set again)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from slapjack.core import Rules, Table
from slapjack.server.actor import Actor
from slapjack.server.metrics import METRICS
from slapjack.server.roomstore import Append, RoomWrites
from slapjack.store import open_store


async def test_batched_inputs_share_one_input_and_keep_their_order() -> None:
    actor = Actor("test")
    ran: list[str] = []
    actor.start()
    try:
        inputs = METRICS.inputs
        actor.submit_batched(ran.append, "pong 1")
        actor.submit_batched(ran.append, "pong 2")
        actor.submit(lambda: ran.append("slap"))
        actor.submit_batched(ran.append, "pong 3")  # after the slap: a new batch
        actor.submit_batched(ran.append, "pong 4")
        await actor.call(lambda: None)
        assert ran == ["pong 1", "pong 2", "slap", "pong 3", "pong 4"]
        assert METRICS.inputs - inputs == 4  # two batches, the slap, the call
        actor.submit_batched(ran.append, "pong 5")  # the last batch ran: a new one
        await actor.call(lambda: None)
        assert ran[-1] == "pong 5"
    finally:
        await actor.stop()


async def test_a_failing_batched_input_does_not_stop_the_others() -> None:
    actor = Actor("test")
    ran: list[int] = []
    actor.start()
    try:
        actor.submit_batched(ran.append, 1)
        actor.submit_batched(lambda: 1 / 0)
        actor.submit_batched(ran.append, 2)
        await actor.call(lambda: None)
        assert ran == [1, 2]
    finally:
        await actor.stop()


def on_loop_clock() -> Actor:
    """An actor whose clock is the running loop's (its timers' own clock)."""
    loop = asyncio.get_running_loop()
    return Actor("test", clock=lambda: loop.time() * 1000.0)


@contextlib.asynccontextmanager
async def started(actor: Actor) -> AsyncIterator[Actor]:
    actor.start()
    try:
        yield actor
    finally:
        await actor.stop()


async def fired(ran: list[Any], n: int = 1, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.005)):
        if len(ran) >= n:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"fired {ran}, expected {n}")


async def test_a_timer_moved_earlier_fires_at_the_earlier_time() -> None:
    ran: list[float] = []
    async with started(on_loop_clock()) as actor:
        t0 = actor.now()
        actor.set_timer("wake", t0 + 10_000, lambda: ran.append(-1.0))
        actor.set_timer("wake", t0 + 30, lambda: ran.append(actor.now()))
        await fired(ran)
        assert t0 + 30 - 1 <= ran[0] < t0 + 10_000


async def test_a_moved_or_cancelled_timer_does_not_fire() -> None:
    ran: list[str] = []
    async with started(on_loop_clock()) as actor:
        t0 = actor.now()
        actor.set_timer("a", t0 + 20, lambda: ran.append("a"))
        actor.set_timer("a", t0 + 60, lambda: ran.append("a moved"))
        actor.cancel("a")
        actor.set_timer("b", t0 + 80, lambda: ran.append("b"))
        await fired(ran)
        await asyncio.sleep(0.05)
        assert ran == ["b"] and actor.deadline("a") is None


async def test_a_timer_set_again_after_its_handle_fired_runs_only_the_new_one() -> None:
    """The handle fired and queued the timer's run, but the task has not run
    it yet (here: not started) when the timer is set again: only the new one runs."""
    actor = on_loop_clock()
    ran: list[str] = []
    actor.set_timer("t", actor.now() + 5, lambda: ran.append("old"))
    await asyncio.sleep(0.05)  # the handle has fired: its run waits in the queue
    actor.set_timer("t", actor.now() + 20, lambda: ran.append("new"))
    async with started(actor):
        await fired(ran)
        await asyncio.sleep(0.05)
        assert ran == ["new"]


class CountingLoop:
    """Counts the event-loop timers an actor makes (its ``_loop``'s ``call_later``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.made = 0

    def call_later(self, delay: float, *args: Any) -> asyncio.TimerHandle:
        self.made += 1
        return self.loop.call_later(delay, *args)


async def test_a_timer_moved_later_and_later_keeps_its_handle_and_fires_once_at_the_end() -> None:
    """A room's wake-up moves on with every flip: the handle set for the first
    time goes off then, finds the timer moved and sets itself once for the
    latest time; only the latest function runs, at that time."""
    ran: list[tuple[str, float]] = []
    async with started(on_loop_clock()) as actor:
        await asyncio.sleep(0)  # the task runs (and took the loop)
        counting = CountingLoop(asyncio.get_running_loop())
        actor._loop = counting  # type: ignore[assignment]
        t0 = actor.now()
        for k in range(50):
            actor.set_timer("wake", t0 + 20 + k, lambda k=k: ran.append((f"v{k}", actor.now())))
        assert counting.made == 1 and actor.deadline("wake") == t0 + 69
        await fired(ran)
        await asyncio.sleep(0.05)
        assert [name for name, _ in ran] == ["v49"] and ran[0][1] >= t0 + 69 - 1
        assert counting.made == 2  # the first handle, and once again for the latest time
        assert actor.deadline("wake") is None and not actor._timers and not actor._armed


async def test_a_timer_moved_later_then_earlier_than_its_handle_fires_at_the_earliest() -> None:
    ran: list[float] = []
    async with started(on_loop_clock()) as actor:
        t0 = actor.now()
        actor.set_timer("wake", t0 + 5_000, lambda: ran.append(-1.0))
        actor.set_timer("wake", t0 + 9_000, lambda: ran.append(-2.0))  # later: same handle
        actor.set_timer("wake", t0 + 30, lambda: ran.append(actor.now()))  # earlier than both
        await fired(ran)
        await asyncio.sleep(0.05)
        assert len(ran) == 1 and t0 + 30 - 1 <= ran[0] < t0 + 5_000


async def test_a_timer_moved_later_after_its_handle_went_off_runs_at_the_new_time() -> None:
    """The handle went off and queued the run (the task not started yet), then
    the timer moved later: nothing runs early, the new one runs at its time."""
    actor = on_loop_clock()
    ran: list[tuple[str, float]] = []
    t0 = actor.now()
    actor.set_timer("t", t0 + 5, lambda: ran.append(("old", actor.now())))
    await asyncio.sleep(0.05)  # went off: its run waits in the queue
    actor.set_timer("t", actor.now() + 60, lambda: ran.append(("new", actor.now())))
    moved_to = actor.deadline("t")
    assert moved_to is not None
    async with started(actor):
        await fired(ran)
        await asyncio.sleep(0.05)
        assert [name for name, _ in ran] == ["new"] and ran[0][1] >= moved_to - 1


async def test_a_cancelled_timer_whose_handle_went_off_does_not_run() -> None:
    actor = on_loop_clock()
    ran: list[str] = []
    actor.set_timer("t", actor.now() + 5, lambda: ran.append("t"))
    await asyncio.sleep(0.05)
    actor.cancel("t")
    async with started(actor):
        await asyncio.sleep(0.05)
        assert ran == [] and actor.deadline("t") is None


class Sink:
    """A connection that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)


class Begun:
    """A store op that can be begun at once (as an append can): its first
    attempt is ``future``, answered by the test."""

    def __init__(self) -> None:
        self.future: asyncio.Future[None] | None = None
        self.started = 0
        self.awaited = 0

    def start(self) -> asyncio.Future[None]:
        self.started += 1
        self.future = asyncio.get_running_loop().create_future()
        return self.future

    async def __call__(self) -> None:
        self.awaited += 1


async def test_an_input_to_an_idle_actor_runs_at_once_and_tells_nothing_before_its_write() -> None:
    """Write-ahead holds: the input runs in the caller and its append begins
    there, but its frames wait for the write, and so does every input after it."""
    actor = Actor("eager")
    actor.start()
    await asyncio.sleep(0)  # the task waits for its first input: idle
    sink, op, ran = Sink(), Begun(), []

    def flip() -> None:
        ran.append("flip")
        actor._ops.append(op)
        actor._frames.append((sink, "update"))  # type: ignore[arg-type]

    try:
        actor.submit(flip)
        assert ran == ["flip"] and op.started == 1 and sink.sent == []
        actor.submit(lambda: ran.append("next"))  # not idle now: queued behind
        for _ in range(5):
            await asyncio.sleep(0)
        assert ran == ["flip"] and sink.sent == []  # the write is not done: nothing told
        assert op.future is not None
        op.future.set_result(None)
        await actor.call(lambda: None)
        assert sink.sent == ["update"] and ran == ["flip", "next"]
        assert op.awaited == 0  # its begun write was the one awaited
    finally:
        await actor.stop()


async def test_an_input_with_several_writes_is_written_by_the_task_in_order() -> None:
    actor = Actor("several")
    actor.start()
    await asyncio.sleep(0)
    first, second, sink = Begun(), Begun(), Sink()

    def settle() -> None:
        actor._ops += [first, second]
        actor._frames.append((sink, "update"))  # type: ignore[arg-type]

    try:
        actor.submit(settle)
        await actor.call(lambda: None)
        assert (first.started, second.started) == (0, 0) and (first.awaited, second.awaited) == (
            1,
            1,
        )
        assert sink.sent == ["update"]
    finally:
        await actor.stop()


async def test_a_frame_to_its_update_takes_one_turn_of_the_event_loop(tmp_path: Path) -> None:
    """A flip that comes while its room is idle: run where it came, its append
    committed at the loop's next turn (the SQLite group commit), its update
    sent in that same turn (three turns when the task ran the input: its
    wake-up, the commit, the task again)."""
    store = await open_store(None, tmp_path)
    loop = asyncio.get_running_loop()
    turns = 0

    def tick() -> None:
        nonlocal turns
        turns += 1
        loop.call_soon(tick)

    try:
        table = Table.new(Rules.from_options({"preset": "classic"}), ["A", "B"], seed=1)
        header = table.record.to_dict()
        header.pop("actions")
        await store.create_room("TURNS1", {}, header)
        writes = RoomWrites(store, "TURNS1", lambda: None, lambda _id: None)
        actor = Actor("turns")
        actor.start()
        sink = Sink()
        for index in range(3):  # the first commits of a new file go to the thread: warm up
            await store.append_action("TURNS1", index, {"t": index, "flip": "A"})
        await asyncio.sleep(0.01)
        loop.call_soon(tick)
        await asyncio.sleep(0)

        def flip() -> None:
            actor._ops.append(Append(writes, 3, {"t": 3, "flip": "A"}))
            actor._frames.append((sink, "update"))  # type: ignore[arg-type]

        at = turns
        actor.submit(flip)
        while not sink.sent:
            await asyncio.sleep(0)
            assert turns - at < 20
        assert turns - at <= 1, f"{turns - at} turns from the frame to its update"
        assert len((await store.load_room("TURNS1")).actions) == 4
        await actor.stop()
    finally:
        await store.close()
