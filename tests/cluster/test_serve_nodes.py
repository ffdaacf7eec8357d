"""Three real ``slapjack serve --redis-url … --database-url postgresql://…``
processes on loopback ports, one fresh key prefix and schema per test.

Two terminal clients (:class:`~slapjack.tui.online.OnlineClient`) join one
room through two nodes that do not run it and follow ``moved`` to its owner;
they play a stacked-seed game to the end with fixed reactions (a trusting
referee: the faster seat wins every jack), so the record is known in advance
apart from its timestamps. Then the owner is killed with ``kill -9`` mid-race
(or stopped with SIGSTOP past its ttl and continued)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from slapjack.core import Flip, Record, Slap, Table, replay
from slapjack.core.record import action_to_dict
from slapjack.protocol import ErrorFrame, Update, Welcome
from slapjack.tui.online import OnlineClient, Target

from .conftest import (
    PG_URL,
    REDIS_URL,
    delete_prefix,
    drop_schema,
    free_port,
    nodes_http,
    pg_schema,
    redis_or_skip,
)

REACTION = (150.0, 300.0)
"""Seat 0 always wins a race (a trusting referee takes the claims as they are)."""
FLIP_DELAY_S = 0.02
"""How long after its view a player flips."""
SLAP_DELAY_S = (0.05, 0.15)
"""How long after its view each seat slaps (what it claims is ``REACTION``):
the race is still open when a test stops the owner as seat 1 sees it, and
the slower seat's slap arrives 350 ms inside the race's 500 ms window after a
rebuilt game goes on (a slap sent after the claimed 300 ms left 200 ms)."""
ROOM_TIMING = {
    "start_delay_ms": 0.0,
    "resume_delay_ms": 1500.0,
    "jack_timeout_ms": 20_000.0,
    "grace_ms": 20_000.0,
    "turn_ms": 20_000.0,
    "deadlock_ms": 0.0,
}
"""Nothing happens by itself: only the players' flips and slaps move the game
(so a takeover cannot change what happens, only when). A game rebuilt on
another node is counted down, as in production, until 1.5 s after each
player's return: without it, a race with a slap stored before the stop
closed 500 ms after the new owner took it over, and on a loaded CI machine
the other player, still on the stopped node, was not back by then."""


class NodeProc:
    """One ``slapjack serve`` node."""

    def __init__(
        self,
        name: str,
        db: str,
        prefix: str,
        log: Path,
        *,
        host: str = "127.0.0.1",
        extra: tuple[str, ...] = ("--no-rate-limits",),
    ) -> None:
        self.name = name
        self.host = host
        self.extra = extra
        self.port = free_port()
        self.url = f"http://{host}:{self.port}"
        self.db = db
        self.prefix = prefix
        self.log = log
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        env = {**os.environ, "SLAPJACK_TEST_HOOKS": "1"}
        out = self.log.open("a")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "slapjack.cli",
                "serve",
                "--host",
                self.host,
                "--port",
                str(self.port),
                "--database-url",
                self.db,
                "--redis-url",
                REDIS_URL,
                "--cluster-prefix",
                self.prefix,
                "--node-id",
                self.name,
                *self.extra,
                "--log-level",
                "info",
            ],
            stdout=subprocess.DEVNULL,
            stderr=out,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.url}/api/cluster", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(
                    f"node {self.name} did not start: {self.log.read_text()[-3000:]}"
                )
            time.sleep(0.05)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
async def nodes(tmp_path: Path) -> AsyncIterator[list[NodeProc]]:
    """Three nodes with the production heartbeat (the failover tests time it)."""
    async with three_nodes(tmp_path) as procs:
        yield procs


@pytest.fixture
async def steady_nodes(tmp_path: Path) -> AsyncIterator[list[NodeProc]]:
    """Three nodes that take none of the others for dead in a test's time
    (``--node-ttl 10``): for tests of a cluster that stays whole, where a node
    held up past the production ttl (2 s) on a loaded machine was taken over
    and the test's clients moved twice."""
    async with three_nodes(tmp_path, ("--no-rate-limits", "--node-ttl", "10")) as procs:
        yield procs


