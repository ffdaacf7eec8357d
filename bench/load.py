"""Load benchmark of the game server (issue 3).

Starts ``slapjack serve`` as a subprocess (one server process), then, in this
process, opens ``--players`` WebSocket clients in 4-seat rooms on loopback. The
clients play at human pace: the player on turn flips about once a second
(0.8-1.2 s after its turn comes), everyone slaps each Jack after a human
reaction time (normal, mean 300 ms, sd 60 ms); finished games are rematched.

After a ramp-up it measures for ``--seconds`` and prints: connected players,
frames/s received, the p50/p99 delay from a client sending a flip to the update
with that flip arriving at every client of the room, lost or out-of-order frames
(by ``seq``), and the server's CPU and memory (from /proc).

    .venv/bin/python bench/load.py --players 2000 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

SEATS = 4


@dataclass
class Stats:
    frames: int = 0
    bytes: int = 0
    delays: list[float] = field(default_factory=list)
    lost: int = 0
    out_of_order: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    connected: int = 0
    closed: int = 0
    measuring: bool = False


@dataclass
class RoomRun:
    code: str
    sent: dict[tuple[int, int], float] = field(default_factory=dict)
    """(game_no, flip_id after the flip) -> when a client sent it (perf_counter)."""


class Player:
    def __init__(self, url: str, room: RoomRun, token: str, stats: Stats, rng: random.Random):
        self.url = url
        self.room = room
        self.token = token
        self.stats = stats
        self.rng = rng
        self.seq = 0
        self.ws: Any = None
        self.turn_task: asyncio.Task[None] | None = None
        self.acted_on: tuple[int, int, int] | None = None
        self.slapped_flip: tuple[int, int] | None = None
        self.rematched = -1
        self.game_no = 0
        self.tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.ws.send(json.dumps({"v": 1, "token": self.token, **message}))

    async def run(self) -> None:
        async with websockets.connect(self.url, max_size=2**20, ping_interval=None) as ws:
            self.ws = ws
            await ws.send(json.dumps({"v": 1, "type": "hello", "token": self.token}))
            self.stats.connected += 1
            try:
                async for text in ws:
                    self.on_frame(text)
            except websockets.ConnectionClosed:
                pass
            finally:
                self.stats.connected -= 1
                self.stats.closed += 1

    def on_frame(self, text: str | bytes) -> None:
        now = time.perf_counter()
        stats = self.stats
        frame = json.loads(text)
        kind = frame["type"]
        if stats.measuring:
            stats.frames += 1
            stats.bytes += len(text)
        if kind == "ping":
            self.spawn(
                self.ws.send(
                    json.dumps(
                        {"v": 1, "type": "pong", "id": frame["id"], "client_time": now * 1000}
                    )
                )
            )
            return
        if kind == "error":
            stats.errors[frame["code"]] = stats.errors.get(frame["code"], 0) + 1
            return
        if kind != "update":
            return
        seq = frame["seq"]
        if stats.measuring:
            if seq > self.seq + 1:
                stats.lost += seq - self.seq - 1
            elif seq <= self.seq:
                stats.out_of_order += 1
        self.seq = max(self.seq, seq)
        view = frame["view"]
        if view is None:
            return
        flip_id = view["flip_id"]
        game_no = frame["room"]["game_no"]
        if any(e["type"] == "flipped" for e in frame["events"]):
            sent = self.room.sent.get((game_no, flip_id))
            if sent is not None and stats.measuring:
                stats.delays.append((now - sent) * 1000.0)
        me = view["seat"]
        self.game_no = game_no
        if view["over"]:
            if self.rematched != game_no:
                self.rematched = game_no
                self.spawn(self.send({"type": "rematch"}))
            return
        if view["turn"] == me and not view["race_open"]:
            key = (game_no, flip_id, me)
            if self.acted_on != key:
                self.acted_on = key
                self.spawn(self.flip_later(game_no, flip_id))
        if view["race_open"] and self.slapped_flip != (game_no, flip_id) and not view["out"][me]:
            self.slapped_flip = (game_no, flip_id)
            self.spawn(self.slap_later(game_no, flip_id))

    async def flip_later(self, game_no: int, flip_id: int) -> None:
        await asyncio.sleep(self.rng.uniform(0.8, 1.2))
        if self.game_no != game_no:
            return  # the game ended meanwhile
        self.room.sent[(game_no, flip_id + 1)] = time.perf_counter()
        await self.send({"type": "flip", "flip_id": flip_id})

    async def slap_later(self, game_no: int, flip_id: int) -> None:
        reaction = max(150.0, self.rng.gauss(300.0, 60.0))
        await asyncio.sleep(reaction / 1000.0)
        if self.game_no != game_no:
            return
        await self.send(
            {
                "type": "slap",
                "flip_id": flip_id,
                "reaction_ms": reaction,
                "shown_at": 0.0,
                "input_at": reaction,
            }
        )


def start_server(
    data_dir: Path,
    referee: str,
    database_url: str | None = None,
    write_behind: bool = False,
    serve_args: Sequence[str] = (),
) -> tuple[subprocess.Popen[str], str]:
    extra = ["--database-url", database_url] if database_url else []
    if write_behind:
        extra.append("--write-behind")
    extra.extend(serve_args)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "slapjack.cli",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            "--log-level",
            "warning",
            "--referee",
            referee,
            "--no-rate-limits",  # every simulated player comes from this one address
            *extra,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    url = line.strip().rsplit(" ", 1)[-1].rstrip("/")
    for _ in range(200):
        try:
            if httpx.get(f"{url}/api/rooms", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("server did not answer")


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def proc_memory_mb(pid: int) -> tuple[float, float]:
    rss = hwm = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1]) / 1024
    return rss, hwm


def cpu_pressure() -> float | None:
    """The share of the last 10 s in which some task waited for a CPU (PSI), %."""
    try:
        line = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    return float(line.split()[1].split("=")[1])


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q / 100.0 * len(values)))]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="slapjack-load-"))
    if args.url:
        proc, url = None, args.url.rstrip("/")
    else:
        proc, url = start_server(
            data_dir,
            args.referee,
            args.database_url,
            args.write_behind,
            shlex.split(args.serve_args),
        )
    pid = int(httpx.get(f"{url}/api/metrics").json()["pid"])
    ws_url = url.replace("http://", "ws://")
    stats = Stats()
    rng = random.Random(args.seed)
    tasks: list[asyncio.Task[None]] = []
    try:
        rooms = args.players // SEATS
        t_ramp = time.perf_counter()
        limits = httpx.Limits(max_connections=16)
        seats: list[tuple[RoomRun, str]] = []
        gate = asyncio.Semaphore(16)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as http:

            async def make_room() -> None:
                async with gate:
                    body = {"seats": SEATS, "public": False, "turn_seconds": 5}
                    code = (await http.post("/api/rooms", json=body)).json()["code"]
                    room = RoomRun(code)
                    for s in range(SEATS):
                        path = f"/api/rooms/{code}/join"
                        joined = (await http.post(path, json={"name": f"P{s}"})).json()
                        seats.append((room, joined["token"]))

            await asyncio.gather(*(make_room() for _ in range(rooms)))
        print(f"  {rooms} rooms made in {time.perf_counter() - t_ramp:.1f} s", file=sys.stderr)
        for i, (room, token) in enumerate(seats):
            player = Player(
                f"{ws_url}/ws/{room.code}", room, token, stats, random.Random(rng.random())
            )
            tasks.append(asyncio.create_task(player.run()))
            if i % SEATS == SEATS - 1:
                await asyncio.sleep(SEATS / args.ramp_rate)
            if i % 400 == 399:
                print(f"  {stats.connected} players connected", file=sys.stderr)
        await asyncio.sleep(args.settle)
        ramp_s = time.perf_counter() - t_ramp
        cpu0, t0 = proc_cpu_seconds(pid), time.perf_counter()
        me0 = proc_cpu_seconds(os.getpid())
        httpx.get(f"{url}/api/metrics", params={"reset": True})
        stats.measuring = True
        await asyncio.sleep(args.seconds)
        stats.measuring = False
        cpu1, t1 = proc_cpu_seconds(pid), time.perf_counter()
        me1 = proc_cpu_seconds(os.getpid())
        rss, hwm = proc_memory_mb(pid)
        server_metrics = httpx.get(
            f"{url}/api/metrics", params={"objects": True}, timeout=30
        ).json()
        wall = t1 - t0
        if os.environ.get("LOAD_DEBUG"):
            print(sorted(stats.delays)[-40:], file=sys.stderr)
        result = {
            "players": args.players,
            "rooms": rooms,
            "connected": stats.connected,
            "closed": stats.closed,
            "ramp_s": round(ramp_s, 1),
            "seconds": round(wall, 1),
            "frames_per_s": round(stats.frames / wall, 1),
            "kbytes_per_s": round(stats.bytes / wall / 1024, 1),
            "flip_delays": len(stats.delays),
            "delay_p50_ms": round(pct(stats.delays, 50), 2),
            "delay_p99_ms": round(pct(stats.delays, 99), 2),
            "delay_max_ms": round(max(stats.delays), 2) if stats.delays else None,
            "delay_mean_ms": round(statistics.fmean(stats.delays), 2) if stats.delays else None,
            "lost": stats.lost,
            "out_of_order": stats.out_of_order,
            "errors": stats.errors,
            "server_cpu_pct": round(100.0 * (cpu1 - cpu0) / wall, 1),
            "server_rss_mb": round(rss, 1),
            "generator_cpu_pct": round(100.0 * (me1 - me0) / wall, 1),
            "load_average": round(os.getloadavg()[0], 2),
            "cpu_pressure_pct": cpu_pressure(),
            "server": server_metrics,
            "server_peak_rss_mb": round(hwm, 1),
        }
        return result
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(data_dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=2000, help="WebSocket clients (4 per room)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measurement time")
    parser.add_argument(
        "--ramp-rate", type=float, default=400.0, help="players connected per second"
    )
    parser.add_argument(
        "--settle", type=float, default=5.0, help="seconds between ramp-up and measuring"
    )
    parser.add_argument("--referee", choices=["fair", "arrival"], default="arrival")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--write-behind", action="store_true", help="run the server with --write-behind"
    )
    parser.add_argument("--url", default=None, help="use a running server (same machine)")
    parser.add_argument(
        "--database-url", default=None, help="passed to slapjack serve (default: SQLite file)"
    )
    parser.add_argument(
        "--serve-args", default="", help='more options for slapjack serve, e.g. "--compress"'
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    if args.players < SEATS:
        parser.error("--players must be at least 4")
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>20}: {value}")


if __name__ == "__main__":
    main()
