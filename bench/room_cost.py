"""What the rooms cost the server per player-second, without the sockets.

The room side of ``bench/load.py`` in one process: ``--players`` players in
rooms of four, each room a real :class:`~slapjack.server.room.Room` with its
task (the fair referee, write-ahead SQLite in a temporary directory, seat
tokens), the server's pinger (a ping a second per socket), and clients that
play at the load's human pace: the seat on turn flips 0.8-1.2 s after its
turn comes, every seat slaps each Jack after a reaction of N(300, 60) ms
(stamped, on a client clock that is the server's), every ping is answered by
a pong 1 ms later (loopback), finished games are rematched.

What is left out is the socket: a frame "written" is counted and dropped (as
if ``sockets.direct_writer`` took it at once), client frames reach the room
as the socket edge hands them over, already validated (``room.submit`` of
``room.handle``, ``room.on_pong`` with a fixed ``TCP_INFO`` estimate, one
input for both as the server hands them over). The clients live in the same process and their
decisions cost a little CPU too (one ``orjson.loads`` per update per room).

Reported: the process's CPU time per player-second and per flip over the
measured ``--seconds`` (and the event loop thread's alone: the rest is the
store's SQLite thread), flips, inputs and frames per second. CPU time, not
wall time: on a busy machine the wait for a core does not count. Compare
trees in one sitting with ``PYTHONPATH=<tree>/src`` (this file imports only
``slapjack``'s public pieces).

    .venv/bin/python bench/room_cost.py --players 2000 --seconds 20 [--cpu 1] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import random
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import uvloop

from slapjack.protocol import CreateRoom, FlipMsg, Hello, RematchMsg, SlapMsg
from slapjack.server.connection import Conn
from slapjack.server.fair import FairReferee
from slapjack.server.metrics import METRICS
from slapjack.server.pings import Pinger
from slapjack.server.room import Room
from slapjack.store import open_store

SEATS = 4
RTT_MS = 1.0
TCP_INFO = (0.1, 0.05, 0.05)
"""``(srtt, rttvar, min_rtt)`` in ms: what ``TCP_INFO`` says on loopback."""


def now_ms() -> float:
    """The clients' clock: the server's own (so the clock offset is about 0)."""
    return time.monotonic() * 1000.0


class Client:
    """One seat's client: receives the room's frames (counted, then dropped)."""

    __slots__ = ("conn", "driver", "seat")

    def __init__(self, driver: Driver, seat: int, conn: Conn) -> None:
        self.driver = driver
        self.seat = seat
        self.conn = conn

    def receive(self, text: str) -> bool:
        driver = self.driver
        driver.stats["frames"] += 1
        if text.startswith('{"type":"ping"'):
            ping_id = int(text[20 : text.index(",", 20)])  # '{"type":"ping","id":12,…'
            driver.loop.call_later(RTT_MS / 2000.0, self.pong, ping_id, now_ms() + RTT_MS / 2)
        elif self.seat == 0 and text.startswith('{"type":"update"'):
            driver.on_update(text)
        return True

    def pong(self, ping_id: int, client_time: float) -> None:
        conn = self.conn
        if conn.ponged < ping_id <= conn.pinged:
            conn.ponged = ping_id
        room = self.driver.room
        at = room.now()
        room.on_pong(conn, ping_id, round(client_time, 3), at, TCP_INFO)


class Driver:
    """The four clients' decisions for one room, read off seat 0's updates."""

    def __init__(self, room: Room, stats: dict[str, int], rng: random.Random) -> None:
        self.room = room
        self.stats = stats
        self.rng = rng
        self.loop = asyncio.get_running_loop()
        self.tokens: list[str] = []
        self.conns: list[Conn] = []
        self.acted_on: tuple[int, int] | None = None
        self.slapped: tuple[int, int] | None = None
        self.rematched = -1

    def on_update(self, text: str) -> None:
        frame = orjson.loads(text)
        view = frame["view"]
        if view is None:
            return
        game_no, flip_id = frame["room"]["game_no"], view["flip_id"]
        if view["over"]:
            if self.rematched != game_no:
                self.rematched = game_no
                for s in range(SEATS):
                    msg: Any = RematchMsg.model_construct(
                        v=1, type="rematch", token=self.tokens[s], id=None
                    )
                    self.loop.call_later(0.5, self.send, s, msg)
            return
        if view["race_open"]:
            if self.slapped != (game_no, flip_id):
                self.slapped = (game_no, flip_id)
                shown = now_ms() + RTT_MS / 2
                for s in range(SEATS):
                    if view["out"][s]:
                        continue
                    reaction = max(150.0, self.rng.gauss(300.0, 60.0))
                    msg = SlapMsg.model_construct(
                        v=1,
                        type="slap",
                        token=self.tokens[s],
                        flip_id=flip_id,
                        id=None,
                        reaction_ms=reaction,
                        shown_at=shown,
                        input_at=shown + reaction,
                        call=False,
                    )
                    self.loop.call_later((reaction + RTT_MS) / 1000.0, self.send, s, msg)
            return
        turn = view["turn"]
        if turn is not None and self.acted_on != (game_no, flip_id):
            self.acted_on = (game_no, flip_id)
            msg = FlipMsg.model_construct(
                v=1, type="flip", token=self.tokens[turn], flip_id=flip_id, id=None
            )
            self.loop.call_later(self.rng.uniform(0.8, 1.2), self.send, turn, msg)

    def send(self, seat: int, msg: Any) -> None:
        """A client frame as the socket edge hands it to the room."""
        self.stats[msg.type] += 1
        room = self.room
        room.submit(partial(room.handle, self.conns[seat], msg, room.now()))


async def setup(players: int, data_dir: Path, seed: int) -> tuple[Any, list[Room], dict[str, int]]:
    store = await open_store(None, data_dir)
    pinger = Pinger()
    stats = {"frames": 0, "flip": 0, "slap": 0, "rematch": 0}
    rooms: list[Room] = []
    rng = random.Random(seed)
    settings = CreateRoom(seats=SEATS, public=False, turn_seconds=5)
    for i in range(players // SEATS):
        room = Room(f"B{i:05d}", settings, store=store, referee=FairReferee)
        room.store_new()
        room.start()
        rooms.append(room)
        driver = Driver(room, stats, random.Random(rng.random()))
        for s in range(SEATS):
            _, token, _ = await room.call(partial(room.join, f"P{s}"))
            driver.tokens.append(token)
        for s in range(SEATS):
            conn = Conn()
            conn.direct = Client(driver, s, conn).receive
            driver.conns.append(conn)
            hello = Hello.model_construct(v=1, type="hello", token=driver.tokens[s], id=None)
            room.submit(partial(room.handle, conn, hello, room.now()))
            pinger.add(room, conn)
        if i % 25 == 24:
            await asyncio.sleep(0.05)  # the ramp: a hundred players at a time
    return store, rooms, stats


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="slapjack-roomcost-") as tmp:
        store, rooms, stats = await setup(args.players, Path(tmp), args.seed)
        await asyncio.sleep(args.settle)
        before = dict(stats)
        inputs0, frames0 = METRICS.inputs, METRICS.frames
        # (the profile's clock is the event loop thread's CPU time: with wall
        # time, the waits for the GIL held by the store's SQLite thread land
        # on whatever line the loop was at)
        profile = cProfile.Profile(time.thread_time) if args.profile else None
        if profile is not None:
            profile.enable()
        cpu0, t0, main0 = time.process_time(), time.perf_counter(), time.thread_time()
        await asyncio.sleep(args.seconds)
        cpu1, t1, main1 = time.process_time(), time.perf_counter(), time.thread_time()
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)
        inputs, frames = METRICS.inputs - inputs0, METRICS.frames - frames0
        for room in rooms:
            await room.stop()
        await store.close()
    wall, cpu = t1 - t0, cpu1 - cpu0
    done = {k: stats[k] - before[k] for k in stats}
    player_s = args.players * wall
    return {
        "players": args.players,
        "seconds": round(wall, 2),
        "cpu_pct": round(100 * cpu / wall, 1),
        "us_per_player_s": round(1e6 * cpu / player_s, 1),
        "loop_us_per_player_s": round(1e6 * (main1 - main0) / player_s, 1),
        "us_per_flip": round(1e6 * cpu / max(done["flip"], 1), 1),
        "flips_per_s": round(done["flip"] / wall, 1),
        "slaps_per_s": round(done["slap"] / wall, 1),
        "inputs_per_s": round(inputs / wall, 1),
        "frames_per_s": round(done["frames"] / wall, 1),
        "room_frames_per_s": round(frames / wall, 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--players", type=int, default=2000, help="players, 4 per room")
    p.add_argument("--seconds", type=float, default=20.0, help="measured time")
    p.add_argument("--settle", type=float, default=5.0, help="seconds of play before measuring")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU")
    p.add_argument("--profile", default=None, help="write a cProfile of the measured seconds")
    args = p.parse_args()
    if not SEATS <= args.players <= 40_000 or not 0 < args.seconds <= 600:
        p.error("--players must be 4..40000 and --seconds 0..600")
    if args.cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        print(json.dumps(runner.run(run(args))), flush=True)


if __name__ == "__main__":
    main()