@contextlib.asynccontextmanager
async def three_nodes(
    tmp_path: Path, extra: tuple[str, ...] = ("--no-rate-limits",)
) -> AsyncIterator[list[NodeProc]]:
    client = await redis_or_skip()
    schema = await pg_schema()
    prefix = f"sjt-{uuid.uuid4().hex[:10]}"
    db = f"{PG_URL}?search_path={schema}"
    procs = [NodeProc(n, db, prefix, tmp_path / f"{n}.log", extra=extra) for n in ("a", "b", "c")]
    try:
        for p in procs:  # one after the other: the first one migrates the fresh schema
            await asyncio.to_thread(p.start)
        yield procs
    finally:
        for p in procs:
            p.stop()
        await delete_prefix(client, prefix)
        await client.aclose()
        await drop_schema(schema)


class Player:
    """Plays one seat: flips on its turn, slaps every open race claiming its
    fixed reaction (again after a reconnect, if its slap is not in the view)."""

    def __init__(self, seat: int, token: str, target: Target) -> None:
        self.seat = seat
        self.client = OnlineClient(target, token, self, reconnect=True)
        self.view: dict[str, Any] | None = None
        self.welcomes: list[str] = []
        self.servers: list[str] = []
        self.over = asyncio.Event()
        self.errors: list[str] = []
        self._acted: set[tuple[int, int, str]] = set()
        self.generation = 0
        self.race_seen = asyncio.Event()

    def on_welcome(self, msg: Welcome) -> None:
        self.generation += 1
        self.welcomes.append(self.client.target.server)

    def on_update(self, msg: Update) -> None:
        if msg.view is None:
            return
        view = msg.view.model_dump()
        self.view = view
        if view["over"]:
            self.over.set()
            return
        if msg.room.timers.resume is not None:
            return  # a rebuilt game counts down: actions are refused until it goes on
        fid = view["flip_id"]
        if view["race_open"]:
            self.race_seen.set()
            if self.seat not in view["slapped"]:
                key = (self.generation, fid, "slap")
                if key not in self._acted:
                    self._acted.add(key)
                    asyncio.get_running_loop().call_later(SLAP_DELAY_S[self.seat], self._slap, fid)
        elif view["turn"] == self.seat:
            key = (self.generation, fid, "flip")
            if key not in self._acted:
                self._acted.add(key)
                asyncio.get_running_loop().call_later(FLIP_DELAY_S, self._flip, fid)

    def _flip(self, fid: int) -> None:
        self.client.send("flip", flip_id=fid)

    def _slap(self, fid: int) -> None:
        self.client.send("slap", flip_id=fid, reaction_ms=REACTION[self.seat])

    def on_server_error(self, msg: ErrorFrame) -> None:
        self.errors.append(str(msg.code))

    def on_bad_frame(self, what: str) -> None:
        self.errors.append(what)

    def on_status(self, status: str, detail: Any) -> None:
        pass


def reference(record: Record) -> list[dict[str, Any]]:
    """The game of ``record``'s deal played without a break by the players' policy."""
    table = Table(Record(record.rules, record.players, record.deck, record.seed, []))
    t = 0
    while not table.game.over:
        g = table.game
        if g.race_open:
            for s in g.in_seats():
                table.apply(Slap(s, REACTION[s], False, t))
            table.settle(final=False)  # as the live table settles a race (no tie: no reslap)
        else:
            assert g.turn is not None
            table.apply(Flip(g.turn, t))
        t += 100
    return untimed(table.record)


def untimed(record: Record) -> list[dict[str, Any]]:
    """The actions without their times; the slaps of one race in seat order
    (which slap arrived first is timing too: the race goes by reaction)."""
    out: list[dict[str, Any]] = []
    race: list[dict[str, Any]] = []
    for action in record.actions:
        data = action_to_dict(action, record.players)
        data.pop("t", None)
        if "slap" in data:
            race.append(data)
            continue
        out += sorted(race, key=lambda d: record.players.index(d["slap"]))
        race = []
        out.append(data)
    return out + race


async def room_on(node: NodeProc, http: httpx.AsyncClient, seed: int) -> str:
    body = {
        "create": {"name": "cluster", "seats": 2, "rules": {"preset": "classic"}},
        "seed": seed,
        "timing": ROOM_TIMING,
        "referee": "trusting",
    }
    r = await http.post(f"{node.url}/api/test/rooms", json=body)
    assert r.status_code == 200, r.text
    return str(r.json()["code"])


