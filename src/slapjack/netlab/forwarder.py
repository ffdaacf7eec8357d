"""The forwarder of :mod:`slapjack.netlab.tunnet`: the process between its two
TUN devices that holds every packet back for its seat's delay.

It holds the scheduler (pure: when each packet leaves, :class:`Scheduler`),
the opening of the TUN devices in their namespaces, and the forwarder's loop
(:func:`forward`), plus the few system calls both sides need (``setns``,
the TUN ``ioctl`` constants, :class:`TunNetUnavailable`).

Standard library only, and no import of its own package: :class:`~slapjack.netlab.tunnet.TunNet`
runs it by path, ``python forwarder.py forward CONFIG`` (CONFIG: JSON), and
talks to it over stdin/stdout, one JSON line per command and reply.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import heapq
import itertools
import json
import os
import random
import select
import signal
import socket
import struct
import sys
import time
from collections.abc import Sequence
from typing import IO, Any

TUN_PATH = "/dev/net/tun"
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
PR_SET_TIMERSLACK = 29


class TunNetUnavailable(RuntimeError):
    """The emulator cannot run here (or its forwarder is gone); the message
    names what is missing."""


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    """Move the calling thread (only it) into the network namespace ``fd``."""
    if _libc().setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise TunNetUnavailable(f"setns into a network namespace: {os.strerror(e)}")


# ------------------------------------------------------------------ the scheduler (pure)


def flow_of(packet: bytes) -> tuple[bytes, bytes, bytes] | None:
    """``(source, destination, flow key)`` of an IPv4 packet (the key: addresses,
    protocol and, for TCP/UDP, ports), ``None`` for anything else."""
    if len(packet) < 20 or packet[0] >> 4 != 4:
        return None
    ihl = (packet[0] & 0x0F) * 4
    proto = packet[9]
    src, dst = packet[12:16], packet[16:20]
    ports = packet[ihl : ihl + 4] if proto in (6, 17) and len(packet) >= ihl + 4 else b""
    return src, dst, src + dst + bytes((proto,)) + ports


class Scheduler:
    """When each packet leaves: ``base + Exp(jitter)`` of its seat after it came,
    never before the previous packet of its flow."""

    def __init__(
        self, clients: Sequence[str], seats: Sequence[tuple[float, float]], seed: int = 1
    ) -> None:
        self.seat_of = {socket.inet_aton(a): i for i, a in enumerate(clients)}
        self.seats = [(float(b), float(j)) for b, j in seats]
        self.rng = random.Random(seed)
        self.last: dict[bytes, float] = {}
        self._pushes = 0

    def delay_ms(self, seat: int | None) -> float:
        if seat is None or seat >= len(self.seats):
            return 0.0
        base, jitter = self.seats[seat]
        return base + (self.rng.expovariate(1.0 / jitter) if jitter > 0 else 0.0)

    def release_at(self, now: float, packet: bytes, to_clients: bool) -> float:
        """Release time (s, same clock as ``now``) of ``packet``; ``to_clients``:
        it goes from the server to a client (the client is its destination)."""
        flow = flow_of(packet)
        if flow is None:
            return now
        src, dst, key = flow
        seat = self.seat_of.get(dst if to_clients else src)
        at = now + self.delay_ms(seat) / 1000.0
        prev = self.last.get(key)
        if prev is not None and prev > at:
            at = prev
        self.last[key] = at
        self._pushes += 1
        if self._pushes % 4096 == 0:  # forget flows with nothing in flight
            self.last = {k: v for k, v in self.last.items() if v > now}
        return at


def _quantile(ordered: Sequence[float], q: float) -> float:
    if not ordered:
        return 0.0
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# ------------------------------------------------------------------ the forwarder process


def _open_tun(name: str) -> int:
    """A TUN device ``name``, made in the calling thread's namespace; it lives
    as long as the descriptor."""
    fd = os.open(TUN_PATH, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_tuns(config: dict[str, Any]) -> tuple[int, int]:
    """The server's and the clients' devices, each made in its namespace (the
    descriptors passed by the parent); then back home, the namespace
    descriptors closed (the parent holds the namespaces)."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    fds: list[int] = []
    try:
        for dev, ns in zip(
            (config["server_dev"], config["client_dev"]), config["netns_fds"], strict=True
        ):
            _setns(ns)
            fds.append(_open_tun(dev))
        _setns(home)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    finally:
        os.close(home)
        for ns in config["netns_fds"]:
            with contextlib.suppress(OSError):
                os.close(ns)
    return fds[0], fds[1]


