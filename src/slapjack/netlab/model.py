"""A synthetic network for the referee's unit tests (no sockets, explicit time).

Each message leg takes ``base + Exp(jitter)`` ms. A client answers pings at once
(or after ``pong_delay()`` for a cheat) and reacts to a card after ``reaction``
ms, claiming ``reaction - forge``. A card shows ``display`` ms (at most) after it
arrived, as in a browser that stamps the frame that paints it. The route back
may differ (``up``), and the client's clock may run fast (``drift_ppm``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from slapjack.server.fair import BoundDetail, FairReferee


@dataclass
class Link:
    base: float
    jitter: float
    rng: random.Random
    clock_offset: float = 12_345.0
    forge: float = 0.0
    pong_delay: Callable[[], float] = field(default=lambda: 0.0)
    display: float = 0.0
    """A card is painted up to this long after it arrived (uniform): a display frame."""
    painted_share: float = 1.0
    """How much of the forgery the client puts into a later "painted" stamp (the
    rest into an earlier "input" stamp)."""
    up: tuple[float, float] | None = None
    """``(base, jitter)`` of the route back, when it differs from the way out."""
    drift_ppm: float = 0.0

    def leg(self) -> float:
        return self.base + (self.rng.expovariate(1.0 / self.jitter) if self.jitter else 0.0)

    def leg_back(self) -> float:
        if self.up is None:
            return self.leg()
        base, jitter = self.up
        return base + (self.rng.expovariate(1.0 / jitter) if jitter else 0.0)

    def clock(self, t: float) -> float:
        """The client's clock reading at server time ``t``."""
        return t + self.clock_offset + t * self.drift_ppm * 1e-6


@dataclass
class Table:
    referee: FairReferee
    links: dict[int, Link]
    now: float = 1_000.0
    ping_id: int = 0
    flip_id: int = 0
    kernel: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    """Per seat, the kernel's running estimate: SRTT, RTTVAR, minimum RTT."""

    def sync(self, rounds: int = 1) -> None:
        """Each seat answers ``rounds`` pings (with its legs and any pong delay)."""
        for _ in range(rounds):
            for seat, link in self.links.items():
                self.ping_id += 1
                sent = self.now
                self.referee.on_ping_sent(seat, self.ping_id, sent)
                arrive = sent + link.leg()
                answer = arrive + link.pong_delay()
                recv = answer + link.leg_back()
                self.referee.on_pong(seat, self.ping_id, link.clock(answer), recv)
            self.now += 50.0

    def transport(self, seat: int, samples: int = 200, ack_delay: float = 0.0) -> None:
        """Feed the kernel-style smoothed RTT (RFC 6298) of the seat's true
        network after ``samples`` more round trips of it (each ``ack_delay`` ms
        later for a delayed ACK; the minimum sees none): a running estimate,
        which one round trip of its own starts."""
        link = self.links[seat]

        def round_trip() -> tuple[float, float]:
            rtt = link.leg() + link.leg_back()
            return rtt + ack_delay, rtt

        state = self.kernel.get(seat)
        if state is None:
            sample, rtt = round_trip()
            state = (sample, sample / 2, rtt)
        for _ in range(samples):
            sample, rtt = round_trip()
            srtt, var, low = state
            var = 0.75 * var + 0.25 * abs(srtt - sample)
            state = (0.875 * srtt + 0.125 * sample, var, min(low, rtt))
        self.kernel[seat] = state
        self.referee.on_transport_rtt(seat, *state, now_ms=self.now)

    def race(self, reactions: dict[int, float]) -> dict[int, BoundDetail]:
        """Send a card to every seat, let each react, judge the slaps in arrival order."""
        self.flip_id += 1
        sent = self.now
        arrivals = []
        for seat, link in self.links.items():
            self.referee.on_card_sent(seat, self.flip_id, sent)
            shown = sent + link.leg() + (link.rng.uniform(0.0, link.display) if link.display else 0)
            r = reactions[seat]
            claimed = r - link.forge
            input_at = shown + r
            arrival = input_at + link.leg_back()
            # the client's stamps: a forger moves "painted" later, "input" earlier
            c_shown = link.clock(shown) + link.forge * link.painted_share
            c_input = c_shown + claimed
            arrivals.append((arrival, seat, claimed, c_shown, c_input))
        out = {}
        for arrival, seat, claimed, c_shown, c_input in sorted(arrivals):
            out[seat] = self.referee.judge(seat, self.flip_id, claimed, c_shown, c_input, arrival)
        self.now = max(a[0] for a in arrivals) + 500.0
        return out


def make_table(
    profile: list[tuple[float, float]], seed: int = 1, referee: FairReferee | None = None
) -> Table:
    rng = random.Random(seed)
    links = {
        i: Link(base, jitter, random.Random(rng.random()), clock_offset=rng.uniform(-1e6, 1e6))
        for i, (base, jitter) in enumerate(profile)
    }
    return Table(referee or FairReferee(), links)
