"""The store's share of a server's py-spy samples (issue 14).

Reads ``py-spy record -f raw`` output of a ``slapjack serve`` process and
prints the share of its busy samples whose stack holds a frame of
``slapjack/store/`` or ``aiosqlite`` (the SQLite adapter's thread). Samples of
threads that wait (aiosqlite's thread waiting for work, the server's worker
threads waiting on their queue, the event loop in ``select``) are left out.

    py-spy record -p PID -d 20 -r 100 -f raw -o spy.txt
    .venv/bin/python bench/store_share.py spy.txt
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

IDLE_LEAVES = ("_connection_worker_thread (", "Condition.wait (", "EpollSelector.select (")
STORE = ("slapjack/store/", "aiosqlite")


def share(text: str) -> tuple[int, int, Counter[str]]:
    """Busy samples, those in the store, and the store's deepest frames."""
    busy = in_store = 0
    where: Counter[str] = Counter()
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = stack.split(";")
        if frames[-1].startswith(IDLE_LEAVES):
            continue
        n = int(count)
        busy += n
        if any(s in stack for s in STORE):
            in_store += n
            where[next(f for f in reversed(frames) if any(s in f for s in STORE))] += n
    return busy, in_store, where


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+", type=Path)
    p.add_argument("--top", type=int, default=8)
    args = p.parse_args()
    for path in args.files:
        busy, in_store, where = share(path.read_text())
        pct = in_store / busy * 100 if busy else 0.0
        print(f"{path}: {busy} busy samples, {in_store} in the store ({pct:.1f} %)")
        for frame, n in where.most_common(args.top):
            print(f"  {n / busy * 100:5.1f} %  {frame}")


if __name__ == "__main__":
    main()
