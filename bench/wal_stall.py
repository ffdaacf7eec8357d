"""The stall of the SQLite store's WAL resets under load (issue 14).

Past ``WAL_LIMIT_BYTES`` the store resets its WAL under its lock
(``slapjack.store.sqlite``, ``WAL_RESET``): appends wait meanwhile, and so
does every write-ahead flip. This runs ``bench/load.py``'s load (production
defaults: fair referee, write-ahead SQLite; ``--pin``: the server on CPU 0,
the generators on CPU 1) against a server started here with a given reset
mode and limit, once per configuration, the configurations alternating
(``--rounds``), and prints per run:

* every reset in the measured window with its time under the store's lock
  (``/api/metrics?wal=true``, ``store_wal.recent``);
* the p50/p99/max of flip -> all clients of the room over the whole run, for
  the flips sent in ``[reset - 0.1 s, reset + 1 s)`` of some reset ("near"),
  for the flips in flight while a reset held the lock ("hit"), and the rest.

Flip times come from the generators' clock (``time.perf_counter``), resets
from the server's (``time.monotonic``): both are CLOCK_MONOTONIC on Linux.

    .venv/bin/python bench/wal_stall.py --configs TRUNCATE:64,RESTART:64 \\
        --players 2000 --seconds 90 --rounds 1 --json
    .venv/bin/python bench/wal_stall.py --micro 16,64 --rounds 3   # no server
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # bench/load.py, used as it is

NEAR_BEFORE_S = 0.1
NEAR_AFTER_S = 1.0

# ----------------------------------------------- flip times from the generators
# (these patches run in every generator process too: "spawn" imports this
# module there as __mp_main__ before it unpickles load.worker_main)

_ARRIVED: list[float] = []


class _TimedDelays(list):  # type: ignore[type-arg]
    """``WorkerStats.all_delays`` that also notes when each flip reached the
    last client of its room (``_ARRIVED``)."""

    def append(self, delay: float) -> None:
        _ARRIVED.append(time.perf_counter())
        super().append(delay)


_worker_init = load.Worker.__init__


def _init(self: Any, index: int, args: dict[str, Any]) -> None:
    _worker_init(self, index, args)
    self.stats.all_delays = _TimedDelays()


def _asdict(stats: Any) -> dict[str, Any]:
    out = dataclasses.asdict(stats)
    out["all_delays"] = list(out["all_delays"])
    out["all_arrived"] = list(_ARRIVED)
    return out


_PARTS: list[list[dict[str, Any]]] = []
_summarise = load.summarise


def _keep_parts(args: Any, parts: list[dict[str, Any]], *rest: Any) -> dict[str, Any]:
    _PARTS.append(parts)
    result: dict[str, Any] = _summarise(args, parts, *rest)
    return result


load.Worker.__init__ = _init  # type: ignore[method-assign]
load.asdict = _asdict  # type: ignore[assignment]
load.summarise = _keep_parts


# ------------------------------------------------------------------ the server


def start_server(data_dir: Path, mode: str, limit_mb: float, pin: bool) -> tuple[Any, str]:
    """``slapjack serve`` as bench/load.py starts it, with ``WAL_RESET`` and
    ``WAL_LIMIT_BYTES`` set before the store opens."""
    code = (
        "import slapjack.store.sqlite as sq, runpy; "
        f"sq.WAL_RESET = {mode!r}; sq.WAL_LIMIT_BYTES = {int(limit_mb * 2**20)}; "
        "runpy.run_module('slapjack.cli', run_name='__main__')"
    )
    command = [sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", "0"]
    command += ["--data-dir", str(data_dir), "--log-level", "warning", "--no-rate-limits"]
    if pin:
        command = ["taskset", "-c", str(load.SERVER_CPU), *command]
    return load.launch_server(command)


# -------------------------------------------------------------------- analysis


def stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": round(load.pct(values, 50), 2),
        "p99": round(load.pct(values, 99), 2),
        "max": round(max(values), 2),
    }


def analyse(parts: list[dict[str, Any]], wal: dict[str, Any]) -> dict[str, Any]:
    flips = [
        (arrived - delay / 1000.0, arrived, delay)
        for p in parts
        for delay, arrived in zip(p["all_delays"], p["all_arrived"], strict=True)
    ]
    if not flips:
        return {"flips": 0}
    t0 = min(f[0] for f in flips)
    t1 = max(f[1] for f in flips)
    resets = [(at, ms) for at, ms in wal.get("recent", []) if t0 <= at <= t1]
    near, hit, rest = [], [], []
    for sent, arrived, delay in flips:
        if any(at - NEAR_BEFORE_S <= sent < at + NEAR_AFTER_S for at, _ in resets):
            near.append(delay)
        else:
            rest.append(delay)
        if any(sent <= at + ms / 1000.0 and arrived >= at for at, ms in resets):
            hit.append(delay)
    held = [ms for _, ms in resets]
    return {
        "window_s": round(t1 - t0, 1),
        "resets_in_window": len(resets),
        "reset_ms": [round(ms, 2) for ms in held],
        "reset_ms_max": round(max(held), 2) if held else None,
        "reset_ms_mean": round(sum(held) / len(held), 2) if held else None,
        "all": stats([f[2] for f in flips]),
        "near": stats(near),
        "hit": stats(hit),
        "rest": stats(rest),
    }


def one_run(mode: str, limit_mb: float, a: argparse.Namespace) -> dict[str, Any]:
    before = os.getloadavg()
    data_dir = Path(tempfile.mkdtemp(prefix="slapjack-walstall-"))
    proc = None
    try:
        proc, url = start_server(data_dir, mode, limit_mb, a.pin)
        argv = ["--players", str(a.players), "--seconds", str(a.seconds), "--url", url]
        argv += ["--procs", str(a.procs)] + (["--pin"] if a.pin else [])
        _PARTS.clear()
        summary = load.run(load.parser().parse_args(argv))
        wal = httpx.get(f"{url}/api/metrics", params={"wal": True}, timeout=60).json()
        store_wal = wal["store_wal"]
    finally:
        if proc is not None:
            load.stop_server(proc)
        shutil.rmtree(data_dir, ignore_errors=True)
    result = {
        "mode": mode,
        "limit_mb": limit_mb,
        "load_before": [round(x, 2) for x in before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "cpu_pressure_pct": summary.get("cpu_pressure_pct"),
        "connected": summary["connected"],
        "flips_per_s": summary["flips_per_s"],
        "all_p50_ms": summary["all_p50_ms"],
        "all_p99_ms": summary["all_p99_ms"],
        "server_cpu_pct": summary["server_cpu_pct"],
        "generator_ok": summary["generator_ok"],
        "gen_lag_p99_ms": summary["gen_lag_p99_ms"],
        "loop_lag_ms": summary["server"].get("loop_lag_ms"),
        "store_batches_in_thread_ms": summary["server"]["store_batches"].get("in_thread_ms"),
        "write_ms": summary["server"].get("write_ms"),
        "store_wal": {k: v for k, v in store_wal.items() if k != "recent"},
    }
    result.update(analyse(_PARTS[-1] if _PARTS else [], store_wal))
    return result


def _commit(db: Any, first: int, n: int) -> int:
    db.execute("BEGIN")
    db.executemany("INSERT INTO t VALUES (?, ?)", [(first + j, "x" * 300) for j in range(n)])
    db.execute("COMMIT")
    return first + n


def micro_one(mode: str, mb: float) -> dict[str, Any]:
    """A WAL of ``mb`` MB (SQLite WAL, synchronous NORMAL, as the store's), a
    PASSIVE checkpoint on a second connection (the store's checkpointer), one
    commit more, then the reset timed on the writer's connection (as the
    store runs it) and the next commit (it restarts the WAL)."""
    import sqlite3

    where = Path(tempfile.mkdtemp(prefix="slapjack-walmicro-"))
    path = where / "m.sqlite3"
    try:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        k = 0
        while os.path.getsize(f"{path}-wal") < mb * 2**20:
            k = _commit(db, k, 50)
        other = sqlite3.connect(path, isolation_level=None)
        t = time.perf_counter()
        other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        passive = (time.perf_counter() - t) * 1000
        other.close()
        k = _commit(db, k, 50)
        t = time.perf_counter()
        busy, _, _ = db.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        reset = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        _commit(db, k, 1)
        after = (time.perf_counter() - t) * 1000
        db.close()
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return {
        "mode": mode,
        "wal_mb": mb,
        "busy": busy,
        "passive_ms": round(passive, 1),
        "reset_ms": round(reset, 2),
        "next_commit_ms": round(after, 2),
        "load": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--configs", default="TRUNCATE:64,RESTART:64", help="MODE:LIMIT_MB, comma-separated"
    )
    p.add_argument("--rounds", type=int, default=1, help="times through the configurations")
    p.add_argument("--players", type=int, default=2000)
    p.add_argument("--seconds", type=float, default=90.0)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--no-pin", dest="pin", action="store_false")
    p.add_argument("--json", action="store_true", help="one JSON line per run")
    p.add_argument(
        "--micro", default="", help="e.g. 16,64: only the reset of a WAL of these MB, no server"
    )
    a = p.parse_args()
    if a.micro:
        for mb in [float(x) for x in a.micro.split(",")]:
            for _ in range(a.rounds):
                for mode in ("TRUNCATE", "RESTART"):
                    row = micro_one(mode, mb)
                    print(json.dumps(row) if a.json else row, flush=True)
        return
    configs = []
    for item in a.configs.split(","):
        mode, _, mb = item.partition(":")
        if mode.upper() not in ("RESTART", "TRUNCATE") or not mb:
            p.error(f"bad configuration {item!r}: MODE:LIMIT_MB, MODE RESTART or TRUNCATE")
        configs.append((mode.upper(), float(mb)))
    for _ in range(a.rounds):
        for mode, mb in configs:
            result = one_run(mode, mb, a)
            if a.json:
                print(json.dumps(result), flush=True)
            else:
                print(f"--- {mode} {mb:g} MB")
                for key, value in result.items():
                    print(f"{key:>28}: {value}", flush=True)


if __name__ == "__main__":
    main()
