"""Load benchmark of the game server (issues 3 and 14).

Starts ``slapjack serve`` as a subprocess (one server process, production
defaults: the fair referee, write-ahead SQLite, pings, seat tokens), then opens
``--players`` WebSocket clients in 4-seat rooms on loopback from ``--procs``
generator processes. The clients play at human pace: the player on turn flips
about once a second (0.8-1.2 s after its turn comes), every seat slaps each
Jack after a human reaction time (normal, mean 300 ms, sd 60 ms), every
ping is answered with a pong; finished games are rematched.

The generator is meant to cost little per frame so that it can drive
thousands of players from one core: the clients are picows (a WebSocket
library written in Cython) on uvloop, frames are parsed with orjson, flips and
slaps are ``call_later`` timers, not tasks. All four seats of a room live in
one generator process, so a flip's delay to each of them is measured on one
clock. With ``--pin`` the server runs under ``taskset -c 0`` and every
generator process under ``taskset -c 1`` (a 2-core machine: one core each).

A generator that cannot keep up would make the server look slow (its frames
wait in the socket buffers) or fast (it sends fewer flips): every generator
process reports its own CPU and how late its timers fire (``gen_lag_*``), and
``generator_ok`` is false when a process used more than 90 % of a core or its
timers were more than 20 ms late at p99.

After a ramp-up it measures for ``--seconds`` and prints: connected players,
frames/s received, the p50/p99 delay from a client sending a flip to the
update with that flip arriving at each client (``delay_*``) and at the last
client of its room (``all_*``), lost or out-of-order frames (by ``seq``), the
server's CPU (and per player-second), its memory (and per player, over the
idle server), and the generators' CPU and lag.

    .venv/bin/python bench/load.py --players 2000 --seconds 30
    .venv/bin/python bench/load.py --players 5000 --seconds 30 --pin --procs 2
    .venv/bin/python bench/load.py --players 6000 --pin --profile prof.raw  # + py-spy's tables

``--profile FILE``: py-spy samples the server over the measured window (on
the generators' CPU with ``--pin``), its raw stacks go to FILE and
``bench/flipcost.py``'s per-flip tables to stderr.

No server process outlives a run: the server runs in a session of its own,
which is killed on the way out (also on Ctrl-C, SIGTERM and the overall time
bound, ``--deadline``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import platform
import random
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from ipaddress import ip_address
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from flipcost import samples, tables  # bench/, this script's own folder

try:
    import orjson
    from picows import WSListener, WSMsgType, ws_connect
except ImportError:  # pragma: no cover
    raise SystemExit("bench/load.py needs picows and orjson: pip install picows orjson") from None

loads = orjson.loads
TEXT = WSMsgType.TEXT
CLOSE = WSMsgType.CLOSE

SEATS = 4
SERVER_CPU = 0
GENERATOR_CPU = 1


# --------------------------------------------------------------- generator


@dataclass
class WorkerStats:
    frames: int = 0
    bytes: int = 0
    delays: list[float] = field(default_factory=list)
    """Per client: a flip sent -> the update with it at that client (ms)."""
    all_delays: list[float] = field(default_factory=list)
    """Per flip: sent -> the update with it at the last client of the room (ms)."""
    lost: int = 0
    out_of_order: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    connected: int = 0
    closed: int = 0
    flips_sent: int = 0
    slaps_sent: int = 0
    pongs_sent: int = 0
    lateness: list[float] = field(default_factory=list)
    """How late this process's flip/slap timers fired (ms): its own lag."""
    cpu_s: float = 0.0
    wall_s: float = 0.0


class RoomRun:
    __slots__ = ("code", "sent")

    def __init__(self, code: str) -> None:
        self.code = code
        self.sent: dict[tuple[int, int], list[float]] = {}
        """(game_no, flip_id after the flip) -> [sent at, clients still to get it, last]."""


