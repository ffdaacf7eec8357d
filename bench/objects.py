"""What one more player costs the served process's heap (issue 14): the
objects the garbage collector tracks (a full collection walks every one of
them) and the RSS, per player, by type and by suspended coroutine.

Runs ``bench/load.py`` at two sizes (``--players``, default 400 and 1200) with
``bench/heapdiag`` in the server, which counts the heap when the players have
connected and settled; prints the difference per player of the larger run
over the smaller (rooms included: a room's objects are a quarter per
player), and load.py's KB per player of each run.

    .venv/bin/python bench/objects.py
    .venv/bin/python bench/objects.py --players 400,1200 --top 25
    PYTHONPATH=/tmp/before/src .venv/bin/python bench/objects.py   # another tree's server
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def measure(players: int, out: Path) -> dict[str, Any]:
    """One load.py run with the heap counted; its heap and its result."""
    env = dict(os.environ)
    env["SLAPJACK_HEAP_HIST"] = str(out)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(HERE / "heapdiag"), env.get("PYTHONPATH", "")) if p
    )
    cmd = [sys.executable, str(HERE / "load.py"), "--players", str(players)]
    cmd += ["--seconds", "5", "--procs", "1", "--json"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not out.exists():
        raise SystemExit(f"load.py --players {players} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout[done.stdout.index("{") :])
    heap: dict[str, Any] = json.loads(out.read_text())
    return {"heap": heap, "result": result}


def per_player(
    small: dict[str, Any], large: dict[str, Any], key: str, n: int
) -> list[tuple[float, str]]:
    a, b = small["heap"][key], large["heap"][key]
    rows = [((b.get(k, 0) - a.get(k, 0)) / n, k) for k in set(a) | set(b)]
    return sorted(rows, reverse=True)


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--players", default="400,1200", help="two sizes, smaller first")
    p.add_argument("--top", type=int, default=15, help="rows per table")
    args = p.parse_args()
    n1, n2 = (int(x) for x in args.players.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        small = measure(n1, Path(tmp) / f"heap.{n1}.json")
        large = measure(n2, Path(tmp) / f"heap.{n2}.json")
    n = n2 - n1
    tracked = (large["heap"]["tracked"] - small["heap"]["tracked"]) / n
    print(f"tracked objects per player: {tracked:.1f}")
    for run, size in ((small, n1), (large, n2)):
        r = run["result"]
        print(
            f"{size} players: {run['heap']['tracked']:,} tracked, "
            f"{r.get('server_kb_per_player')} KB per player (RSS), "
            f"lost {r.get('lost')}, out of order {r.get('out_of_order')}"
        )
    for key in ("types", "coroutines", "functions"):
        print(f"\n| {key[:-1]} | per player |\n|---|---|")
        for value, name in per_player(small, large, key, n)[: args.top]:
            if abs(value) >= 0.05:
                print(f"| {name} | {value:.2f} |")


if __name__ == "__main__":
    main()
