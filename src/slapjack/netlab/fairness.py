"""Benchmark of the fair referee (issue 5): does the faster hand win, whatever the network?

Real server, real WebSocket clients on loopback. The server (``create_app`` on
uvicorn, same process, port chosen free on 127.0.0.1) gets rooms of four human
seats through its test hook (``/api/test/rooms``: a stacked deck whose first
four flips are Jacks, ``after_jack=continue``, a short time limit, then a
rematch: four contested Jacks per game). Each seat is a WebSocket client whose
every frame, in each direction, is held back inside this harness for
``base + Exp(mean jitter)`` ms (per seat, independently; in order, as TCP
delivers). Each simulated player draws its true reaction for each Jack from the
bots' human model (``slapjack.bots.PROFILES``, all four the same level), stamps
"painted" when the card frame is delivered and "input" a reaction later, and
claims the difference, or, for a cheat, less.

Referees: ``arrival`` (the naive baseline), ``fair`` (clock-sync pings only)
and ``fair+tcp`` (``fair`` plus the kernel's TCP round-trip estimate; the delays
here are made inside the client, so the loopback kernel cannot see them: the
harness feeds the server the estimate a kernel would make of this simulated
network, RFC 6298 smoothing over the per-frame delays, which no cheat
controls).

For every scenario, cheat and referee it prints: the share of races the truly
fastest player won when the true gap to the second was >= 20 ms (and >= 10
ms), the median and 99th-percentile time from a Jack's card to its result at
the clients, and for a cheat its win rate (fair share 25 %) and its mean and
99th-percentile effective advantage (ms gained in the ranking relative to the
honest seats of the same race).

    python bench/fairness.py                      # everything, 1,000 races each
    python bench/fairness.py --scenarios home --cheats forger100 --races 300

Network modes (``--network``):

* ``harness`` (default): the delays are made inside this harness (class
  ``Link``), the server sees loopback; ``fair+tcp`` is fed an emulated kernel
  estimate (``feed_transport``).
* ``tun`` (Linux, root): the delays are made below TCP by :mod:`slapjack.netlab.tunnet`
  (a forwarder process between two TUN devices, each in a network namespace
  the run makes and removes itself: the server's, the clients' with one
  address per seat); the harness adds no delay of its own (the cheats still
  hold their pongs and forge their claims). Nothing is configured in, or sent
  from, the machine's own namespace: the server (still in this process and
  event loop) listens on a socket made in the server's namespace, each seat's
  WebSocket is a socket made in the clients' namespace, and the setup requests
  (rooms, joins) go from the clients' namespace too (a plain ``httpx`` client
  on threads that live there, from an address that is no seat's and gets no
  delay). The server sees the seats' real addresses, so it reads the real
  ``TCP_INFO`` of its real sockets: ``fair+tcp`` is that server, ``fair`` a
  second one with the reading switched off (``create_app(transport_rtt=False)``).
  Each row also gives the forwarder's timing error (lateness of its releases,
  p50/p99).

Bounded by ``--races`` and ``--max-seconds`` per run; stops by itself.

The code: this module plays the rooms and runs the study (and its command
line, :func:`main`); :mod:`.fairplayers` holds the simulated players and their
networks, :mod:`.fairserve` the servers, :mod:`.fairfigures` the statistics and
their printing. Their public names are importable from here too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from slapjack.server.fair import FairReferee

from . import tunnet
from .fairfigures import (
    HEADER,
    cheat_by_seat,
    cheat_line,
    format_row,
    forwarder_line,
    kernel_summary,
    markdown,
    pct,
    summarize,
    wilson,
)
from .fairplayers import (
    CHEAT_SCENARIOS,
    CHEATS,
    FLOOR_MS,
    NETWORKS,
    REFEREES,
    SCENARIOS,
    TIME_LIMIT_S,
    Cheat,
    Link,
    Race,
    Run,
    SeatClient,
)
from .fairserve import NamespaceHTTP, free_port, kernel_readings, serve, servers

__all__ = [
    "CHEATS",
    "CHEAT_SCENARIOS",
    "FLOOR_MS",
    "HEADER",
    "NETWORKS",
    "REFEREES",
    "SCENARIOS",
    "TIME_LIMIT_S",
    "Cheat",
    "Link",
    "NamespaceHTTP",
    "Race",
    "Run",
    "SeatClient",
    "bench",
    "cheat_by_seat",
    "cheat_line",
    "feed_transport",
    "format_row",
    "forwarder_line",
    "free_port",
    "kernel_readings",
    "kernel_summary",
    "lag_monitor",
    "main",
    "markdown",
    "note_hold",
    "pct",
    "plan",
    "play_room",
    "run_one",
    "serve",
    "servers",
    "summarize",
    "watch_network",
    "wilson",
]


# ------------------------------------------------------------------ a room


async def play_room(
    http: httpx.AsyncClient | NamespaceHTTP,
    ws_base: str,
    app: Any,
    run: Run,
    room_no: int,
    seed: int,
) -> None:
    base, jitter, seats = run.base, run.jitter, run.seats
    rng = random.Random(seed)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Q", "K"]
    jacks = ["JC", "JD", "JH", "JS"]
    # the first flips (one per seat, after_jack=continue) are Jacks
    deck = jacks[:seats] + [f"{r}{s}" for r in ranks for s in "CDHS"] + jacks[seats:]
    referee = "arrival" if run.referee == "arrival" else "fair"
    body = {
        "create": {
            "name": f"bench {room_no}",
            "seats": seats,
            "rules": {"preset": "classic", "after_jack": "continue", "tie": "split"},
            "time_limit": run.time_limit or TIME_LIMIT_S.get(run.scenario, 3),
            "turn_seconds": 0.5,
            "public": False,
        },
        "deck": deck,
        # a moment before the first flip for the first clock-sync pings
        "timing": {"start_delay_ms": 1500.0, "jack_timeout_ms": 3000.0},
        "referee": referee,
    }
    response = await http.post("/api/test/rooms", json=body)
    response.raise_for_status()
    code = response.json()["code"]
    cheat_seat = room_no % seats if run.cheat is not None else None
    clients: list[SeatClient] = []
    for seat in range(seats):
        joined = await http.post(f"/api/rooms/{code}/join", json={"name": f"P{seat}"})
        joined.raise_for_status()
        info = joined.json()
        # in tun mode the network below TCP makes the delays: the link passes frames through
        delays = (0.0, 0.0) if run.net is not None else (base[seat], jitter[seat])
        link = Link(*delays, random.Random(rng.random()))
        cheat = run.cheat if seat == cheat_seat else None
        clients.append(
            SeatClient(
                run,
                code,
                info["seat"],
                info["token"],
                link,
                cheat,
                random.Random(rng.random()),
                cheat_seat,
            )
        )
    feeder: asyncio.Task[None] | None = None
    try:
        for client in clients:
            await client.start(f"{ws_base}/ws/{code}")
        if run.referee == "fair+tcp" and run.net is None:
            feeder = asyncio.create_task(feed_transport(app, code, clients, run))
        await run.stop.wait()
        if cheat_seat is not None:
            note_hold(app, code, cheat_seat, run)
    finally:
        if feeder is not None:
            feeder.cancel()
        for client in clients:
            await client.close()


def note_hold(app: Any, code: str, seat: int, run: Run) -> None:
    """When the room's fair referee first held the cheat, and why it holds it now."""
    room = app.state.lobby.get(code)
    referee = getattr(room, "referee", None)
    if not isinstance(referee, FairReferee):
        return
    state = referee.seat(seat)
    run.holds.append((seat, state.first_held, state.slaps, state.reason))


