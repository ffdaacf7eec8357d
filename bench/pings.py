"""The CPU a ping costs the server: a task per socket against the pinger.

Both run in this one process on the server's own event loop (uvloop), for
``--sockets`` sockets in rooms of four with the fair referee, for
``--seconds``: every ping is queued on its socket (:class:`Conn`, no network:
the frames stay in the queue), told to its room and, through the room's task,
to the referee (``on_ping_sent``), and answered at once by a pong the room's
referee learns (``on_pong``), as a client on loopback would. What is counted
is the process's CPU time per ping and pong, so other work on the machine
changes the figures little (it slows the run, it does not add CPU to it).

- **per socket**: the code before the pinger (a task per socket sleeping
  between its pings, one room input per ping and one per pong);
- **pinger, inputs not batched**: :class:`slapjack.server.pings.Pinger`
  (one timer for every socket), one room input per ping and per pong;
- **pinger, batched**: the same, a room's pings and pongs that come
  together one input (:meth:`Actor.submit_batched`), as the server did
  until the direct path below;
- **pinger**: each ping and pong applied at once when the room's task is
  idle, else batched (:meth:`Actor.run_or_batch`), as the server does.

    .venv/bin/python bench/pings.py --sockets 4000 --seconds 10 [--kinds batched,direct]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from functools import partial
from typing import Any

import uvloop

import slapjack.server.pings as pings_module
from slapjack.protocol import ping_frame
from slapjack.server.actor import Actor
from slapjack.server.connection import Conn
from slapjack.server.fair import FairReferee
from slapjack.server.pings import Pinger

SEATS = 4
KINDS = {
    "socket": "per socket",
    "unbatched": "pinger, inputs not batched",
    "batched": "pinger, batched",
    "direct": "pinger",
}
"""``--kinds`` keys and the kinds they name."""
MODES = {"pinger, batched": "batched", "pinger": "direct"}


class BenchRoom(Actor):
    """A room as the pinger sees it: a clock, a code, a referee behind its task."""

    def __init__(self, code: str, mode: str) -> None:
        super().__init__(f"room {code}")
        self.code = code
        self.referee = FairReferee()
        self.mode = mode
        """``direct`` (the server's), ``batched`` or ``one input each``."""
        self.pings = 0

    def on_ping_sent(self, conn: Conn, ping_id: int, at: float) -> None:
        self.pings += 1
        assert conn.seat is not None
        if self.mode == "direct":
            self.run_or_batch(self.referee.on_ping_sent, conn.seat, ping_id, at)
            # the client answers at once (its pong comes back through the room)
            self.run_or_batch(self.referee.on_pong, conn.seat, ping_id, at + 1.0, at + 2.0)
        elif self.mode == "batched":
            self.submit_batched(self.referee.on_ping_sent, conn.seat, ping_id, at)
            self.submit_batched(self.referee.on_pong, conn.seat, ping_id, at + 1.0, at + 2.0)
        else:
            self.submit(partial(self.referee.on_ping_sent, conn.seat, ping_id, at))
            self.submit(partial(self.referee.on_pong, conn.seat, ping_id, at + 1.0, at + 2.0))


async def per_socket_pinger(room: BenchRoom, conn: Conn) -> None:
    """The pinger before: a task per socket (sockets.py at e3d63b7, without the
    not-reading check, which both versions make in the same way)."""
    ping_id = 0
    delay = pings_module.PING_FIRST_S
    while not conn.closed:
        await asyncio.sleep(delay)
        if not conn.greeted:
            continue
        ping_id += 1
        now = room.now()
        conn.send(ping_frame(ping_id, round(now, 3)))
        room.on_ping_sent(conn, ping_id, now)
        delay = (
            pings_module.PING_FIRST_S
            if ping_id < pings_module.PING_FIRST_COUNT
            else pings_module.PING_EVERY_S
        )


async def run(kind: str, sockets: int, seconds: float) -> dict[str, Any]:
    mode = MODES.get(kind, "one input each")
    rooms = [BenchRoom(f"R{i}", mode) for i in range(sockets // SEATS)]
    conns: list[Conn] = []
    for room in rooms:
        room.start()
        for seat in range(SEATS):
            conn = Conn()
            conn.seat, conn.greeted = seat, True
            conn.welcomed = True  # the pinger pings only after the welcome (086bfbd)
            conns.append(conn)
    drain = asyncio.create_task(drain_queues(conns))
    tasks: list[asyncio.Task[None]] = []
    pinger = Pinger()
    cpu0, t0 = time.process_time(), time.perf_counter()
    for i, conn in enumerate(conns):
        room = rooms[i // SEATS]
        if kind.startswith("pinger"):
            pinger.add(room, conn)  # type: ignore[arg-type]
        else:
            tasks.append(asyncio.create_task(per_socket_pinger(room, conn)))
    await asyncio.sleep(seconds)
    cpu1, t1 = time.process_time(), time.perf_counter()
    for t in tasks:
        t.cancel()
    for conn in conns:
        pinger.discard(conn)
    drain.cancel()
    for room in rooms:
        await room.stop()
    pings = sum(room.pings for room in rooms)
    return {
        "kind": kind,
        "sockets": sockets,
        "pings": pings,
        "pings_per_s": round(pings / (t1 - t0)),
        "cpu_pct": round(100 * (cpu1 - cpu0) / (t1 - t0), 1),
        "us_per_ping_and_pong": round(1e6 * (cpu1 - cpu0) / max(pings, 1), 2),
    }


async def drain_queues(conns: list[Conn]) -> None:
    """The frames are dropped every 100 ms (there is no socket)."""
    while True:
        await asyncio.sleep(0.1)
        for conn in conns:
            conn._queue.clear()


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--sockets", type=int, default=4000)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=2, help="each kind this many times, alternating")
    p.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help=f"which kinds, comma-separated, of: {', '.join(KINDS)} (default: all)",
    )
    args = p.parse_args()
    kinds = args.kinds.split(",")
    unknown = set(kinds) - set(KINDS)
    if unknown:
        p.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    for _ in range(args.rounds):
        for key in kinds:
            with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                print(runner.run(run(KINDS[key], args.sockets, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
