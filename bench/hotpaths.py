"""Three per-flip costs of the server, each alone, in CPU microseconds (issue 14).

* ``updates``: :func:`slapjack.server.frames.updates` for a playing room of
  four (an ``update`` frame per socket: the room's status, the view encoded
  once for its seats, each socket's ``seq``), rooms set up and played for a
  few seconds by ``bench/room_cost.py``'s clients, then timed without events
  (best of five).
* ``timers``: :meth:`Actor.set_timer` moving a timer later, as a room's
  wake-up moves on with every flip (1,500 actors on uvloop).
* ``action_json``: :func:`slapjack.store.base.dump_json` of a slap's record
  (the write-ahead append encodes one per action).

Compare two trees in one sitting, alternating (this file imports only
``slapjack``'s public pieces and ``bench/room_cost.py``)::

    git archive <commit> src | tar -x -C /tmp/before      # (mkdir it first)
    for i in 1 2 3; do
      PYTHONPATH=/tmp/before/src taskset -c 0 .venv/bin/python bench/hotpaths.py --label before
      taskset -c 0 .venv/bin/python bench/hotpaths.py --label after
    done
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import uvloop

import room_cost
from slapjack.server import frames
from slapjack.server.actor import Actor
from slapjack.store.base import dump_json


async def updates_us(players: int, settle_s: float) -> float:
    with tempfile.TemporaryDirectory(prefix="slapjack-hotpaths-") as tmp:
        store, rooms, _ = await room_cost.setup(players, Path(tmp), 1)
        try:
            await asyncio.sleep(settle_s)
            playing = [r for r in rooms if r.status == "playing"]
            if not playing:
                raise SystemExit("no room is playing yet: give it longer (--settle)")
            rounds = max(1, 4000 // len(playing))
            best = min(
                timeit.repeat(
                    lambda: [frames.updates(r, []) for r in playing], number=rounds, repeat=5
                )
            )
            return best / rounds / len(playing) * 1e6
        finally:
            for room in rooms:
                await room.stop()
            await store.close()


async def timers_us(actors: int, moves: int) -> float:
    some = [Actor(f"a{i}") for i in range(actors)]
    for actor in some:
        actor.start()
    await asyncio.sleep(0)
    try:
        n = 0
        began = time.process_time()
        for r in range(moves):
            base = some[0].now()
            for k, actor in enumerate(some):
                actor.set_timer("wake", base + 5000 + r * 100 + k % 7, _nothing)
                n += 1
            await asyncio.sleep(0)
        return (time.process_time() - began) / n * 1e6
    finally:
        for actor in some:
            await actor.stop()


def _nothing() -> None:
    pass


def action_json_us() -> float:
    action: dict[str, Any] = {"t": 123456, "slap": "Zoë", "reaction_ms": 312}
    n = 100_000
    return min(timeit.repeat(lambda: dump_json(action, "action"), number=n, repeat=5)) / n * 1e6


async def main(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "label": args.label,
        "updates_us": round(await updates_us(args.players, args.settle), 2),
        "timer_moved_later_us": round(await timers_us(1500, 40), 2),
        "action_json_us": round(action_json_us(), 2),
    }


if __name__ == "__main__":
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--players", type=int, default=40, help="players of the rooms timed (4 a room)")
    p.add_argument("--settle", type=float, default=3.0, help="seconds the rooms play first")
    p.add_argument("--label", default="", help="printed with the figures")
    print(json.dumps(uvloop.run(main(p.parse_args()))))
