"""Benchmark of the fair referee (issue 5): does the faster hand win, whatever the network?

Real server, real WebSocket clients on loopback. The server (``create_app`` on
uvicorn, same process, port chosen free on 127.0.0.1) gets rooms of four human
seats through its test hook (``/api/test/rooms``: a stacked deck whose first
four flips are Jacks, ``after_jack=continue``, a short time limit, then a
rematch: four contested Jacks per game). Each seat is a WebSocket client whose
every frame, in each direction, is held back inside this harness for
``base + Exp(mean jitter)`` ms (per seat, independently; in order, as TCP
delivers). Each simulated player draws its true reaction for each Jack from the
bots' human model (``slapjack.bots.PROFILES``, all four the same level), stamps
"painted" when the card frame is delivered and "input" a reaction later, and
claims the difference, or, for a cheat, less.

Referees: ``arrival`` (the naive baseline), ``fair`` (clock-sync pings only)
and ``fair+tcp`` (``fair`` plus the kernel's TCP round-trip estimate; the delays
here are made inside the client, so the loopback kernel cannot see them: the
harness feeds the server the estimate a kernel would make of this simulated
network, RFC 6298 smoothing over the per-frame delays, which no cheat
controls).

For every scenario, cheat and referee it prints: the share of races the truly
fastest player won when the true gap to the second was >= 20 ms (and >= 10
ms), the median and 99th-percentile time from a Jack's card to its result at
the clients, and for a cheat its win rate (fair share 25 %) and its mean and
99th-percentile effective advantage (ms gained in the ranking relative to the
honest seats of the same race).

    python bench/fairness.py                      # everything, 1,000 races each
    python bench/fairness.py --scenarios home --cheats forger100 --races 300

Network modes (``--network``):

* ``harness`` (default): the delays are made inside this harness (class
  ``Link``), the server sees loopback; ``fair+tcp`` is fed an emulated kernel
  estimate (``feed_transport``).
* ``tun`` (Linux, root): the delays are made below TCP by :mod:`slapjack.netlab.tunnet`
  (a forwarder process between two TUN devices, each in a network namespace
  the run makes and removes itself: the server's, the clients' with one
  address per seat); the harness adds no delay of its own (the cheats still
  hold their pongs and forge their claims). Nothing is configured in, or sent
  from, the machine's own namespace: the server (still in this process and
  event loop) listens on a socket made in the server's namespace, each seat's
  WebSocket is a socket made in the clients' namespace, and the setup requests
  (rooms, joins) go from the clients' namespace too (a plain ``httpx`` client
  on threads that live there, from an address that is no seat's and gets no
  delay). The server sees the seats' real addresses, so it reads the real
  ``TCP_INFO`` of its real sockets: ``fair+tcp`` is that server, ``fair`` a
  second one with the reading switched off (``create_app(transport_rtt=False)``).
  Each row also gives the forwarder's timing error (lateness of its releases,
  p50/p99).

Bounded by ``--races`` and ``--max-seconds`` per run; stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import functools
import json
import logging
import math
import random
import signal
import socket
import statistics
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets

from slapjack.bots import PROFILES
from slapjack.server import create_app
from slapjack.server.connection import Limits
from slapjack.server.fair import FairReferee

from . import tunnet

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


# ------------------------------------------------------------------ a room


async def play_room(
    http: httpx.AsyncClient | NamespaceHTTP,
    ws_base: str,
    app: Any,
    run: Run,
    room_no: int,
    seed: int,
) -> None:
    base, jitter, seats = run.base, run.jitter, run.seats
    rng = random.Random(seed)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Q", "K"]
    jacks = ["JC", "JD", "JH", "JS"]
    # the first flips (one per seat, after_jack=continue) are Jacks
    deck = jacks[:seats] + [f"{r}{s}" for r in ranks for s in "CDHS"] + jacks[seats:]
    referee = "arrival" if run.referee == "arrival" else "fair"
    body = {
        "create": {
            "name": f"bench {room_no}",
            "seats": seats,
            "rules": {"preset": "classic", "after_jack": "continue", "tie": "split"},
            "time_limit": run.time_limit or TIME_LIMIT_S.get(run.scenario, 3),
            "turn_seconds": 0.5,
            "public": False,
        },
        "deck": deck,
        # a moment before the first flip for the first clock-sync pings
        "timing": {"start_delay_ms": 1500.0, "jack_timeout_ms": 3000.0},
        "referee": referee,
    }
    response = await http.post("/api/test/rooms", json=body)
    response.raise_for_status()
    code = response.json()["code"]
    cheat_seat = room_no % seats if run.cheat is not None else None
    clients: list[SeatClient] = []
    for seat in range(seats):
        joined = await http.post(f"/api/rooms/{code}/join", json={"name": f"P{seat}"})
        joined.raise_for_status()
        info = joined.json()
        # in tun mode the network below TCP makes the delays: the link passes frames through
        delays = (0.0, 0.0) if run.net is not None else (base[seat], jitter[seat])
        link = Link(*delays, random.Random(rng.random()))
        cheat = run.cheat if seat == cheat_seat else None
        clients.append(
            SeatClient(
                run,
                code,
                info["seat"],
                info["token"],
                link,
                cheat,
                random.Random(rng.random()),
                cheat_seat,
            )
        )
    feeder: asyncio.Task[None] | None = None
    try:
        for client in clients:
            await client.start(f"{ws_base}/ws/{code}")
        if run.referee == "fair+tcp" and run.net is None:
            feeder = asyncio.create_task(feed_transport(app, code, clients, run))
        await run.stop.wait()
        if cheat_seat is not None:
            note_hold(app, code, cheat_seat, run)
    finally:
        if feeder is not None:
            feeder.cancel()
        for client in clients:
            await client.close()


def note_hold(app: Any, code: str, seat: int, run: Run) -> None:
    """When the room's fair referee first held the cheat, and why it holds it now."""
    room = app.state.lobby.get(code)
    referee = getattr(room, "referee", None)
    if not isinstance(referee, FairReferee):
        return
    state = referee.seat(seat)
    run.holds.append((seat, state.first_held, state.slaps, state.reason))


