"""The server's CPU per frame on its socket path alone (issue 14): frames
queued on :class:`~slapjack.server.connection.Conn` and written to real
WebSockets, their answers read back, with no room, referee or store.

A server process (uvicorn with ``slapjack serve``'s settings: uvloop,
websockets-sansio, no permessage-deflate) holds ``--sockets`` sockets, each a
``Conn`` set up as :func:`slapjack.server.sockets.serve_socket` sets it up
(its writer task, and the direct write where the tree has one); a timer
every 10 ms sends each socket its frames (``--rate`` a second, ``--burst``
at a time, as a room's update and a ping come together), each about
``--bytes`` long (``--ping``: the last of each burst is a ping's ~50 bytes,
sent alone a tick later, as the pinger's own ping is, in another turn of
the event loop, where uvloop cannot join its write to the update's;
``--together``: it goes in the same write as the first frame, as a ping
that rides on an update does). A client process (picows) answers every
frame with a small text frame, which the server reads with ``ws.receive()`` as
``serve_socket`` does (``--no-answer``: it answers nothing). The server
counts its own CPU time (``getrusage``) over ``--seconds`` after every socket
is connected, so the figure is robust to a busy machine; the client's
counts show that every frame arrived.

    .venv/bin/python bench/sendpath.py --sockets 2000 --seconds 10
    # before/after in one sitting: the old tree on PYTHONPATH (the server imports it)
    PYTHONPATH=/tmp/before/src .venv/bin/python bench/sendpath.py --sockets 2000 --seconds 10

``--receive``: the receive path alone. The server sends nothing; the client
sends every socket ``--rate`` pongs a second (spread over 10 ms ticks;
``--frame slap`` or ``flip``: that game frame instead), and the server reads
each as ``serve_socket`` does and checks it (``protocol.fast_pong`` where the
tree has it, else ``CLIENT_MESSAGE.validate_json``): CPU per frame received.
Where the tree has ``sockets.inline_frames`` every text frame is handled in
uvicorn's ``data_received`` (``--no-split``: without the frame splitter);
where it has only ``sockets.inline_pongs``, pongs are, and other frames go
through ``ws.receive()``.

    PYTHONPATH=/tmp/before/src .venv/bin/python bench/sendpath.py --receive --sockets 2000 --rate 5

The server runs under ``taskset -c 0`` and the client under ``taskset -c 1``
(``--no-pin``: neither).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from typing import Any

FRAME_TICK_S = 0.01
FRAMES = {  # what the client sends (--receive) or answers with
    "pong": b'{"v":1,"type":"pong","id":1,"client_time":1.0}',
    "slap": b'{"v":1,"type":"slap","token":"AbCdEfGhIjKlMnOpQrStUv","flip_id":12,'
    b'"reaction_ms":231.5,"shown_at":1733091234567.25,"input_at":1733091234798.75}',
    "flip": b'{"v":1,"type":"flip","token":"AbCdEfGhIjKlMnOpQrStUv","flip_id":12}',
}


def rusage_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# ---------------------------------------------------------------- the server


def install_inline(
    sockets: Any,
    ws: Any,
    args: argparse.Namespace,
    received: list[int],
    checked: list[int],
    check: Any,
) -> None:
    """The receive path of the tree on ``PYTHONPATH``: every text frame in
    uvicorn's ``data_received`` (``inline_frames``), or pongs alone
    (``inline_pongs``), or nothing (every frame through ``ws.receive()``)."""
    inline_frames = getattr(sockets, "inline_frames", None)
    inline = getattr(sockets, "inline_pongs", None)
    if inline_frames is not None:

        def on_text(text: str) -> bool:
            received[0] += 1
            check(text)
            return True

        inline_frames(ws, on_text, split=args.split)
    elif inline is not None:

        def answer(ping_id: int, client_time: float) -> bool:
            received[0] += 1
            checked[0] += 1
            return True

        inline(ws, answer)


def checker(checked: list[int]) -> Any:
    """``serve_socket``'s check of a frame: ``fast_pong`` where the tree has it, else pydantic."""
    from slapjack import protocol

    fast_pong = getattr(protocol, "fast_pong", None)
    validate = protocol.CLIENT_MESSAGE.validate_json

    def check(text: str | None) -> None:
        if text is None:
            return
        if fast_pong is not None and len(text) < 256 and fast_pong(text) is not None:
            checked[0] += 1
            return
        validate(text)  # a slap or a flip: pydantic, as serve_socket does
        checked[0] += 1

    return check


