"""One client's WebSocket at the edge: read and check its frames, pass them to
its room, ping it for clock sync, notice when it stops reading, and read the
kernel's round-trip estimate of its connection for the fair referee.

Routes live in :mod:`.routes.play`; this module knows nothing of HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import struct
import time
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from fastapi import WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect
from websockets.frames import Frame, Opcode

from slapjack.protocol import (
    CLIENT_MESSAGE,
    MAX_FRAME_BYTES,
    ErrorCode,
    Hello,
    Pong,
    answer_id,
    fast_pong,
    refusal,
)

from . import wsframes
from .clocksync import TCP_INFO_SIZE, parse_tcp_info
from .connection import Conn, KeyedLimiter, Limits
from .metrics import METRICS
from .pings import Pinger
from .room import Room

log = logging.getLogger(__name__)

CLOSE_FLOOD: Final = 1008
"""Close code of a socket that sends too many frames, or one socket too many from its address."""


def _ws_protocol(ws: WebSocket) -> Any:
    """uvicorn's protocol object behind ``ws`` (``None`` under other servers)."""
    return getattr(getattr(ws, "_receive", None), "__self__", None)


def not_reading(
    conn: Conn, ws: WebSocket, limit_s: float, keepalive: wsframes.Keepalive | None = None
) -> Callable[[], bool]:
    """A check (the pinger's, once a second) that is true when the client has
    stopped reading: a frame queued for it has not gone out for ``limit_s``
    seconds, or the WebSocket layer's keepalive ping (``keepalive``'s when
    the socket has one, :func:`.wsframes.take_keepalive`, else uvicorn's) has
    gone unanswered for ``limit_s`` (at most half of uvicorn's ping timeout,
    so this is seen before uvicorn would drop the socket with 1011)."""
    proto = _ws_protocol(ws)
    if proto is None or getattr(proto, "loop", None) is None:
        return _Unread(conn, limit_s, None, limit_s)
    timeout = getattr(proto, "ping_timeout", None)
    ping_limit_s = limit_s
    if isinstance(timeout, int | float) and timeout > 0:
        ping_limit_s = min(limit_s, timeout / 2)
    return _Unread(conn, limit_s, proto, ping_limit_s, keepalive)


class _Unread:
    """:func:`not_reading`'s check, with what does not change (uvicorn's
    protocol object, the limits) looked up once: a few fields a socket."""

    __slots__ = ("conn", "keepalive", "limit_s", "ping_limit_s", "proto", "sansio")

    def __init__(
        self,
        conn: Conn,
        limit_s: float,
        proto: Any,
        ping_limit_s: float,
        keepalive: wsframes.Keepalive | None = None,
    ) -> None:
        self.conn = conn
        self.limit_s = limit_s
        self.proto = proto
        self.ping_limit_s = ping_limit_s
        self.keepalive = keepalive
        self.sansio = hasattr(proto, "pending_ping_payload")

    def __call__(self) -> bool:
        if self.conn.waiting_s() > self.limit_s:
            return True
        if self.keepalive is not None:
            return self.keepalive.unanswered_s(time.monotonic()) > self.ping_limit_s
        proto = self.proto
        if proto is None:
            return False
        sent: float | None = None
        if self.sansio:  # uvicorn's websockets-sansio: one ping at a time
            if proto.pending_ping_payload is not None:
                sent = proto.ping_sent_at
        else:  # uvicorn's legacy websockets protocol: {payload: (future, sent_at)}
            pings = getattr(proto, "pings", None)
            if isinstance(pings, dict) and pings:
                stamps = [v[1] for v in pings.values() if isinstance(v, tuple) and len(v) == 2]
                sent = min(stamps) if stamps else None
        return isinstance(sent, float) and proto.loop.time() - sent > self.ping_limit_s


def _sansio(ws: WebSocket) -> Any:
    """``ws``'s uvicorn websockets-sansio protocol object (the server's
    default), or ``None`` under any other WebSocket implementation."""
    proto = _ws_protocol(ws)
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:  # pragma: no cover - uvicorn without websockets
        return None
    return proto if type(proto) is WebSocketsSansIOProtocol else None