async def feed_transport(app: Any, code: str, clients: Sequence[SeatClient], run: Run) -> None:
    """What the server would read with ``getsockopt(TCP_INFO)`` if these delays
    were made by the network instead of the client harness."""
    lobby = app.state.lobby
    while not run.stop.is_set():
        room = lobby.get(code)
        referee = getattr(room, "referee", None)
        hook = getattr(referee, "on_transport_rtt", None)
        if room is not None and hook is not None:
            for c in clients:
                if c.link.srtt is not None:
                    hook(c.seat, c.link.srtt, c.link.rttvar, c.link.min_rtt, room.now())
        await asyncio.sleep(0.5)


# ------------------------------------------------------------------ figures


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summarize(run: Run) -> dict[str, Any]:
    races = [r for r in run.races.values() if r.done and not r.truncated and r.winner is not None]
    correct = {10: [0, 0], 20: [0, 0]}
    latencies: list[float] = []
    cheat_wins = 0
    advantages: list[float] = []
    for race in races:
        if len(race.true) < run.seats:
            continue
        order = sorted(race.true, key=race.true.__getitem__)
        gap = race.true[order[1]] - race.true[order[0]]
        for g, tally in correct.items():
            if gap >= g:
                tally[1] += 1
                tally[0] += race.winner == order[0]
        for seat, at in race.result_at.items():
            if seat in race.shown:
                latencies.append(at - race.shown[seat])
        c = race.cheat_seat
        if c is not None:
            cheat_wins += race.winner == c
            if c in race.bounded:
                honest = [
                    race.true[s] - race.bounded[s]
                    for s in race.bounded
                    if s != c and s in race.true
                ]
                if honest:
                    gain = race.true[c] - race.bounded[c]
                    advantages.append(gain - statistics.fmean(honest))
    n = len(races)
    truncated = sum(1 for r in run.races.values() if r.done and r.truncated)
    out: dict[str, Any] = {
        "scenario": run.scenario,
        "cheat": run.cheat.name if run.cheat else "none",
        "referee": run.referee,
        "races": n,
        "wins": {s: sum(r.winner == s for r in races) for s in range(run.seats)},
        "discarded": truncated,
        "correct_20": correct[20][0] / correct[20][1] if correct[20][1] else math.nan,
        "n_20": correct[20][1],
        "correct_10": correct[10][0] / correct[10][1] if correct[10][1] else math.nan,
        "n_10": correct[10][1],
        "latency_p50": pct(latencies, 0.5),
        "latency_p99": pct(latencies, 0.99),
    }
    if run.cheat is not None:
        out["cheat_win"] = cheat_wins / n if n else math.nan
        out["cheat_by_seat"] = cheat_by_seat(run, races)
        out["adv_mean"] = statistics.fmean(advantages) if advantages else math.nan
        out["adv_p99"] = pct(advantages, 0.99)
    return out


