"""A room rebuilt on another node after ``kill -9`` of its owner is counted
down to its players before play goes on (``timers.resume``): three real
``slapjack serve`` nodes, two terminal clients over real sockets."""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

from slapjack.core import replay
from slapjack.protocol import Update
from slapjack.tui.online import Target

from .conftest import nodes_http
from .test_serve_nodes import (
    ROOM_TIMING,
    NodeProc,
    Player,
    players_running,
    reference,
    seat_through,
    stored_record,
    until_over,
    untimed,
)
from .test_serve_nodes import nodes as nodes

RESUME_MS = 1500.0


class Patient(Player):
    """A player that waits out a countdown (an eager one slaps into it once)."""

    def __init__(self, *args: Any, eager: bool = False) -> None:
        super().__init__(*args)
        self.eager = eager
        self.seen: list[tuple[int, float, float | None, int, tuple[int, ...]]] = []
        """Per update: generation, server time, resume deadline, flips, slapped."""

    def on_update(self, msg: Update) -> None:
        view = msg.view.model_dump() if msg.view is not None else None
        resume = msg.room.timers.resume
        flips = view["flips"] if view else -1
        self.seen.append(
            (self.generation, msg.room.now, resume, flips, tuple(view["slapped"]) if view else ())
        )
        if resume is not None and resume > msg.room.now:
            if self.eager:
                self.eager = False
                self.client.send("slap", flip_id=view["flip_id"] if view else 0, reaction_ms=1.0)
            return  # counted down: nothing is played yet
        super().on_update(msg)


async def test_a_taken_over_room_counts_down_before_play_goes_on(
    nodes: list[NodeProc],
) -> None:
    a, b, c = nodes
    async with nodes_http() as http:
        body = {
            "create": {"name": "countdown", "seats": 2, "rules": {"preset": "classic"}},
            "seed": 4,
            "timing": {**ROOM_TIMING, "resume_delay_ms": RESUME_MS},
            "referee": "trusting",
        }
        r = await http.post(f"{a.url}/api/test/rooms", json=body)
        assert r.status_code == 200, r.text
        code = str(r.json()["code"])
        joined = [
            await seat_through(b, http, code, "Anna"),
            await seat_through(c, http, code, "Ben"),
        ]
        players = [
            Patient(0, joined[0]["token"], Target(b.url, code), eager=False),
            Patient(1, joined[1]["token"], Target(c.url, code)),
        ]
        with players_running(players):
            await asyncio.wait_for(players[1].race_seen.wait(), 30)  # a jack is up
            a.signal(signal.SIGKILL)
            killed = time.monotonic()
            gen = [p.generation for p in players]
            players[0].eager = True  # slaps into the countdown once it is back
            await until_over(players)
            assert time.monotonic() - killed < 30
        for p, g in zip(players, gen, strict=True):
            after = [s for s in p.seen if s[0] > g]
            assert after, p.seen
            first = after[0]
            # the first frame after the takeover shows the countdown, in full
            assert first[2] is not None and first[2] - first[1] >= RESUME_MS - 100, first
            resume_at = max(s[2] for s in after if s[2] is not None)
            before = [s for s in after if s[1] < resume_at]
            # while it counts down nothing happens: the same card, the same slaps
            assert {(s[3], s[4]) for s in before} == {(first[3], first[4])}, before
            going = [s for s in after if s[1] >= resume_at]
            assert going and going[0][2] is None  # then an update says it goes on
        assert "not_started" in players[0].errors  # the slap into the countdown was refused
        record = await stored_record(http, b, code)
        assert untimed(record) == reference(record)  # nothing lost, nothing doubled
        final = replay(record)
        final.game.check_invariant()