def direct_writer(ws: WebSocket) -> Callable[..., bool] | None:
    """A function that writes a text frame onto ``ws`` at once, without a task
    wake-up or the ASGI send path, and says whether it did: under uvicorn's
    websockets-sansio protocol (the server's default), ``None`` elsewhere.

    It does what that protocol's ``send`` does for a ``websocket.send`` (the
    frame goes to the transport) and refuses (``False``: the caller queues the
    frame for the socket's writer task, whose send then waits) whenever that
    ``send`` would not write at once: the transport's buffer is over its
    high-water mark (the client is slow or does not read), the close has begun,
    the connection is gone. Without extensions the frame header is built here
    (a server's frames are not masked: RFC 6455 5.2); with permessage-deflate
    the websockets protocol object frames and compresses it.

    ``ride()`` (the pinger's, :meth:`Conn.send` passes it), asked only once
    the frame is sure to be written, may return a clock-sync ``ping`` stamped
    that moment: it goes in the same ``transport.write``, as a frame of its
    own just before ``text``, so that the client answers it before it
    handles the update (whose handling would otherwise count in the ping's
    round trip)."""
    proto = _sansio(ws)
    if proto is None:
        return None
    from websockets.protocol import State

    wsconn = proto.conn
    writable = proto.writable
    transport = proto.transport
    plain = not wsconn.extensions
    open_ = State.OPEN

    def write(text: str, ride: Callable[[], str | None] | None = None) -> bool:
        if (
            proto.close_sent
            or proto.disconnected
            or not writable.is_set()
            or wsconn.state is not open_
            or transport.is_closing()
        ):
            return False
        data = text.encode()
        try:
            ping = ride() if ride is not None else None
            if plain:
                frame = _text_header(len(data)) + data
                if ping is not None:
                    first = ping.encode()
                    frame = _text_header(len(first)) + first + frame
                transport.write(frame)
            else:
                if ping is not None:
                    wsconn.send_text(ping.encode())
                wsconn.send_text(data)
                transport.write(b"".join(wsconn.data_to_send()))
        except Exception as exc:  # the writer task's send meets it again and ends the socket
            # (a ping ride() gave is lost with it: its pong would never come)
            log.debug("direct write failed: %s", exc)
            return False
        return True

    return write


def inline_frames(ws: WebSocket, on_text: Callable[[str], bool], *, split: bool = True) -> bool:
    """Under uvicorn's websockets-sansio protocol, hand every final text frame
    that comes while nothing waits in the socket's receive queue (and the close
    has not begun) to ``on_text(text)`` at once, in the protocol's
    ``data_received``: without the queue, the pause and resume of reading,
    ``ws.receive()`` and a wake-up of the reading task. Whatever ``on_text``
    declines (``False``), bad UTF-8, every other frame, and any frame that
    comes while others wait (so frames keep their order) goes the usual way.

    Without extensions (and unless ``split`` is false) the small masked text
    frames are cut out of the bytes before websockets' parser
    (:mod:`.wsframes`); every other frame, and every error, is websockets' and
    uvicorn's as before. Says whether it is in place (``False`` under other
    servers)."""
    proto = _sansio(ws)
    if proto is None:
        return False
    queued = proto.handle_text
    queue = proto.queue
    waiting = getattr(queue, "_queue", None)  # an asyncio.Queue's deque: no call to look
    if not isinstance(waiting, deque):
        waiting = None

    def text_received(data: bytes) -> bool:
        """``data`` handled here (``True``), or to go the usual way."""
        if (waiting if waiting is not None else queue.qsize()) or proto.close_sent:
            return False
        try:
            text = data.decode()
        except UnicodeDecodeError:  # the usual way closes the socket (1007)
            return False
        return on_text(text)

    def handle_text(event: Any) -> None:  # a text frame parsed by websockets
        if not (event.fin and text_received(event.data)):
            queued(event)

    def cut_out(payload: bytes) -> None:  # a text frame cut out by the splitter
        if not text_received(payload):
            queued(Frame(Opcode.TEXT, payload))

    proto.handle_text = handle_text  # type: ignore[method-assign]
    if split:
        wsframes.install(proto, cut_out, MAX_FRAME_BYTES)
    return True


def let_go(ws: WebSocket, conn: Conn | None = None) -> None:
    """Undo :func:`inline_frames` and :func:`direct_writer` once the socket's
    reader has ended: the functions they put on uvicorn's protocol object and
    on ``conn`` refer back to that object, reference cycles that would keep the
    socket's objects (about a hundred) until a full collection of the heap,
    which :mod:`.heap` runs only when the heap has grown (a walk of all of it).
    Without them the socket is freed by reference counting when it closes."""
    if conn is not None:
        conn.direct = None
    proto = _sansio(ws)
    if proto is None:
        return
    vars(proto).pop("handle_text", None)  # the class's own again
    wsframes.uninstall(proto)