def cheat_by_seat(run: Run, races: Sequence[Race]) -> list[dict[str, Any]]:
    """Per seat the cheat played: its races, its share of wins, and (fair
    referees) after how many of its slaps it was first held, the median over
    its rooms (a room where it never was counts all its slaps)."""
    out = []
    for seat in range(run.seats):
        mine = [r for r in races if r.cheat_seat == seat]
        holds = [(first, slaps) for s, first, slaps, _ in run.holds if s == seat]
        out.append(
            {
                "seat": seat,
                "races": len(mine),
                "win": sum(r.winner == seat for r in mine) / len(mine) if mine else math.nan,
                "held_after": statistics.median(
                    slaps if first is None else first for first, slaps in holds
                )
                if holds
                else None,
                "never_held": sum(first is None for first, _ in holds),
                "reasons": sorted({why for s, _, _, why in run.holds if s == seat and why}),
            }
        )
    return out


# ------------------------------------------------------------------ driver


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def serve(data_dir: str, transport_rtt: bool = True, net: Any = None) -> Any:
    """The real server, in this event loop, on a free port of 127.0.0.1, or
    with a started ``tunnet.TunNet`` as ``net`` on its server address, on a
    socket made in the server's namespace (reachable only from the clients'
    namespace); ``transport_rtt``: it reads its connections' ``TCP_INFO`` for
    the referee."""
    app = create_app(
        data_dir=data_dir,
        test_hooks=True,
        transport_rtt=transport_rtt,
        limits=Limits.relaxed(),  # every seat joins from one address
    )
    sock: socket.socket | None = None
    if net is None:
        host = "127.0.0.1"
        port = free_port(host)
    else:
        sock = net.server_socket()
        host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on", ws="auto"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=None if sock is None else [sock]))
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield app, f"http://{host}:{port}", f"ws://{host}:{port}"
    finally:
        server.should_exit = True
        await task
        if sock is not None:
            sock.close()


class NamespaceHTTP:
    """The harness's HTTP client in tun mode: plain ``httpx`` on threads that
    live in the tun network's clients' namespace, from its control address
    (no seat's, no delay), so the server is reached only inside the network's
    own namespaces. Offers the one call the harness makes, ``post``."""

    def __init__(self, net: Any, base_url: str, workers: int = 4) -> None:
        self._executor: concurrent.futures.ThreadPoolExecutor = net.executor("clients", workers)
        self._client = httpx.Client(
            base_url=base_url,
            timeout=30.0,
            transport=httpx.HTTPTransport(local_address=net.control_addr),
        )

    async def post(self, url: str, *, json: Any) -> httpx.Response:
        call = functools.partial(self._client.post, url, json=json)
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    async def __aenter__(self) -> NamespaceHTTP:
        return self

    async def __aexit__(self, *exc: object) -> None:
        # not waiting: a call still in its thread waits for this event loop's server
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._client.close()


@contextlib.contextmanager
def kernel_readings() -> Any:
    """Records what the server reads with ``tcp_rtt`` (``(srtt, rttvar, min_rtt)``
    ms), by client address, while the block runs (tun mode: how the kernel's
    estimate compares with the seats' true round trips)."""
    import slapjack.server.sockets as app_module

    real = app_module.tcp_rtt
    seen: dict[str, list[tuple[float, float, float | None]]] = {}

    def spy(ws: Any) -> Any:
        got = real(ws)
        if got is not None:
            seen.setdefault(ws.client.host, []).append(got)
        return got

    app_module.tcp_rtt = spy
    try:
        yield seen
    finally:
        app_module.tcp_rtt = real


