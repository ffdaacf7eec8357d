"""``slapjack serve --ws picows``: the game's WebSockets framed by picows (its
C frame parser, its writes straight to the socket) behind uvicorn's own port.

uvicorn keeps every HTTP request, the lobby and the handshake's routing: when
a request asks for a WebSocket, uvicorn's HTTP protocol hands the connection
to the class given as its ``ws`` setting, here :class:`PicowsFront`, with the
request head as the first bytes (``connection_made``, then ``data_received``,
then ``transport.set_protocol``). :class:`PicowsFront` runs the ASGI app on
that request as uvicorn's own WebSocket protocols do (``websocket.connect``,
``accept``, ``receive``, ``send``, ``close``, ``403`` when the app closes
before accepting); when the app accepts, it puts a picows ``WSProtocol`` on the
transport and feeds it a minimal upgrade request with the client's key, so
picows writes the ``101`` and parses every frame from then on, calling
:meth:`PicowsFront.on_ws_frame` with each.

What picows leaves to its user is done here as uvicorn's websockets-sansio
protocol (the server's default) does it, so a client sees the same server:
messages of several frames are assembled (at most ``ws_max_size`` bytes:
1009), text is UTF-8 (1007), reserved bits, a continuation alone, a new
message inside another and an invalid close code are refused (1002), a close
is echoed, the app's close waits for the client's (10 s), keepalive pings
every ``ws_ping_interval`` seconds close a socket that does not answer in
``ws_ping_timeout`` (1011), and a server shutdown closes with 1012. The
attributes :mod:`.sockets` reads on uvicorn's protocol (``transport``,
``loop``, ``ping_timeout``, ``pending_ping_payload``, ``ping_sent_at``) have
the same meaning here, so ``TCP_INFO``, the not-reading check and the abort
work unchanged; :meth:`direct_writer` and :meth:`inline` are the fast paths of
:func:`.sockets.direct_writer` and :func:`.sockets.inline_frames`.

One difference in strictness: picows refuses a frame length not in its
shortest form (RFC 6455 5.2 says it MUST be), which websockets accepts (1002).
permessage-deflate is not offered (``serve --compress`` needs another ``--ws``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import email.utils
import logging
import os
import struct
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, Final
from urllib.parse import unquote

from picows import (
    WSAutoPingStrategy,
    WSFrame,
    WSListener,
    WSMsgType,
    WSTransport,
    WSUpgradeResponse,
    WSUpgradeResponseWithListener,
)
from picows.picows import WSProtocol  # type: ignore[attr-defined]
from uvicorn.protocols.utils import ClientDisconnected as _Disconnected

log = logging.getLogger(__name__)

_TEXT: Final = WSMsgType.TEXT
_BINARY: Final = WSMsgType.BINARY
_CONT: Final = WSMsgType.CONTINUATION
_CLOSE: Final = WSMsgType.CLOSE
_PONG: Final = WSMsgType.PONG

CLOSE_TIMEOUT_S: Final = 10.0
"""How long the app's close waits for the client's (uvicorn's own figure)."""

READ_BUFFER: Final = 2048
"""picows' first read buffer per socket (its least; it grows for big frames)."""


class _PicowsLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """picows' logger: a frame it refuses (a bad client) is logged at info,
    not as a server error; an adapter, not a ``Logger``, so picows makes no
    child logger per connection."""

    def error(self, msg: object, *args: object, **kwargs: Any) -> None:
        self.info(msg, *args, **kwargs)


_UVICORN_LOG: Final = logging.getLogger("uvicorn.error")
_LOG: Final = _PicowsLog(logging.getLogger("slapjack.server.picows"), {})


def _status_response(status: int, headers: list[tuple[str, str]], body: bytes) -> bytes:
    """An HTTP/1.1 response that ends the connection (a refused handshake)."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    lines = [f"HTTP/1.1 {status} {phrase}"]
    names = {name.lower() for name, _ in headers}
    lines += [f"{name}: {value}" for name, value in headers]
    if "date" not in names:
        lines.append(f"Date: {email.utils.formatdate(usegmt=True)}")
    if "connection" not in names:
        lines.append("Connection: close")
    if "content-length" not in names:
        lines.append(f"Content-Length: {len(body)}")
    if "content-type" not in names:
        lines.append("Content-Type: text/plain; charset=utf-8")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class PicowsFront(WSListener):
    """One WebSocket: uvicorn's ``ws`` protocol class until the app accepts,
    then the listener of the picows protocol that took over the transport."""

    def __init__(
        self,
        config: Any,
        server_state: Any,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        if not config.loaded:
            config.load()  # pragma: no cover
        self.config = config
        self.app = config.loaded_app
        self.loop = _loop or asyncio.get_event_loop()
        self.app_state = app_state
        self.connections = server_state.connections
        self.tasks = server_state.tasks
        self.default_headers = server_state.default_headers
        self.max_size: int = config.ws_max_size
        self.transport: asyncio.Transport = None  # type: ignore[assignment]
        self.ws: WSTransport | None = None
        self.scope: dict[str, Any] = {}
        self.got_head = False
        self.head = bytearray()
        """What came before the switch to picows: the request head, and any bytes after it."""
        self.key = ""
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.handshake_complete = False
        self.close_sent = False
        self.disconnected = False
        self.close_timer: asyncio.TimerHandle | None = None
        self.read_paused = False
        self.writable = asyncio.Event()
        self.writable.set()
        self.initial_response: tuple[int, list[tuple[str, str]], bytes] | None = None
        # keepalive (the names :func:`.sockets.not_reading` reads)
        self.ping_interval: float | None = config.ws_ping_interval
        self.ping_timeout: float | None = config.ws_ping_timeout
        self.ping_timer: asyncio.TimerHandle | None = None
        self.pong_timer: asyncio.TimerHandle | None = None
        self.pending_ping_payload: bytes | None = None
        self.ping_sent_at = 0.0
        # a message of several frames being assembled
        self.parts: list[bytes] | None = None
        self.parts_text = False
        self.parts_size = 0
        self.on_text: Callable[[str], bool] | None = None
        """:meth:`inline`'s handler of text frames, while there is one."""

    # ------------------------------------------------ uvicorn's side, before the switch

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.connections.add(self)
        self.transport = transport
        self.server = _address(transport.get_extra_info("sockname"))
        self.client = _address(transport.get_extra_info("peername"))

    def data_received(self, data: bytes) -> None:
        if self.got_head:
            self.head += data  # bytes after the head, before the switch: picows gets them
            return
        self.got_head = True
        end = data.find(b"\r\n\r\n")
        if end < 0:  # pragma: no cover - uvicorn hands over the whole head
            self._refuse(400, "incomplete request")
            return
        self.head += data[end + 4 :]
        self._connect(data[:end])

    def eof_received(self) -> None:
        pass

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection ended before the switch to picows (after it,
        :meth:`on_ws_disconnected`)."""
        self._lost(1005 if self.handshake_complete else 1006)

    def shutdown(self) -> None:
        """uvicorn is shutting down: 1012 to an open socket, 500 to a handshake."""
        self._stop_keepalive()
        if self.close_sent:
            if self.close_timer is not None:
                self.close_timer.cancel()
                self.close_timer = None
            self.transport.close()
            return
        if self.handshake_complete and self.ws is not None:
            self.queue.put_nowait({"type": "websocket.disconnect", "code": 1012})
            self._send_close(1012, "")
        elif not self.handshake_complete:
            self._respond(500, [], b"Internal Server Error")
        self.transport.close()

    def _connect(self, head: bytes) -> None:
        """The request head, as uvicorn's HTTP protocol wrote it again: checked
        as websockets checks a handshake, then the app's ``websocket.connect``."""
        lines = head.split(b"\r\n")
        try:
            _method, target, _ = lines[0].split(b" ", 2)
            headers = [tuple(line.split(b":", 1)) for line in lines[1:]]
            pairs = [(name.strip().lower(), value.strip()) for name, value in headers]
        except ValueError:
            self._refuse(400, "malformed request")
            return
        keys = [v for n, v in pairs if n == b"sec-websocket-key"]
        versions = [v for n, v in pairs if n == b"sec-websocket-version"]
        if versions != [b"13"]:
            shown = b", ".join(versions).decode("latin-1")
            self._refuse(400, f"invalid Sec-WebSocket-Version header: {shown}")
            return
        try:
            if len(keys) != 1 or len(base64.b64decode(keys[0], validate=True)) != 16:
                raise ValueError
        except (ValueError, binascii.Error):
            self._refuse(400, "invalid Sec-WebSocket-Key header")
            return
        self.key = keys[0].decode("ascii")
        raw_path, _, query = target.partition(b"?")
        subprotocols: list[str] = []
        for name, value in pairs:
            if name == b"sec-websocket-protocol":
                subprotocols += [t.strip() for t in value.decode("latin-1").split(",")]
        root = self.config.root_path
        self.scope = {
            "type": "websocket",
            "asgi": {"version": self.config.asgi_version, "spec_version": "2.4"},
            "http_version": "1.1",
            "scheme": "wss" if self.transport.get_extra_info("sslcontext") else "ws",
            "server": self.server,
            "client": self.client,
            "root_path": root,
            "path": root + unquote(raw_path.decode("latin-1")),
            "raw_path": root.encode("ascii") + raw_path,
            "query_string": query,
            "headers": pairs,
            "subprotocols": subprotocols,
            "state": self.app_state.copy(),
            "extensions": {"websocket.http.response": {}},
        }
        self.queue.put_nowait({"type": "websocket.connect"})
        task = self.loop.create_task(self._run_asgi())
        task.add_done_callback(self.tasks.discard)
        self.tasks.add(task)

    def _refuse(self, status: int, why: str) -> None:
        self._respond(status, [], f"Failed to open a WebSocket connection: {why}.\n".encode())

    def _respond(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.handshake_complete = True
        self.close_sent = True
        if not self.transport.is_closing():
            self.transport.write(_status_response(status, headers, body))
            self.transport.close()

    async def _run_asgi(self) -> None:
        try:
            result = await self.app(self.scope, self.receive, self.send)
        except _Disconnected:
            pass
        except BaseException:
            log.exception("Exception in ASGI application\n")
            if not self.handshake_complete:
                self._respond(500, [], b"Internal Server Error")
        else:
            if not self.handshake_complete:
                log.error("ASGI callable returned without completing handshake.")
                self._respond(500, [], b"Internal Server Error")
            elif result is not None:
                log.error("ASGI callable should return None, but returned %r.", result)
        if self.close_timer is None:
            self.transport.close()

    # ------------------------------------------------ the ASGI app's side

    async def receive(self) -> dict[str, Any]:
        message = await self.queue.get()
        if self.read_paused and self.queue.empty():
            self.read_paused = False
            self.transport.resume_reading()
        return message

    async def send(self, message: dict[str, Any]) -> None:
        await self.writable.wait()
        if self.disconnected:
            raise _Disconnected()
        kind = message["type"]
        if not self.handshake_complete and self.initial_response is None:
            if kind == "websocket.accept":
                if not self.transport.is_closing():
                    self._switch(message)
            elif kind == "websocket.close":
                self.queue.put_nowait({"type": "websocket.disconnect", "code": 1006})
                self._respond(403, [], b"")
            elif kind == "websocket.http.response.start":
                status = message["status"]
                if not 100 <= status < 600:
                    raise RuntimeError(f"Invalid HTTP status code '{status}' in response.")
                headers = [
                    (name.decode("latin-1"), value.decode("latin-1"))
                    for name, value in message.get("headers", [])
                ]
                self.initial_response = (status, headers, b"")
            else:
                raise RuntimeError(
                    "Expected ASGI message 'websocket.accept', 'websocket.close' "
                    f"or 'websocket.http.response.start' but got {kind!r}."
                )
        elif self.initial_response is not None:
            if kind != "websocket.http.response.body":
                raise RuntimeError(f"Expected 'websocket.http.response.body' but got {kind!r}.")
            status, headers, body = self.initial_response
            body += message.get("body", b"")
            self.initial_response = (status, headers, body)
            if not message.get("more_body", False):
                self.queue.put_nowait({"type": "websocket.disconnect", "code": 1006})
                self._respond(status, headers, body)
        elif not self.close_sent:
            ws = self.ws
            if ws is None or self.transport.is_closing():
                raise _Disconnected()
            if kind == "websocket.send":
                data = message.get("bytes")
                if data is not None:
                    ws.send(_BINARY, data)
                else:
                    ws.send(_TEXT, message.get("text") or "")
            elif kind == "websocket.close":
                code = message.get("code", 1000)
                reason = message.get("reason", "") or ""
                self.queue.put_nowait(
                    {"type": "websocket.disconnect", "code": code, "reason": reason}
                )
                self._send_close(code, reason)
                if self.read_paused:
                    self.read_paused = False
                    self.transport.resume_reading()
                self.close_timer = self.loop.call_later(CLOSE_TIMEOUT_S, self.transport.close)
            else:
                raise RuntimeError(
                    f"Expected ASGI message 'websocket.send' or 'websocket.close', but got {kind!r}."
                )
        else:
            raise RuntimeError(
                f"Unexpected ASGI message {kind!r}, after sending 'websocket.close'."
            )

    def _switch(self, accept: dict[str, Any]) -> None:
        """The app accepted: picows takes the transport, writes the ``101``
        and reads every frame from now on."""
        headers = [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in (*self.default_headers, *accept.get("headers", []))
        ]
        subprotocol = accept.get("subprotocol")
        if subprotocol:
            headers.append(("Sec-WebSocket-Protocol", subprotocol))
        response = WSUpgradeResponse.create_101_response(headers)
        listener = WSUpgradeResponseWithListener(response, self)
        proto = WSProtocol(
            None,
            None,
            False,
            lambda request: listener,
            _LOG,
            True,  # an exception in on_ws_frame: close 1011, as uvicorn's data_received would
            None,  # no handshake timeout: the request is fed at once
            False,  # no auto-ping: the keepalive is ours
            20.0,
            20.0,
            WSAutoPingStrategy.PING_WHEN_IDLE,
            True,  # picows answers pings in C
            self.max_size,
            None,
            READ_BUFFER,
        )
        self.handshake_complete = True
        transport = self.transport
        transport.set_protocol(proto)
        proto.connection_made(transport)
        request = (
            "GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {self.key}\r\n\r\n"
        ).encode("ascii")
        data = request + bytes(self.head)
        self.head.clear()
        while data:
            buffer = proto.get_buffer(-1)
            n = min(len(buffer), len(data))
            buffer[:n] = data[:n]
            data = data[n:]
            proto.buffer_updated(n)
        self._start_keepalive()

    # ------------------------------------------------ picows' side, after the switch

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.ws = transport

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self._lost(1005)

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        kind = frame.msg_type
        if frame.rsv1 or frame.rsv2 or frame.rsv3:
            self._fail(1002, "reserved bits must be 0")
        elif kind is _TEXT:
            if self.parts is not None:
                self._fail(1002, "expected a continuation frame")
            elif not frame.fin:
                self.parts, self.parts_text = [frame.get_payload_as_bytes()], True
                self.parts_size = frame.payload_size
            elif self.close_sent:
                return
            else:
                on_text = self.on_text
                try:
                    text = frame.get_payload_as_utf8_text()
                except UnicodeDecodeError:
                    self._bad_utf8()
                    return
                if on_text is None or self.queue.qsize() or not on_text(text):
                    self._put({"type": "websocket.receive", "text": text})
        elif kind is _PONG:
            self._ponged(frame.get_payload_as_bytes())
        elif kind is _BINARY:
            if self.parts is not None:
                self._fail(1002, "expected a continuation frame")
            elif not frame.fin:
                self.parts, self.parts_text = [frame.get_payload_as_bytes()], False
                self.parts_size = frame.payload_size
            elif not self.close_sent:
                self._put({"type": "websocket.receive", "bytes": frame.get_payload_as_bytes()})
        elif kind is _CONT:
            self._continued(frame)
        elif kind is _CLOSE:
            self._closed(frame.get_payload_as_bytes())

    def _continued(self, frame: WSFrame) -> None:
        parts = self.parts
        if parts is None:
            self._fail(1002, "unexpected continuation frame")
            return
        self.parts_size += frame.payload_size
        if self.parts_size > self.max_size:
            self._fail(1009, f"message too big: over {self.max_size} bytes")
            return
        parts.append(frame.get_payload_as_bytes())
        if not frame.fin:
            return
        self.parts = None
        data = b"".join(parts)
        if not self.parts_text:
            if not self.close_sent:
                self._put({"type": "websocket.receive", "bytes": data})
            return
        try:
            text = data.decode()
        except UnicodeDecodeError:
            self._bad_utf8()
            return
        if self.close_sent:
            return
        on_text = self.on_text
        if on_text is None or self.queue.qsize() or not on_text(text):
            self._put({"type": "websocket.receive", "text": text})

    def _closed(self, payload: bytes) -> None:
        """The client's close frame (picows has checked its length, its reason's
        UTF-8, the codes below 3000): what websockets refuses besides, 1002;
        else echoed, and the connection ends."""
        if len(payload) >= 2:
            code = int.from_bytes(payload[:2], "big")
            if code in (0, 1006) or code >= 5000:
                self._fail(1002, f"invalid status code {code}")
                return
        else:
            code = 1005
        if self.close_sent:  # the client's answer to our close
            if self.close_timer is not None:
                self.close_timer.cancel()
                self.close_timer = None
            self.transport.close()
            return
        if not self.transport.is_closing():
            reason = payload[2:].decode()
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.close_sent = True
            if self.ws is not None:
                self.ws.send(_CLOSE, payload)
            self.transport.close()

    def _put(self, message: dict[str, Any]) -> None:
        self.queue.put_nowait(message)
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def _fail(self, code: int, reason: str) -> None:
        """A frame the protocol refuses: close ``code`` and end the connection
        (what uvicorn does on websockets' parser errors)."""
        log.info("closing a WebSocket (%d): %s", code, reason)
        self.parts = None
        if self.close_sent:
            self.transport.close()
            return
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        self._send_close(code, reason)
        self.transport.close()

    def _bad_utf8(self) -> None:
        """A text message that is not UTF-8: 1007, logged as uvicorn logs it (on
        ``uvicorn.error``, whose filter in :mod:`.app` counts and quiets it)."""
        _UVICORN_LOG.error("Invalid UTF-8 sequence received from client.")
        self._fail(1007, "invalid UTF-8")

    def _send_close(self, code: int, reason: str) -> None:
        self.close_sent = True
        if self.ws is not None and not self.transport.is_closing():
            self.ws.send(_CLOSE, struct.pack("!H", code) + reason.encode())

    def _lost(self, code: int) -> None:
        if self.disconnected:
            return
        self._stop_keepalive()
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code})
        self.connections.discard(self)
        self.handshake_complete = True
        self.disconnected = True
        self.writable.set()  # a send waiting for the buffer to drain: it never will now
        if self.close_timer is not None:
            self.close_timer.cancel()
            self.close_timer = None

    # ------------------------------------------------ keepalive

    def _start_keepalive(self) -> None:
        if self.ping_interval is not None and self.ping_interval > 0:
            self.ping_timer = self.loop.call_later(self.ping_interval, self._ping)

    def _stop_keepalive(self) -> None:
        for timer in (self.ping_timer, self.pong_timer):
            if timer is not None:
                timer.cancel()
        self.ping_timer = self.pong_timer = None
        self.pending_ping_payload = None

    def _ping(self) -> None:
        self.ping_timer = None
        ws = self.ws
        if self.close_sent or ws is None or self.transport.is_closing():
            return
        self.pending_ping_payload = os.urandom(4)
        self.ping_sent_at = self.loop.time()
        ws.send_ping(self.pending_ping_payload)
        if self.ping_timeout is not None:
            self.pong_timer = self.loop.call_later(self.ping_timeout, self._ping_timed_out)
        else:  # pragma: no cover
            self._start_keepalive()

    def _ponged(self, payload: bytes) -> None:
        if self.pending_ping_payload is None or payload != self.pending_ping_payload:
            return
        rtt = self.loop.time() - self.ping_sent_at
        self.pending_ping_payload = None
        if self.pong_timer is not None:
            self.pong_timer.cancel()
            self.pong_timer = None
            assert self.ping_interval is not None
            self.ping_timer = self.loop.call_later(max(0.0, self.ping_interval - rtt), self._ping)

    def _ping_timed_out(self) -> None:
        self.pong_timer = None
        self.pending_ping_payload = None
        if self.close_sent or self.transport.is_closing():
            return
        self._send_close(1011, "keepalive ping timeout")
        self.transport.close()

    # ------------------------------------------------ the fast paths of .sockets

    def direct_writer(self) -> Callable[[str], bool]:
        """:func:`.sockets.direct_writer` under picows: the frame goes out at
        once (picows frames it and writes to the socket), or ``False`` when
        the ASGI ``send`` would wait or fail (buffer over its high-water mark,
        the close begun, the connection gone)."""
        writable = self.writable
        transport = self.transport

        def write(text: str) -> bool:
            ws = self.ws
            if (
                self.close_sent
                or self.disconnected
                or ws is None
                or ws.is_close_frame_sent
                or not writable.is_set()
                or transport.is_closing()
            ):
                return False
            try:
                ws.send(_TEXT, text)
            except Exception as exc:  # the writer task's send meets it again and ends the socket
                log.debug("direct write failed: %s", exc)
                return False
            return True

        return write

    def inline(self, on_text: Callable[[str], bool]) -> None:
        """:func:`.sockets.inline_frames` under picows: each whole text message
        that comes while nothing waits in the receive queue (and the close has
        not begun) goes to ``on_text`` at once; what it declines is queued."""
        self.on_text = on_text


def _address(value: Any) -> tuple[str, int] | None:
    if isinstance(value, tuple | list) and len(value) >= 2:
        return (str(value[0]), int(value[1]))
    return None
