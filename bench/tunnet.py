"""A userspace network emulator on TUN devices: real delays below TCP (Linux, root).

The kernel here has no ``netem`` qdisc, so the delays are made by a forwarder
process between two TUN devices::

    root namespace                              namespace sjc-<pid>[-k]
    server 10.199.0.1 ── tun sjs… ══ forwarder ══ tun sjc… ── seats 10.199.0.2 …

The server stays in the root namespace and listens on the server address; the
clients live in the namespace (one address per seat, bound as the source of
their connections). Every IPv4 packet, in each direction, is held back for
``base + Exp(mean jitter)`` ms of its seat (the client address: the
destination of a server→client packet, the source of a client→server one),
drawn independently per packet, and the packets of one flow (5-tuple, per
direction) keep their order: a packet is released at
``max(previous release of its flow, now + delay)``. TCP acknowledgements are
packets too, so the kernel's round-trip estimate (``TCP_INFO``) of a seat's
connection measures that seat's true round trip (plus the kernels' own ACK
delays, as on a real network).

The forwarder runs in its own process (``python tunnet.py forward …``, real-time
priority where allowed, 1 ns timer slack, a heap of release times and
``select`` with the exact timeout); it measures its own lateness (actual minus
scheduled release) and reports it on request.

    with TunNet([(20, 0), (10, 5)]) as net:         # seat 0 and seat 1
        sock = net.client_socket(0)                  # created in the namespace, bound to seat 0
        sock.connect((net.server_addr, port))
        ...
        print(net.stats())                           # forwarder lateness p50 / p99

Standard library only. Everything (forwarder, devices, namespace) is removed
on exit, on exceptions and on Ctrl-C; namespaces left by dead processes are
removed at start.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import heapq
import ipaddress
import itertools
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

TUN_PATH = "/dev/net/tun"
NETNS_DIR = Path("/var/run/netns")
NS_PREFIX = "sjc-"
DEFAULT_SUBNET = "10.199.0.0/24"
IP_CANDIDATES = ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip")

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_TIMERSLACK = 29

_counter = itertools.count()


class TunNetUnavailable(RuntimeError):
    """The emulator cannot run here; the message names what is missing."""


@dataclass(frozen=True)
class ForwarderStats:
    """The forwarder's timing error since the last reset: how late packets were
    released relative to their scheduled time (ms), and how many it moved."""

    packets: int
    late_p50_ms: float
    late_p99_ms: float
    late_max_ms: float
    dropped: int
    scheduling: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "packets": self.packets,
            "late_p50_ms": self.late_p50_ms,
            "late_p99_ms": self.late_p99_ms,
            "late_max_ms": self.late_max_ms,
            "dropped": self.dropped,
            "scheduling": self.scheduling,
        }


# ------------------------------------------------------------------ prerequisites


def check_prerequisites() -> str:
    """The path of ``ip``; raises :class:`TunNetUnavailable` naming what is missing."""
    if not sys.platform.startswith("linux"):
        raise TunNetUnavailable(f"tunnet needs Linux (network namespaces, TUN), not {sys.platform}")
    if os.geteuid() != 0:
        raise TunNetUnavailable("tunnet needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN): run as root")
    if not os.path.exists(TUN_PATH):
        raise TunNetUnavailable(f"{TUN_PATH} is missing: no TUN support in this kernel/container")
    ip = shutil.which("ip") or next((p for p in IP_CANDIDATES if os.path.exists(p)), None)
    if ip is None:
        raise TunNetUnavailable("the `ip` command (iproute2) is missing: apt-get install iproute2")
    if not hasattr(_libc(), "setns"):
        raise TunNetUnavailable("the C library has no setns(): cannot enter a network namespace")
    return ip


def available() -> str | None:
    """``None`` when the emulator can run here, else why not."""
    try:
        check_prerequisites()
    except TunNetUnavailable as exc:
        return str(exc)
    return None


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _run(ip: str, *args: str, netns: str | None = None, check: bool = True) -> str:
    cmd = [ip, *(("netns", "exec", netns, ip) if netns else ()), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise TunNetUnavailable(
            f"`{' '.join(cmd)}` failed ({done.returncode}): {done.stderr.strip()}"
        )
    return done.stdout


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(ip: str | None = None) -> list[str]:
    """Delete ``sjc-<pid>[-k]`` namespaces whose process is gone; their names."""
    ip = ip or check_prerequisites()
    removed = []
    for line in _run(ip, "netns", "list", check=False).splitlines():
        name = line.split()[0] if line.split() else ""
        m = re.fullmatch(re.escape(NS_PREFIX) + r"(\d+)(?:-\d+)?", name)
        if m and not _alive(int(m.group(1))):
            _run(ip, "netns", "del", name, check=False)
            removed.append(name)
    return removed


def netns_exists(name: str) -> bool:
    return (NETNS_DIR / name).exists()


def link_exists(name: str) -> bool:
    return Path("/sys/class/net", name).exists()


# ------------------------------------------------------------------ the network


class TunNet:
    """The emulated network: a namespace for the clients, two TUN devices and
    the forwarder process. ``seats``: ``(base_ms, jitter_ms)`` one way, per seat.
    Use as a context manager (or ``start``/``close``)."""

    def __init__(
        self,
        seats: Sequence[tuple[float, float]],
        *,
        subnet: str = DEFAULT_SUBNET,
        seed: int = 1,
        realtime: bool = True,
    ) -> None:
        net = ipaddress.ip_network(subnet)
        if net.version != 4 or net.num_addresses < len(seats) + 3:
            raise ValueError(f"subnet {subnet} must be IPv4 with room for {len(seats)} seats")
        if not seats:
            raise ValueError("at least one seat")
        hosts = list(itertools.islice(net.hosts(), len(seats) + 1))
        self.prefix = net.prefixlen
        self.server_addr = str(hosts[0])
        self.client_addrs = [str(h) for h in hosts[1:]]
        self.seats = [(float(b), float(j)) for b, j in seats]
        self.seed = seed
        self.realtime = realtime
        k = next(_counter)
        pid = os.getpid()
        self.netns = f"{NS_PREFIX}{pid}" + (f"-{k}" if k else "")
        self.dev_server = f"sjs{pid}x{k}"[:15]
        self.dev_client = f"sjc{pid}x{k}"[:15]
        self._ip = ""
        self._proc: subprocess.Popen[str] | None = None
        self._root_fd: int | None = None
        self._ns_fd: int | None = None
        self._ns_made = False

    # ---------------------------------------------------------- life cycle

    def __enter__(self) -> TunNet:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self._ip = ip = check_prerequisites()
        clean_stale(ip)
        if any(
            ipaddress.ip_address(self.server_addr) in ipaddress.ip_interface(a).network
            for a in _root_addresses(ip)
        ):
            raise TunNetUnavailable(
                f"the subnet of {self.server_addr}/{self.prefix} is in use on this machine: "
                "choose another (subnet=...)"
            )
        try:
            self._start(ip)
        except BaseException:
            self.close()
            raise

    def _start(self, ip: str) -> None:
        _run(ip, "netns", "add", self.netns)
        self._ns_made = True
        config = {
            "server_dev": self.dev_server,
            "client_dev": self.dev_client,
            "clients": self.client_addrs,
            "seats": self.seats,
            "seed": self.seed,
            "realtime": self.realtime,
        }
        self._proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "forward", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        ready = self._reply()
        if not ready.get("ready"):
            raise TunNetUnavailable(f"the forwarder did not start: {ready.get('error', ready)}")
        self.scheduling = str(ready.get("scheduling", "?"))
        # the server side, in this namespace
        _disable_ipv6(self.dev_server)
        _run(ip, "addr", "add", f"{self.server_addr}/{self.prefix}", "dev", self.dev_server)
        _run(ip, "link", "set", self.dev_server, "up")
        # the clients' side, in theirs
        _run(ip, "link", "set", self.dev_client, "netns", self.netns)
        ns = self.netns
        subprocess.run(
            [ip, "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
            capture_output=True,
            check=False,
        )
        for addr in self.client_addrs:
            _run(ip, "addr", "add", f"{addr}/{self.prefix}", "dev", self.dev_client, netns=ns)
        _run(ip, "link", "set", "lo", "up", netns=ns)
        _run(ip, "link", "set", self.dev_client, "up", netns=ns)
        self._root_fd = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        self._ns_fd = os.open(str(NETNS_DIR / ns), os.O_RDONLY | os.O_CLOEXEC)

    def close(self) -> None:
        """Stop the forwarder (its devices go with it) and delete the namespace."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(OSError, ValueError):
                assert proc.stdin is not None
                proc.stdin.close()
            try:
                proc.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=3.0)
            if proc.stdout is not None:
                proc.stdout.close()
        for attr in ("_ns_fd", "_root_fd"):
            fd = getattr(self, attr)
            if fd is not None:
                os.close(fd)
                setattr(self, attr, None)
        if self._ns_made:
            self._ns_made = False
            if self._ip:
                _run(self._ip, "netns", "del", self.netns, check=False)
        for dev in (self.dev_server, self.dev_client):  # normally gone with the forwarder
            if link_exists(dev) and self._ip:
                _run(self._ip, "link", "del", dev, check=False)

    # ---------------------------------------------------------- the forwarder

    def _reply(self) -> dict[str, Any]:
        proc = self._proc
        if proc is None or proc.stdout is None:
            raise TunNetUnavailable("the forwarder is not running")
        line = proc.stdout.readline()
        if not line:
            code = proc.wait(timeout=3.0)
            raise TunNetUnavailable(f"the forwarder exited ({code})")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise TunNetUnavailable("the forwarder is not running")
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        return self._reply()

    def set_delays(self, seats: Sequence[tuple[float, float]]) -> None:
        """New ``(base_ms, jitter_ms)`` per seat, for packets read from now on."""
        if len(seats) > len(self.client_addrs):
            raise ValueError(f"{len(seats)} seats, the network has {len(self.client_addrs)}")
        self.seats = [(float(b), float(j)) for b, j in seats]
        self._ask({"cmd": "set", "seats": self.seats})

    def stats(self, reset: bool = False) -> ForwarderStats:
        r = self._ask({"cmd": "stats", "reset": reset})
        return ForwarderStats(
            int(r["packets"]),
            float(r["late_p50_ms"]),
            float(r["late_p99_ms"]),
            float(r["late_max_ms"]),
            int(r["dropped"]),
            str(r["scheduling"]),
        )

    # ---------------------------------------------------------- client sockets

    @contextlib.contextmanager
    def inside(self) -> Iterator[None]:
        """Run the block with this thread in the clients' namespace (sockets
        created in it belong to it for good)."""
        if self._ns_fd is None or self._root_fd is None:
            raise TunNetUnavailable("the network is not started")
        libc = _libc()
        if libc.setns(self._ns_fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise TunNetUnavailable(f"setns into {self.netns}: {os.strerror(e)}")
        try:
            yield
        finally:
            if libc.setns(self._root_fd, CLONE_NEWNET) != 0:  # pragma: no cover
                e = ctypes.get_errno()
                os.write(
                    2, f"tunnet: cannot return to the root namespace: {os.strerror(e)}\n".encode()
                )
                os._exit(70)

    def client_socket(
        self, seat: int, kind: socket.SocketKind = socket.SOCK_STREAM
    ) -> socket.socket:
        """A socket in the clients' namespace bound to ``seat``'s address
        (any port), non-blocking, ``TCP_NODELAY`` for TCP."""
        with self.inside():
            sock = socket.socket(socket.AF_INET, kind)
        try:
            if kind == socket.SOCK_STREAM:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.bind((self.client_addrs[seat], 0))
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
        return sock


def _root_addresses(ip: str) -> list[str]:
    out = _run(ip, "-o", "-4", "addr", "show", check=False)
    return re.findall(r"inet (\S+)", out)


def _disable_ipv6(dev: str) -> None:
    with contextlib.suppress(OSError):
        Path(f"/proc/sys/net/ipv6/conf/{dev}/disable_ipv6").write_text("1")


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
    fd = os.open(TUN_PATH, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def _tune_process(realtime: bool) -> str:
    libc = _libc()
    with contextlib.suppress(Exception):
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
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
    """The forwarder's loop (in its own process): exits when stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent tears down, then closes stdin
    scheduling = _tune_process(bool(config.get("realtime", True)))
    try:
        fd_s = _open_tun(config["server_dev"])
        fd_c = _open_tun(config["client_dev"])
    except OSError as exc:
        stdout.write(json.dumps({"ready": False, "error": f"TUNSETIFF: {exc}"}) + "\n")
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
    if argv == ["clean"]:
        for name in clean_stale():
            print(f"removed {name}")
        return 0
    print("usage: tunnet.py clean | forward CONFIG", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
