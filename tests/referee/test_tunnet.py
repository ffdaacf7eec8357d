"""``bench/tunnet.py``: real network delays below TCP on TUN devices.

The scheduler's logic runs everywhere; the rest needs Linux, root, ``/dev/net/tun``
and ``ip``. Outside CI a machine without them skips those tests; under
``CI=true`` they fail with the missing piece named (CI runs as root here).
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from slapjack.server.clocksync import TCP_INFO_SIZE, parse_tcp_info

from .harness import load

fairness = load()
tunnet = fairness.tunnet

pytestmark = pytest.mark.timeout(120)

SUBNET = "10.199.7.0/24"  # not the benchmark's default: a benchmark may run beside the tests


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
    with socket.create_server((net.server_addr, 0)) as listener:
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
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind((net.server_addr, 0))
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


def test_everything_is_torn_down(tun_ok: None) -> None:
    with tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET) as n:
        names = (n.netns, n.dev_server, n.dev_client)
        assert tunnet.netns_exists(n.netns) and tunnet.link_exists(n.dev_server)
        forwarder = n._proc
    assert not tunnet.netns_exists(names[0])
    assert not tunnet.link_exists(names[1]) and not tunnet.link_exists(names[2])
    assert forwarder.poll() is not None
    # on an exception too
    with pytest.raises(ZeroDivisionError), tunnet.TunNet([(1.0, 0.0)], subnet=SUBNET) as n:
        name = n.netns
        _ = 1 / 0
    assert not tunnet.netns_exists(name)


def test_ctrl_c_tears_down_and_stale_namespaces_are_cleaned(tun_ok: None) -> None:
    script = (
        "import sys, time, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('tn', {str(Path(tunnet.__file__))!r})\n"
        "tn = sys.modules['tn'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(tn)\n"
        f"with tn.TunNet([(1.0, 0.0)], subnet={SUBNET!r}) as n:\n"
        "    print(n.netns, n.dev_server, flush=True)\n"
        "    time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    ns, dev = proc.stdout.readline().split()
    assert tunnet.netns_exists(ns)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=20)
    proc.stdout.close()
    assert not tunnet.netns_exists(ns) and not tunnet.link_exists(dev)
    # a namespace left by a process that died without cleaning up
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = f"{tunnet.NS_PREFIX}{dead.pid}"
    ip = tunnet.check_prerequisites()
    subprocess.run([ip, "netns", "add", stale], check=True)
    try:
        assert stale in tunnet.clean_stale()
        assert not tunnet.netns_exists(stale)
    finally:
        subprocess.run([ip, "netns", "del", stale], capture_output=True, check=False)


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
    import slapjack.server.app as app_module

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
        async with fairness.serve(tmp, n.server_addr, True) as (app, http_base, ws_base):
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