def inline_pongs(ws: WebSocket, answer: Callable[[int, float], bool]) -> bool:
    """:func:`inline_frames` for pongs alone: a well-formed ``pong``
    (:func:`~slapjack.protocol.fast_pong`) goes to ``answer(id, client_time)``;
    whatever ``answer`` declines, and every other frame, goes the usual way."""

    def on_text(text: str) -> bool:
        pong = fast_pong(text) if len(text) < 256 else None
        return pong is not None and answer(*pong)

    return inline_frames(ws, on_text)


_SHORT_HEADERS: Final = tuple(bytes((0x81, n)) for n in range(126))
_pack_16: Final = struct.Struct("!BBH").pack
_pack_64: Final = struct.Struct("!BBQ").pack


def _text_header(n: int) -> bytes:
    """The header of an unmasked, final text frame of ``n`` bytes (RFC 6455 5.2)."""
    if n < 126:
        return _SHORT_HEADERS[n]
    if n < 65536:
        return _pack_16(0x81, 126, n)
    return _pack_64(0x81, 127, n)


def _abort(ws: WebSocket) -> None:
    transport = getattr(_ws_protocol(ws), "transport", None)
    if transport is not None:
        with contextlib.suppress(Exception):
            transport.abort()


def tcp_rtt(ws: WebSocket) -> tuple[float, float, float | None] | None:
    """The kernel's round-trip estimate for this client's TCP connection (Linux
    ``TCP_INFO``), for the fair referee: a client can hold back its pongs, not
    its TCP acknowledgements. ``None`` where it would not measure the client:
    a loopback or proxied peer (the TCP connection ends at the proxy), no socket
    (tests over ASGI), or another OS. Called for every pong: which socket to
    read (if any) is worked out once per connection and kept in its scope."""
    scope = getattr(ws, "scope", None)
    sock = scope.get(_TCP_SOCKET, _UNKNOWN) if isinstance(scope, dict) else _UNKNOWN
    if sock is _UNKNOWN:
        sock = _measurable_socket(ws)
        if isinstance(scope, dict):
            scope[_TCP_SOCKET] = sock
    if sock is None:
        return None
    try:
        return parse_tcp_info(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_SIZE))
    except (OSError, ValueError, AttributeError):
        return None


_TCP_SOCKET: Final = "slapjack.tcp_socket"
_UNKNOWN: Final[Any] = object()


def _measurable_socket(ws: WebSocket) -> Any:
    """The client's TCP socket where ``TCP_INFO`` measures the client itself,
    else ``None`` (see :func:`tcp_rtt`)."""
    client = ws.client
    if client is None or ws.headers.get("x-forwarded-for") or ws.headers.get("forwarded"):
        return None
    try:
        if ipaddress.ip_address(client.host).is_loopback:
            return None
        owner = getattr(ws._receive, "__self__", None)  # uvicorn's protocol object
        transport = getattr(owner, "transport", None)
        sock = transport.get_extra_info("socket") if transport is not None else None
    except (ValueError, AttributeError):
        return None
    if sock is None or not hasattr(socket, "TCP_INFO"):
        return None
    return sock


def _flood(room: Room, conn: Conn, what: str, limit: float, answer: int | str | None) -> None:
    """``conn`` went over its limit of ``what`` frames: a ``rate_limited`` error, then 1008."""
    log.warning("room %s: %r floods (%s frames): closing it", room.code, conn, what)
    METRICS.count(f"close:{CLOSE_FLOOD}")
    conn.error(ErrorCode.RATE_LIMITED, f"more than {limit:g} {what} frames a second", answer)
    conn.close(CLOSE_FLOOD, "rate limited")