async def feed_transport(app: Any, code: str, clients: Sequence[SeatClient], run: Run) -> None:
    """What the server would read with ``getsockopt(TCP_INFO)`` if these delays
    were made by the network instead of the client harness."""
    lobby = app.state.lobby
    while not run.stop.is_set():
        room = lobby.get(code)
        referee = getattr(room, "referee", None)
        hook = getattr(referee, "on_transport_rtt", None)
        if room is not None and hook is not None:
            for c in clients:
                if c.link.srtt is not None:
                    hook(c.seat, c.link.srtt, c.link.rttvar, c.link.min_rtt, room.now())
        await asyncio.sleep(0.5)


# ------------------------------------------------------------------ driver


async def run_one(
    app: Any,
    http_base: str,
    ws_base: str,
    run: Run,
    rooms: int,
    seed: int,
    max_seconds: float = 300.0,
) -> dict[str, Any]:
    """Play ``run`` in ``rooms`` rooms at once until it has its races (or time is up)."""
    started = time.monotonic()
    if run.net is not None:
        run.net.set_delays(list(zip(run.base, run.jitter, strict=True)))
        run.net.stats(reset=True)
    readings = kernel_readings() if run.net is not None else contextlib.nullcontext({})
    with readings as seen:
        await _play(http_base, ws_base, app, run, rooms, seed, max_seconds)
    result = summarize(run)
    result["seconds"] = round(time.monotonic() - started, 1)
    result["network"] = "harness" if run.net is None else "tun"
    if run.net is not None:
        result["forwarder"] = run.net.stats().as_dict()
        result["kernel"] = kernel_summary(run, seen)
    return result


