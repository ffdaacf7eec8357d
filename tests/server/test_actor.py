"""The actor's batched inputs (server/actor.py): one wake-up for a burst, order kept."""

from __future__ import annotations

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