async def serve_socket(
    room: Room,
    ws: WebSocket,
    *,
    transport_rtt: bool = True,
    limits: Limits | None = None,
    tokens: KeyedLimiter | None = None,
    pinger: Pinger | None = None,
) -> None:
    """Read one client's frames until it leaves; check each at the edge.
    ``transport_rtt``: after each pong, pass the kernel's round-trip estimate
    (:func:`tcp_rtt`) to the room's referee. ``tokens`` limits the game frames
    of one seat token over all of its sockets. ``pinger`` pings the socket
    for clock sync and checks that it reads (the server's one
    :class:`~slapjack.server.pings.Pinger`; ``None``: one of its own).

    Each frame counts toward one of the socket's limits: ``hello`` and ``pong``
    toward ``control`` (``limits.control_*``; not a ``pong`` that answers a
    ``ping`` not yet answered), everything else (game frames and
    frames that do not validate) toward ``limit`` (``room.timing.rate_limit``).
    Beyond either the socket gets a ``rate_limited`` error and is closed (1008)."""
    lim = limits or Limits()
    conn = Conn(
        ws,
        frame_rate=room.timing.rate_limit,
        control_rate=lim.control_per_second,
        control_burst=lim.control_burst,
    )
    conn.direct = direct_writer(ws)
    conn.write_on_demand()

    def frame(text: str | None) -> bool:
        """Check one frame, count it toward its limit and pass it to the room;
        ``False`` when the socket floods (then it is closing: 1008)."""
        at = room.now()
        pong = fast_pong(text) if text is not None and len(text) < 256 else None
        if pong is not None:  # the common frame: as below for a validated Pong
            ping_id, client_time = pong
            if conn.ponged < ping_id <= conn.pinged:
                conn.ponged = ping_id
            elif not conn.control.allow():
                _flood(room, conn, "hello/pong", lim.control_per_second, ping_id)
                return False
            room.on_pong(conn, ping_id, client_time, at, tcp_rtt(ws) if transport_rtt else None)
            return True
        msg: Any = None
        refused: tuple[ErrorCode, str] | None = None
        if text is None:
            refused = (ErrorCode.BAD_MESSAGE, "frames are JSON text, not binary")
        elif len(text) > MAX_FRAME_BYTES or len(text.encode()) > MAX_FRAME_BYTES:
            log.info("room %s: %r: frame of %d chars", room.code, conn, len(text))
            refused = (ErrorCode.TOO_LARGE, f"frames are at most {MAX_FRAME_BYTES} bytes")
        else:
            try:
                msg = CLIENT_MESSAGE.validate_json(text)
            except ValidationError as exc:
                refused = refusal(exc)
        control = isinstance(msg, Pong | Hello)
        bucket = conn.control if control else conn.limit
        if isinstance(msg, Pong) and conn.ponged < msg.id <= conn.pinged:
            # the answer to a ping of ours: never a flood, however many
            # come at once (a page that froze answers them all together)
            conn.ponged = msg.id
            flood = False
        else:
            flood = not bucket.allow()
        token = getattr(msg, "token", None) if msg is not None and not control else None
        if not flood and token is not None and tokens is not None:
            flood = tokens.hit(token) is not None
        if flood:
            _flood(
                room,
                conn,
                "hello/pong" if control else "game",
                lim.control_per_second if control else room.timing.rate_limit,
                msg.id if msg is not None else answer_id(text) if text else None,
            )
            return False
        if refused is not None:
            conn.error(*refused, answer_id(text) if text and len(text) <= MAX_FRAME_BYTES else None)
            log.info("room %s: %r: bad frame (%s)", room.code, conn, refused[0])
            return True
        if isinstance(msg, Pong):
            room.on_pong(conn, msg.id, msg.client_time, at, tcp_rtt(ws) if transport_rtt else None)
            return True
        room.submit(partial(room.handle, conn, msg, at))
        return True

    failed: list[Exception] = []

    def inline(text: str) -> bool:
        """A text frame handled in uvicorn's ``data_received``
        (:func:`inline_frames`), as the loop below would; once the socket
        is closing its frames go the usual way (and end the loop). An error
        closes the socket and is raised by the loop, as if raised there."""
        if conn.closed:
            return False
        try:
            frame(text)
        except Exception as exc:
            failed.append(exc)
            conn.close(1000)
        return True

    inline_frames(ws, inline)
    proto = _sansio(ws)
    keepalive = None if proto is None else wsframes.take_keepalive(proto, time.monotonic())
    pings = pinger if pinger is not None else Pinger()
    pings.add(
        room,
        conn,
        not_reading(conn, ws, lim.not_reading_s, keepalive),
        partial(_abort, ws),
        ride=conn.direct is not None,
        keepalive=None if keepalive is None else keepalive.tick,
    )
    try:
        while not conn.closed:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect" or conn.closed:
                break
            if not frame(message.get("text")):
                break
        if failed:
            raise failed[0]
    except WebSocketDisconnect:
        pass
    finally:
        let_go(ws, conn)
        pings.discard(conn)
        room.submit(partial(room.disconnect, conn))
        conn.close(1000)
        writer = conn.writer_task
        if writer is not None:
            try:
                await asyncio.wait_for(writer, 2.0)
            except (TimeoutError, asyncio.CancelledError):
                writer.cancel()
            except Exception:
                log.debug("writer of %r ended with an error", conn, exc_info=True)
