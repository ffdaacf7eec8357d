"""Soak test of the game server (issue 11, item 6).

Starts ``slapjack serve`` as a subprocess on a loopback port (SQLite in write-ahead
mode in a temp data directory, test hooks on, rate limits on) and, in this
process, runs ``--players`` real WebSocket clients (written from
``docs/protocol.md``) in 4-seat rooms for ``--seconds``:

- rooms open (``POST /api/test/rooms``: short timers, a short idle close, a
  Slapjack time limit so every game ends), their seats join over HTTP (each
  room from its own loopback address, so the per-address limits stay on), the
  players play (flip when on turn, slap Jacks after a human-ish reaction),
  rematch 0-2 times, leave, and the room closes by itself (its idle timer);
  then the slot opens a new room;
- players drop their sockets now and then and come back with their seat token;
- the server is killed with ``kill -9`` ``--restarts`` times (in the first half
  of the run) and started again on the same port and data directory; every
  client reconnects with its token;
- hostile clients mix in (``--hostile-every``): malformed JSON, wrong types,
  unknown types, frames above 4 KiB and above 64 KiB, binary frames, invalid
  UTF-8, deep nesting, floods, bad tokens, unknown rooms, frames before hello,
  half-open sockets, bad HTTP bodies; each must get its typed error or close.

Checked all along: every view holds the 52 cards (stacks + centre), no seat
ever sees its game go back (game number, flips) after a restart, no ``seq``
gap, no unexpected close or error code, the server never dies by itself and
logs no traceback. Sampled every ``--sample-every`` seconds: the server's RSS
and file descriptors (``/proc``), its event-loop tasks, gc objects, rooms and
connections (``/api/metrics?objects=true``). At the end the players leave,
every room must close, tasks and descriptors must be back at the fresh
server's figures, and every finished game a player saw must be listed by
``/api/games``, replay with the 52 cards after every action
(``slapjack.core.replay(check=True)``) to the winners the players saw, and
replay through ``/api/games/{id}/replay``.

Prints the curve and the figures; ``problems`` lists anything that went wrong
(empty on a good run). Loopback only, bounded in time, stops by itself.

    .venv/bin/python bench/soak.py --players 200 --seconds 1800 --restarts 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from slapjack.core import replay
from slapjack.core.record import Record

SEATS = 4
TIMING = {
    "start_delay_ms": 300.0,
    "jack_timeout_ms": 1000.0,
    "irish_timeout_ms": 1000.0,
    "deadlock_ms": 300.0,
    "grace_ms": 2000.0,
    "call_grace_ms": 200.0,
    "idle_close_ms": 8000.0,
    "turn_ms": 2500.0,
    "bot_pace": 0.3,
}
"""The soak rooms' timers: quick games; a room nobody is connected to closes after 8 s."""
PLAYER_ERRORS = {
    "stale_flip",
    "not_your_turn",
    "not_settled",
    "game_over",
    "player_out",
    "not_started",
}
"""Error codes a player may get in a fair game (races with timers and covering
bots; ``not_started``: a flip or slap during the countdown of a game rebuilt
after a restart)."""
RESTART_CLOSES = {1006, 1011, 1012}
"""How a socket may end when its server is killed."""


@dataclass
class Config:
    players: int = 200
    seconds: float = 120.0
    restarts: int = 1
    restart_window: float = 0.5
    """The restarts come evenly spread over this share of the run (0.5: the first half)."""
    hostile_every: float = 0.5
    sample_every: float = 30.0
    drop_chance: float = 0.1
    """Per player and game: the chance that the player drops its socket once and comes back."""
    time_limit: tuple[int, int] = (12, 30)
    """Each game ends by time within this many seconds (or sooner)."""
    seed: int = 1
    drain_s: float = 40.0
    verify: bool = True


@dataclass
class Sample:
    t: float
    pid: int
    rss_mb: float
    fds: int
    tasks: int | None
    gc_objects: int | None
    """Objects the garbage collector tracks: the live ones and cyclic garbage
    not yet collected (it drops after a full collection)."""
    full_gcs: int | None
    """Full (generation 2) collections since the server started."""
    rooms: int | None
    connections: int | None
    players_connected: int
    games: int


