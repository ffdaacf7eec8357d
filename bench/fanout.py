"""The CPU of one change's fan-out (issue 14): ``frames.updates`` for a room
of four seats, one socket each, in a game a few flips in (a room of
``tests/server/roomkit.py``: no sockets, no task, a fake clock, SQLite in
memory). Process CPU time per call, so a busy machine slows it more than it
changes it.

    taskset -c 1 .venv/bin/python bench/fanout.py [--calls 3000] [--profile]
    # another tree (the room kit comes from this checkout's tests/)
    PYTHONPATH=/tmp/before/src taskset -c 1 .venv/bin/python bench/fanout.py
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.server.roomkit import FakeClock, Input, apply, new_room, settle_input

from slapjack.server import frames
from slapjack.store import open_store


async def run(calls: int, profile: bool) -> None:
    clock = FakeClock()
    store = await open_store("sqlite:///:memory:", ".")
    room = await new_room(store, clock, seats=4)
    for _ in range(6):
        apply(room, Input("flip"), clock)
        clock.now += 500
        await settle_input(room)
    t = time.process_time()
    for _ in range(calls):
        frames.updates(room, [])
    dt = time.process_time() - t
    print(f"frames.updates: {1e6 * dt / calls:.1f} µs of CPU per change, {len(room.conns)} sockets")
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(calls):
            frames.updates(room, [])
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    await store.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--calls", type=int, default=3000)
    p.add_argument("--profile", action="store_true", help="also a cProfile of the calls")
    args = p.parse_args()
    asyncio.run(run(args.calls, args.profile))
    sys.stdout.flush()
    os._exit(0)  # the room kit's store thread would keep the process waiting


if __name__ == "__main__":
    main()
