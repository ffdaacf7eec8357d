"""Limits one client cannot get round: per-address rate limits (429 +
Retry-After), empty rooms that expire, a room cap that makes way, a paged
room list, hello/pong counted apart from game frames, per-token frame limits,
sockets per address, and a socket that stops reading (1013).

Many clients are many loopback source addresses (127.0.0.2, 127.0.0.3, …):
the server listens on 127.0.0.1 and each client binds its own address.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from slapjack.server import RoomTiming, create_app
from slapjack.server.connection import KeyedLimiter, Limits, RateLimit, client_key
from slapjack.server.metrics import METRICS

from .conftest import FAST, Client, LiveServer, free_port, start_server

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


@contextlib.contextmanager
def server(tmp_path: Path, limits: Limits, **config: Any) -> Iterator[LiveServer]:
    """A real server with these limits (and uvicorn settings: ``ws_ping_interval``…)."""
    if not config:
        live = start_server(None, tmp_path, limits=limits)
        try:
            yield live
        finally:
            live.stop()
        return
    app = create_app(data_dir=tmp_path, timing=RoomTiming(**FAST), test_hooks=True, limits=limits)
    port = free_port()
    uv = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", **config
        )
    )
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not uv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    live = LiveServer(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", app, uv, thread)
    try:
        yield live
    finally:
        live.stop()


@contextlib.asynccontextmanager
async def http_from(live: LiveServer, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client whose connections come from ``address`` (a loopback address)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=live.url, transport=transport) as client:
        yield client


# ------------------------------------------------------------------ units


def test_token_bucket_says_when_to_come_back() -> None:
    bucket = RateLimit(rate=2.0, burst=3.0)
    assert all(bucket.allow(0.0) for _ in range(3))
    assert not bucket.allow(0.0)
    assert bucket.retry_after(0.0) == pytest.approx(0.5)
    assert bucket.allow(0.5) and not bucket.allow(0.5)
    assert not bucket.full(0.5) and bucket.full(2.0)


def test_keyed_limiter_forgets_refilled_keys_and_stays_bounded() -> None:
    limiter = KeyedLimiter(per_second=1.0, burst=2.0, max_keys=2000)
    assert limiter.hit("a", 0.0) is None and limiter.hit("a", 0.0) is None
    wait = limiter.hit("a", 0.0)
    assert wait is not None and wait == pytest.approx(1.0)
    for i in range(5000):  # many addresses, each once
        limiter.hit(f"k{i}", 10.0 + i * 1e-4)
    assert len(limiter) <= 2000
    limiter.prune(100.0)  # every bucket has refilled: all forgotten
    assert len(limiter) == 0


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("::ffff:198.51.100.1", "198.51.100.1"),
        (None, "unknown"),
    ],
)
def test_client_keys(host: str | None, key: str) -> None:
    assert client_key(host) == key


# ------------------------------------------------------------ room creation


async def test_many_clients_looping_creation(tmp_path: Path) -> None:
    """Eight addresses create rooms as fast as they can for 4 s: each gets its
    burst (10) and then 429 with Retry-After; nobody fills the server; the
    room list stays small; a ninth address still creates at once."""
    with server(tmp_path, Limits()) as live:
        async with http_from(live, "127.0.0.20") as warm:  # first requests load code
            for _ in range(12):
                await warm.post("/api/rooms", json={})
            await warm.get("/api/rooms")
        rss_before = rss_mb()
        clients = [f"127.0.0.{i}" for i in range(2, 10)]
        made: dict[str, int] = {}
        refused: dict[str, list[httpx.Response]] = {}

        async def loop(address: str) -> None:
            made[address] = 0
            refused[address] = []
            end = time.monotonic() + 4.0
            async with http_from(live, address) as http:
                while time.monotonic() < end:
                    r = await http.post("/api/rooms", json={"name": f"from {address}"})
                    if r.status_code == 200:
                        made[address] += 1
                    else:
                        refused[address].append(r)

        await asyncio.gather(*(loop(a) for a in clients))
        attempts = sum(made.values()) + sum(len(v) for v in refused.values())
        for address in clients:
            assert made[address] == Limits().create_burst, (address, made[address])
            last = refused[address][-1]
            assert last.status_code == 429
            assert set(last.json()) == {"code", "message"}
            assert last.json()["code"] == "rate_limited"
            assert 1 <= int(last.headers["Retry-After"]) <= 6
        async with http_from(live, "127.0.0.10") as http:
            assert (await http.post("/api/rooms", json={})).status_code == 200
            listing = await http.get("/api/rooms")
            everything = await http.get("/api/rooms", params={"all": True, "limit": 100})
        body = listing.json()
        assert body["total"] == (len(clients) + 1) * Limits().create_burst + 1
        assert len(body["rooms"]) == 50 and body["limit"] == 50 and body["offset"] == 0
        grown = rss_mb() - rss_before
        print(
            f"\n{attempts} creation attempts from {len(clients)} addresses in 4 s: "
            f"{sum(made.values())} rooms ({made[clients[0]]} per address), "
            f"RSS +{grown:.1f} MB, /api/rooms {len(listing.content)} bytes "
            f"(50 of {body['total']}), ?all&limit=100 {len(everything.content)} bytes"
        )
        assert len(everything.content) < 100 * 1024
        assert grown < 50


async def test_retry_after_is_honest(tmp_path: Path) -> None:
    limits = Limits(create_burst=2, create_per_minute=60.0)
    with server(tmp_path, limits) as live:
        async with http_from(live, "127.0.0.2") as http:
            for _ in range(2):
                assert (await http.post("/api/rooms", json={})).status_code == 200
            r = await http.post("/api/rooms", json={})
            assert r.status_code == 429
            wait = int(r.headers["Retry-After"])
            assert wait == 1
            await asyncio.sleep(wait)
            assert (await http.post("/api/rooms", json={})).status_code == 200


async def test_joins_and_play_now_are_limited_per_address(tmp_path: Path) -> None:
    limits = Limits(join_burst=3, play_now_burst=2)
    with server(tmp_path, limits) as live:
        async with http_from(live, "127.0.0.2") as a, http_from(live, "127.0.0.3") as b:
            code = (await a.post("/api/rooms", json={"seats": 10})).json()["code"]
            for i in range(3):
                r = await a.post(f"/api/rooms/{code}/join", json={"name": f"A{i}"})
                assert r.status_code == 200
            r = await a.post(f"/api/rooms/{code}/join", json={"name": "A9"})
            assert r.status_code == 429 and r.json()["code"] == "rate_limited"
            assert "Retry-After" in r.headers
            # unknown rooms count too: no guessing of codes past the limit
            r = await a.post("/api/rooms/ZZZZZZ/join", json={"name": "A9"})
            assert r.status_code == 429
            assert (await b.post(f"/api/rooms/{code}/join", json={"name": "B"})).status_code == 200
            for _ in range(2):
                assert (await a.post("/api/play-now", json={"name": "Solo"})).status_code == 200
            r = await a.post("/api/play-now", json={"name": "Solo"})
            assert r.status_code == 429 and r.json()["code"] == "rate_limited"
            assert (await b.post("/api/play-now", json={"name": "Solo"})).status_code == 200


async def test_forwarded_for_counts_only_from_a_trusted_proxy(tmp_path: Path) -> None:
    """The address is uvicorn's client address: ``X-Forwarded-For`` is believed
    only from a trusted proxy (uvicorn's ``forwarded_allow_ips``, by default
    127.0.0.1 alone). A client elsewhere cannot rotate addresses with the header."""
    limits = Limits(create_burst=2)
    with server(tmp_path, limits) as live:
        async with http_from(live, "127.0.0.2") as http:
            codes = []
            for i in range(4):
                r = await http.post(
                    "/api/rooms", json={}, headers={"X-Forwarded-For": f"198.51.100.{i}"}
                )
                codes.append(r.status_code)
            assert codes == [200, 200, 429, 429]
        async with http_from(live, "127.0.0.1") as proxy:  # a reverse proxy on this host
            for i in range(4):
                r = await proxy.post(
                    "/api/rooms", json={}, headers={"X-Forwarded-For": f"198.51.100.{i}"}
                )
                assert r.status_code == 200


# -------------------------------------------------------- expiry and the cap


async def test_empty_rooms_expire(tmp_path: Path) -> None:
    """A waiting room no seated human has connected to closes after
    ``empty_room_s`` (spectators and a seat taken but never used do not keep
    it); a room whose player connected stays."""
    with server(tmp_path, Limits(empty_room_s=0.6)) as live:
        async with http_from(live, "127.0.0.2") as http:
            bare = (await http.post("/api/rooms", json={})).json()["code"]
            joined = (await http.post("/api/rooms", json={})).json()["code"]
            await http.post(f"/api/rooms/{joined}/join", json={"name": "Ghost"})
            watched = (await http.post("/api/rooms", json={})).json()["code"]
            used = (await http.post("/api/rooms", json={})).json()["code"]
            seat = (await http.post(f"/api/rooms/{used}/join", json={"name": "Anna"})).json()
            spectator = await Client(live.ws_url, watched, None).connect()
            player = await Client(live.ws_url, used, seat["token"]).connect()
            await player.wait(lambda c: c.view is None and bool(c.updates))
            await player.close()  # she went away: the room waits for her (idle timer)
            await asyncio.sleep(1.8)
            status = {
                code: (await http.get(f"/api/rooms/{code}")).status_code
                for code in (bare, joined, watched, used)
            }
            assert status == {bare: 404, joined: 404, watched: 404, used: 200}
            await spectator.wait(lambda c: c.closed is not None)
            assert spectator.closed is not None and spectator.closed[0] == 4004
            assert any(e["code"] == "room_closed" for e in spectator.errors())
    assert METRICS.counts.get("rooms_expired", 0) >= 3


async def test_a_full_server_makes_way_then_says_503(tmp_path: Path) -> None:
    with server(tmp_path, Limits(max_rooms=4, empty_room_s=600)) as live:
        async with http_from(live, "127.0.0.2") as http:
            codes = [(await http.post("/api/rooms", json={})).json()["code"] for _ in range(4)]
            players = []
            for code in codes[1:]:  # three rooms in use, the oldest one empty
                seat = (await http.post(f"/api/rooms/{code}/join", json={"name": "P"})).json()
                players.append(await Client(live.ws_url, code, seat["token"]).connect())
            for p in players:
                await p.wait(lambda c: bool(c.updates))
            fifth = await http.post("/api/rooms", json={})
            assert fifth.status_code == 200
            assert (await http.get(f"/api/rooms/{codes[0]}")).status_code == 404
            seat = await http.post(f"/api/rooms/{fifth.json()['code']}/join", json={"name": "Q"})
            players.append(
                await Client(live.ws_url, fifth.json()["code"], seat.json()["token"]).connect()
            )
            await players[-1].wait(lambda c: bool(c.updates))
            full = await http.post("/api/rooms", json={})
            assert full.status_code == 503
            assert full.json() == {"code": "server_full", "message": full.json()["message"]}
            assert int(full.headers["Retry-After"]) >= 1
            for p in players:
                await p.close()


async def test_room_list_is_paged(tmp_path: Path) -> None:
    with server(tmp_path, Limits()) as live:
        async with http_from(live, "127.0.0.2") as http:
            made = [
                (await http.post("/api/rooms", json={"name": f"R{i}"})).json()["code"]
                for i in range(7)
            ]
            first = (await http.get("/api/rooms", params={"limit": 3})).json()
            second = (await http.get("/api/rooms", params={"limit": 3, "offset": 3})).json()
            last = (await http.get("/api/rooms", params={"limit": 3, "offset": 6})).json()
            assert first["total"] == second["total"] == last["total"] == 7
            listed = [r["code"] for r in first["rooms"] + second["rooms"] + last["rooms"]]
            assert listed == made  # oldest first, each once
            for params in ({"limit": 101}, {"limit": 0}, {"offset": -1}, {"limit": "x"}):
                r = await http.get("/api/rooms", params=params)
                assert r.status_code == 422, params
                assert set(r.json()) == {"code", "message"} and r.json()["code"] == "bad_request"


# --------------------------------------------------------------- sockets


async def two_seats(live: LiveServer, http: httpx.AsyncClient) -> tuple[str, list[str]]:
    body = {"create": {"seats": 2}, "timing": {**FAST, "turn_ms": 60000.0}, "seed": 4}
    code = (await http.post("/api/test/rooms", json=body)).json()["code"]
    tokens = []
    for name in ("A", "B"):
        tokens.append(
            (await http.post(f"/api/rooms/{code}/join", json={"name": name})).json()["token"]
        )
    return code, tokens


async def test_pongs_and_hello_do_not_count_as_game_frames(tmp_path: Path) -> None:
    """25 game frames and 15 pongs at once (40 > 30): the socket stays; a flood
    of pongs alone (over their own limit of 20 at once) closes it with 1008."""
    with server(tmp_path, Limits()) as live:
        async with http_from(live, "127.0.0.2") as http:
            code, (ta, tb) = await two_seats(live, http)
        a = await Client(live.ws_url, code, ta).connect()
        b = await Client(live.ws_url, code, tb).connect()
        await a.wait(lambda c: c.view is not None)
        for i in range(25):
            await a.act("call", flip_id=99, id=i)
            if i < 15:
                await a.send({"type": "pong", "id": 1, "client_time": 1.0})
        await a.wait(lambda c: sum(e["code"] == "stale_flip" for e in c.errors()) == 25)
        assert a.closed is None
        assert not any(e["code"] == "rate_limited" for e in a.errors())
        assert sorted(e["id"] for e in a.errors()) == list(range(25))
        for _ in range(60):
            if a.closed is not None:
                break
            with contextlib.suppress(websockets.ConnectionClosed):
                await a.send({"type": "pong", "id": 1, "client_time": 1.0})
        await a.wait(lambda c: c.closed is not None)
        assert a.closed is not None and a.closed[0] == 1008
        flood = [e for e in a.errors() if e["code"] == "rate_limited"]
        assert flood and "hello/pong" in flood[0]["message"]
        await b.close()


async def test_a_frozen_client_may_answer_every_ping_at_once(tmp_path: Path) -> None:
    """A client that stalled (a frozen page) answers the pings it missed all
    together: each answers a ping of the server's, so none counts toward the
    control limit (here 3 at once); pongs that answer nothing still do."""
    with server(tmp_path, Limits(control_per_second=0.5, control_burst=3)) as live:
        async with http_from(live, "127.0.0.2") as http:
            code, (ta, tb) = await two_seats(live, http)
        a = await Client(live.ws_url, code, ta).connect()
        b = await Client(live.ws_url, code, tb).connect()
        pings = lambda c: [f for f in c.frames if f["type"] == "ping"]  # noqa: E731
        await a.wait(lambda c: len(pings(c)) >= 6, timeout=20)
        for ping in pings(a):  # six answers at once, twice the burst
            await a.send({"type": "pong", "id": ping["id"], "client_time": 1.0})
        await a.act("call", flip_id=99, id=7)  # the socket still answers
        await a.wait(lambda c: any(e.get("id") == 7 for e in c.errors()))
        assert a.closed is None
        assert not any(e["code"] == "rate_limited" for e in a.errors())
        last = pings(a)[-1]["id"]
        for _ in range(10):  # answers to no ping: a flood
            if a.closed is not None:
                break
            with contextlib.suppress(websockets.ConnectionClosed):
                await a.send({"type": "pong", "id": last, "client_time": 1.0})
        await a.wait(lambda c: c.closed is not None)
        assert a.closed is not None and a.closed[0] == 1008
        await b.close()


async def test_one_token_on_many_sockets_shares_one_limit(tmp_path: Path) -> None:
    with server(tmp_path, Limits()) as live:
        async with http_from(live, "127.0.0.2") as http:
            code, (ta, _tb) = await two_seats(live, http)
        sockets = [await Client(live.ws_url, code, ta).connect() for _ in range(3)]
        for s in sockets:
            await s.wait(lambda c: bool(c.updates))
        for _ in range(12):  # 36 frames of one token, 12 per socket
            for s in sockets:
                with contextlib.suppress(websockets.ConnectionClosed):
                    await s.act("call", flip_id=99)
        for s in sockets:
            await s.wait(lambda c: c.closed is not None or len(c.errors()) >= 12, timeout=5)
        closed = [s for s in sockets if s.closed is not None]
        assert closed and all(s.closed is not None and s.closed[0] == 1008 for s in closed)
        assert any(e["code"] == "rate_limited" for s in closed for e in s.errors())
        for s in sockets:
            await s.close()


async def test_sockets_per_address(tmp_path: Path) -> None:
    with server(tmp_path, Limits(sockets_per_address=3)) as live:
        async with http_from(live, "127.0.0.2") as http:
            code = (await http.post("/api/rooms", json={})).json()["code"]
        held = [await Client(live.ws_url, code, None).connect() for _ in range(3)]
        for c in held:
            await c.wait(lambda c: bool(c.updates))
        extra = await Client(live.ws_url, code, None).connect()
        await extra.wait(lambda c: c.closed is not None)
        assert extra.closed is not None and extra.closed[0] == 1008
        assert extra.errors()[0]["code"] == "too_many_sockets"
        other = Client(live.ws_url, code, None)
        other.ws = await websockets.connect(other.url, local_addr=("127.0.0.3", 0))
        other._reader = asyncio.create_task(other._read())
        await other.send({"type": "hello", "token": None})
        await other.wait(lambda c: bool(c.updates))  # another address is not counted
        await held[0].close()
        await asyncio.sleep(0.2)
        again = await Client(live.ws_url, code, None).connect()
        await again.wait(lambda c: bool(c.updates))
        for c in (*held, other, again):
            await c.close()


@pytest.mark.parametrize("compression", ["deflate", None])
async def test_a_socket_that_stops_reading_is_closed_with_1013(
    tmp_path: Path, compression: str | None
) -> None:
    """A real client stops reading (its library stops taking data once one
    message waits unread, so it answers no WebSocket ping): the server closes
    it with 1013 before uvicorn's keepalive (which would say 1011); when the
    client reads again it finds the close frame with 1013. (Without
    permessage-deflate the pings are the server's own keepalive's.)"""
    before = METRICS.counts.get("close:1013", 0)
    with server(tmp_path, Limits(), ws_ping_interval=1.0, ws_ping_timeout=4.0) as live:
        async with http_from(live, "127.0.0.2") as http:
            code, (ta, _tb) = await two_seats(live, http)
        ws = await websockets.connect(
            f"{live.ws_url}/ws/{code}", max_queue=1, ping_interval=None, compression=compression
        )
        await ws.send(json.dumps({"v": 1, "type": "hello", "token": ta}))
        await asyncio.sleep(6.0)  # not reading: the server pings at 1 s, gives up at 1 + 2 s
        frames = []
        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in ws:
                frames.append(json.loads(text))
        assert ws.close_code == 1013, (ws.close_code, ws.close_reason)
        assert ws.close_reason == "not reading"
        assert frames and frames[0]["type"] == "welcome"
    assert METRICS.counts.get("close:1013", 0) == before + 1


async def test_the_websocket_keepalive_of_a_game_socket_is_the_servers_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game socket's WebSocket pings come from the server's pinger, at
    uvicorn's interval, not from uvicorn's two timers per socket; the client
    library's automatic pongs answer them and the socket stays open. (A
    socket with permessage-deflate, where websockets parses every frame,
    keeps uvicorn's.)"""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    uvicorns: list[object] = []
    monkeypatch.setattr(
        WebSocketsSansIOProtocol, "send_keepalive_ping", lambda proto: uvicorns.append(proto)
    )
    pings, pongs = METRICS.counts.get("ws_pings", 0), METRICS.counts.get("ws_pongs", 0)
    with server(tmp_path, Limits(), ws_ping_interval=1.0, ws_ping_timeout=4.0) as live:
        async with http_from(live, "127.0.0.2") as http:
            code, (ta, tb) = await two_seats(live, http)
        a = await Client(live.ws_url, code, ta).connect(compression=None)
        b = await Client(live.ws_url, code, tb).connect()  # with permessage-deflate
        for c in (a, b):
            await c.wait(lambda c: any(f["type"] == "welcome" for f in c.frames))
        await asyncio.sleep(4.5)  # a's pings at about 1, 2, 3 and 4 s, each answered
        assert a.ws.close_code is None
        assert METRICS.counts.get("ws_pings", 0) - pings >= 3
        assert METRICS.counts.get("ws_pongs", 0) - pongs >= 3
        assert len(uvicorns) == 1  # b's, from uvicorn's timer (the stand-in does not re-arm it)
        await a.close()
        await b.close()


