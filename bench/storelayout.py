"""What the SQLite store's layout costs per append, and what an append-only
log would (issue 14): a measurement of a candidate, not of the server.

Until schema version 5 each group commit of the write-ahead store wrote two
pages per room in it: the leaf of ``room_actions`` that the room's next
action goes to, and the page of its ``rooms`` row (``next_index``); since
then only the first (the store checks one guard row instead, see
``slapjack.store._sqlite_raw.Known``). This script runs group commits of
``--batch`` appends to distinct random rooms of ``--rooms`` (2,500: 10,000
players; the server's commits hold 11 appends at the median there) on a fresh
file with the store's own schema and settings (``slapjack.store.migrations``,
WAL, ``synchronous=NORMAL``, foreign keys, statement journals in memory, a
PASSIVE checkpoint on a second connection every 1,000 commits, as
``SqliteStore`` runs it), for ``--seconds`` of CPU each, in these layouts:

* ``today``: the store's own fast path (``_write_batch_on`` with its known
  rows): one multi-row ``INSERT`` into ``room_actions`` that checks the guard
  row, in a transaction of its own;
* ``insert``: the ``INSERT`` alone (no guard read);
* ``log``: one multi-row ``INSERT`` into an append-only table
  (``seq INTEGER PRIMARY KEY``: every commit writes the same last page) and
  the ``UPDATE`` of one guard row (what would fence other writers);
* ``fold:N``: ``log``, and every N commits the whole log moved into
  ``room_actions`` and emptied, in one transaction (the
  time each such fold holds the write lock is printed: appends wait for it).

Printed per layout and round: the process's CPU per append (every thread),
appends, and for folds the median and longest fold (``--json``: one object
per run). After each run the file is checked: every append stored once, and
each room's actions without a gap where the layout stores them there. Pinned to one CPU with
``taskset`` the figures are one core's; rounds alternate the layouts.

    taskset -c 0 .venv/bin/python bench/storelayout.py --rounds 2
    taskset -c 0 .venv/bin/python bench/storelayout.py --layouts today,fold:1000 --batch 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from slapjack.store._batch import _Pending
from slapjack.store._sqlite_raw import TEMP_STORE, Known, _write_batch_on
from slapjack.store.migrations import SQLITE

CHECKPOINT_EVERY = 1000  # as slapjack.store.sqlite.CHECKPOINT_EVERY
LOG_TABLE = (
    "CREATE TABLE room_log (seq INTEGER PRIMARY KEY, code TEXT NOT NULL,"
    " idx INTEGER NOT NULL, action TEXT NOT NULL)"
)
GUARD_TABLE = "CREATE TABLE log_guard (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)"
FOLD = (
    "INSERT INTO room_actions (code, idx, action)"
    " SELECT code, idx, action FROM room_log ORDER BY code, idx",
    "DELETE FROM room_log",
)
ACTIONS = ('{"flip":"Player %d","t":%d}', '{"slap":"Player %d","t":%d}')
SETTINGS = '{"deck":"standard","game":"slapjack","preset":"classic","seats":4}' + " " * 200
HEADER = '{"format":"slapjack-record/1","players":["Player 1","Player 2","Player 3","Player 4"]}'


def make_file(path: Path, rooms: list[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA temp_store = {TEMP_STORE}")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("BEGIN")
    for step in SQLITE:
        for sql in step.statements:
            if "slapjack_fold" not in sql:  # migration 4 folds rows stored before it: none
                conn.execute(sql)
    conn.execute(LOG_TABLE)
    conn.execute(GUARD_TABLE)
    conn.execute("INSERT INTO log_guard (id, n) VALUES (1, 0)")
    conn.executemany(
        "INSERT INTO rooms (code, settings, header, created_ms, game_started_ms)"
        " VALUES (?, ?, ?, 0, 0)",
        [(code, SETTINGS, HEADER) for code in rooms],
    )
    conn.execute("COMMIT")
    return conn


def check(conn: sqlite3.Connection, layout: str, appends: int, nxt: dict[str, int]) -> None:
    """Every append is in the file once, where its layout puts it, and each
    room's stored actions run from 0 without a gap (a layout that lost or
    doubled a row would be measuring something else)."""
    stored = conn.execute("SELECT count(*) FROM room_actions").fetchone()[0]
    logged = conn.execute("SELECT count(*) FROM room_log").fetchone()[0]
    if stored + logged != appends or (layout in ("today", "insert") and logged):
        raise SystemExit(f"{layout}: {stored} + {logged} rows stored, {appends} appended")
    for code, n, last in conn.execute(
        "SELECT code, count(*), max(idx) FROM room_actions GROUP BY code"
    ).fetchall():
        if last != n - 1:
            raise SystemExit(f"{layout}: room {code} has {n} actions up to index {last}")
        if layout in ("today", "insert") and n != nxt[code]:
            raise SystemExit(f"{layout}: room {code} has {n} actions, {nxt[code]} appended")


def run(layout: str, rooms_n: int, batch_n: int, seconds: float, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    rooms = [f"R{i:05d}" for i in range(rooms_n)]
    fold_every = int(layout.split(":")[1]) if layout.startswith("fold:") else 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "live.sqlite"
        conn = make_file(path, rooms)
        checkpointer = sqlite3.connect(path, isolation_level=None)
        loop = asyncio.new_event_loop()
        future: asyncio.Future[None] = loop.create_future()
        known = Known()
        known.learn({code: (0, 0, None) for code in rooms}, 0)
        nxt = dict.fromkeys(rooms, 0)
        folds: list[float] = []
        appends = commits = 0
        t = 0
        began = time.process_time()
        while time.process_time() - began < seconds:
            rows = []
            for code in rng.sample(rooms, batch_n):
                t += 250
                rows.append((code, nxt[code], ACTIONS[t % 3 == 0] % (t % 4 + 1, t)))
                nxt[code] += 1
            if layout == "today":
                batch = [_Pending(c, i, a, future) for c, i, a in rows]
                outcomes, _ = _write_batch_on(conn, batch, known)
                assert not any(outcomes)
            else:
                table = "room_actions" if layout == "insert" else "room_log"
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(
                    f"INSERT INTO {table} (code, idx, action) VALUES "
                    + ", ".join(["(?, ?, ?)"] * len(rows)),
                    [value for row in rows for value in row],
                )
                if layout != "insert":
                    conn.execute(
                        "UPDATE log_guard SET n = n + 1 WHERE id = 1 AND n = ?", (commits,)
                    )
                conn.execute("COMMIT")
            appends += len(rows)
            commits += 1
            if fold_every and commits % fold_every == 0:
                at = time.perf_counter()
                conn.execute("BEGIN IMMEDIATE")
                for sql in FOLD:
                    conn.execute(sql)
                conn.execute("COMMIT")
                folds.append(time.perf_counter() - at)
            if commits % CHECKPOINT_EVERY == 0:
                checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        cpu = time.process_time() - began
        check(conn, layout, appends, nxt)
        checkpointer.close()
        conn.close()
        loop.close()
    out = {"us_per_append": cpu / appends * 1e6, "appends": float(appends)}
    if folds:
        out["fold_ms_p50"] = statistics.median(folds) * 1000
        out["fold_ms_max"] = max(folds) * 1000
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layouts", default="today,insert,log,fold:250,fold:1000,fold:3000")
    parser.add_argument("--rooms", type=int, default=2500)
    parser.add_argument("--batch", type=int, default=11, help="appends per group commit")
    parser.add_argument("--seconds", type=float, default=8.0, help="CPU seconds per run")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per run")
    args = parser.parse_args()
    layouts = [name.strip() for name in args.layouts.split(",") if name.strip()]
    for name in layouts:
        if name not in ("today", "insert", "log") and not (
            name.startswith("fold:") and name[5:].isdigit() and int(name[5:]) > 0
        ):
            parser.error(f"unknown layout {name!r} (today, insert, log, fold:N)")
    if not 0 < args.batch <= args.rooms:
        parser.error("--batch must be between 1 and --rooms")
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be positive and --rounds at least 1")
    if not args.json:
        print(
            f"{args.rooms} rooms, {args.batch} appends per commit, {args.seconds:g} CPU s per run"
        )
        print(
            f"{'layout':<11} {'round':>5} {'µs/append':>10} {'appends':>9} {'fold p50/max ms':>16}"
        )
    for r in range(args.rounds):
        for name in layouts if r % 2 == 0 else reversed(layouts):
            res = run(name, args.rooms, args.batch, args.seconds, seed=r)
            if args.json:
                print(json.dumps({"layout": name, "round": r + 1, **res}), flush=True)
                continue
            fold = (
                f"{res['fold_ms_p50']:.0f} / {res['fold_ms_max']:.0f}"
                if "fold_ms_p50" in res
                else ""
            )
            print(
                f"{name:<11} {r + 1:>5} {res['us_per_append']:>10.1f}"
                f" {int(res['appends']):>9} {fold:>16}",
                flush=True,
            )


if __name__ == "__main__":
    main()
