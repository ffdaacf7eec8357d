"""Capacity of one server process on one core (issue 14).

Runs ``bench/load.py`` once per (referee, players) pair, each with a fresh
server pinned to CPU 0 (``taskset -c 0``) and the generator processes pinned
to CPU 1, at the production defaults (write-ahead SQLite, pings once a second,
seat tokens; the fair referee unless told otherwise), and prints one row each:

players, p99 flip -> all clients of the room, server CPU, µs of server CPU per
player-second, RSS per player (over the idle server), the generators' CPU and
timer lag (``ok``: the generator kept up, see load.py), lost / out of order,
and the server's own view of its stalls: its event loop's lag p99 and the
longest pause of its garbage collector (from ``/api/metrics``).

    .venv/bin/python bench/capacity.py --players 1000,2000,4000 --seconds 20
    .venv/bin/python bench/capacity.py --players 2000 --referees fair,arrival

Each run is bounded in time and stops its server (and every generator) before
the next starts; rows are printed as they come and, with ``--json``, as JSON lines.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load

COLUMNS = (
    ("referee", "referee", "{}"),
    ("players", "players", "{}"),
    ("conn", "connected/closed", "{}"),
    ("all_p99_ms", "p99 all (ms)", "{:.1f}"),
    ("delay_p50_ms", "p50 (ms)", "{:.1f}"),
    ("server_cpu_pct", "server CPU %", "{:.0f}"),
    ("server_us_per_player_s", "µs/player-s", "{:.0f}"),
    ("server_us_per_frame", "µs/frame", "{:.0f}"),
    ("server_kb_per_player", "KB/player", "{:.0f}"),
    ("flips_per_s", "flips/s", "{:.0f}"),
    ("frames_per_s", "frames/s", "{:.0f}"),
    ("loop_lag_p99_ms", "loop lag p99 (ms)", "{:.1f}"),
    ("gc_pause_max_ms", "GC pause max (ms)", "{:.1f}"),
    ("gen_cpu", "gen CPU %", "{}"),
    ("gen_lag_p99_ms", "gen lag p99 (ms)", "{:.1f}"),
    ("generator_ok", "gen ok", "{}"),
    ("lost_ooo", "lost/ooo", "{}"),
    ("cpu_pressure_pct", "PSI %", "{}"),
)


def stalls(server: dict[str, Any] | None) -> dict[str, Any]:
    """The server's own view of its stalls in the measured seconds (from its
    ``/api/metrics``): the event loop's lag p99, and the longest pause of the
    garbage collector (young or full)."""
    s = server or {}
    pauses = [s[k]["max"] for k in ("gc0_ms", "gc2_ms") if (s.get(k) or {}).get("max") is not None]
    return {
        "loop_lag_p99_ms": (s.get("loop_lag_ms") or {}).get("p99"),
        "gc_pause_max_ms": max(pauses) if pauses else None,
    }


def row(result: dict[str, Any]) -> str:
    r = dict(result)
    r["gen_cpu"] = "+".join(f"{c:.0f}" for c in r["generator_cpu_pct"])
    r["lost_ooo"] = f"{r['lost']}/{r['out_of_order']}"
    r["conn"] = f"{r['connected']}/{r['closed']}"
    cells = []
    for key, _, fmt in COLUMNS:
        value = r.get(key)
        try:
            cells.append(fmt.format(value))
        except (TypeError, ValueError):
            cells.append(str(value))
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--players", default="1000,2000,4000", help="comma-separated player counts")
    p.add_argument("--referees", default="fair", help="comma-separated: fair, arrival")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--settle", type=float, default=5.0)
    p.add_argument("--ramp-rate", type=float, default=500.0)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--serve-args", default="")
    p.add_argument("--no-pin", action="store_true", help="do not pin (machines with one CPU)")
    p.add_argument("--json", action="store_true")
    opts = p.parse_args()
    if not opts.no_pin and (os.cpu_count() or 1) < 2:
        p.error("pinning needs two CPUs (or --no-pin)")
    counts = [int(n) for n in opts.players.split(",")]
    if (why := load.files_refusal(max(counts))) is not None:
        p.error(why)
    print("| " + " | ".join(title for _, title, _ in COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for referee in opts.referees.split(","):
        for players in counts:
            args = load.parser().parse_args(
                [
                    "--players",
                    str(players),
                    "--seconds",
                    str(opts.seconds),
                    "--settle",
                    str(opts.settle),
                    "--ramp-rate",
                    str(opts.ramp_rate),
                    "--procs",
                    str(opts.procs),
                    "--referee",
                    referee,
                    "--serve-args",
                    opts.serve_args,
                    *([] if opts.no_pin else ["--pin"]),
                ]
            )
            load._bounded(args.deadline + args.seconds + args.settle + players / 100 + 60)
            result = load.run(args)
            result.update(stalls(result.pop("server", None)))
            print(json.dumps(result) if opts.json else row(result), flush=True)


if __name__ == "__main__":
    main()
