"""Summarise what ``bench/diag/sitecustomize.py`` recorded in a server under
``bench/load.py`` (issue 14): within load.py's measured window (between its
reset and its read of ``/api/metrics``; the last 20 s when the read was not
recorded), the garbage collections by generation, the pinger's ticks, and the
loop's stalls with the stacks they were seen in.

    SLAPJACK_DIAG=/tmp/diag PYTHONPATH=bench/diag .venv/bin/python bench/load.py --players 6000 --seconds 20 --pin --json
    .venv/bin/python bench/stalls.py /tmp/diag [--depth 4] [--top 15]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
from collections import Counter
from typing import Any


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _line(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"n {len(values)}, p50 {_pct(values, 0.5):.2f}, p90 {_pct(values, 0.9):.2f}, "
        f"p99 {_pct(values, 0.99):.2f}, max {max(values):.2f} ms, total {sum(values):.0f} ms"
    )


def summarise(data: dict[str, Any], depth: int, top: int, seconds: float) -> None:
    resets = [t for kind, t in data["marks"] if kind == "reset"]
    if resets:
        start = resets[-1]
        reads = [t for kind, t in data["marks"] if kind == "read" and t > start]
        end = reads[0] if reads else start + seconds
    else:  # no measured window recorded: everything
        start, end = 0.0, float("inf")
        print("no reset of /api/metrics recorded: the whole run")
    span = end - start if end != float("inf") else None
    print(f"window: {span:.1f} s" if span else "window: all")
    print("garbage collections (pause):")
    for gen in (0, 1, 2):
        rows = [row for row in data["gc"] if start <= row[0] <= end and row[1] == gen]
        freed = sum(row[3] for row in rows)
        print(f"  generation {gen}: {_line([row[2] for row in rows])}; freed {freed}")
    ticks = [row for row in data["ticks"] if start <= row[0] <= end]
    if ticks:
        sizes = [float(row[1]) for row in ticks]
        print(
            f"pinger ticks: sockets p50 {_pct(sizes, 0.5):.0f}, max {max(sizes):.0f}; "
            f"time {_line([row[2] for row in ticks])}"
        )
    stalls = [s for s in data["stalls"] if start <= s[1] <= end]
    worst = sorted(max(ms for ms, _ in s[2]) for s in stalls)
    print(f"loop stalls over 12 ms: {len(stalls)}; the longest (ms): {worst[-10:]}")
    checkpoints = [(a, b) for a, b in data.get("checkpoints", []) if start <= a <= end]
    if checkpoints:
        during = [s for s in stalls if any(a <= s[1] <= b for a, b in checkpoints)]
        busy = sum(b - a for a, b in checkpoints)
        share = f"{100.0 * busy / span:.1f} %" if span else f"{busy:.1f} s"
        print(
            f"WAL checkpoints beside the writer: {_line([(b - a) * 1000.0 for a, b in checkpoints])};"
            f" running {share} of the window, {len(during)} of the stalls began during one"
        )
    seen: Counter[str] = Counter()
    for _, _, samples in stalls:
        for _, where in samples:
            seen[" <- ".join(where.split(" <- ")[:depth]) or "(no Python stack)"] += 1
    print("where the main thread was during them (samples every ~4 ms):")
    for where, n in seen.most_common(top):
        print(f"  {n:5d}  {where}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="the SLAPJACK_DIAG folder")
    parser.add_argument("--depth", type=int, default=4, help="frames of each stack shown")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=20.0, help="load.py's --seconds")
    args = parser.parse_args()
    files = glob.glob(os.path.join(args.folder, "diag.*.json"))
    if not files:
        raise SystemExit(f"stalls.py: no diag.*.json in {args.folder}")
    newest = max(files, key=os.path.getmtime)
    print(newest)
    with open(newest) as f:
        summarise(json.load(f), args.depth, args.top, args.seconds)


if __name__ == "__main__":
    main()
