"""The players of the fairness study (:mod:`slapjack.netlab.fairness`): the
scenarios' networks, the cheats, one seat's simulated network (:class:`Link`),
the bookkeeping of a run and its races (:class:`Run`, :class:`Race`) and the
WebSocket client that plays a seat (:class:`SeatClient`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import websockets

from slapjack.bots import PROFILES

FLOOR_MS = 100.0
NETWORKS = ("harness", "tun")

SCENARIOS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "lan": ((2, 3, 2, 4), (1, 1, 1, 1)),
    "home": ((10, 25, 40, 18), (4, 6, 8, 5)),
    "mixed": ((12, 30, 60, 150), (5, 8, 20, 30)),
    "bad": ((80, 150, 200, 30), (30, 40, 60, 10)),
}
TIME_LIMIT_S = {"lan": 2, "home": 2, "mixed": 3, "bad": 4}
REFEREES = ("arrival", "fair", "fair+tcp")
CHEAT_SCENARIOS = ("home", "mixed")


@dataclass(frozen=True)
class Cheat:
    """How one seat lies. ``forge``: ms taken off its true reaction (never below
    the floor); ``pong_hold``: how long it holds back each clock-sync answer."""

    name: str
    forge: float
    pong_hold: Callable[[random.Random], float] = field(default=lambda rng: 0.0)

    def claim(self, reaction: float) -> float:
        return max(reaction - self.forge, FLOOR_MS + 1.0)


CHEATS: dict[str, Cheat] = {
    "forger30": Cheat("forger30", 30.0),
    "forger100": Cheat("forger100", 100.0),
    "forger200": Cheat("forger200", 200.0),
    "slow-poser": Cheat("slow-poser", 50.0, lambda rng: 50.0),
    "jitter-inflater": Cheat("jitter-inflater", 50.0, lambda rng: rng.uniform(0.0, 100.0)),
}


# ------------------------------------------------------------------ the network


class Link:
    """One seat's simulated network: every frame waits ``base + Exp(jitter)`` ms,
    frames keep their order (as on a TCP connection). It also keeps the estimate
    a kernel would make of this network (RFC 6298 over one sample per frame)."""

    def __init__(self, base: float, jitter: float, rng: random.Random) -> None:
        self.base = base
        self.jitter = jitter
        self.rng = rng
        self.last_down = 0.0
        self.last_up = 0.0
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.min_rtt = math.inf

    def leg(self) -> float:
        return self.base + (self.rng.expovariate(1.0 / self.jitter) if self.jitter > 0 else 0.0)

    def _sample(self, delay: float) -> None:
        rtt = delay + self.leg()  # the frame's leg and its (never held back) ACK
        self.min_rtt = min(self.min_rtt, rtt)
        if self.srtt is None:
            self.srtt, self.rttvar = rtt, rtt / 2.0
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt

    def down(self, now: float) -> float:
        """When a frame that reached the client socket at ``now`` (ms) is delivered."""
        delay = self.leg()
        self._sample(delay)
        self.last_down = max(now + delay, self.last_down)
        return self.last_down

    def up(self, now: float) -> float:
        delay = self.leg()
        self._sample(delay)
        self.last_up = max(now + delay, self.last_up)
        return self.last_up


# ------------------------------------------------------------------ bookkeeping


@dataclass
class Race:
    room: str
    key: tuple[int, int]
    true: dict[int, float] = field(default_factory=dict)
    shown: dict[int, float] = field(default_factory=dict)
    result_at: dict[int, float] = field(default_factory=dict)
    winner: int | None = None
    bounded: dict[int, float] = field(default_factory=dict)
    done: bool = False
    truncated: bool = False
    cheat_seat: int | None = None


@dataclass
class Run:
    """One scenario × cheat × referee: its rooms, races and results."""

    scenario: str
    cheat: Cheat | None
    referee: str
    target: int
    rng: random.Random
    level: str = "casual"
    network: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    """Base one-way delay and mean jitter per seat (default: the scenario's)."""
    reactions: dict[int, float] | None = None
    """Fixed true reactions per seat instead of draws from the human model (tests)."""
    time_limit: int | None = None
    net: Any = None
    """A started ``tunnet.TunNet``: the delays are made below TCP, not by ``Link``."""
    races: dict[tuple[str, int, int], Race] = field(default_factory=dict)
    holds: list[tuple[int, int | None, int, str | None]] = field(default_factory=list)
    """Per room with a cheat (fair referees): its seat, after how many of its
    slaps the referee first held it (``None``: never), its slaps, and why it
    holds it at the end (``None``: it does not)."""
    finished: int = 0
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def base(self) -> tuple[float, ...]:
        return (self.network or SCENARIOS[self.scenario])[0]

    @property
    def jitter(self) -> tuple[float, ...]:
        return (self.network or SCENARIOS[self.scenario])[1]

    @property
    def seats(self) -> int:
        return len(self.base)

    def draw_reaction(self, seat: int) -> float:
        if self.reactions is not None:
            return self.reactions[seat]
        return PROFILES[self.level].reaction.draw(self.rng)

    def race(self, room: str, key: tuple[int, int], cheat_seat: int | None) -> Race:
        full = (room, *key)
        race = self.races.get(full)
        if race is None:
            race = self.races[full] = Race(room, key, cheat_seat=cheat_seat)
        return race

    def complete(self, race: Race) -> None:
        if race.done:
            return
        race.done = True
        if not race.truncated and race.winner is not None:
            self.finished += 1
            if self.finished >= self.target:
                self.stop.set()


# ------------------------------------------------------------------ a seat


class SeatClient:
    """One player: a WebSocket client behind a simulated network."""

    def __init__(
        self,
        run: Run,
        room: str,
        seat: int,
        token: str,
        link: Link,
        cheat: Cheat | None,
        rng: random.Random,
        cheat_seat: int | None,
    ) -> None:
        self.run = run
        self.room = room
        self.seat = seat
        self.token = token
        self.link = link
        self.cheat = cheat
        self.rng = rng
        self.cheat_seat = cheat_seat
        self.offset = rng.uniform(-1e6, 1e6)  # the client's clock is its own
        self.loop = asyncio.get_running_loop()
        self.down_q: asyncio.Queue[tuple[float, str]] = asyncio.Queue()
        self.up_q: asyncio.Queue[tuple[float, str]] = asyncio.Queue()
        self.flipped: set[tuple[int, int]] = set()
        self.rematched: set[int] = set()
        self.slapped: set[tuple[int, int]] = set()
        self.current: Race | None = None
        self.ws: Any = None
        self.tasks: list[asyncio.Task[None]] = []

    def now(self) -> float:
        return self.loop.time() * 1000.0

    def clock(self) -> float:
        return self.now() + self.offset

    async def start(self, url: str) -> None:
        net = self.run.net
        if net is None:
            self.ws = await websockets.connect(url, max_size=2**20, compression=None)
        else:
            # a socket in the clients' namespace, from this seat's address
            where = urllib.parse.urlsplit(url)
            sock = net.client_socket(self.seat)
            try:
                await self.loop.sock_connect(sock, (where.hostname, where.port))
                self.ws = await websockets.connect(url, sock=sock, max_size=2**20, compression=None)
            except BaseException:
                sock.close()
                raise
        self.tasks = [
            asyncio.create_task(self._reader()),
            asyncio.create_task(self._deliverer()),
            asyncio.create_task(self._sender()),
        ]
        self.send({"type": "hello", "v": 1, "token": self.token})

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()

    def send(self, message: dict[str, Any]) -> None:
        self.up_q.put_nowait((self.link.up(self.now()), json.dumps(message)))

    async def _sender(self) -> None:
        while True:
            at, text = await self.up_q.get()
            wait = (at - self.now()) / 1000.0
            if wait > 0:
                await asyncio.sleep(wait)
            await self.ws.send(text)

    async def _reader(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in self.ws:
                self.down_q.put_nowait((self.link.down(self.now()), str(text)))

    async def _deliverer(self) -> None:
        while True:
            at, text = await self.down_q.get()
            wait = (at - self.now()) / 1000.0
            if wait > 0:
                await asyncio.sleep(wait)
            self.handle(json.loads(text))

    # ---------------------------------------------------------- the player

    def handle(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "ping":
            hold = self.cheat.pong_hold(self.rng) if self.cheat is not None else 0.0
            ping_id = msg["id"]

            def answer() -> None:
                self.send({"type": "pong", "v": 1, "id": ping_id, "client_time": self.clock()})

            if hold > 0:
                self.loop.call_later(hold / 1000.0, answer)
            else:
                answer()
            return
        if kind != "update":
            return
        view = msg.get("view")
        room = msg.get("room") or {}
        if view is None:
            return
        game_no = int(room.get("game_no", 0))
        flip_id = int(view["flip_id"])
        events = msg.get("events", [])
        truncated = any(e["type"] == "time_is_up" for e in events)
        for ev in events:
            if ev["type"] == "flipped" and str(ev["card"]).startswith("J"):
                self._card(game_no, flip_id)
            elif ev["type"] in ("race_won", "pile_split", "no_slap", "forfeit"):
                self._result(ev, truncated)
        if (
            view["turn"] == self.seat
            and not view["race_open"]
            and not view["over"]
            and room.get("status") == "playing"
            and (game_no, flip_id) not in self.flipped
        ):
            self.flipped.add((game_no, flip_id))
            self.send({"type": "flip", "v": 1, "token": self.token, "flip_id": flip_id})
        if view["over"] and game_no not in self.rematched and not self.run.stop.is_set():
            self.rematched.add(game_no)
            self.send({"type": "rematch", "v": 1, "token": self.token})

    def _card(self, game_no: int, flip_id: int) -> None:
        key = (game_no, flip_id)
        race = self.run.race(self.room, key, self.cheat_seat)
        self.current = race
        if key in self.slapped:
            return
        self.slapped.add(key)
        shown_at = self.clock()  # "painted": the frame is delivered now
        race.shown[self.seat] = self.now()
        planned = self.run.draw_reaction(self.seat)

        def slap() -> None:
            input_at = self.clock()
            # the true reaction is what happened on this device (a late timer is a slow hand)
            reaction = input_at - shown_at
            race.true[self.seat] = reaction
            claimed = self.cheat.claim(reaction) if self.cheat is not None else reaction
            self.send(
                {
                    "type": "slap",
                    "v": 1,
                    "token": self.token,
                    "flip_id": flip_id,
                    "reaction_ms": round(claimed, 3),
                    "shown_at": round(input_at - claimed, 3),
                    "input_at": round(input_at, 3),
                    "call": False,
                }
            )

        self.loop.call_later(planned / 1000.0, slap)

    def _result(self, ev: dict[str, Any], truncated: bool) -> None:
        race = self.current
        if race is None or self.seat in race.result_at:
            return
        race.result_at[self.seat] = self.now()
        if race.winner is None and not race.done:
            if ev["type"] == "race_won":
                race.winner = int(ev["winner"])
            race.bounded = {int(s): float(v) for s, v in ev.get("reactions", [])}
            race.truncated = truncated or ev["type"] != "race_won"
            self.run.complete(race)
