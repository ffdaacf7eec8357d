"""Two versions of the server measured at the same time, for their ratio (issue 14).

On these shared machines the CPU a server needs for the same load moves by
10-20 % from one minute to the next (the neighbours), more than most changes
save. Here both versions run at once: two ``bench/load.py --pin`` runs, each
with its own server on CPU 0 and its own generators on CPU 1, so both servers
share the core and meet the same machine; what is compared is the ratio of
their CPU per player-second in each round (the order of starting swaps every
round). Keep the two loads together under what the core can serve (about
2,500 players each): a server that falls behind serves less than it is asked.

Each version is a directory holding a ``src`` tree (``git archive <commit> src
| tar -x -C DIR``); the benchmark's own code is this checkout's.

    git archive HEAD~1 src | tar -x -C /tmp/before   # (mkdir it first)
    .venv/bin/python bench/paired.py /tmp/before . --players 2500 --rounds 3

Prints a row per version per round (players, p99 flip -> all clients, server
CPU, µs per player-second, KB per player, lost), then the ratio of the second
to the first per round and their mean.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

LOAD = Path(__file__).resolve().parent / "load.py"


def start(version: Path, players: int, seconds: float) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(version.resolve() / "src"))
    command = [sys.executable, str(LOAD), "--players", str(players), "--seconds", str(seconds)]
    return subprocess.Popen(
        [*command, "--pin", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,  # its progress lines, and why it failed if it did
        text=True,
    )


def result(proc: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    out, err = proc.communicate(timeout=timeout)  # (both pipes read together)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"load.py failed (exit {proc.returncode}): {out[-500:]!r}\n{err[-1500:]}")
    row: dict[str, Any] = json.loads(lines[-1])
    return row


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("first", type=Path, help="a directory with the first version's src")
    p.add_argument("second", type=Path, help="a directory with the second version's src")
    p.add_argument("--players", type=int, default=2500, help="players for each server")
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    for version in (args.first, args.second):
        if not (version / "src" / "slapjack").is_dir():
            raise SystemExit(f"{version}: no src/slapjack in it")
    ratios: list[float] = []
    for r in range(args.rounds):
        order = [args.first, args.second] if r % 2 == 0 else [args.second, args.first]
        procs = {v: start(v, args.players, args.seconds) for v in order}
        limit = 120 + args.seconds + args.players / 50
        rows = {v: result(proc, limit) for v, proc in procs.items()}
        for v in (args.first, args.second):
            d = rows[v]
            print(
                f"round {r + 1} {v!s:>16}: {d['connected']} players, "
                f"p99 {d['all_p99_ms']} ms, CPU {d['server_cpu_pct']} %, "
                f"{d['server_us_per_player_s']} µs/player-s, "
                f"{d['server_kb_per_player']} KB/player, lost {d['lost']}, "
                f"generator ok {d['generator_ok']}",
                flush=True,
            )
        first, second = rows[args.first], rows[args.second]
        ratio = second["server_us_per_player_s"] / first["server_us_per_player_s"]
        ratios.append(ratio)
        print(f"round {r + 1}: second / first CPU per player-second {ratio:.3f}", flush=True)
    mean = sum(ratios) / len(ratios)
    print(
        f"mean ratio {mean:.3f} over {len(ratios)} rounds: {', '.join(f'{x:.3f}' for x in ratios)}"
    )


if __name__ == "__main__":
    main()