async def _play(
    http_base: str, ws_base: str, app: Any, run: Run, rooms: int, seed: int, max_seconds: float
) -> None:
    http: httpx.AsyncClient | NamespaceHTTP
    if run.net is None:
        http = httpx.AsyncClient(base_url=http_base, timeout=30.0)
    else:
        http = NamespaceHTTP(run.net, http_base)
    async with http:
        tasks = [
            asyncio.create_task(play_room(http, ws_base, app, run, i, seed * 1000 + i))
            for i in range(rooms)
        ]
        stopper = asyncio.create_task(run.stop.wait())
        try:
            await asyncio.wait(
                [stopper, *tasks], timeout=max_seconds, return_when=asyncio.FIRST_COMPLETED
            )
        except asyncio.CancelledError:  # stopped from outside: close every room first
            run.stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        run.stop.set()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]


async def lag_monitor(samples: list[float]) -> None:
    """How late the event loop wakes up (everything shares it)."""
    loop = asyncio.get_running_loop()
    while True:
        t = loop.time()
        await asyncio.sleep(0.01)
        samples.append((loop.time() - t - 0.01) * 1000.0)


def plan(
    scenarios: Sequence[str], cheats: Sequence[str], referees: Sequence[str]
) -> list[tuple[str, str | None, str]]:
    out: list[tuple[str, str | None, str]] = []
    for scenario in scenarios:
        for referee in referees:
            out.append((scenario, None, referee))
        if scenario in CHEAT_SCENARIOS:
            for cheat in cheats:
                for referee in referees:
                    out.append((scenario, cheat, referee))
    return out


async def watch_network(net: Any, main: asyncio.Task[Any]) -> None:
    """Tun mode: a dead forwarder (the network went with it) ends the run at
    once, like a kill, instead of every room waiting out its timeouts."""
    while net.alive():
        await asyncio.sleep(0.5)
    main.cancel()