def kernel_summary(run: Run, seen: dict[str, list[tuple[float, float, float | None]]]) -> list[Any]:
    """Per seat: the median SRTT and min RTT the server read, and the true
    mean and minimum round trips of the seat's network."""
    out = []
    for seat in range(run.seats):
        got = seen.get(run.net.client_addrs[seat], [])
        mins = [m for _, _, m in got if m is not None]
        out.append(
            {
                "seat": seat,
                "n": len(got),
                "srtt_p50": pct([r for r, _, _ in got], 0.5),
                "min_rtt_p50": pct(mins, 0.5),
                "true_rtt_mean": 2 * (run.base[seat] + run.jitter[seat]),
                "true_rtt_min": 2 * run.base[seat],
            }
        )
    return out


async def run_one(
    app: Any,
    http_base: str,
    ws_base: str,
    run: Run,
    rooms: int,
    seed: int,
    max_seconds: float = 300.0,
) -> dict[str, Any]:
    """Play ``run`` in ``rooms`` rooms at once until it has its races (or time is up)."""
    started = time.monotonic()
    if run.net is not None:
        run.net.set_delays(list(zip(run.base, run.jitter, strict=True)))
        run.net.stats(reset=True)
    readings = kernel_readings() if run.net is not None else contextlib.nullcontext({})
    with readings as seen:
        await _play(http_base, ws_base, app, run, rooms, seed, max_seconds)
    result = summarize(run)
    result["seconds"] = round(time.monotonic() - started, 1)
    result["network"] = "harness" if run.net is None else "tun"
    if run.net is not None:
        result["forwarder"] = run.net.stats().as_dict()
        result["kernel"] = kernel_summary(run, seen)
    return result


async def _play(
    http_base: str, ws_base: str, app: Any, run: Run, rooms: int, seed: int, max_seconds: float
) -> None:
    http: httpx.AsyncClient | NamespaceHTTP
    if run.net is None:
        http = httpx.AsyncClient(base_url=http_base, timeout=30.0)
    else:
        http = NamespaceHTTP(run.net, http_base)
    async with http:
        tasks = [
            asyncio.create_task(play_room(http, ws_base, app, run, i, seed * 1000 + i))
            for i in range(rooms)
        ]
        stopper = asyncio.create_task(run.stop.wait())
        try:
            await asyncio.wait(
                [stopper, *tasks], timeout=max_seconds, return_when=asyncio.FIRST_COMPLETED
            )
        except asyncio.CancelledError:  # stopped from outside: close every room first
            run.stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        run.stop.set()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]


async def lag_monitor(samples: list[float]) -> None:
    """How late the event loop wakes up (everything shares it)."""
    loop = asyncio.get_running_loop()
    while True:
        t = loop.time()
        await asyncio.sleep(0.01)
        samples.append((loop.time() - t - 0.01) * 1000.0)


def plan(
    scenarios: Sequence[str], cheats: Sequence[str], referees: Sequence[str]
) -> list[tuple[str, str | None, str]]:
    out: list[tuple[str, str | None, str]] = []
    for scenario in scenarios:
        for referee in referees:
            out.append((scenario, None, referee))
        if scenario in CHEAT_SCENARIOS:
            for cheat in cheats:
                for referee in referees:
                    out.append((scenario, cheat, referee))
    return out


@contextlib.asynccontextmanager
async def servers(data_dir: str, net: Any = None) -> Any:
    """Yields ``pick(referee) -> (app, http_base, ws_base)``. Harness mode: one
    loopback server. Tun mode: two on the tun network's server address (in its
    server namespace), one reading ``TCP_INFO`` (for ``fair+tcp`` and
    ``arrival``), one not (``fair``)."""
    if net is None:
        async with serve(data_dir) as one:
            yield lambda referee: one
        return
    async with (
        serve(str(Path(data_dir, "tcp")), True, net) as with_tcp,
        serve(str(Path(data_dir, "notcp")), False, net) as without,
    ):
        yield lambda referee: without if referee == "fair" else with_tcp


def forwarder_line(r: dict[str, Any]) -> str:
    f = r.get("forwarder")
    if not f:
        return ""
    line = (
        f"  (tun forwarder: {f['packets']} packets, late p50 {f['late_p50_ms']:.2f} ms, "
        f"p99 {f['late_p99_ms']:.2f} ms, max {f['late_max_ms']:.1f} ms, dropped {f['dropped']})"
    )
    kernel = r.get("kernel")
    if kernel and any(k["n"] for k in kernel):

        def ms(x: float) -> str:
            return "-" if math.isnan(x) else f"{x:.0f}"

        line += (
            "\n  (server's TCP_INFO by seat, median SRTT / min RTT vs true mean / min RTT, ms: "
            + ", ".join(
                f"{ms(k['srtt_p50'])}/{ms(k['min_rtt_p50'])} vs "
                f"{k['true_rtt_mean']:.0f}/{k['true_rtt_min']:.0f}"
                for k in kernel
            )
            + ")"
        )
    return line