@dataclass
class Stats:
    rooms_opened: int = 0
    rooms_closed: int = 0
    games_seen: int = 0
    updates: int = 0
    views_checked: int = 0
    reconnects: int = 0
    drops: int = 0
    restarts: int = 0
    lost_frames: int = 0
    lost_before_start: int = 0
    rematches: int = 0
    """Finished games that were a rematch (a room's second or third)."""
    closed_while_away: int = 0
    player_errors: Counter[str] = field(default_factory=Counter)
    hostile: dict[str, Counter[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    connected: int = 0

    def problem(self, text: str) -> None:
        if text in self.problems or len(self.problems) >= 200:
            return
        self.problems.append(text)
        print(f"  PROBLEM: {text}", file=sys.stderr)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def fd_targets(pid: int) -> list[str]:
    """What the process's descriptors point at (sockets and pipes by kind only)."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            out.append(target.split(":[")[0] if ":[" in target else target)
    return sorted(out)


class Server:
    """``slapjack serve`` on a fixed loopback port and data directory."""

    def __init__(self, data_dir: Path, log: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.log_path = log
        self.log = log.open("a")
        self.proc: subprocess.Popen[str] | None = None
        self.generation = 0
        """Counts starts: a socket that ends while it changes ended by a restart."""
        self.up = asyncio.Event()

    async def start(self) -> None:
        self.log.write(f"--- start {self.generation + 1}\n")
        self.log.flush()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "slapjack.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--data-dir",
                str(self.data_dir),
                "--referee",
                "arrival",
                "--log-level",
                "warning",
            ],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env={**os.environ, "SLAPJACK_TEST_HOOKS": "1"},
        )
        assert self.proc.stdout is not None
        line = await asyncio.to_thread(self.proc.stdout.readline)
        if f":{self.port}/" not in line:
            raise RuntimeError(f"slapjack serve said {line!r}; see {self.log_path}")
        deadline = time.monotonic() + 30
        async with httpx.AsyncClient(base_url=self.url, timeout=2) as http:
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/api/rooms")).status_code == 200:
                        break
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"slapjack serve did not come up; see {self.log_path}")
                await asyncio.sleep(0.05)
        self.generation += 1
        self.up.set()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill9(self) -> None:
        assert self.proc is not None
        self.up.clear()
        self.generation += 1
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()


def room_address(n: int) -> str:
    """Room ``n``'s loopback source address (127.0.1.2, 127.0.1.3, …)."""
    return f"127.0.{n // 250 % 250 + 1}.{n % 250 + 2}"


@dataclass
class RoomRun:
    code: str
    address: str
    games: int
    """Games to play before the players leave (1 + rematches)."""
    finished: dict[int, int] = field(default_factory=dict)
    """game_no -> game_id, as the players saw it."""
    winners: dict[int, list[int]] = field(default_factory=dict)
    """game_id -> the winners a player saw."""
    generation: int = 0
    """The server's generation when the room was made."""
    started: bool = False
    """A player has seen the game (a view)."""
    lost: bool = False
    """Gone in a restart before its game started (see :meth:`Soak.lost_before_start`)."""
    connected: int = 0
    """The room's players with an open socket."""
    empty_since: float | None = None
    """When the last of them lost its socket (monotonic), while none has one."""
    closed_away: bool = False
    """Closed by its idle timer while none of its players had a socket."""
    hostile: int = 0
    """Hostile clients on the room now."""
    hostile_left: float = 0.0
    """When the last hostile client left it (monotonic)."""


class Player:
    """One seat's client: plays, rematches, drops and comes back, leaves."""

    def __init__(self, soak: Soak, room: RoomRun, seat: int, token: str, rng: random.Random):
        self.soak = soak
        self.room = room
        self.seat = seat
        self.token = token
        self.rng = rng
        self.last = (0, -1)
        """(game_no, flips) of the latest view: it may never go back."""
        self.leaving = False
        self.left = asyncio.Event()
        self.ws: Any = None
        self.sent: set[tuple[str, int, int]] = set()
        self.seq = 0
        self.drop_in_game: int | None = None
        self.bound = False
        """The server has welcomed this socket (it counts in the room's ``connected``)."""
        self.last_room: tuple[str, int, int | None] | None = None
        """(status, game_no, game_id) of the latest update."""
        self.tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def send(self, message: dict[str, Any]) -> None:
        ws = self.ws
        if ws is None:
            return
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(json.dumps({"v": 1, "token": self.token, **message}))

    async def run(self) -> None:
        stats, server = self.soak.stats, self.soak.server
        backoff = 0.05
        first = True  # a room made just before the stop still sees its players once
        try:
            while first or not (self.leaving or self.soak.stopping):
                first = False
                await server.up.wait()
                generation = server.generation
                try:
                    ws = await websockets.connect(
                        f"{server.ws_url}/ws/{self.room.code}",
                        local_addr=(self.room.address, 0),
                        max_size=2**20,
                        ping_interval=None,
                        open_timeout=10,
                    )
                except (OSError, websockets.InvalidHandshake, TimeoutError):
                    await asyncio.sleep(backoff)
                    backoff = min(0.5, backoff * 2)
                    continue
                backoff = 0.05
                dropped = await self.session(ws)
                if self.leaving or self.soak.stopping:
                    break
                code = ws.close_code
                if dropped:
                    await asyncio.sleep(self.rng.uniform(0.1, 2.0))
                elif code == 4004 and (
                    self.soak.lost_before_start(self.room) or self.soak.closed_while_away(self.room)
                ):
                    break
                elif code in (4001, 4004, 1008):
                    stats.problem(
                        f"room {self.room.code} seat {self.seat}: closed {code} {ws.close_reason!r}"
                    )
                    break
                elif server.generation == generation and code not in (None, 1000):
                    stats.problem(
                        f"room {self.room.code} seat {self.seat}: closed {code} without a restart"
                    )
                stats.reconnects += 1
        finally:
            for task in list(self.tasks):
                task.cancel()
            self.left.set()

    async def session(self, ws: Any) -> bool:
        """One socket's life; True when this player dropped it on purpose."""
        stats = self.soak.stats
        self.ws = ws
        self.seq = 0
        self.sent.clear()
        stats.connected += 1
        run = self.room
        self.bound = False
        dropped = False
        try:
            await ws.send(json.dumps({"v": 1, "type": "hello", "token": self.token, "id": "h"}))
            async for text in ws:
                action = self.on_frame(json.loads(text))
                if action == "leave":
                    self.leaving = True
                    await ws.close()
                    break
                if action == "drop":
                    dropped = True
                    stats.drops += 1
                    ws.transport.abort()
                    break
        except websockets.ConnectionClosed:
            pass
        finally:
            stats.connected -= 1
            if self.bound:  # the server had it as the seat's socket
                run.connected -= 1
                if run.connected == 0:
                    run.empty_since = time.monotonic()
            self.ws = None
            if dropped or self.leaving:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 2)
        return dropped

    def on_frame(self, frame: dict[str, Any]) -> str | None:
        stats = self.soak.stats
        kind = frame["type"]
        code = self.room.code
        if kind == "ping":
            self.spawn(self.pong(frame["id"]))
            return None
        if kind == "welcome":
            if frame["seat"] != self.seat:
                stats.problem(f"room {code}: seat {self.seat} welcomed as {frame['seat']}")
            if not self.bound:
                self.bound = True
                self.room.connected += 1
                self.room.empty_since = None
            return None
        if kind == "error":
            stats.player_errors[frame["code"]] += 1
            if frame["code"] == "room_closed":
                return None  # the close (4004) follows: Player.run judges it
            if frame["code"] not in PLAYER_ERRORS:
                stats.problem(f"room {code} seat {self.seat}: error {frame}")
            return None
        if kind != "update":
            stats.problem(f"room {code}: unknown frame {frame}")
            return None
        stats.updates += 1
        if self.soak.stopping:
            return "leave"
        if frame["seq"] != self.seq + 1:
            stats.lost_frames += abs(frame["seq"] - self.seq - 1)
            stats.problem(f"room {code} seat {self.seat}: seq {frame['seq']} after {self.seq}")
        self.seq = frame["seq"]
        view, room = frame["view"], frame["room"]
        self.last_room = (room["status"], room["game_no"], room["game_id"])
        if view is None:
            return None
        stats.views_checked += 1
        self.room.started = True
        cards = sum(view["stacks"]) + view["centre_size"]
        if cards != 52:
            stats.problem(f"room {code} seat {self.seat}: {cards} cards in {view}")
        game_no = room["game_no"]
        now = (game_no, view["flips"])
        if now < self.last:
            stats.problem(f"room {code} seat {self.seat}: went back from {self.last} to {now}")
        self.last = now
        if view["over"]:
            return self.game_over(view, room)
        if self.drop_in_game == game_no and view["flips"] > 8:
            self.drop_in_game = None
            return "drop"
        me = self.seat
        if view["out"][me]:
            return None
        if view["turn"] == me and not view["race_open"]:
            key = ("flip", game_no, view["flips"])
            if key not in self.sent:
                self.sent.add(key)
                self.spawn(self.later(self.rng.uniform(0.05, 0.3), "flip", view["flip_id"]))
        if view["race_open"] and me not in view["slapped"]:
            key = ("slap", game_no, view["flips"])
            if key not in self.sent:
                self.sent.add(key)
                if self.rng.random() < 0.9:
                    reaction = max(120.0, self.rng.gauss(280.0, 60.0))
                    self.spawn(self.later(reaction / 1000.0, "slap", view["flip_id"], reaction))
        return None

    def game_over(self, view: dict[str, Any], room: dict[str, Any]) -> str | None:
        game_no, game_id = room["game_no"], room["game_id"]
        run = self.room
        if game_id is not None:
            known = run.finished.get(game_no)
            if known is None:
                run.finished[game_no] = game_id
                run.winners[game_id] = list(view["winners"])
                self.soak.stats.games_seen += 1
                self.soak.stats.rematches += game_no > 1
            elif known != game_id:
                self.soak.stats.problem(f"room {run.code}: game {game_no} is {known} and {game_id}")
        else:
            return None  # the finished game is being stored: its id comes in the next update
        if game_no >= run.games or self.soak.stopping:
            return "leave"
        if self.seat not in room["rematch"] and ("rematch", game_no, 0) not in self.sent:
            self.sent.add(("rematch", game_no, 0))
            if self.rng.random() < self.soak.config.drop_chance:
                self.drop_in_game = game_no + 1
            self.spawn(self.send({"type": "rematch"}))
        return None

    async def pong(self, ping_id: int) -> None:
        ws = self.ws
        if ws is not None:
            with contextlib.suppress(websockets.ConnectionClosed):
                msg = {"v": 1, "type": "pong", "id": ping_id, "client_time": time.monotonic()}
                await ws.send(json.dumps(msg))

    async def later(self, delay: float, kind: str, flip_id: int, reaction: float = 0.0) -> None:
        await asyncio.sleep(delay)
        if kind == "flip":
            await self.send({"type": "flip", "flip_id": flip_id})
        else:
            await self.send(
                {
                    "type": "slap",
                    "flip_id": flip_id,
                    "reaction_ms": round(reaction, 1),
                    "shown_at": 1000.0,
                    "input_at": 1000.0 + round(reaction, 1),
                    "call": False,
                }
            )


# ---------------------------------------------------------------- hostile


HOSTILE = (
    "bad_json",
    "wrong_type",
    "unknown_type",
    "too_large",
    "oversized",
    "binary",
    "bad_utf8",
    "deep_json",
    "flood",
    "bad_token",
    "no_room",
    "before_hello",
    "half_open",
    "http_bad_json",
    "http_wrong_type",
)


HOSTILE_WAIT_S = 15.0
"""How long a hostile client waits for its answer (a loaded machine is slow)."""


class Skipped(Exception):
    """The server was down or restarted during the attempt."""


class Hostile:
    """One hostile socket and the frames it has read."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.token = secrets.token_hex(8)
        """A token of no seat, its own (the server limits frames per token, seat or not)."""

    async def send(self, data: str | bytes, *, text: bool | None = None) -> None:
        await self.ws.send(data, text=text)

    async def read_until(self, pred: Any, timeout: float = HOSTILE_WAIT_S) -> bool:
        """Read frames until ``pred()``; False if the socket closed or time ran out first."""
        try:
            async with asyncio.timeout(timeout):
                while not pred():
                    self.frames.append(json.loads(await self.ws.recv()))
        except (websockets.ConnectionClosed, TimeoutError):
            return bool(pred())
        return True

    async def wait_closed(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
            async with asyncio.timeout(HOSTILE_WAIT_S):
                while True:
                    self.frames.append(json.loads(await self.ws.recv()))

    def errors(self) -> list[str]:
        return [f["code"] for f in self.frames if f["type"] == "error"]

    def closed_with(self, close: int) -> str | None:
        code = self.ws.close_code
        return None if code == close else f"closed {code}, wanted {close}"


async def hostile_ws(soak: Soak, kind: str, code: str, address: str) -> str | None:
    """One hostile socket; returns what went wrong (None: the typed answer came)."""
    path = "ZZZZZZ" if kind == "no_room" else code
    run = soak.rooms.get(code)
    if run is not None:
        run.hostile += 1  # a spectator keeps a room open: see Soak.wait_closed
    try:
        return await hostile_socket(soak, kind, path, address)
    finally:
        if run is not None:
            run.hostile -= 1
            run.hostile_left = time.monotonic()


async def hostile_socket(soak: Soak, kind: str, path: str, address: str) -> str | None:
    try:
        ws = await websockets.connect(
            f"{soak.server.ws_url}/ws/{path}",
            local_addr=(address, 0),
            max_size=2**20,
            ping_interval=None,
            open_timeout=5,
        )
    except (OSError, websockets.InvalidHandshake, TimeoutError) as exc:
        raise Skipped from exc
    h = Hostile(ws)
    try:
        wrong = await hostile_frames(kind, h)
        if wrong is not None and kind != "no_room" and "room_closed" in h.errors():
            raise Skipped  # the room closed meanwhile
        return wrong
    except websockets.ConnectionClosed as exc:
        if exc.rcvd is not None and exc.rcvd.code == 4004:
            raise Skipped from exc  # the room closed meanwhile
        return f"{kind}: closed {ws.close_code} {ws.close_reason!r} too early"
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 2)


async def hostile_frames(kind: str, h: Hostile) -> str | None:
    """Send ``kind``'s frames; None when the typed error or close came."""
    if kind == "no_room":
        await h.wait_closed()
        return h.closed_with(4004) if "room_closed" in h.errors() else f"errors {h.errors()}"
    if kind == "bad_token":
        await h.send(json.dumps({"v": 1, "type": "hello", "token": "no-such-token"}))
        await h.wait_closed()
        return h.closed_with(4001) if "bad_token" in h.errors() else f"errors {h.errors()}"
    if kind == "half_open":
        await asyncio.sleep(0.5)
        h.ws.transport.abort()
        return None
    if kind == "before_hello":
        await h.send(json.dumps({"v": 1, "type": "flip", "token": h.token, "flip_id": 0}))
        ok = await h.read_until(lambda: "bad_message" in h.errors())
        return None if ok else f"errors {h.errors()}"
    await h.send(json.dumps({"v": 1, "type": "hello", "token": None}))
    if not await h.read_until(lambda: any(f["type"] == "update" for f in h.frames)):
        raise Skipped
    if kind == "oversized":
        await h.send("x" * 70_000)
        await h.wait_closed()
        return h.closed_with(1009)
    if kind == "bad_utf8":
        await h.send(b'{"v": 1, "type": "flip", "x": "\xff\xfe"}', text=True)
        await h.wait_closed()
        return h.closed_with(1007)
    if kind == "flood":
        with contextlib.suppress(websockets.ConnectionClosed):
            for i in range(80):
                await h.send(json.dumps({"v": 1, "type": "call", "token": h.token, "flip_id": i}))
        await h.wait_closed()
        return h.closed_with(1008) if "rate_limited" in h.errors() else f"errors {h.errors()}"
    sent: str | bytes
    want = "bad_message"
    if kind == "bad_json":
        sent, want = '{"v": 1, "type": "flip", ', "bad_json"
    elif kind == "wrong_type":
        sent = json.dumps({"v": 1, "type": "slap", "token": h.token, "flip_id": "1"})
    elif kind == "unknown_type":
        sent = json.dumps({"v": 1, "type": "explode"})
    elif kind == "too_large":
        sent, want = json.dumps({"v": 1, "type": "hello", "lang": "x" * 5000}), "too_large"
    elif kind == "binary":
        sent = b"\x00\x01binary"
    elif kind == "deep_json":
        sent, want = "[" * 2000 + "]" * 2000, "bad_json"
    else:
        raise AssertionError(kind)
    await h.send(sent)
    if not await h.read_until(lambda: want in h.errors()):
        return f"sent {kind}, got errors {h.errors()} close {h.ws.close_code}"
    # the socket stays, and still answers
    await h.send(json.dumps({"v": 1, "type": "flip", "token": h.token, "flip_id": 0, "id": 7}))
    if not await h.read_until(lambda: len(h.errors()) >= 2):
        return f"no answer after {kind} (close {h.ws.close_code})"
    return None


async def hostile_http(soak: Soak, kind: str, address: str) -> str | None:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    try:
        async with httpx.AsyncClient(
            base_url=soak.server.url, transport=transport, timeout=5
        ) as http:
            if kind == "http_bad_json":
                r = await http.post(
                    "/api/rooms",
                    content=b'{"seats": 4,',
                    headers={"content-type": "application/json"},
                )
                want = (400, "bad_json")
            else:
                r = await http.post("/api/rooms", json={"seats": "4"})
                want = (422, "bad_request")
    except httpx.HTTPError as exc:
        raise Skipped from exc
    got = (
        r.status_code,
        r.json().get("code")
        if r.headers.get("content-type", "").startswith("application/json")
        else r.text[:80],
    )
    return None if got == want else f"got {got}, wanted {want}"


# ---------------------------------------------------------------- the soak


class Soak:
    def __init__(self, config: Config, workdir: Path) -> None:
        self.config = config
        self.workdir = workdir
        self.server = Server(workdir / "data", workdir / "serve.log")
        self.stats = Stats()
        self.samples: list[Sample] = []
        self.rooms: dict[str, RoomRun] = {}
        self.done_rooms: list[RoomRun] = []
        self.stopping = False
        self.rng = random.Random(config.seed)
        self.room_counter = 0
        self.t0 = 0.0
        self.baseline: dict[str, Any] = {}
        self.baseline_fds: list[str] = []
        self.final_fds_more: dict[str, int] = {}
        self.last_fds: list[str] = []
        """What the server's descriptors pointed at in the latest sample."""
        self.players: set[Player] = set()
        self.closing: set[asyncio.Task[Any]] = set()
        self.final: dict[str, Any] = {}
        self.restart_times: list[float] = []

    # ----------------------------------------------------------- helpers

    async def metrics(self) -> dict[str, Any] | None:
        try:
            async with httpx.AsyncClient(base_url=self.server.url, timeout=10) as http:
                r = await http.get("/api/metrics", params={"objects": True})
                data: dict[str, Any] = r.json()
                return data
        except (httpx.HTTPError, ValueError):
            return None

    async def sample(self) -> Sample | None:
        if not self.server.up.is_set():
            return None
        pid = self.server.pid
        try:  # before the metrics request: its own socket is not counted
            rss, fds, targets = rss_mb(pid), fd_count(pid), fd_targets(pid)
        except OSError:
            return None
        self.last_fds = targets
        m = await self.metrics() or {}
        s = Sample(
            t=round(time.monotonic() - self.t0, 1),
            pid=pid,
            rss_mb=round(rss, 1),
            fds=fds,
            tasks=m.get("tasks"),
            gc_objects=m.get("gc_objects"),
            full_gcs=(m.get("gc2_ms") or {}).get("n"),
            rooms=m.get("rooms"),
            connections=m.get("connections"),
            players_connected=self.stats.connected,
            games=self.stats.games_seen,
        )
        self.samples.append(s)
        print(
            f"  t={s.t:7.1f}s pid={s.pid} rss={s.rss_mb:6.1f} MB fds={s.fds:4d} "
            f"tasks={s.tasks} objects={s.gc_objects} full_gcs={s.full_gcs} rooms={s.rooms} "
            f"connections={s.connections} games={s.games}",
            file=sys.stderr,
        )
        return s

    def spawn_close(self, ws: Any) -> None:
        task = asyncio.get_running_loop().create_task(ws.close())
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    # ----------------------------------------------------------- rooms

    def lost_before_start(self, run: RoomRun) -> bool:
        """A room still waiting for its game is stored (docs/protocol.md,
        Persistence): a restart before the start must not lose it or its seats.
        True (and counted: the soak's tests want none) when it did to ``run``."""
        if run.started or self.server.generation == run.generation:
            return False
        if not run.lost:
            run.lost = True
            self.stats.lost_before_start += 1
            print(f"  room {run.code} lost in a restart before its game started", file=sys.stderr)
        return True

    def closed_while_away(self, run: RoomRun) -> bool:
        """A room none of whose players has had a socket for its idle time closes
        (``idle_close_ms``): a player coming back late (a slow reconnect on a
        loaded machine) finds it closed. True (and counted) when that is so."""
        idle = TIMING["idle_close_ms"] / 1000.0
        since = run.empty_since
        if since is None or time.monotonic() - since < idle - 0.5:
            return False
        if not run.closed_away:
            run.closed_away = True
            self.stats.closed_while_away += 1
            print(f"  room {run.code} closed while all its players were away", file=sys.stderr)
        return True

    async def post(
        self, http: httpx.AsyncClient, path: str, body: dict[str, Any], run: RoomRun | None = None
    ) -> Any:
        """POST until the server answers (it may be restarting)."""
        for _ in range(200):
            await self.server.up.wait()
            try:
                r = await http.post(path, json=body)
            except httpx.HTTPError:
                await asyncio.sleep(0.2)
                continue
            if r.status_code == 404 and run is not None and self.lost_before_start(run):
                return None
            if r.status_code != 200:
                self.stats.problem(f"POST {path}: {r.status_code} {r.text[:200]}")
                return None
            return r.json()
        self.stats.problem(f"POST {path}: no answer")
        return None

    async def slot(self, number: int) -> None:
        """One table's worth of players: room after room until the end."""
        rng = random.Random(self.rng.random())
        while not self.stopping:
            await self.one_room(rng)

    async def one_room(self, rng: random.Random) -> None:
        cfg = self.config
        address = room_address(self.room_counter)
        self.room_counter += 1
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(
            base_url=self.server.url, transport=transport, timeout=10
        ) as http:
            body = {
                "create": {
                    "seats": SEATS,
                    "public": rng.random() < 0.5,
                    "time_limit": rng.randint(*cfg.time_limit),
                    "rules": {"preset": rng.choice(["classic", "classic", "klatsch-bube"])},
                },
                "timing": TIMING,
                "seed": rng.randrange(2**31),
            }
            generation = self.server.generation
            made = await self.post(http, "/api/test/rooms", body)
            if made is None:
                await asyncio.sleep(1)
                return
            run = RoomRun(made["code"], address, rng.randint(1, 3), generation=generation)
            self.stats.rooms_opened += 1
            tokens = []
            for s in range(SEATS):
                path = f"/api/rooms/{run.code}/join"
                joined = await self.post(http, path, {"name": f"P{s}"}, run)
                if joined is None:
                    return
                tokens.append(joined["token"])
        self.rooms[run.code] = run
        players = [
            Player(self, run, s, t, random.Random(rng.random())) for s, t in enumerate(tokens)
        ]
        for p in players:
            if rng.random() < cfg.drop_chance:
                p.drop_in_game = 1
        self.players.update(players)
        tasks = [asyncio.create_task(p.run()) for p in players]
        budget = run.games * (cfg.time_limit[1] + 25) + 60
        info: dict[str, Any] = {}
        done, pending = await asyncio.wait(tasks, timeout=budget)
        if pending:
            async with httpx.AsyncClient(base_url=self.server.url, timeout=5) as http:
                with contextlib.suppress(httpx.HTTPError, ValueError):
                    info = (await http.get(f"/api/rooms/{run.code}")).json()
            self.stats.problem(
                f"room {run.code}: players still in after {budget} s: "
                f"{[(p.last, p.last_room, p.ws is not None) for p in players]}; "
                f"the server says {info.get('status')} game {info.get('game_no')}"
            )
            for p in players:
                p.leaving = True
                if p.ws is not None:
                    await p.ws.close()
            await asyncio.wait(pending, timeout=10)
            for t in pending:
                t.cancel()
        for t in done:
            if t.exception() is not None:
                self.stats.problem(f"room {run.code}: player failed: {t.exception()!r}")
        self.players.difference_update(players)
        if run.lost:
            del self.rooms[run.code]
            return
        await self.wait_closed(run)

    async def wait_closed(self, run: RoomRun) -> None:
        """Nobody is connected: the room must close by itself (idle timer), at
        most 20 s after its idle time from when its last player and its last
        hostile client (a spectator) left."""
        limit = TIMING["idle_close_ms"] / 1000 + 20
        left = time.monotonic()
        info: Any = None
        async with httpx.AsyncClient(base_url=self.server.url, timeout=5) as http:
            while run.hostile or time.monotonic() - max(left, run.hostile_left) < limit:
                await self.server.up.wait()
                with contextlib.suppress(httpx.HTTPError, ValueError):
                    r = await http.get(f"/api/rooms/{run.code}")
                    if r.status_code == 404:
                        self.stats.rooms_closed += 1
                        del self.rooms[run.code]
                        self.done_rooms.append(run)
                        return
                    info = r.json()
                await asyncio.sleep(0.5)
        seats = [s["connected"] for s in info["seats"]] if info else None
        spectators = info["spectators"] if info else None
        self.stats.problem(
            f"room {run.code}: still open {limit:.0f} s after its players and hostile clients "
            f"left (status {info and info['status']}, connected {seats}, spectators {spectators})"
        )
        del self.rooms[run.code]
        self.done_rooms.append(run)

    # ----------------------------------------------------------- hostile

    async def hostile_loop(self) -> None:
        """A hostile client every ``hostile_every`` seconds (at most 8 at once),
        each kind in turn, each from its own loopback address."""
        gate = asyncio.Semaphore(8)
        running: set[asyncio.Task[None]] = set()
        n = 0
        try:
            while not self.stopping:
                await asyncio.sleep(self.config.hostile_every)
                kind = HOSTILE[n % len(HOSTILE)]
                address = f"127.255.{n // 250 % 250}.{n % 250 + 1}"
                n += 1
                # a room being played (a spectator keeps an empty room open)
                playing = [c for c, run in self.rooms.items() if run.connected]
                if not playing and kind != "no_room":
                    continue
                code = self.rng.choice(playing) if playing else "ZZZZZZ"
                await gate.acquire()
                task = asyncio.create_task(self.hostile_one(kind, code, address))
                running.add(task)
                task.add_done_callback(lambda t: (running.discard(t), gate.release()))
        finally:
            for task in running:
                task.cancel()

    async def hostile_one(self, kind: str, code: str, address: str) -> None:
        counts = self.stats.hostile.setdefault(kind, Counter())
        generation = self.server.generation
        try:
            if kind.startswith("http_"):
                wrong = await hostile_http(self, kind, address)
            else:
                wrong = await hostile_ws(self, kind, code, address)
        except Skipped:
            counts["skipped"] += 1
            return
        except Exception as exc:  # the driver's own failure: a problem, not a lost task
            wrong = f"failed: {exc!r}"
        if self.server.generation != generation or (code not in self.rooms and kind != "no_room"):
            counts["skipped"] += 1  # a restart or the room's close came in between
            return
        if wrong is None:
            counts["ok"] += 1
        else:
            counts["wrong"] += 1
            self.stats.problem(f"hostile {kind} on {code}: {wrong}")

    # ----------------------------------------------------------- restarts, samples

    async def restarts(self) -> None:
        cfg = self.config
        for i in range(cfg.restarts):
            # evenly in the first restart_window of the run: the last server lives
            # through the rest (its RSS curve is the one to judge)
            at = cfg.seconds * cfg.restart_window * (i + 1) / cfg.restarts
            await asyncio.sleep(max(0.0, at - self.elapsed()))
            if self.stopping:
                return
            await self.sample()
            self.check_alive()
            print(f"  kill -9 at t={self.elapsed():.1f}s", file=sys.stderr)
            self.server.kill9()
            self.restart_times.append(round(self.elapsed(), 1))
            await asyncio.sleep(0.3)
            await self.server.start()
            self.stats.restarts += 1
            print(f"  restarted at t={self.elapsed():.1f}s", file=sys.stderr)

    def check_alive(self) -> None:
        proc = self.server.proc
        if proc is not None and self.server.up.is_set() and proc.poll() is not None:
            self.stats.problem(f"the server died by itself (exit {proc.returncode})")

    async def sampler(self) -> None:
        while not self.stopping:
            await asyncio.sleep(self.config.sample_every)
            self.check_alive()
            if not self.stopping:
                await self.sample()

    # ----------------------------------------------------------- the end

    async def drain(self) -> None:
        """Everybody leaves: every room must close; then the fresh server's figures."""
        deadline = time.monotonic() + self.config.drain_s
        while time.monotonic() < deadline:
            m = await self.metrics()
            if m is not None and m.get("rooms") == 0 and m.get("connections") == 0:
                break
            await asyncio.sleep(0.5)
        await asyncio.sleep(1.0)  # closed sockets' tasks finish
        s = await self.sample()
        if s is None:
            self.stats.problem("no sample after the drain")
            return
        self.final = asdict(s)
        base = self.baseline
        if s.rooms != 0 or s.connections != 0:
            self.stats.problem(f"after the drain: {s.rooms} rooms, {s.connections} connections")
        if s.tasks is None or base.get("tasks") is None or s.tasks > base["tasks"]:
            self.stats.problem(
                f"tasks: {base.get('tasks')} at the start, {s.tasks} after the drain"
            )
        more = Counter(self.last_fds) - Counter(self.baseline_fds)
        db = str(self.server.data_dir / "slapjack.sqlite3")
        # the store's WAL checkpointer: one more connection, opened after its first
        # CHECKPOINT_EVERY commits (slapjack/store/sqlite.py)
        checkpointer = Counter({db: 1, f"{db}-wal": 1})
        self.final_fds_more = dict(more)
        if more - checkpointer:
            self.stats.problem(
                f"file descriptors: {base['fds']} at the start, {s.fds} after the drain: "
                f"more {dict(more)}"
            )

    async def verify_games(self) -> dict[str, Any]:
        """Every finished game a player saw: listed, replayable, the same winners."""
        runs = [*self.done_rooms, *self.rooms.values()]
        seen = {gid: (run.code, w) for run in runs for gid, w in run.winners.items()}
        listed: set[int] = set()
        replayed = mismatched = 0
        async with httpx.AsyncClient(base_url=self.server.url, timeout=30) as http:
            offset, total = 0, None
            while total is None or offset < total:
                page = (
                    await http.get("/api/games", params={"limit": 200, "offset": offset})
                ).json()
                total = page["total"]
                listed.update(int(g["id"]) for g in page["games"])
                if not page["games"]:
                    break
                offset += len(page["games"])
            missing = sorted(set(seen) - listed)
            for gid in missing:
                self.stats.problem(f"game {gid} (room {seen[gid][0]}) is not in /api/games")
            gate = asyncio.Semaphore(8)

            async def check(gid: int) -> None:
                nonlocal replayed, mismatched
                async with gate:
                    r = await http.get(f"/api/games/{gid}")
                    if r.status_code != 200:
                        self.stats.problem(f"GET /api/games/{gid}: {r.status_code}")
                        return
                    try:
                        result = replay(Record.from_json(r.content), check=True)
                    except Exception as exc:
                        self.stats.problem(f"game {gid} does not replay: {exc!r}")
                        return
                    if sorted(result.game.winners) != sorted(seen[gid][1]):
                        mismatched += 1
                        self.stats.problem(
                            f"game {gid}: replay's winners {result.game.winners}, seen {seen[gid][1]}"
                        )
                    steps = await http.get(f"/api/games/{gid}/replay")
                    if steps.status_code != 200 or not steps.json()["steps"]:
                        self.stats.problem(f"/api/games/{gid}/replay: {steps.status_code}")
                        return
                    replayed += 1

            await asyncio.gather(*(check(gid) for gid in sorted(seen)))
        return {
            "games_seen": len(seen),
            "games_listed": len(listed),
            "missing": len(missing),
            "replayed": replayed,
            "winner_mismatches": mismatched,
        }

    def log_findings(self) -> dict[str, int]:
        text = self.server.log_path.read_text(errors="replace")
        lines = text.splitlines()
        tracebacks = sum("Traceback" in line for line in lines)
        errors = [ln for ln in lines if ln.startswith("ERROR") or " ERROR " in ln]
        warnings = sum(ln.startswith("WARNING") or " WARNING " in ln for ln in lines)
        if tracebacks or errors:
            first = next((ln for ln in lines if "Traceback" in ln or ln in errors), "")
            self.stats.problem(
                f"server log: {tracebacks} tracebacks, {len(errors)} errors: {first}"
            )
        return {"tracebacks": tracebacks, "errors": len(errors), "warnings": warnings}

    async def run(self) -> dict[str, Any]:
        cfg = self.config
        await self.server.start()
        self.t0 = time.monotonic()
        first = await self.sample()
        assert first is not None
        self.baseline = asdict(first)
        self.baseline_fds = self.last_fds
        slots = max(1, cfg.players // SEATS)
        workers = [asyncio.create_task(self.slot(i)) for i in range(slots)]
        side = [asyncio.create_task(self.hostile_loop()), asyncio.create_task(self.sampler())]
        restarts = asyncio.create_task(self.restarts())
        try:
            await asyncio.sleep(cfg.seconds)
            self.stopping = True
            print(f"  stopping at t={self.elapsed():.1f}s", file=sys.stderr)
            for player in list(self.players):  # everybody leaves now
                player.leaving = True
                if player.ws is not None:
                    self.spawn_close(player.ws)
            for task in side:
                task.cancel()
            await asyncio.gather(*side, return_exceptions=True)
            await restarts  # one under way finishes (it starts no other after the stop)
            _, pending = await asyncio.wait(workers, timeout=cfg.drain_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            for task in workers:
                if not task.cancelled() and task.exception() is not None:
                    self.stats.problem(f"a room slot failed: {task.exception()!r}")
            await self.drain()
            games = await self.verify_games() if cfg.verify else {}
        finally:
            self.stopping = True
            for task in [*workers]:
                task.cancel()
            self.check_alive()
            self.server.stop()
        log = self.log_findings()
        return self.result(games, log)

    def result(self, games: dict[str, Any], log: dict[str, int]) -> dict[str, Any]:
        st = self.stats
        last_pid = self.samples[-1].pid if self.samples else None
        loaded = [s for s in self.samples if s.pid == last_pid and s.connections]
        slope = rss_slope(loaded)
        return {
            "config": asdict(self.config),
            "seconds": round(self.elapsed(), 1),
            "rooms_opened": st.rooms_opened,
            "rooms_closed": st.rooms_closed,
            "games_finished": st.games_seen,
            "rematches_finished": st.rematches,
            "updates": st.updates,
            "views_checked": st.views_checked,
            "drops": st.drops,
            "reconnects": st.reconnects,
            "restarts": st.restarts,
            "restart_times": self.restart_times,
            "lost_frames": st.lost_frames,
            "rooms_lost_before_start": st.lost_before_start,
            "rooms_closed_while_away": st.closed_while_away,
            "player_errors": dict(st.player_errors),
            "hostile": {k: dict(v) for k, v in st.hostile.items()},
            "hostile_ok": sum(v["ok"] for v in st.hostile.values()),
            "games": games,
            "log": log,
            "baseline": self.baseline,
            "final": self.final,
            "final_fds_beyond_baseline": self.final_fds_more,
            "rss_mb_first_last_peak": rss_summary(self.samples),
            "rss_slope_mb_per_min_last_process": slope,
            "samples": [asdict(s) for s in self.samples],
            "problems": st.problems,
        }


def rss_slope(samples: list[Sample]) -> float | None:
    """Least-squares slope of RSS (MB a minute) over the samples after the first third."""
    points = samples[len(samples) // 3 :]
    if len(points) < 3:
        return None
    xs = [s.t / 60 for s in points]
    ys = [s.rss_mb for s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return (
        round(sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den, 3)
        if den
        else None
    )


def rss_summary(samples: list[Sample]) -> list[float]:
    if not samples:
        return []
    return [samples[0].rss_mb, samples[-1].rss_mb, max(s.rss_mb for s in samples)]


async def soak(config: Config, workdir: Path | None = None) -> dict[str, Any]:
    """Run one soak; ``workdir`` keeps the data and the server log (default: a temp dir, removed)."""
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="slapjack-soak-")) if workdir is None else workdir
    try:
        return await Soak(config, work).run()
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def run_soak(config: Config, workdir: Path | None = None) -> dict[str, Any]:
    """:func:`soak` in its own event loop (the tests call this)."""
    return asyncio.run(soak(config, workdir))


def print_result(result: dict[str, Any]) -> None:
    print("    t (s)    pid   RSS MB   fds  tasks  gc objects  full gcs  rooms  conns  games")
    for s in result["samples"]:
        print(
            f"  {s['t']:7.1f} {s['pid']:6d} {s['rss_mb']:8.1f} {s['fds']:5d} {s['tasks']!s:>6} "
            f"{s['gc_objects']!s:>11} {s['full_gcs']!s:>9} {s['rooms']!s:>6} "
            f"{s['connections']!s:>6} {s['games']:6d}"
        )
    for key, value in result.items():
        if key not in ("samples", "config"):
            print(f"{key:>34}: {value}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=200, help="WebSocket players (4 a room)")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long to play")
    parser.add_argument("--restarts", type=int, default=1, help="kill -9 and restarts")
    parser.add_argument(
        "--restart-window",
        type=float,
        default=0.5,
        help="the restarts come evenly in this share of the run (default: the first half)",
    )
    parser.add_argument(
        "--hostile-every", type=float, default=0.5, help="seconds between hostile clients"
    )
    parser.add_argument("--sample-every", type=float, default=30.0, help="seconds between samples")
    parser.add_argument(
        "--drop-chance",
        type=float,
        default=Config.drop_chance,
        help="per player and game: the chance of dropping the socket once and coming back",
    )
    parser.add_argument(
        "--time-limit",
        default="{},{}".format(*Config.time_limit),
        metavar="MIN,MAX",
        help="each game ends by time within MIN..MAX seconds",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="keep the data and log here")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    if args.players < SEATS:
        parser.error("--players must be at least 4")
    try:
        low, high = (int(x) for x in args.time_limit.split(","))
    except ValueError:
        parser.error(f"--time-limit is MIN,MAX in whole seconds, got {args.time_limit!r}")
    if not 1 <= low <= high:
        parser.error(f"--time-limit needs 1 <= MIN <= MAX, got {args.time_limit!r}")
    config = Config(
        players=args.players,
        seconds=args.seconds,
        restarts=args.restarts,
        restart_window=args.restart_window,
        hostile_every=args.hostile_every,
        sample_every=args.sample_every,
        drop_chance=args.drop_chance,
        time_limit=(low, high),
        seed=args.seed,
    )
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    result = run_soak(config, args.keep)
    if args.json:
        print(json.dumps({**result, "hostile_kinds": list(HOSTILE)}))
    else:
        print_result(result)
    sys.exit(1 if result["problems"] else 0)


if __name__ == "__main__":
    main()