async def bench(args: argparse.Namespace, net: Any = None) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    lag: list[float] = []
    main = asyncio.current_task()
    watcher: asyncio.Task[None] | None = None
    if net is not None and main is not None:
        # a kill ends the run like Ctrl-C: every server, client and the network closed
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main.cancel)
        watcher = asyncio.create_task(watch_network(net, main))
    monitor = asyncio.create_task(lag_monitor(lag))
    with tempfile.TemporaryDirectory(prefix="slapjack-fairness-") as tmp:
        Path(tmp, "tcp").mkdir()
        Path(tmp, "notcp").mkdir()
        async with servers(tmp, net) as pick:
            for i, (scenario, cheat, referee) in enumerate(
                plan(args.scenarios, args.cheats, args.referees)
            ):
                lag.clear()
                run = Run(
                    scenario,
                    CHEATS[cheat] if cheat else None,
                    referee,
                    args.races,
                    random.Random(args.seed * 7919 + i),
                    net=net,
                )
                app, http_base, ws_base = pick(referee)
                result = await run_one(
                    app, http_base, ws_base, run, args.rooms, args.seed + i, args.max_seconds
                )
                result["loop_lag_p99"] = pct(lag, 0.99)
                results.append(result)
                print(format_row(result), flush=True)
                if result.get("cheat_by_seat"):
                    print(cheat_line(result), flush=True)
                if net is not None:
                    print(forwarder_line(result), flush=True)
    monitor.cancel()
    if watcher is not None:
        watcher.cancel()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=lambda s: s.split(","), default=list(SCENARIOS))
    parser.add_argument(
        "--cheats",
        type=lambda s: [] if s == "none" else s.split(","),
        default=list(CHEATS),
        help="comma-separated, or none",
    )
    parser.add_argument("--referees", type=lambda s: s.split(","), default=list(REFEREES))
    parser.add_argument("--races", type=int, default=1000, help="contested Jacks per run")
    parser.add_argument("--rooms", type=int, default=40, help="rooms playing at once")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--network",
        choices=NETWORKS,
        default="harness",
        help="harness: delays made in the client harness (loopback); "
        "tun: delays made below TCP by slapjack.netlab.tunnet (Linux, root)",
    )
    parser.add_argument(
        "--subnet",
        default=tunnet.DEFAULT_SUBNET,
        help="the tun network's IPv4 subnet (configured only inside its own namespaces)",
    )
    parser.add_argument("--max-seconds", type=float, default=300.0, help="cap per run")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument(
        "--markdown", type=Path, default=None, help="print a saved --json file as a table and stop"
    )
    args = parser.parse_args(argv)
    if args.markdown is not None:
        print(markdown(json.loads(args.markdown.read_text())))
        return 0
    for name, known in (
        ("scenario", SCENARIOS),
        ("cheat", CHEATS),
        ("referee", REFEREES),
    ):
        chosen = getattr(args, name + "s")
        bad = [c for c in chosen if c not in known]
        if bad:
            parser.error(f"unknown {name} {bad[0]!r}; choose from {', '.join(known)}")
    if not 1 <= args.races <= 100_000 or not 1 <= args.rooms <= 200:
        parser.error("--races must be 1..100000 and --rooms 1..200")
    logging.basicConfig(level=logging.WARNING)
    with contextlib.ExitStack() as stack:
        net = None
        if args.network == "tun":
            seats = max(len(SCENARIOS[s][0]) for s in args.scenarios)
            try:
                net = stack.enter_context(
                    tunnet.TunNet([(0.0, 0.0)] * seats, subnet=args.subnet, seed=args.seed)
                )
            except tunnet.TunNetUnavailable as exc:
                print(f"--network tun: {exc}", file=sys.stderr)
                return 2
            # a kill tears the network down too (the with block's exit; in the
            # event loop, bench() cancels itself instead)
            signal.signal(signal.SIGTERM, lambda signo, frame: sys.exit(128 + signo))
            print(
                f"# network: tun (delays below TCP, in namespaces of its own: server "
                f"{net.server_addr} in net:[{net.netns_ids['server']}], seats "
                f"{', '.join(net.client_addrs)} in net:[{net.netns_ids['clients']}]; "
                f"forwarder {net.scheduling}; the server reads real TCP_INFO)",
                flush=True,
            )
        else:
            print("# network: harness (delays inside the client harness, loopback)", flush=True)
        print(HEADER, flush=True)
        try:
            results = asyncio.run(bench(args, net))
        except asyncio.CancelledError:
            if net is not None and not net.alive():
                print("--network tun: the forwarder exited; stopped", file=sys.stderr)
                return 1
            print("stopped (SIGTERM)", file=sys.stderr)
            return 128 + signal.SIGTERM
        except KeyboardInterrupt:
            print("stopped (Ctrl-C)", file=sys.stderr)
            return 130
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