class Player(WSListener):  # type: ignore[misc]
    """One client: a picows listener that plays at human pace."""

    __slots__ = (
        "acted_on",
        "game_no",
        "loop",
        "prefix",
        "rematched",
        "rng",
        "room",
        "seq",
        "slapped_flip",
        "stats",
        "token",
        "transport",
        "w",
    )

    def __init__(self, w: Worker, room: RoomRun, token: str, rng: random.Random) -> None:
        self.w = w
        self.loop = w.loop
        self.room = room
        self.token = token
        self.prefix = b'{"v":1,"token":' + orjson.dumps(token) + b","
        self.stats = w.stats
        self.rng = rng
        self.seq = 0
        self.transport: Any = None
        self.acted_on: tuple[int, int, int] | None = None
        self.slapped_flip: tuple[int, int] | None = None
        self.rematched = -1
        self.game_no = 0

    def itself(self) -> Player:
        return self

    # picows calls these
    def on_ws_connected(self, transport: Any) -> None:
        self.transport = transport
        transport.send(TEXT, self.prefix + b'"type":"hello"}')
        self.stats.connected += 1

    def on_ws_disconnected(self, transport: Any) -> None:
        self.stats.connected -= 1
        self.stats.closed += 1

    def on_ws_frame(self, transport: Any, frame: Any) -> None:
        if frame.msg_type != TEXT:
            if frame.msg_type == CLOSE:
                transport.send_close(frame.get_close_code())
                transport.disconnect()
            return
        data = frame.get_payload_as_bytes()
        now = time.perf_counter()
        self.on_frame(data, now)

    def send(self, body: bytes) -> None:
        if self.transport is not None and not self.transport.is_disconnected:
            self.transport.send(TEXT, self.prefix + body)

    def on_frame(self, data: bytes, now: float) -> None:
        stats = self.stats
        frame = loads(data)
        kind = frame["type"]
        measuring = self.w.measuring
        if measuring:
            stats.frames += 1
            stats.bytes += len(data)
        if kind == "ping":
            self.transport.send(
                TEXT,
                b'{"v":1,"type":"pong","id":%d,"client_time":%.3f}' % (frame["id"], now * 1000),
            )
            stats.pongs_sent += measuring
            return
        if kind == "error":
            stats.errors[frame["code"]] = stats.errors.get(frame["code"], 0) + 1
            return
        if kind != "update":
            return
        seq = frame["seq"]
        if self.seq and measuring:
            if seq > self.seq + 1:
                stats.lost += seq - self.seq - 1
            elif seq <= self.seq:
                stats.out_of_order += 1
        if seq > self.seq:
            self.seq = seq
        view = frame["view"]
        if view is None:
            return
        flip_id = view["flip_id"]
        game_no = frame["room"]["game_no"]
        for e in frame["events"]:
            if e["type"] == "flipped":
                sent = self.room.sent.get((game_no, flip_id))
                if sent is not None:
                    delay = (now - sent[0]) * 1000.0
                    sent[1] -= 1
                    if measuring:
                        stats.delays.append(delay)
                        if sent[1] == 0:
                            stats.all_delays.append(delay)
                    if sent[1] == 0:
                        del self.room.sent[(game_no, flip_id)]
                break
        me = view["seat"]
        self.game_no = game_no
        if view["over"]:
            if self.rematched != game_no:
                self.rematched = game_no
                self.send(b'"type":"rematch"}')
            return
        race_open = view["race_open"]
        if view["turn"] == me and not race_open:
            key = (game_no, flip_id, me)
            if self.acted_on != key:
                self.acted_on = key
                delay = self.rng.uniform(0.8, 1.2)
                self.loop.call_later(delay, self.flip, game_no, flip_id, now + delay)
        if race_open and self.slapped_flip != (game_no, flip_id) and not view["out"][me]:
            self.slapped_flip = (game_no, flip_id)
            reaction = max(150.0, self.rng.gauss(300.0, 60.0))
            due = now + reaction / 1000.0
            self.loop.call_later(
                reaction / 1000.0, self.slap, game_no, flip_id, reaction, now * 1000.0, due
            )

    def flip(self, game_no: int, flip_id: int, due: float) -> None:
        now = time.perf_counter()
        w = self.w
        if w.measuring:
            self.stats.lateness.append((now - due) * 1000.0)
            self.stats.flips_sent += 1
        if self.game_no != game_no:
            return  # the game ended meanwhile
        room = self.room
        if len(room.sent) > 64:  # flips whose update never came (the game moved on)
            for key in list(room.sent)[:32]:
                del room.sent[key]
        room.sent[(game_no, flip_id + 1)] = [now, w.room_size, 0.0]
        self.send(b'"type":"flip","flip_id":%d}' % flip_id)

    def slap(
        self, game_no: int, flip_id: int, reaction: float, shown_at: float, due: float
    ) -> None:
        if self.w.measuring:
            self.stats.lateness.append((time.perf_counter() - due) * 1000.0)
            self.stats.slaps_sent += 1
        if self.game_no != game_no:
            return
        self.send(
            # An honest client's stamps, on the clock of its pongs (ms): the card
            # shown when its update came, the slap a reaction later. (Stamps that
            # contradict the clock sync would get every seat held for "stamps"
            # after a few slaps, and the fair referee skips its costlier checks
            # for a held seat: the benchmark would not measure the default.)
            b'"type":"slap","flip_id":%d,"reaction_ms":%.1f,"shown_at":%.3f,"input_at":%.3f}'
            % (flip_id, reaction, shown_at, shown_at + reaction)
        )