def inproc(args: argparse.Namespace) -> None:
    """``--inproc``: uvicorn's websockets-sansio protocol object alone, in this
    process, on a stand-in transport: the handshake, then ``--frames`` masked
    client frames (``--frame``) fed one ``data_received`` each, with one turn
    of the event loop after each (the app task reads what was queued); process
    CPU time per frame, best of ``--rounds``. No sockets, no epoll, no other
    process: the receive path's own cost, robust to a busy machine."""
    import base64

    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket
    from uvicorn.config import Config
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from uvicorn.server import ServerState
    from websockets.frames import apply_mask

    from slapjack.commands.serve import MAX_WS_FRAME
    from slapjack.server import sockets

    received = [0]
    checked = [0]
    check = checker(checked)

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        install_inline(sockets, ws, args, received, checked, check)
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            received[0] += 1
            check(message.get("text"))

    class Transport:
        def __init__(self) -> None:
            self.out: list[bytes] = []

        def write(self, data: bytes) -> None:
            self.out.append(data)

        def is_closing(self) -> bool:
            return False

        def get_extra_info(self, name: str, default: Any = None) -> Any:
            return default

        def pause_reading(self) -> None:
            pass

        def resume_reading(self) -> None:
            pass

        def close(self) -> None:
            pass

    config = Config(
        Starlette(routes=[WebSocketRoute("/ws", endpoint)]),
        ws="websockets-sansio",
        ws_max_size=MAX_WS_FRAME,
        ws_per_message_deflate=False,
        ws_ping_interval=None,
        lifespan="off",
        log_level="warning",
    )
    config.load()
    key = b"\x37\xfa\x21\x3d"
    payload = FRAMES[args.frame]
    frame = bytes([0x81, 0x80 | len(payload)]) + key + apply_mask(payload, key)
    if len(payload) >= 126:
        frame = bytes([0x81, 0xFE]) + len(payload).to_bytes(2, "big") + key
        frame += apply_mask(payload, key)
    import time as _time

    async def main() -> dict[str, Any]:
        proto = WebSocketsSansIOProtocol(
            config, ServerState(), {}, _loop=asyncio.get_running_loop()
        )
        transport = Transport()
        proto.connection_made(transport)  # type: ignore[arg-type]
        nonce = base64.b64encode(b"0123456789abcdef").decode()
        proto.data_received(
            (
                "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {nonce}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        for _ in range(10):
            await asyncio.sleep(0)
        assert transport.out and transport.out[0].startswith(b"HTTP/1.1 101"), transport.out
        feed = proto.data_received
        best = float("inf")
        for _ in range(args.rounds):
            got0 = received[0]
            t0 = _time.process_time()
            for _ in range(args.frames):
                feed(frame)
                await asyncio.sleep(0)
            cpu = _time.process_time() - t0
            assert received[0] - got0 == args.frames, (received[0] - got0, args.frames)
            best = min(best, cpu)
        proto.connection_lost(None)  # the app reads its disconnect and ends
        for _ in range(10):
            await asyncio.sleep(0)
        return {
            "frame": args.frame,
            "frames": args.frames,
            "split": args.split,
            "inline_frames": hasattr(sockets, "inline_frames"),
            "inline_pongs": hasattr(sockets, "inline_pongs"),
            "us_per_frame": round(best / args.frames * 1e6, 2),
        }

    import uvloop

    print(json.dumps(uvloop.run(main())))


def serve(args: argparse.Namespace) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket

    from slapjack import protocol
    from slapjack.commands.serve import server_config
    from slapjack.server import sockets
    from slapjack.server.connection import Conn

    fast_pong = getattr(protocol, "fast_pong", None)
    checked = [0]
    check = checker(checked)

    direct_writer = getattr(sockets, "direct_writer", None)
    conns: list[Conn] = []
    received = [0]
    result: dict[str, Any] = {"direct": direct_writer is not None}
    body = '{"type":"update","seq":%d,"pad":"' + "x" * max(0, args.bytes - 40) + '"}'
    ping = '{"type":"ping","id":%d,"server_time":81002.125}'
    together = args.together and hasattr(Conn(), "ride")
    result["together"] = together

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        conn = Conn(ws)
        if direct_writer is not None:
            conn.direct = direct_writer(ws)
        writer = asyncio.create_task(conn.writer())
        conns.append(conn)
        if args.receive:
            install_inline(sockets, ws, args, received, checked, check)
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                received[0] += 1
                if args.receive:
                    check(message.get("text"))
        finally:
            conn.close(1000)
            await asyncio.wait_for(writer, 2.0)

    async def fan_out() -> None:
        while not server.started:
            await asyncio.sleep(0.05)
        print(json.dumps({"ready": True}), flush=True)
        while len(conns) < args.sockets:
            await asyncio.sleep(0.1)
        await asyncio.sleep(2.0)
        period = args.burst / args.rate  # seconds between one socket's bursts
        slots = max(1, round(period / FRAME_TICK_S))
        seq = 0
        profile = None
        if args.profile:
            import cProfile

            profile = cProfile.Profile()
            profile.enable()
        t0 = time.perf_counter()
        cpu0 = rusage_s()
        got0 = received[0]
        sent = 0
        tick = 0
        later: list[tuple[Conn, str]] = []
        pings_due: list[tuple[Conn, str]] = []
        next_at = t0
        while time.perf_counter() - t0 < args.seconds:
            if args.receive:
                await asyncio.sleep(0.05)
                continue
            for conn in conns[tick % slots :: slots]:
                texts: list[str] = []
                for _ in range(args.burst):
                    seq += 1
                    texts.append(body % seq)
                if args.ping:
                    texts[-1] = ping % seq
                sent += len(texts)
                if together and len(texts) > 1:
                    # the last frame (the ping) rides on the first's write
                    # as the pinger's would (Conn.ride: written before it)
                    taken: list[str] = []
                    last = texts.pop()
                    conn.ride = lambda last=last, taken=taken: taken.append(last) or last
                    conn.send(texts[0])
                    conn.ride = None
                    if not taken:  # not written at once: it goes as it would alone
                        texts.insert(1, last)
                    texts.pop(0)
                if args.ping and not together:  # the ping alone, from a later tick
                    later.append((conn, texts.pop()))
                for text in texts:
                    conn.send(text)
            for conn, text in pings_due:
                conn.send(text)
            pings_due, later = later, pings_due
            later.clear()
            tick += 1
            next_at += FRAME_TICK_S
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        wall = time.perf_counter() - t0
        cpu = rusage_s() - cpu0
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)
        got = received[0] - got0
        result.update(
            sockets=len(conns),
            seconds=round(wall, 2),
            sent=sent,
            received=got,
            cpu_s=round(cpu, 3),
            cpu_pct=round(100 * cpu / wall, 1),
            us_per_frame_sent=round(1e6 * cpu / max(sent, 1), 2),
            us_per_frame_both=round(1e6 * cpu / max(sent + got, 1), 2),
        )
        if args.receive:
            result.update(
                fast_pong=fast_pong is not None,
                pongs_checked=checked[0],
                us_per_frame_received=round(1e6 * cpu / max(got, 1), 2),
            )
        print(json.dumps(result), flush=True)
        await asyncio.sleep(1.0)
        server.should_exit = True

    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    config = server_config(app, "warning")
    config.host, config.port = "127.0.0.1", args.port
    config.lifespan = "off"
    server = uvicorn.Server(config)

    async def main() -> None:
        task = asyncio.create_task(fan_out())
        await server.serve()
        task.cancel()

    import uvloop

    uvloop.run(main())


# ---------------------------------------------------------------- the client


def client(args: argparse.Namespace) -> None:
    import uvloop
    from picows import WSListener, WSMsgType, ws_connect

    stats = {"frames": 0, "closed": 0}
    answer = FRAMES[args.frame]

    class Listener(WSListener):  # type: ignore[misc]
        def on_ws_frame(self, transport: Any, frame: Any) -> None:
            if frame.msg_type == WSMsgType.TEXT:
                stats["frames"] += 1
                if args.answer:
                    transport.send(WSMsgType.TEXT, answer)
            elif frame.msg_type == WSMsgType.CLOSE:
                transport.send_close(frame.get_close_code())
                transport.disconnect()

        def on_ws_disconnected(self, transport: Any) -> None:
            stats["closed"] += 1

    async def main() -> None:
        url = f"ws://127.0.0.1:{args.port}/ws"
        pending = []
        for i in range(args.sockets):
            pending.append(
                asyncio.create_task(ws_connect(Listener, url, websocket_handshake_timeout=60))
            )
            if i % 50 == 49:
                await asyncio.sleep(0.1)
        connected = await asyncio.gather(*pending)
        if args.receive:
            transports = [t for t, _ in connected]
            slots = max(1, round(1.0 / args.rate / FRAME_TICK_S))
            tick = 0
            next_at = time.perf_counter()
            while stats["closed"] < args.sockets:
                for t in transports[tick % slots :: slots]:
                    t.send(WSMsgType.TEXT, answer)
                tick += 1
                next_at += FRAME_TICK_S
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        while stats["closed"] < args.sockets:
            await asyncio.sleep(0.2)
        print(json.dumps({"client_frames": stats["frames"]}), flush=True)

    uvloop.run(main())


# ---------------------------------------------------------------- the driver


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sockets", type=int, default=2000)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rate", type=float, default=2.0, help="frames a second per socket")
    p.add_argument("--burst", type=int, default=1, help="frames sent to a socket at once")
    p.add_argument("--bytes", type=int, default=300, help="length of a frame")
    p.add_argument("--no-answer", dest="answer", action="store_false")
    p.add_argument(
        "--ping", action="store_true", help="the last frame of each burst is a ping (~50 bytes)"
    )
    p.add_argument(
        "--together",
        action="store_true",
        help="the last frame of each burst rides in the first's write (a tree with Conn.ride)",
    )
    p.add_argument("--receive", action="store_true", help="the client sends, the server reads")
    p.add_argument("--profile", metavar="FILE", help="the server's cProfile stats to FILE")
    p.add_argument(
        "--frame", choices=sorted(FRAMES), default="pong", help="the frame the client sends"
    )
    p.add_argument(
        "--no-split",
        dest="split",
        action="store_false",
        help="--receive: no frame splitter in front of websockets' parser (a tree that has one)",
    )
    p.add_argument("--no-pin", dest="pin", action="store_false")
    p.add_argument(
        "--inproc",
        action="store_true",
        help="the receive path in this process alone (uvicorn's protocol, no sockets)",
    )
    p.add_argument("--frames", type=int, default=50_000, help="--inproc: frames a round")
    p.add_argument("--rounds", type=int, default=5, help="--inproc: rounds (the best counts)")
    p.add_argument("--role", choices=["driver", "server", "client"], default="driver")
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args()
    if args.inproc:
        inproc(args)
        return
    if args.role == "server":
        serve(args)
        return
    if args.role == "client":
        client(args)
        return
    port = free_port()
    base = [sys.executable, __file__, *sys.argv[1:], "--port", str(port), "--role"]
    taskset = shutil.which("taskset") if args.pin else None
    pin = (lambda cpu: [taskset, "-c", cpu]) if taskset else (lambda cpu: [])
    env = dict(os.environ)
    server = subprocess.Popen([*pin("0"), *base, "server"], stdout=subprocess.PIPE, env=env)
    assert server.stdout is not None
    if b"ready" not in server.stdout.readline():
        raise SystemExit("the server did not start")
    clients = subprocess.Popen([*pin("1"), *base, "client"], stdout=subprocess.PIPE, env=env)
    try:
        out, _ = server.communicate(timeout=120 + args.seconds)
        cout, _ = clients.communicate(timeout=30)
    finally:
        for proc in (server, clients):
            if proc.poll() is None:
                proc.kill()
    result = json.loads(out.decode().strip().splitlines()[-1])
    result.update(json.loads(cout.decode().strip().splitlines()[-1]))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