async def seat_through(
    node: NodeProc, http: httpx.AsyncClient, code: str, name: str
) -> dict[str, Any]:
    r = await http.post(f"{node.url}/api/rooms/{code}/join", json={"name": name})
    assert r.status_code == 200, r.text
    return dict(r.json())


async def stored_record(http: httpx.AsyncClient, node: NodeProc, code: str) -> Record:
    for _ in range(200):
        r = await http.get(f"{node.url}/api/games", params={"limit": 5})
        games = [g for g in r.json()["games"] if g.get("room") == code]
        if games:
            g = await http.get(f"{node.url}/api/games/{games[0]['id']}")
            return Record.from_dict(g.json())
        await asyncio.sleep(0.05)
    raise AssertionError("the finished game was not stored")


async def until_over(players: list[Player], timeout: float = 40) -> None:
    try:
        await asyncio.wait_for(asyncio.gather(*(p.over.wait() for p in players)), timeout)
    except TimeoutError:
        state = [
            (
                p.seat,
                p.welcomes,
                p.client.target,
                p.client.moves,
                p.errors,
                p.view and {k: p.view[k] for k in ("turn", "race_open", "flip_id", "slapped")},
            )
            for p in players
        ]
        raise AssertionError(f"the game did not end: {state}") from None


@contextlib.contextmanager
def players_running(players: list[Player]) -> Iterator[list[asyncio.Task[None]]]:
    tasks = [asyncio.create_task(p.client.run()) for p in players]
    try:
        yield tasks
    finally:
        for t in tasks:
            t.cancel()


async def start_game(nodes: list[NodeProc], http: httpx.AsyncClient) -> tuple[str, list[Player]]:
    """A room on node a, its seats taken through b and c, each client sent on to a."""
    a, b, c = nodes
    code = await room_on(a, http, seed=4)
    joined = [await seat_through(b, http, code, "Anna"), await seat_through(c, http, code, "Ben")]
    assert [j["ws"] for j in joined] == [f"ws://127.0.0.1:{a.port}/ws/{code}"] * 2
    players = [
        Player(0, joined[0]["token"], Target(b.url, code)),
        Player(1, joined[1]["token"], Target(c.url, code)),
    ]
    return code, players


async def test_clients_on_other_nodes_play_a_room_to_the_end_through_moved(
    steady_nodes: list[NodeProc],
) -> None:
    a, b, c = steady_nodes
    async with nodes_http() as http:
        code, players = await start_game(steady_nodes, http)
        with players_running(players):
            await until_over(players)
        assert all(p.welcomes == [a.url] for p in players)  # moved once, straight to a
        assert all(p.client.moves == 1 for p in players)
        record = await stored_record(http, c, code)  # the history, the same from any node
        assert untimed(record) == reference(record)
        status = (await http.get(f"{b.url}/api/cluster")).json()
        assert status["mode"] == "cluster"
        assert sorted(n["node"] for n in status["nodes"] if n["state"] == "live") == ["a", "b", "c"]
        # --node-ttl 10: each node says so (and beats at the default 0.5 s)
        assert {(n["ttl_ms"], n["interval_ms"]) for n in status["nodes"]} == {(10_000, 500)}


async def test_kill_9_of_the_owner_mid_race_resumes_on_another_node(
    nodes: list[NodeProc],
) -> None:
    a, b, c = nodes
    async with nodes_http() as http:
        code, players = await start_game(nodes, http)
        with players_running(players):
            await asyncio.wait_for(players[1].race_seen.wait(), 30)  # a jack is up: race open
            a.signal(signal.SIGKILL)
            killed = time.monotonic()
            gen = [p.generation for p in players]
            while not all(p.generation > g for p, g in zip(players, gen, strict=True)):
                assert time.monotonic() - killed < 5.0, "play did not resume within 5 s"
                await asyncio.sleep(0.02)
            resumed = time.monotonic() - killed
            await until_over(players)
        new = {p.welcomes[-1] for p in players}
        assert len(new) == 1 and new != {a.url}, new  # every seat back, on one new owner
        record = await stored_record(http, b, code)
        assert untimed(record) == reference(record)  # identical apart from timing
        final = replay(record)  # checks the 52-card invariant after every action
        assert final.game.over
        final.game.check_invariant()
        status = (await http.get(f"{c.url}/api/cluster")).json()
        assert status["takeovers"] and status["takeovers"][0]["code"] == code
        print(f"resumed {resumed:.2f} s after kill -9")