async def watch_network(net: Any, main: asyncio.Task[Any]) -> None:
    """Tun mode: a dead forwarder (the network went with it) ends the run at
    once, like a kill, instead of every room waiting out its timeouts."""
    while net.alive():
        await asyncio.sleep(0.5)
    main.cancel()


async def bench(args: argparse.Namespace, net: Any = None) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    lag: list[float] = []
    main = asyncio.current_task()
    watcher: asyncio.Task[None] | None = None
    if net is not None and main is not None:
        # a kill ends the run like Ctrl-C: every server, client and the network closed
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main.cancel)
        watcher = asyncio.create_task(watch_network(net, main))
    monitor = asyncio.create_task(lag_monitor(lag))
    with tempfile.TemporaryDirectory(prefix="slapjack-fairness-") as tmp:
        Path(tmp, "tcp").mkdir()
        Path(tmp, "notcp").mkdir()
        async with servers(tmp, net) as pick:
            for i, (scenario, cheat, referee) in enumerate(
                plan(args.scenarios, args.cheats, args.referees)
            ):
                lag.clear()
                run = Run(
                    scenario,
                    CHEATS[cheat] if cheat else None,
                    referee,
                    args.races,
                    random.Random(args.seed * 7919 + i),
                    net=net,
                )
                app, http_base, ws_base = pick(referee)
                result = await run_one(
                    app, http_base, ws_base, run, args.rooms, args.seed + i, args.max_seconds
                )
                result["loop_lag_p99"] = pct(lag, 0.99)
                results.append(result)
                print(format_row(result), flush=True)
                if result.get("cheat_by_seat"):
                    print(cheat_line(result), flush=True)
                if net is not None:
                    print(forwarder_line(result), flush=True)
    monitor.cancel()
    if watcher is not None:
        watcher.cancel()
    return results


HEADER = (
    f"{'scenario':8} {'cheat':16} {'referee':9} {'races':>5} {'ok≥20ms':>8} {'ok≥10ms':>8} "
    f"{'p50 ms':>7} {'p99 ms':>7} {'cheat win':>9} {'adv mean':>8} {'adv p99':>8}"
)


def format_row(r: dict[str, Any]) -> str:
    def pc(x: float) -> str:
        return "-" if x is None or math.isnan(x) else f"{100 * x:.1f}%"

    def ms(x: float | None) -> str:
        return "-" if x is None or math.isnan(x) else f"{x:.0f}"

    return (
        f"{r['scenario']:8} {r['cheat']:16} {r['referee']:9} {r['races']:>5} "
        f"{pc(r['correct_20']):>8} {pc(r['correct_10']):>8} "
        f"{ms(r['latency_p50']):>7} {ms(r['latency_p99']):>7} "
        f"{pc(r.get('cheat_win', math.nan)):>9} {ms(r.get('adv_mean')):>8} {ms(r.get('adv_p99')):>8}"
    )