class Worker:
    """One generator process: makes its rooms, connects its players, plays."""

    def __init__(self, index: int, args: dict[str, Any]) -> None:
        self.index = index
        self.args = args
        self.stats = WorkerStats()
        self.measuring = False
        self.room_size = SEATS
        self.loop = asyncio.get_running_loop()
        self.players: list[Player] = []

    async def make_rooms(self, url: str, rooms: int) -> list[tuple[RoomRun, str]]:
        seats: list[tuple[RoomRun, str]] = []
        gate = asyncio.Semaphore(8)
        limits = httpx.Limits(max_connections=8)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as http:

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
        return seats

    async def connect(self, seats: list[tuple[RoomRun, str]], ws_url: str, rate: float) -> None:
        rng = random.Random(self.args["seed"] * 1000 + self.index)
        pending: list[asyncio.Task[Any]] = []
        for i, (room, token) in enumerate(seats):
            player = Player(self, room, token, random.Random(rng.random()))
            self.players.append(player)
            pending.append(
                self.loop.create_task(
                    ws_connect(
                        player.itself,
                        f"{ws_url}/ws/{room.code}",
                        enable_auto_pong=True,
                        websocket_handshake_timeout=60,
                    )
                )
            )
            if i % SEATS == SEATS - 1:
                await asyncio.sleep(SEATS / rate)
        for result in await asyncio.gather(*pending, return_exceptions=True):
            if isinstance(result, BaseException):
                key = f"connect:{type(result).__name__}: {result}"[:120]
                self.stats.errors[key] = self.stats.errors.get(key, 0) + 1

    async def probe(self) -> None:
        """A timer every 20 ms: the loop's own lateness, counted with the flips'."""
        every = 0.02
        while True:
            due = time.perf_counter() + every
            await asyncio.sleep(every)
            if self.measuring:
                self.stats.lateness.append((time.perf_counter() - due) * 1000.0)


def worker_main(index: int, args: dict[str, Any], pipe: Connection) -> None:
    if args["pin"]:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {GENERATOR_CPU})
    raise_nofile()
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(_worker(index, args, pipe))


async def _worker(index: int, args: dict[str, Any], pipe: Connection) -> None:
    w = Worker(index, args)
    loop = w.loop
    seats = await w.make_rooms(args["url"], args["rooms"])
    pipe.send(("rooms", len(seats)))
    await w.connect(seats, args["url"].replace("http://", "ws://"), args["rate"])
    probe = loop.create_task(w.probe())
    await asyncio.sleep(0.5)
    pipe.send(("connected", w.stats.connected))

    async def command() -> str:
        message: str = await loop.run_in_executor(None, pipe.recv)
        return message

    assert await command() == "measure"
    cpu0, t0 = time.process_time(), time.perf_counter()
    w.measuring = True
    assert await command() == "stop"
    w.measuring = False
    w.stats.cpu_s, w.stats.wall_s = time.process_time() - cpu0, time.perf_counter() - t0
    pipe.send(("stats", asdict(w.stats)))
    assert await command() == "quit"
    probe.cancel()
    for p in w.players:
        if p.transport is not None:
            p.transport.disconnect()


# --------------------------------------------------------------- the server


def raise_nofile() -> None:
    """Sockets are files: raise the soft limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


SERVER_FILES = 200
"""Open files a server needs besides its players' sockets (the store's files,
the listener, pipes, the interpreter's own), with room to spare."""


