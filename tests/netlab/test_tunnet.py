""":mod:`slapjack.netlab.tunnet`: real network delays below TCP on TUN devices.

The scheduler's logic runs everywhere; the rest needs Linux, root, ``/dev/net/tun``
and ``ip``. Outside CI a machine without them skips those tests; under
``CI=true`` they fail with the missing piece named (CI runs as root here).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import ipaddress
import os
import re
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from slapjack.netlab import fairness, tunnet
from slapjack.server.clocksync import TCP_INFO_SIZE, parse_tcp_info

pytestmark = pytest.mark.timeout(120)

SUBNET = "10.199.7.0/24"  # only ever inside the namespaces each network makes


@pytest.fixture
def tun_ok() -> None:
    why = tunnet.available()
    if why is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the tun network emulator cannot run under CI: {why}")
    pytest.skip(f"the tun network emulator cannot run here: {why}")


@pytest.fixture
def net(tun_ok: None) -> Iterator[Any]:
    with tunnet.TunNet([(20.0, 0.0), (10.0, 10.0)], subnet=SUBNET) as n:
        yield n


def packet(src: str, dst: str, sport: int, dport: int, proto: int = 17) -> bytes:
    header = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        28,
        0,
        0,
        64,
        proto,
        0,
        socket.inet_aton(src),
        socket.inet_aton(dst),
    )
    return header + struct.pack("!HHHH", sport, dport, 8, 0)


# ------------------------------------------------------------------ scheduler (pure)


def test_scheduler_delays_by_the_client_seat_each_way() -> None:
    s = tunnet.Scheduler(["10.0.0.2", "10.0.0.3"], [(20.0, 0.0), (50.0, 0.0)])
    down = packet("10.0.0.1", "10.0.0.3", 80, 5000)
    up = packet("10.0.0.2", "10.0.0.1", 5000, 80)
    assert s.release_at(1.0, down, to_clients=True) == pytest.approx(1.050)
    assert s.release_at(1.0, up, to_clients=False) == pytest.approx(1.020)
    # an address that is no seat, and what is not IPv4, pass at once
    assert s.release_at(1.0, packet("10.0.0.1", "10.0.0.9", 1, 2), to_clients=True) == 1.0
    assert s.release_at(1.0, b"\x60" + bytes(39), to_clients=True) == 1.0


def test_scheduler_keeps_each_flow_in_order_but_not_across_flows() -> None:
    s = tunnet.Scheduler(["10.0.0.2"], [(10.0, 30.0)], seed=5)
    a = packet("10.0.0.2", "10.0.0.1", 5000, 80)
    b = packet("10.0.0.2", "10.0.0.1", 5001, 80)
    times_a = [s.release_at(1.0 + i / 1000, a, to_clients=False) for i in range(500)]
    times_b = [s.release_at(1.0 + i / 1000, b, to_clients=False) for i in range(500)]
    assert times_a == sorted(times_a) and times_b == sorted(times_b)
    assert min(t - (1.0 + i / 1000) for i, t in enumerate(times_a)) >= 0.010 - 1e-9
    # each packet is drawn on its own: a late one holds back those behind it only
    delays = [s.delay_ms(0) for _ in range(20_000)]
    assert statistics.fmean(delays) == pytest.approx(40.0, rel=0.05)


# ------------------------------------------------------------------ the real network


def tcp_pair(net: Any, seat: int) -> tuple[socket.socket, socket.socket]:
    with net.server_socket() as listener:
        client = net.client_socket(seat)
        client.setblocking(True)
        client.settimeout(10)
        client.connect(listener.getsockname())
        peer, (addr, _) = listener.accept()
    assert addr == net.client_addrs[seat]
    peer.settimeout(10)
    peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return client, peer


def round_trips(client: socket.socket, peer: socket.socket, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.monotonic()
        client.sendall(b"p" * 40)
        peer.recv(100)
        peer.sendall(b"q" * 40)
        client.recv(100)
        out.append((time.monotonic() - t) * 1000.0)
    return out


def test_round_trip_and_the_kernel_estimate_are_the_seats(net: Any) -> None:
    client, peer = tcp_pair(net, 0)  # 20 ms each way, no jitter
    with client, peer:
        rtts = round_trips(client, peer, 25)
        assert 30.0 <= statistics.median(rtts) <= 50.0, rtts
        info = parse_tcp_info(peer.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_SIZE))
        assert info is not None
        srtt, _rttvar, min_rtt = info
        assert srtt >= 35.0, info  # the server's own socket sees the seat's round trip
        assert min_rtt is None or min_rtt >= 35.0, info
    client, peer = tcp_pair(net, 1)  # 10 ms + Exp(10 ms) each way
    with client, peer:
        rtts = sorted(round_trips(client, peer, 60))
        assert rtts[0] >= 19.0, rtts
        assert rtts[int(0.9 * len(rtts))] - rtts[int(0.1 * len(rtts))] >= 8.0, rtts
    stats = net.stats()
    assert stats.packets > 100 and stats.dropped == 0
    assert stats.late_p50_ms < 2.0, stats


def test_flows_keep_their_order(net: Any) -> None:
    # UDP, which would show any reordering (TCP would hide it), through the jittery seat
    server = net.server_socket(kind=socket.SOCK_DGRAM)
    server.settimeout(10)
    client = net.client_socket(1, socket.SOCK_DGRAM)
    with server, client:
        for i in range(200):
            client.sendto(str(i).encode(), server.getsockname())
            time.sleep(0.0005)
        got = [int(server.recvfrom(100)[0]) for _ in range(200)]
    assert got == list(range(200))
    # and numbered messages over TCP, both ways
    client_t, peer = tcp_pair(net, 1)
    with client_t, peer:
        for i in range(200):
            client_t.sendall(f"{i:05d}".encode())
        data = b""
        while len(data) < 1000:
            data += peer.recv(1000)
        assert [int(data[i : i + 5]) for i in range(0, 1000, 5)] == list(range(200))


# ------------------------------------------------------------------ nothing outside its namespaces

PRIVATE = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]
SIOCGSKNS = 0x894C  # ioctl: the network namespace of a socket


def ip_out(*args: str) -> str:
    ip = tunnet.check_prerequisites()
    return subprocess.run([ip, *args], capture_output=True, text=True, check=True).stdout


def private_addresses(ip_o_addr: str, subnet: str) -> list[str]:
    """The addresses in ``ip -o addr`` output that are in a private range or ``subnet``."""
    ranges = [*PRIVATE, ipaddress.ip_network(subnet)]
    found = []
    for m in re.finditer(r"\binet6? (\S+)", ip_o_addr):
        iface = ipaddress.ip_interface(m.group(1))
        if any(iface.ip.version == r.version and iface.ip in r for r in ranges):
            found.append(m.group(1))
    return found


def netns_of_socket(sock: socket.socket) -> int:
    fd = fcntl.ioctl(sock.fileno(), SIOCGSKNS)
    try:
        return tunnet.netns_id(fd)
    finally:
        os.close(fd)


def holders(ids: Iterable[int]) -> list[str]:
    """Everything on this machine that still refers to one of these network
    namespaces: a process or thread in it, a descriptor of it (any process), a
    bind mount of it (``ip netns``), a socket of this process made in it."""
    wanted = {f"net:[{i}]" for i in ids}
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        links = [proc / "ns" / "net"]
        with contextlib.suppress(OSError):
            links += [task / "ns" / "net" for task in (proc / "task").iterdir()]
        with contextlib.suppress(OSError):
            links += list((proc / "fd").iterdir())
        for link in links:
            with contextlib.suppress(OSError):
                if os.readlink(link) in wanted:
                    found.append(str(link))
    mounts = Path("/proc/self/mountinfo").read_text()
    found += [f"mount {w}" for w in wanted if w in mounts]
    for entry in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            if os.readlink(entry).startswith("socket:"):
                fd = fcntl.ioctl(int(entry.name), SIOCGSKNS)
                try:
                    if f"net:[{tunnet.netns_id(fd)}]" in wanted:
                        found.append(f"socket fd {entry.name}")
                finally:
                    os.close(fd)
    return found


def running(pid: int) -> bool:
    """``pid`` exists and is no zombie (a zombie holds nothing)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_released(ids: Iterable[int], pids: Iterable[int], timeout: float = 10.0) -> list[str]:
    """What still holds the namespaces, or runs, after ``timeout`` (``[]``: nothing)."""
    ids, pids = list(ids), list(pids)
    deadline = time.monotonic() + timeout
    while True:
        left = holders(ids) + [f"process {p}" for p in pids if running(p)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def test_nothing_is_configured_in_the_host_namespace(net: Any) -> None:
    host = ip_out("-o", "addr")
    assert private_addresses(host, SUBNET) == [], host
    routes = ip_out("-o", "-4", "route", "show", "table", "all")
    sub = ipaddress.ip_network(SUBNET)
    for line in routes.splitlines():
        dest = line.split()[0] if not line.startswith(("local", "broadcast")) else line.split()[1]
        if dest != "default":
            assert not ipaddress.ip_network(dest, strict=False).overlaps(sub), line
    links = ip_out("-o", "link")
    assert net.dev_server not in links and net.dev_client not in links, links
    ids = list(net.netns_ids.values())
    assert not [h for h in holders(ids) if h.startswith("mount")]  # no name, no ip netns
    # the addresses are there, each in its own namespace (so the checks above can fail)
    inside = {side: net.run_in(side, ip_out, "-o", "-4", "addr") for side in tunnet.SIDES}
    assert private_addresses(inside["server"], SUBNET) == [f"{net.server_addr}/24"], inside
    assert private_addresses(inside["clients"], SUBNET) == [
        f"{a}/24" for a in [*net.client_addrs, net.control_addr]
    ], inside
    assert net.netns_ids["server"] != net.netns_ids["clients"]
    # and the sockets are made in them, not here
    client, peer = tcp_pair(net, 0)
    with client, peer:
        assert netns_of_socket(peer) == net.netns_ids["server"]
        assert netns_of_socket(client) == net.netns_ids["clients"]
        # the server sees the seat's address, so it reads TCP_INFO (no loopback peer)
        assert not ipaddress.ip_address(peer.getpeername()[0]).is_loopback
    # this thread and the process never entered them
    assert tunnet.netns_id("/proc/thread-self/ns/net") not in ids
    assert tunnet.netns_id("/proc/self/ns/net") not in ids


def test_two_networks_on_the_same_subnet_at_once(tun_ok: None) -> None:
    # nothing is shared with the machine, so two runs never collide
    with (
        tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET) as a,
        tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET) as b,
    ):
        assert a.server_addr == b.server_addr
        for n in (a, b):
            client, peer = tcp_pair(n, 0)
            with client, peer:
                assert round_trips(client, peer, 3)
                assert netns_of_socket(peer) == n.netns_ids["server"]


