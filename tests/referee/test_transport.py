"""The kernel's TCP round-trip estimate: parsing TCP_INFO and reading it for a client."""

from __future__ import annotations

import socket
import struct
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from slapjack.server.clocksync import TCP_INFO_SIZE, parse_tcp_info
from slapjack.server.fair import FairReferee
from slapjack.server.referee import ArrivalReferee
from slapjack.server.sockets import tcp_rtt

linux_only = pytest.mark.skipif(
    not hasattr(socket, "TCP_INFO") or sys.platform != "linux", reason="TCP_INFO is Linux's"
)


def tcp_info_bytes(rtt_us: int, rttvar_us: int, min_rtt_us: int) -> bytes:
    buf = bytearray(TCP_INFO_SIZE)
    struct.pack_into("<II", buf, 8 + 15 * 4, rtt_us, rttvar_us)
    struct.pack_into("<I", buf, 148, min_rtt_us)
    return bytes(buf)


def test_parse_tcp_info_fields() -> None:
    assert parse_tcp_info(tcp_info_bytes(41_500, 3_250, 38_000)) == (41.5, 3.25, 38.0)
    assert parse_tcp_info(tcp_info_bytes(41_500, 3_250, 0xFFFFFFFF)) == (41.5, 3.25, None)
    assert parse_tcp_info(tcp_info_bytes(41_500, 3_250, 38_000)[:104]) == (41.5, 3.25, None)
    assert parse_tcp_info(tcp_info_bytes(0, 0, 0)) is None  # no estimate yet
    assert parse_tcp_info(b"\x00" * 20) is None


@pytest.fixture
def tcp_pair() -> Any:
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    peer, _ = server.accept()
    for _ in range(20):  # some data and its acknowledgements give the kernel samples
        client.sendall(b"x" * 100)
        peer.recv(100)
        peer.sendall(b"y" * 100)
        client.recv(100)
    yield peer
    for s in (client, peer, server):
        s.close()


@linux_only
def test_parse_real_tcp_info_from_the_kernel(tcp_pair: socket.socket) -> None:
    raw = tcp_pair.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_SIZE)
    parsed = parse_tcp_info(raw)
    assert parsed is not None
    srtt, rttvar, min_rtt = parsed
    assert 0 < srtt < 50.0 and 0 <= rttvar < 50.0  # loopback: well under a millisecond
    assert min_rtt is None or 0 < min_rtt <= srtt + rttvar + 1.0


def fake_ws(host: str, sock: socket.socket | None, headers: dict[str, str] | None = None) -> Any:
    transport = SimpleNamespace(get_extra_info=lambda name: sock if name == "socket" else None)
    owner = SimpleNamespace(transport=transport)

    class Receive:
        __self__ = owner

    return SimpleNamespace(
        client=SimpleNamespace(host=host, port=5000),
        headers=headers or {},
        _receive=Receive(),
        scope={},
    )


@linux_only
def test_tcp_rtt_reads_the_socket_of_a_remote_client(tcp_pair: socket.socket) -> None:
    got = tcp_rtt(fake_ws("203.0.113.9", tcp_pair))
    assert got is not None and got[0] > 0


def test_tcp_rtt_skips_loopback_proxied_and_socketless_peers(tcp_pair: socket.socket) -> None:
    assert tcp_rtt(fake_ws("127.0.0.1", tcp_pair)) is None  # a local proxy, or a test
    assert tcp_rtt(fake_ws("::1", tcp_pair)) is None
    assert tcp_rtt(fake_ws("203.0.113.9", tcp_pair, {"x-forwarded-for": "1.2.3.4"})) is None
    assert tcp_rtt(fake_ws("203.0.113.9", None)) is None
    assert tcp_rtt(fake_ws("not an address", tcp_pair)) is None
    assert tcp_rtt(SimpleNamespace(client=None, headers={})) is None  # type: ignore[arg-type]


@linux_only
def test_tcp_rtt_works_out_the_socket_once_per_connection(tcp_pair: socket.socket) -> None:
    """A pong a second per player: the peer's address is parsed once, the
    kernel read every time (its estimate changes, the connection does not)."""
    ws = fake_ws("203.0.113.9", tcp_pair)
    assert tcp_rtt(ws) is not None and ws.scope["slapjack.tcp_socket"] is tcp_pair
    ws.client.host = "127.0.0.1"  # not looked at again
    assert tcp_rtt(ws) is not None
    local = fake_ws("127.0.0.1", tcp_pair)
    assert tcp_rtt(local) is None and local.scope["slapjack.tcp_socket"] is None
    local.client.host = "203.0.113.9"
    assert tcp_rtt(local) is None
    tcp_pair.close()  # the socket gone: no estimate, no error
    assert tcp_rtt(ws) is None


def test_referees_take_the_transport_estimate() -> None:
    ArrivalReferee().on_transport_rtt(0, 40.0, 3.0, 38.0, 0.0)  # ignored
    ref = FairReferee()
    ref.on_transport_rtt(1, 40.0, 3.0, 38.0, 5.0)
    transport = ref.seat(1).sync.transport
    assert transport is not None and transport.upper == 52.0
    # with no ping yet, the kernel's bound (plus the application margin) is the allowance
    assert ref.allowance(1) == 52.0 + ref.config.transport_margin_ms