# ------------------------------------------------------------ invalid UTF-8


async def test_invalid_utf8_is_closed_1007_quietly(tmp_path: Path) -> None:
    """Each text frame that is not UTF-8 closes its socket with 1007; the log
    gets at most one warning line for all of them, never a traceback."""
    import logging

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    before = METRICS.counts.get("bad_utf8", 0)
    try:
        with server(tmp_path, Limits()) as live:
            async with http_from(live, "127.0.0.2") as http:
                code = (await http.post("/api/rooms", json={})).json()["code"]
            codes = []
            for _ in range(20):
                ws = await websockets.connect(f"{live.ws_url}/ws/{code}")
                await ws.send(b'{"v": 1, "type": "hello", "lang": "\xff\xfe"}', text=True)
                with contextlib.suppress(websockets.ConnectionClosed):
                    async for _frame in ws:
                        pass
                codes.append(ws.close_code)
            # the server still serves everyone else
            ok = await Client(live.ws_url, code, None).connect()
            await ok.wait(lambda c: bool(c.updates))
            await ok.close()
    finally:
        logger.removeHandler(handler)
    assert codes == [1007] * 20
    utf8 = [r for r in records if "UTF-8" in r.getMessage()]
    assert len(utf8) <= 1
    assert all(r.exc_info is None and r.levelno == logging.WARNING for r in utf8)
    assert not [r for r in records if r.levelno >= logging.ERROR]
    assert METRICS.counts.get("bad_utf8", 0) - before == 20