def test_everything_is_torn_down(tun_ok: None, monkeypatch: pytest.MonkeyPatch) -> None:
    with tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET) as n:
        ids, forwarder = list(n.netns_ids.values()), n.forwarder_pid
        assert holders(ids) and running(forwarder)  # what the checks below look for
        client, peer = tcp_pair(n, 0)
        client.close()
        peer.close()
    assert wait_released(ids, [forwarder]) == []
    # on an exception too
    with pytest.raises(ZeroDivisionError), tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET) as n:
        ids, forwarder = list(n.netns_ids.values()), n.forwarder_pid
        _ = 1 / 0
    assert wait_released(ids, [forwarder]) == []
    # and when the start fails half-way (here: the forwarder cannot make its devices)
    made: list[int] = []
    real = tunnet._new_netns

    def spy() -> int:
        fd = real()
        made.append(tunnet.netns_id(fd))
        return fd

    monkeypatch.setattr(tunnet, "_new_netns", spy)
    broken = tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET)
    broken.dev_server = "sj/server"  # no valid device name
    with pytest.raises(tunnet.TunNetUnavailable, match="TUN devices"):
        broken.start()
    assert len(made) == 2 and wait_released(made, []) == []


def test_a_crashed_forwarder_is_noticed_and_cleaned_up(tun_ok: None) -> None:
    with tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET) as n:
        ids, forwarder = list(n.netns_ids.values()), n.forwarder_pid
        os.kill(forwarder, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while n.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not n.alive()
        with pytest.raises(tunnet.TunNetUnavailable, match="forwarder exited"):
            n.stats()
    assert wait_released(ids, [forwarder]) == []


async def test_the_benchmark_stops_when_the_forwarder_dies(tun_ok: None) -> None:
    with tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET) as n:
        victim = asyncio.create_task(asyncio.sleep(60))
        watcher = asyncio.create_task(fairness.watch_network(n, victim))
        await asyncio.sleep(0.2)
        assert not victim.done()
        os.kill(n.forwarder_pid, signal.SIGKILL)
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(victim, 5)
        await watcher