def cheat_line(r: dict[str, Any]) -> str:
    parts = []
    for c in r["cheat_by_seat"]:
        if not c["races"]:
            continue
        part = f"seat {c['seat']} {100 * c['win']:.1f}% of {c['races']}"
        if c["held_after"] is not None:
            part += f", held after {c['held_after']:.0f} slaps"
            if c["never_held"]:
                part += f" (never in {c['never_held']} rooms)"
        parts.append(part)
    low, high = wilson(r["cheat_win"], r["races"])
    return (
        f"  (cheat wins {100 * r['cheat_win']:.1f}%, 95% interval {100 * low:.1f}–{100 * high:.1f}%;"
        " by seat: " + "; ".join(parts) + ")"
    )


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share of ``n`` races (95 % by default)."""
    if n <= 0 or math.isnan(share):
        return math.nan, math.nan
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def markdown(results: Sequence[dict[str, Any]]) -> str:
    """The figures as a Markdown table (for docs/benchmarks.md)."""

    def pc(x: Any) -> str:
        return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f} %"

    def ms(x: Any) -> str:
        return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0f}"

    lines = [
        "| scenario | cheat | referee | races | fastest wins, gap ≥ 20 ms | gap ≥ 10 ms "
        "| flip→result p50 / p99 (ms) | cheat wins | cheat advantage mean / p99 (ms) "
        "| loop lag p99 (ms) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['scenario']} | {r['cheat']} | {r['referee']} | {r['races']} "
            f"| {pc(r['correct_20'])} | {pc(r['correct_10'])} "
            f"| {ms(r['latency_p50'])} / {ms(r['latency_p99'])} "
            f"| {pc(r.get('cheat_win'))} | {ms(r.get('adv_mean'))} / {ms(r.get('adv_p99'))} "
            f"| {ms(r.get('loop_lag_p99'))} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=lambda s: s.split(","), default=list(SCENARIOS))
    parser.add_argument(
        "--cheats",
        type=lambda s: [] if s == "none" else s.split(","),
        default=list(CHEATS),
        help="comma-separated, or none",
    )
    parser.add_argument("--referees", type=lambda s: s.split(","), default=list(REFEREES))
    parser.add_argument("--races", type=int, default=1000, help="contested Jacks per run")
    parser.add_argument("--rooms", type=int, default=40, help="rooms playing at once")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--network",
        choices=NETWORKS,
        default="harness",
        help="harness: delays made in the client harness (loopback); "
        "tun: delays made below TCP by slapjack.netlab.tunnet (Linux, root)",
    )
    parser.add_argument(
        "--subnet",
        default=tunnet.DEFAULT_SUBNET,
        help="the tun network's IPv4 subnet (configured only inside its own namespaces)",
    )
    parser.add_argument("--max-seconds", type=float, default=300.0, help="cap per run")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument(
        "--markdown", type=Path, default=None, help="print a saved --json file as a table and stop"
    )
    args = parser.parse_args(argv)
    if args.markdown is not None:
        print(markdown(json.loads(args.markdown.read_text())))
        return 0
    for name, known in (
        ("scenario", SCENARIOS),
        ("cheat", CHEATS),
        ("referee", REFEREES),
    ):
        chosen = getattr(args, name + "s")
        bad = [c for c in chosen if c not in known]
        if bad:
            parser.error(f"unknown {name} {bad[0]!r}; choose from {', '.join(known)}")
    if not 1 <= args.races <= 100_000 or not 1 <= args.rooms <= 200:
        parser.error("--races must be 1..100000 and --rooms 1..200")
    logging.basicConfig(level=logging.WARNING)
    with contextlib.ExitStack() as stack:
        net = None
        if args.network == "tun":
            seats = max(len(SCENARIOS[s][0]) for s in args.scenarios)
            try:
                net = stack.enter_context(
                    tunnet.TunNet([(0.0, 0.0)] * seats, subnet=args.subnet, seed=args.seed)
                )
            except tunnet.TunNetUnavailable as exc:
                print(f"--network tun: {exc}", file=sys.stderr)
                return 2
            # a kill tears the network down too (the with block's exit; in the
            # event loop, bench() cancels itself instead)
            signal.signal(signal.SIGTERM, lambda signo, frame: sys.exit(128 + signo))
            print(
                f"# network: tun (delays below TCP, in namespaces of its own: server "
                f"{net.server_addr} in net:[{net.netns_ids['server']}], seats "
                f"{', '.join(net.client_addrs)} in net:[{net.netns_ids['clients']}]; "
                f"forwarder {net.scheduling}; the server reads real TCP_INFO)",
                flush=True,
            )
        else:
            print("# network: harness (delays inside the client harness, loopback)", flush=True)
        print(HEADER, flush=True)
        try:
            results = asyncio.run(bench(args, net))
        except asyncio.CancelledError:
            if net is not None and not net.alive():
                print("--network tun: the forwarder exited; stopped", file=sys.stderr)
                return 1
            print("stopped (SIGTERM)", file=sys.stderr)
            return 128 + signal.SIGTERM
        except KeyboardInterrupt:
            print("stopped (Ctrl-C)", file=sys.stderr)
            return 130
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