async def test_a_stopped_owner_is_fenced_off_and_gives_the_room_up(
    nodes: list[NodeProc],
) -> None:
    a, b, _c = nodes
    async with nodes_http() as http:
        code, players = await start_game(nodes, http)
        with players_running(players):
            await asyncio.wait_for(players[1].race_seen.wait(), 30)
            a.signal(signal.SIGSTOP)
            taken = None
            for _ in range(200):  # another node claims the room
                status = (await http.get(f"{b.url}/api/cluster")).json()
                if status["takeovers"]:
                    taken = status["takeovers"][0]
                    break
                await asyncio.sleep(0.05)
            assert taken is not None and taken["code"] == code and taken["previous_owner"] == "a"
            a.signal(signal.SIGCONT)
            await until_over(players)
        # node a woke up, found the room taken and gave it up: it forwards to the new owner
        for _ in range(100):
            log = a.log.read_text()
            if "lost rooms" in log or "fenced off" in log:
                break
            await asyncio.sleep(0.05)
        assert "lost rooms" in log or "fenced off" in log, log[-2000:]
        r = await http.get(f"{a.url}/api/rooms/{code}")
        assert r.status_code in (200, 404), r.text
        record = await stored_record(http, a, code)
        assert untimed(record) == reference(record)


async def test_sigterm_drains_the_node_and_the_game_goes_on_elsewhere(
    nodes: list[NodeProc],
) -> None:
    a, b, c = nodes
    async with nodes_http() as http:
        code, players = await start_game(nodes, http)
        with players_running(players):
            await asyncio.wait_for(players[1].race_seen.wait(), 30)
            a.signal(signal.SIGTERM)
            assert a.proc is not None
            await asyncio.to_thread(a.proc.wait, 20)  # it exits once its rooms are handed over
            await until_over(players)
        assert {p.welcomes[-1] for p in players} <= {b.url, c.url}
        log = a.log.read_text()
        assert "drains" in log and f"room {code} handed to node" in log, log[-2000:]
        record = await stored_record(http, b, code)
        assert untimed(record) == reference(record)


async def test_kill_9_of_the_owner_of_a_waiting_room_keeps_the_room_and_its_seat(
    nodes: list[NodeProc],
) -> None:
    """A room that still waits for its players is stored as its owner's from
    the start: killed before its game, another node takes it over with the
    seat already taken; its token plays there, a second player joins."""
    a, b, c = nodes
    async with nodes_http() as http:
        code = await room_on(a, http, seed=4)
        anna = await seat_through(b, http, code, "Anna")
        a.signal(signal.SIGKILL)
        taken = None
        for _ in range(200):
            status = (await http.get(f"{b.url}/api/cluster")).json()
            if status["takeovers"]:
                taken = status["takeovers"][0]
                break
            await asyncio.sleep(0.05)
        assert taken is not None and taken["code"] == code and taken["previous_owner"] == "a"
        for _ in range(100):  # the new owner runs it (the others forward to it)
            r = await http.get(f"{c.url}/api/rooms/{code}")
            if r.status_code == 200:
                break
            await asyncio.sleep(0.05)
        assert r.status_code == 200, r.text
        info = r.json()
        assert info["status"] == "waiting" and info["free_seats"] == 1
        assert [s["name"] for s in info["seats"]] == ["Anna", None]
        ben = await seat_through(c, http, code, "Ben")
        assert ben["seat"] == 1 and ben["ws"] != f"ws://127.0.0.1:{a.port}/ws/{code}"
        players = [
            Player(0, anna["token"], Target(b.url, code)),
            Player(1, ben["token"], Target(c.url, code)),
        ]
        with players_running(players):
            await until_over(players)
        assert all(p.welcomes[-1] != a.url for p in players)
        record = await stored_record(http, b, code)
        assert record.players == ("Anna", "Ben")
        assert untimed(record) == reference(record)