RUNNER = (
    "import sys, time, importlib.util\n"
    "spec = importlib.util.spec_from_file_location('tn', sys.argv[1])\n"
    "tn = sys.modules['tn'] = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(tn)\n"
    "with tn.TunNet([(1.0, 0.0)], subnet=sys.argv[2]) as n:\n"
    "    listener = n.server_socket()\n"
    "    client = n.client_socket(0)\n"
    "    client.setblocking(True)\n"
    "    client.connect(listener.getsockname())\n"
    "    peer = listener.accept()[0]\n"  # sockets in both namespaces, left open
    "    print(n.netns_ids['server'], n.netns_ids['clients'], n.forwarder_pid, flush=True)\n"
    "    time.sleep(60)\n"
)


@pytest.mark.parametrize("signo", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_killed_runner_leaves_nothing(tun_ok: None, signo: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(Path(tunnet.__file__)), SUBNET],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        server_ns, clients_ns, forwarder = map(int, proc.stdout.readline().split())
        assert holders([server_ns, clients_ns]) and running(forwarder)
        proc.send_signal(signo)
        proc.wait(timeout=20)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    assert wait_released([server_ns, clients_ns], [forwarder]) == []


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_benchmark_leaves_nothing(tun_ok: None, signo: int) -> None:
    proc = subprocess.Popen(
        [
            *(
                sys.executable,
                "-m",
                "slapjack.netlab.fairness",
                "--network",
                "tun",
                "--subnet",
                SUBNET,
            ),
            *("--scenarios", "lan", "--referees", "fair+tcp", "--races", "1000", "--rooms", "2"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        header = proc.stdout.readline()
        ids = [int(i) for i in re.findall(r"net:\[(\d+)\]", header)]
        assert len(ids) == 2, header
        forwarders = [int(c) for c in children(proc.pid)]
        assert forwarders and holders(ids)
        proc.stdout.readline()  # the table's header: the servers are up
        time.sleep(1.0)  # rooms playing
        proc.send_signal(signo)
        code = proc.wait(timeout=30)
        if signo == signal.SIGTERM:
            assert code == 128 + signal.SIGTERM and "stopped (SIGTERM)" in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert wait_released(ids, forwarders) == []


def children(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


def test_missing_pieces_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux only")
    monkeypatch.setattr(tunnet.os, "geteuid", lambda: 1000)
    with pytest.raises(tunnet.TunNetUnavailable, match="root"):
        tunnet.check_prerequisites()
    monkeypatch.setattr(tunnet.os, "geteuid", lambda: 0)
    monkeypatch.setattr(tunnet, "TUN_PATH", "/nonexistent/net/tun")
    with pytest.raises(tunnet.TunNetUnavailable, match="/nonexistent/net/tun"):
        tunnet.check_prerequisites()
    monkeypatch.setattr(tunnet, "TUN_PATH", "/dev/null")
    monkeypatch.setattr(tunnet.shutil, "which", lambda name: None)
    monkeypatch.setattr(tunnet, "IP_CANDIDATES", ())
    with pytest.raises(tunnet.TunNetUnavailable, match="`ip`"):
        tunnet.check_prerequisites()


# ------------------------------------------------------------------ the benchmark in tun mode


async def test_slower_network_faster_hand_over_tun(
    tun_ok: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seat 1 is 150 ms further away each way, on the real network below TCP,
    but reacts 100 ms faster: under ``fair+tcp`` it wins, and the server read
    the real kernel estimates of both connections."""
    import slapjack.server.sockets as app_module

    read: list[tuple[str, tuple[float, float, float | None]]] = []
    real = app_module.tcp_rtt

    def spy(ws: Any) -> Any:
        got = real(ws)
        if got is not None:
            read.append((ws.client.host, got))
        return got

    monkeypatch.setattr(app_module, "tcp_rtt", spy)
    with (
        tunnet.TunNet([(0.0, 0.0)] * 2, subnet=SUBNET) as n,
        tempfile.TemporaryDirectory(prefix="slapjack-tun-") as tmp,
    ):
        run = fairness.Run(
            "custom",
            None,
            "fair+tcp",
            6,
            __import__("random").Random(1),
            network=((5.0, 155.0), (1.0, 1.0)),
            reactions={0: 300.0, 1: 200.0},
            time_limit=3,
            net=n,
        )
        async with fairness.serve(tmp, True, n) as (app, http_base, ws_base):
            result = await fairness.run_one(
                app, http_base, ws_base, run, rooms=1, seed=3, max_seconds=60
            )
    assert result["network"] == "tun" and result["forwarder"]["packets"] > 0
    assert result["races"] >= 6
    assert result["wins"][1] >= result["races"] - 1, result
    by_host = {host: rtt for host, rtt in read}
    assert set(by_host) == {n.client_addrs[0], n.client_addrs[1]}, read
    assert 8.0 <= by_host[n.client_addrs[0]][0] < 120.0, by_host  # about 12 ms
    assert by_host[n.client_addrs[1]][0] >= 300.0, by_host  # about 312 ms
    kernel = {k["seat"]: k for k in result["kernel"]}  # the benchmark's own summary
    assert kernel[1]["srtt_p50"] >= 300.0 and kernel[1]["true_rtt_min"] == 310.0, kernel