def files_refusal(players: int) -> str | None:
    """Why a server started here could not hold ``players`` sockets (None: it
    can): every socket is an open file, and a server inherits this process's
    limit, raised to the hard one (which only a privileged process may raise;
    this machine's is 20,000, and its container may not raise it even as root).
    A run past it fails midway when the server can accept no more."""
    raise_nofile()
    allowed, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if players + SERVER_FILES <= allowed:
        return None
    return (
        f"{players} players need about {players + SERVER_FILES} open files in the server;"
        f" this machine allows a process {allowed} (ulimit -Hn):"
        f" at most {allowed - SERVER_FILES} players here"
    )


def start_server(
    data_dir: Path,
    referee: str | None,
    database_url: str | None = None,
    write_behind: bool = False,
    serve_args: Sequence[str] = (),
    pin: bool = False,
) -> tuple[subprocess.Popen[str], str]:
    """``slapjack serve`` on a free loopback port, in a session of its own
    (see :func:`stop_server`); ``pin``: under ``taskset -c 0``."""
    extra = ["--database-url", database_url] if database_url else []
    if referee is not None:
        extra += ["--referee", referee]
    if write_behind:
        extra.append("--write-behind")
    extra.extend(serve_args)
    command = [
        sys.executable,
        "-m",
        "slapjack.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
        "--log-level",
        "warning",
        "--no-rate-limits",  # every simulated player comes from this one address
        *extra,
    ]
    if pin:
        taskset = shutil.which("taskset")
        if taskset is None:
            raise SystemExit("--pin needs taskset (util-linux)")
        command = [taskset, "-c", str(SERVER_CPU), *command]
    return launch_server(command)


