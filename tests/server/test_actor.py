"""The actor (server/actor.py): batched inputs (one wake-up for a burst, order
kept) and named timers (moved, cancelled, set again)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from slapjack.server.actor import Actor
from slapjack.server.metrics import METRICS


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
