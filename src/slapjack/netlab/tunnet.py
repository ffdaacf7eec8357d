"""A userspace network emulator on TUN devices: real delays below TCP (Linux, root).

The kernel here has no ``netem`` qdisc, so the delays are made by a forwarder
process between two TUN devices, each in a network namespace of its own that
the emulator makes::

    namespace "server"                             namespace "clients"
    server 10.199.0.1 ── tun sj-server ══ forwarder ══ tun sj-clients ── seats 10.199.0.2 …

Nothing of it touches the machine's own namespace: no device, address or
route is configured there, and nothing there sends to these addresses. The
server's sockets (:meth:`TunNet.server_socket`) are made in the server's
namespace, the clients' (:meth:`TunNet.client_socket`, one address per seat,
bound as the source of their connections, and a ``control_addr`` that is no
seat and gets no delay, for setup traffic) in the clients'. A socket stays in
the namespace it was made in, so the process itself never changes namespace:
the sockets are made, and ``ip`` is run, on threads that entered the namespace
(:meth:`TunNet.executor`).

Every IPv4 packet, in each direction, is held back for ``base + Exp(mean
jitter)`` ms of its seat (the client address: the destination of a
server→client packet, the source of a client→server one), drawn independently
per packet, and the packets of one flow (5-tuple, per direction) keep their
order: a packet is released at ``max(previous release of its flow, now +
delay)``. TCP acknowledgements are packets too, so the kernel's round-trip
estimate (``TCP_INFO``) of a seat's connection measures that seat's true round
trip (plus the kernels' own ACK delays, as on a real network).

The forwarder (:mod:`slapjack.netlab.forwarder`: the scheduler and the
forwarder's loop; this module makes the namespaces and devices, starts it and
asks it) runs in its own process (``python forwarder.py forward …``, real-time
priority where allowed, 1 ns timer slack, a heap of release times and
``select`` with the exact timeout); it measures its own lateness (actual minus
scheduled release) and reports it on request.

    with TunNet([(20, 0), (10, 5)]) as net:              # seat 0 and seat 1
        listener = net.server_socket()                    # in the server's namespace
        sock = net.client_socket(0)                       # in the clients', bound to seat 0
        sock.connect(listener.getsockname())
        ...
        print(net.stats())                                # forwarder lateness p50 / p99

Standard library only. The namespaces have no name (they are never mounted
under ``/var/run/netns``): they are held only by this process's descriptors
(and the sockets made in them), the devices only by the forwarder's. So
whatever way the run ends — the end of the ``with`` block, an exception,
Ctrl-C, SIGTERM, even SIGKILL, or a crash of the forwarder — the kernel
removes them once the processes let go: the forwarder exits when its stdin
closes (``close()``, or the death of this process), its devices with it, and
each namespace goes with its last descriptor or socket.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import ipaddress
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

# absolute, not relative: this module is also loaded by path (tests do), and
# the forwarder is run by path (stdlib only, see its docstring)
from slapjack.netlab import forwarder
from slapjack.netlab.forwarder import CLONE_NEWNET, _libc, _setns
from slapjack.netlab.forwarder import TUN_PATH as TUN_PATH  # these re-exported
from slapjack.netlab.forwarder import Scheduler as Scheduler
from slapjack.netlab.forwarder import TunNetUnavailable as TunNetUnavailable
from slapjack.netlab.forwarder import flow_of as flow_of
from slapjack.netlab.forwarder import forward as forward
from slapjack.netlab.forwarder import main as main

DEFAULT_SUBNET = "10.199.0.0/24"
IP_CANDIDATES = ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip")
SIDES = ("server", "clients")
DEV_SERVER = "sj-server"
DEV_CLIENTS = "sj-clients"

T = TypeVar("T")


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
    libc = _libc()
    if not hasattr(libc, "setns") or not hasattr(libc, "unshare"):
        raise TunNetUnavailable(
            "the C library has no setns()/unshare(): cannot make or enter a network namespace"
        )
    return ip


def available() -> str | None:
    """``None`` when the emulator can run here, else why not."""
    try:
        check_prerequisites()
    except TunNetUnavailable as exc:
        return str(exc)
    return None


def _run(ip: str, *args: str) -> str:
    """``ip ARGS`` in the calling thread's namespace (a child starts in the
    namespace of the thread that forks it)."""
    cmd = [ip, *args]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise TunNetUnavailable(
            f"`{' '.join(cmd)}` failed ({done.returncode}): {done.stderr.strip()}"
        )
    return done.stdout


def _new_netns() -> int:
    """A new, unnamed network namespace, held by the returned descriptor only.

    Made by ``unshare`` on a thread of its own that ends at once, so no thread
    of this process stays in it."""
    got: dict[str, Any] = {}

    def make() -> None:
        try:
            if _libc().unshare(CLONE_NEWNET) != 0:
                e = ctypes.get_errno()
                raise TunNetUnavailable(f"unshare(CLONE_NEWNET): {os.strerror(e)}")
            got["fd"] = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        except BaseException as exc:
            got["error"] = exc

    thread = threading.Thread(target=make, name="tunnet-unshare")
    thread.start()
    thread.join()
    if "error" in got:
        raise got["error"]
    fd: int = got["fd"]
    return fd


def netns_id(fd_or_path: int | str) -> int:
    """The inode that identifies a network namespace (as in ``net:[…]``)."""
    st = os.fstat(fd_or_path) if isinstance(fd_or_path, int) else os.stat(fd_or_path)
    return st.st_ino


# ------------------------------------------------------------------ the network


class TunNet:
    """The emulated network: two namespaces of its own (the server's and the
    clients'), a TUN device in each and the forwarder process between them.
    ``seats``: ``(base_ms, jitter_ms)`` one way, per seat. Use as a context
    manager (or ``start``/``close``)."""

    def __init__(
        self,
        seats: Sequence[tuple[float, float]],
        *,
        subnet: str = DEFAULT_SUBNET,
        seed: int = 1,
        realtime: bool = True,
    ) -> None:
        if not seats:
            raise ValueError("at least one seat")
        net = ipaddress.ip_network(subnet)
        # the network and broadcast addresses, the server, the seats, the control address
        if net.version != 4 or net.num_addresses < len(seats) + 4:
            raise ValueError(f"subnet {subnet} must be IPv4 with room for {len(seats)} seats")
        hosts = list(itertools.islice(net.hosts(), len(seats) + 2))
        self.subnet = str(net)
        self.prefix = net.prefixlen
        self.server_addr = str(hosts[0])
        self.client_addrs = [str(h) for h in hosts[1:-1]]
        self.control_addr = str(hosts[-1])
        """In the clients' namespace, no seat's: its packets pass without delay."""
        self.seats = [(float(b), float(j)) for b, j in seats]
        self.seed = seed
        self.realtime = realtime
        self.dev_server = DEV_SERVER
        self.dev_client = DEV_CLIENTS
        self.scheduling = "?"
        self.netns_ids: dict[str, int] = {}
        """``server``/``clients``: the inode of each namespace (``net:[…]``)."""
        self._ip = ""
        self._proc: subprocess.Popen[str] | None = None
        self._ns: dict[str, int] = {}
        self._own: dict[str, concurrent.futures.ThreadPoolExecutor] = {}
        self._executors: list[concurrent.futures.ThreadPoolExecutor] = []

    # ---------------------------------------------------------- life cycle

    def __enter__(self) -> TunNet:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        if self._ns or self._proc is not None:
            raise RuntimeError("the network is already started")
        self._ip = check_prerequisites()
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        for side in SIDES:
            self._ns[side] = fd = _new_netns()
            self.netns_ids[side] = netns_id(fd)
            self._own[side] = self.executor(side)
        config = {
            "server_dev": self.dev_server,
            "client_dev": self.dev_client,
            "netns_fds": [self._ns["server"], self._ns["clients"]],
            "clients": self.client_addrs,
            "seats": self.seats,
            "seed": self.seed,
            "realtime": self.realtime,
        }
        self._proc = subprocess.Popen(
            [
                sys.executable,
                str(Path(forwarder.__file__).resolve()),
                "forward",
                json.dumps(config),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            pass_fds=tuple(self._ns.values()),
        )
        ready = self._reply()
        if not ready.get("ready"):
            raise TunNetUnavailable(f"the forwarder did not start: {ready.get('error', ready)}")
        self.scheduling = str(ready.get("scheduling", "?"))
        self.run_in("server", self._configure, self.dev_server, [self.server_addr])
        self.run_in(
            "clients", self._configure, self.dev_client, [*self.client_addrs, self.control_addr]
        )

    def _configure(self, dev: str, addrs: Sequence[str]) -> None:
        """On a thread in the device's namespace: no IPv6 (no router
        solicitations through the forwarder), loopback up, the addresses."""
        for which in ("all", "default"):
            with contextlib.suppress(OSError):
                Path(f"/proc/sys/net/ipv6/conf/{which}/disable_ipv6").write_text("1")
        _run(self._ip, "link", "set", "lo", "up")
        for addr in addrs:
            _run(self._ip, "addr", "add", f"{addr}/{self.prefix}", "dev", dev)
        _run(self._ip, "link", "set", dev, "up")

    def close(self) -> None:
        """Stop the forwarder (its devices go with it), end the threads in the
        namespaces and let go of the namespaces (each goes when the last
        socket made in it is closed too)."""
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
        executors, self._executors = self._executors, []
        self._own = {}
        for executor in executors:
            executor.shutdown(wait=True, cancel_futures=True)
        ns, self._ns = self._ns, {}
        for fd in ns.values():
            os.close(fd)

    def alive(self) -> bool:
        """Started, and the forwarder still runs."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def forwarder_pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

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
        try:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            raise TunNetUnavailable(f"the forwarder exited ({proc.wait(timeout=3.0)})") from None
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

    # ---------------------------------------------------------- inside the namespaces

    def executor(
        self, side: str = "clients", workers: int = 1
    ) -> concurrent.futures.ThreadPoolExecutor:
        """Threads that live in ``side``'s namespace (``server`` or
        ``clients``): what they open (sockets, ``ip``, a blocking HTTP client)
        is there. Shut down by :meth:`close` at the latest."""
        if side not in SIDES:
            raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
        fd = self._ns.get(side)
        if fd is None:
            raise TunNetUnavailable("the network is not started")
        executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers,
            thread_name_prefix=f"tunnet-{side}",
            initializer=_setns,
            initargs=(fd,),
        )
        self._executors.append(executor)
        return executor

    def run_in(self, side: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on this network's own thread in ``side``'s namespace
        (for short work only: it waits for the result)."""
        executor = self._own.get(side)
        if executor is None:
            if side not in SIDES:
                raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
            raise TunNetUnavailable("the network is not started")
        return executor.submit(fn, *args).result()

    def server_socket(
        self, port: int = 0, kind: socket.SocketKind = socket.SOCK_STREAM
    ) -> socket.socket:
        """A socket in the server's namespace bound to the server address
        (``port`` 0: any free one), blocking; a TCP one is listening."""

        def make() -> socket.socket:
            if kind == socket.SOCK_STREAM:
                return socket.create_server((self.server_addr, port), backlog=512)
            sock = socket.socket(socket.AF_INET, kind)
            try:
                sock.bind((self.server_addr, port))
            except BaseException:
                sock.close()
                raise
            return sock

        return self.run_in("server", make)

    def client_socket(
        self, seat: int | None, kind: socket.SocketKind = socket.SOCK_STREAM
    ) -> socket.socket:
        """A socket in the clients' namespace bound to ``seat``'s address (any
        port; ``None``: the control address), non-blocking, ``TCP_NODELAY``
        for TCP."""
        addr = self.control_addr if seat is None else self.client_addrs[seat]

        def make() -> socket.socket:
            sock = socket.socket(socket.AF_INET, kind)
            try:
                if kind == socket.SOCK_STREAM:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.bind((addr, 0))
                sock.setblocking(False)
            except BaseException:
                sock.close()
                raise
            return sock

        return self.run_in("clients", make)


if __name__ == "__main__":  # the forwarder, as before: python tunnet.py forward CONFIG
    sys.exit(main(sys.argv[1:]))