def launch_server(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Run a ``slapjack serve`` ``command`` in a session of its own; its address
    once it answers (it prints the address first)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        stop_server(proc)
        raise SystemExit(f"server did not start: {line!r}")
    url = line.strip().rsplit(" ", 1)[-1].rstrip("/")
    for _ in range(200):
        try:
            if httpx.get(f"{url}/api/rooms", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    stop_server(proc)
    raise SystemExit("server did not answer")


def stop_server(proc: subprocess.Popen[str]) -> None:
    """SIGTERM to the server's whole session, SIGKILL after 10 s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


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


def server_python(pid: int) -> dict[str, Any]:
    """The server process's interpreter: its executable, the Python version
    (this script's when the script started the server with its own
    interpreter, else unknown) and whether libpython is a shared library
    mapped into the process or linked into the executable. The same code runs
    at quite different speeds on different builds of one Python version
    (docs/benchmarks.md, "The interpreter"), so a figure says which it had."""
    try:
        exe = os.path.realpath(f"/proc/{pid}/exe")
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return {"executable": None, "version": None, "libpython": None}
    mine = os.path.realpath(sys.executable)
    return {
        "executable": exe,
        "version": platform.python_version() if exe == mine else None,
        "libpython": "shared" if "/libpython" in maps else "static",
    }


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


def check_loopback(url: str) -> None:
    host = urlsplit(url).hostname or ""
    try:
        loopback = host == "localhost" or ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise SystemExit(f"load only goes to loopback, not {host!r}")


# --------------------------------------------------------------- one run


def run(args: argparse.Namespace) -> dict[str, Any]:
    """One measurement; the server (if this started it) is gone when it returns."""
    raise_nofile()
    if args.pin:
        os.sched_setaffinity(0, {GENERATOR_CPU})
    data_dir = Path(tempfile.mkdtemp(prefix="slapjack-load-"))
    proc: subprocess.Popen[str] | None = None
    workers: list[tuple[Any, Connection]] = []
    spy: subprocess.Popen[str] | None = None
    finished = False
    try:
        if args.url:
            check_loopback(args.url)
            url = args.url.rstrip("/")
        else:
            proc, url = start_server(
                data_dir,
                args.referee,
                args.database_url,
                args.write_behind,
                shlex.split(args.serve_args),
                args.pin,
            )
        pid = int(httpx.get(f"{url}/api/metrics", timeout=60).json()["pid"])
        rss_idle, _ = proc_memory_mb(pid)
        interpreter = server_python(pid)
        rooms = args.players // SEATS
        procs = max(1, min(args.procs, rooms))
        ctx = mp.get_context("spawn")
        t_ramp = time.perf_counter()
        for i in range(procs):
            share = rooms // procs + (1 if i < rooms % procs else 0)
            params = {
                "url": url,
                "rooms": share,
                "rate": args.ramp_rate / procs,
                "seed": args.seed,
                "pin": args.pin,
            }
            here, there = ctx.Pipe()
            p = ctx.Process(target=worker_main, args=(i, params, there), daemon=True)
            p.start()
            there.close()  # the child's end: a generator that dies is seen at once (EOF)
            workers.append((p, here))

        def gather(kind: str) -> list[Any]:
            out = []
            for p, pipe in workers:
                try:
                    if not pipe.poll(args.deadline):
                        raise SystemExit(f"generator {p.pid} did not answer ({kind})")
                    got, value = pipe.recv()
                except EOFError:
                    raise SystemExit(f"generator {p.pid} died ({kind})") from None
                assert got == kind, (got, kind)
                out.append(value)
            return out

        made = sum(gather("rooms"))
        print(
            f"  {made // SEATS} rooms made in {time.perf_counter() - t_ramp:.1f} s", file=sys.stderr
        )
        connected = sum(gather("connected"))
        print(f"  {connected} players connected", file=sys.stderr)
        time.sleep(args.settle)
        ramp_s = time.perf_counter() - t_ramp
        httpx.get(f"{url}/api/metrics", params={"reset": True}, timeout=60)
        cpu0, t0 = proc_cpu_seconds(pid), time.perf_counter()
        for _, pipe in workers:
            pipe.send("measure")
        if args.profile is not None:
            spy = start_profiler(args.spy, pid, args.seconds, args.profile, args.pin)
        time.sleep(args.seconds)
        cpu1, t1 = proc_cpu_seconds(pid), time.perf_counter()
        for _, pipe in workers:
            pipe.send("stop")
        rss, hwm = proc_memory_mb(pid)
        parts = gather("stats")
        server_metrics = httpx.get(
            f"{url}/api/metrics", params={"objects": True}, timeout=60
        ).json()
        for _, pipe in workers:
            pipe.send("quit")
        wall = t1 - t0
        out = summarise(args, parts, server_metrics, wall, cpu1 - cpu0, rss, hwm, rss_idle, ramp_s)
        out = {k: v for k, v in out.items() if k != "server"} | {
            "server_python": interpreter,
            "server": out["server"],
        }
        if spy is not None:
            out["profile"] = profile_report(
                spy, args.profile, cpu1 - cpu0, out["flips_per_s"] * wall, args.seconds
            )
        if args.after_leave > 0:
            out["after_leave"] = after_leave(url, workers, server_metrics, args.after_leave)
        finished = True
        return out
    finally:
        if spy is not None and spy.poll() is None:
            spy.kill()
            spy.wait()
        for p, _pipe in workers:
            p.join(10 if finished else 0.5)  # told to quit; else not told: ended now
            if p.is_alive():
                p.kill()
        if proc is not None:
            stop_server(proc)
        shutil.rmtree(data_dir, ignore_errors=True)


PROFILE_HZ = 100
"""py-spy's samples a second for ``--profile`` (each sample stops nothing:
``--nonblocking``, but reading the server's memory still costs it: a p99
measured with ``--profile`` is not the server's own)."""


def py_spy() -> str | None:
    """The py-spy command: beside this interpreter (the virtualenv's) or on PATH."""
    here = Path(sys.executable).with_name("py-spy")
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    return shutil.which("py-spy")


def start_profiler(
    spy: str, pid: int, seconds: float, out: str, pin: bool
) -> subprocess.Popen[str]:
    """py-spy recording ``pid`` for ``seconds`` (whole seconds, at least one)
    into ``out`` as raw collapsed stacks; on the generators' CPU with ``pin``."""
    command = [spy, "record", "-p", str(pid), "-d", str(max(1, round(seconds)))]
    command += ["-r", str(PROFILE_HZ), "-f", "raw", "-o", out, "--nonblocking"]
    if pin:
        taskset = shutil.which("taskset")
        if taskset is not None:
            command = [taskset, "-c", str(GENERATOR_CPU), *command]
    return subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def profile_report(
    spy: subprocess.Popen[str], out: str, cpu_s: float, flips: float, seconds: float
) -> dict[str, Any]:
    """Wait for py-spy, print where the server's CPU went (bench/flipcost.py's
    tables, per flip over the measured window) on stderr, and sum it up."""
    try:
        _, err = spy.communicate(timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        spy.kill()
        raise SystemExit("py-spy did not finish") from None
    if spy.returncode != 0 or not Path(out).is_file():
        raise SystemExit(f"py-spy failed ({spy.returncode}): {(err or '').strip()[-500:]}")
    lines = Path(out).read_text().splitlines()
    counted = sum(n for _, n in samples(lines))
    print(tables(lines, cpu_s, flips, top=25), file=sys.stderr)
    return {
        "file": out,
        "samples": counted,
        "rate_hz": PROFILE_HZ,
        "server_cpu_s": round(cpu_s, 2),
        "flips": round(flips),
        "server_us_per_flip": round(1e6 * cpu_s / flips, 1) if flips else None,
    }


def after_leave(
    url: str, workers: list[tuple[Any, Connection]], playing: dict[str, Any], wait_s: float
) -> dict[str, Any]:
    """Every player gone (the generators end, their sockets close), then
    ``wait_s`` seconds: the memory blocks the server still holds against those
    it held while they played. What a leaving player's socket held is freed by
    reference counting at once unless it was part of a reference cycle; such
    garbage waits for a full collection (``gc.full`` counts them: a run where
    one came in between says nothing about it)."""
    for p, _pipe in workers:
        p.join(30)
    time.sleep(wait_s)
    left = httpx.get(f"{url}/api/metrics", timeout=60).json()
    before, after = playing["gc"], left["gc"]
    players = int(playing.get("connections", 0))
    return {
        "seconds": wait_s,
        "connections": left.get("connections"),
        "blocks_playing": before["blocks"],
        "blocks_left": after["blocks"],
        "blocks_freed_per_player": round((before["blocks"] - after["blocks"]) / max(players, 1), 1),
        "full_collections_between": after["full"] - before["full"],
    }


def summarise(
    args: argparse.Namespace,
    parts: list[dict[str, Any]],
    server_metrics: dict[str, Any],
    wall: float,
    server_cpu_s: float,
    rss: float,
    hwm: float,
    rss_idle: float,
    ramp_s: float,
) -> dict[str, Any]:
    def total(key: str) -> int:
        return sum(int(p[key]) for p in parts)

    delays = [d for p in parts for d in p["delays"]]
    all_delays = [d for p in parts for d in p["all_delays"]]
    lateness = [d for p in parts for d in p["lateness"]]
    errors: dict[str, int] = {}
    for p in parts:
        for k, v in p["errors"].items():
            errors[k] = errors.get(k, 0) + v
    gen_cpu = [100.0 * p["cpu_s"] / max(p["wall_s"], 1e-9) for p in parts]
    connected = total("connected")
    players = args.players - args.players % SEATS
    lag_p99 = pct(lateness, 99)
    counts = server_metrics.get("counts", {})
    frames_both = total("frames") + total("flips_sent") + total("slaps_sent") + total("pongs_sent")
    # (frames the server wrote, as the clients counted them, and the game
    # frames and pongs it read: a per-frame cost that does not flatter a
    # server that was starved of CPU and so sent fewer pings and updates)
    return {
        "players": players,
        "rooms": players // SEATS,
        "referee": args.referee or "default (fair)",
        "connected": connected,
        "closed": total("closed"),
        "ramp_s": round(ramp_s, 1),
        "seconds": round(wall, 1),
        "frames_per_s": round(total("frames") / wall, 1),
        "kbytes_per_s": round(total("bytes") / wall / 1024, 1),
        "flips_per_s": round(total("flips_sent") / wall, 1),
        "slaps_per_s": round(total("slaps_sent") / wall, 1),
        "pongs_per_s": round(total("pongs_sent") / wall, 1),
        # pings the server wrote alone, and in the write of another frame
        # (server/pings.py; absent from a server that does not count them)
        "pings_alone_per_s": round(counts.get("pings_alone", 0) / wall, 1),
        "pings_rode_per_s": round(counts.get("pings_rode", 0) / wall, 1),
        "flip_delays": len(delays),
        "delay_p50_ms": round(pct(delays, 50), 2),
        "delay_p99_ms": round(pct(delays, 99), 2),
        "delay_max_ms": round(max(delays), 2) if delays else None,
        "delay_mean_ms": round(statistics.fmean(delays), 2) if delays else None,
        "all_p50_ms": round(pct(all_delays, 50), 2),
        "all_p99_ms": round(pct(all_delays, 99), 2),
        "lost": total("lost"),
        "out_of_order": total("out_of_order"),
        "errors": errors,
        "server_cpu_pct": round(100.0 * server_cpu_s / wall, 1),
        "server_us_per_player_s": round(1e6 * server_cpu_s / wall / max(connected, 1), 1),
        "server_us_per_frame": round(1e6 * server_cpu_s / max(frames_both, 1), 1),
        "server_rss_mb": round(rss, 1),
        "server_kb_per_player": round(1024 * (rss - rss_idle) / max(connected, 1), 1),
        "server_peak_rss_mb": round(hwm, 1),
        "generator_procs": len(parts),
        "generator_cpu_pct": [round(c, 1) for c in gen_cpu],
        "gen_lag_p50_ms": round(pct(lateness, 50), 2),
        "gen_lag_p99_ms": round(lag_p99, 2),
        "gen_lag_max_ms": round(max(lateness), 2) if lateness else None,
        "generator_ok": bool(
            (not gen_cpu or max(gen_cpu) < 90.0)
            and sum(gen_cpu) < 90.0 * (1 if args.pin else os.cpu_count() or 1)
            and lag_p99 < 20.0
        ),
        "pinned": args.pin,
        "load_average": round(os.getloadavg()[0], 2),
        "cpu_pressure_pct": cpu_pressure(),
        "server": server_metrics,
    }


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--players", type=int, default=2000, help="WebSocket clients (4 per room)")
    p.add_argument("--seconds", type=float, default=30.0, help="measurement time")
    p.add_argument("--ramp-rate", type=float, default=400.0, help="players connected per second")
    p.add_argument(
        "--settle", type=float, default=5.0, help="seconds between ramp-up and measuring"
    )
    p.add_argument(
        "--referee", choices=["fair", "arrival"], default=None, help="default: the server's (fair)"
    )
    p.add_argument("--procs", type=int, default=2, help="generator processes")
    p.add_argument(
        "--pin", action="store_true", help="server on CPU 0, generators on CPU 1 (taskset)"
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--write-behind", action="store_true", help="run the server with --write-behind")
    p.add_argument("--url", default=None, help="use a running server (loopback only)")
    p.add_argument(
        "--database-url", default=None, help="passed to slapjack serve (default: SQLite file)"
    )
    p.add_argument(
        "--serve-args", default="", help='more options for slapjack serve, e.g. "--compress"'
    )
    p.add_argument(
        "--deadline", type=float, default=300.0, help="give up after this many seconds of waiting"
    )
    p.add_argument(
        "--after-leave",
        type=float,
        default=0.0,
        help="after the run, let every player leave, wait this long and report"
        " the memory blocks the server still holds (after_leave)",
    )
    p.add_argument(
        "--profile",
        default=None,
        metavar="FILE",
        help="sample the server with py-spy over the measured window (on the"
        " generators' CPU with --pin), write its raw stacks to FILE and print"
        " where the CPU went, per flip (bench/flipcost.py's tables)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def _bounded(seconds: float) -> None:
    """SIGALRM (the time bound), SIGTERM and SIGINT end the run through its
    ``finally`` clauses; the first of them only."""

    def stop(signum: int, frame: Any) -> None:
        # once: a second signal (a wrapper's own timeout, another Ctrl-C) must
        # not cut short the cleanup the first one started (the server's session
        # would outlive the run)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.alarm(0)
        raise SystemExit(f"load run stopped by signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGALRM, stop)
    signal.alarm(int(seconds))


def main() -> None:
    p = parser()
    args = p.parse_args()
    if args.players < SEATS:
        p.error("--players must be at least 4")
    if args.url is None and (why := files_refusal(args.players)) is not None:
        p.error(why)
    if args.profile is not None:
        args.spy = py_spy()
        if args.spy is None:
            p.error("--profile needs py-spy (in the dev extras: make setup; or pip install py-spy)")
    _bounded(
        args.deadline
        + args.seconds
        + args.settle
        + args.after_leave
        + args.players / args.ramp_rate
        + 90
    )
    result = run(args)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>24}: {value}")


if __name__ == "__main__":
    main()