def _tune_process(realtime: bool) -> str:
    libc = _libc()
    with contextlib.suppress(Exception):
        libc.prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    if realtime:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
            return "SCHED_FIFO 10, timer slack 1 ns"
        except (OSError, AttributeError):
            pass
    try:
        os.nice(-10)
        return "nice -10, timer slack 1 ns"
    except OSError:
        return "normal, timer slack 1 ns"


def forward(config: dict[str, Any], stdin: IO[str], stdout: IO[str]) -> int:
    """The forwarder's loop (in its own process): exits when stdin closes, which
    is ``close()`` or the end of the parent, however it ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent tears down, then closes stdin
    scheduling = _tune_process(bool(config.get("realtime", True)))
    try:
        fd_s, fd_c = _open_tuns(config)
    except (OSError, TunNetUnavailable) as exc:
        stdout.write(json.dumps({"ready": False, "error": f"the TUN devices: {exc}"}) + "\n")
        stdout.flush()
        return 1
    sched = Scheduler(config["clients"], config["seats"], int(config.get("seed", 1)))
    stdout.write(json.dumps({"ready": True, "scheduling": scheduling}) + "\n")
    stdout.flush()
    ctl = stdin.fileno()
    os.set_blocking(ctl, False)
    out_of = {fd_s: fd_c, fd_c: fd_s}
    heap: list[tuple[float, int, int, bytes]] = []
    seq = itertools.count()
    late: list[float] = []
    packets = dropped = 0
    pending = b""
    clock = time.monotonic
    while True:
        now = clock()
        while heap and heap[0][0] <= now:
            at, _, fd, packet = heapq.heappop(heap)
            try:
                os.write(fd, packet)
            except OSError:
                dropped += 1
                continue
            done = clock()
            late.append((done - at) * 1000.0)
            packets += 1
            now = done
        timeout = max(0.0, heap[0][0] - now) if heap else None
        ready, _, _ = select.select([fd_s, fd_c, ctl], [], [], timeout)
        for fd in ready:
            if fd == ctl:
                chunk = os.read(ctl, 65536)
                if not chunk:
                    os.close(fd_s)
                    os.close(fd_c)
                    return 0
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    msg = json.loads(line)
                    if msg["cmd"] == "set":
                        sched.seats = [(float(b), float(j)) for b, j in msg["seats"]]
                        reply: dict[str, Any] = {"ok": True}
                    else:
                        ordered = sorted(late)
                        reply = {
                            "packets": packets,
                            "late_p50_ms": _quantile(ordered, 0.5),
                            "late_p99_ms": _quantile(ordered, 0.99),
                            "late_max_ms": ordered[-1] if ordered else 0.0,
                            "dropped": dropped,
                            "scheduling": scheduling,
                        }
                        if msg.get("reset"):
                            late.clear()
                            packets = dropped = 0
                    stdout.write(json.dumps(reply) + "\n")
                    stdout.flush()
                continue
            to_clients = fd == fd_s
            while True:
                try:
                    packet = os.read(fd, 65536)
                except OSError as exc:
                    if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                        break
                    raise
                at = sched.release_at(clock(), packet, to_clients)
                heapq.heappush(heap, (at, next(seq), out_of[fd], packet))
        if len(late) > 2_000_000:
            del late[: len(late) // 2]


def main(argv: Sequence[str]) -> int:
    if len(argv) == 2 and argv[0] == "forward":
        return forward(json.loads(argv[1]), sys.stdin, sys.stdout)
    print("usage: forwarder.py forward CONFIG (run by TunNet)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
