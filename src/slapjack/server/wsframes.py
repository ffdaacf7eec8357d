"""A frame splitter in front of websockets' pure-Python frame parser, under
uvicorn's websockets-sansio protocol (the server's default).

Nearly every frame a client sends is a small, final, masked text frame (a
``pong`` a second, a ``flip`` or a ``slap`` now and then). websockets parses
each with a chain of generators (``Protocol.parse``, ``Frame.parse``,
``StreamReader.read_exact``, the ``Opcode`` enum, a ``Frame`` object): about a
third of a pong's CPU on the server. :class:`FrameSplitter` takes the bytes
uvicorn's ``data_received`` hands to websockets, cuts such frames out itself
(unmasked with websockets' own ``apply_mask``, its C version where built) and
gives their payload to a text handler; everything else goes to websockets
unchanged, so every refusal, close code and reply (pongs to pings, the close
handshake) is websockets' own:

- A frame is cut out only if its first byte is ``0x81`` (FIN, no RSV bit, text),
  it is masked, its length is in the 7- or 16-bit form and at most the limit
  (at most websockets' ``max_size``), the connection is OPEN, no fragmented
  message is under way, and websockets' parser waits at a frame boundary with
  nothing buffered (checked after every time websockets was fed).
- The first frame that is not such a frame, and every byte after it in that
  read, go to websockets as they came: control frames, fragments, binary
  frames, unmasked frames (a protocol error), RSV bits, bad opcodes, 64-bit
  lengths, frames over the limit. websockets then holds the stream until its
  parser is back at a frame boundary (the next reads go to it whole until
  then), so it sees a frame's bytes exactly as it would without the splitter.
- A part of a frame that may still be cut out (its header so far allows it)
  waits here for the rest.
- Once the connection is not OPEN (a close received or sent, a parser error),
  every byte goes to websockets.

Frames before a bad frame in the same read reach the handler here; without
the splitter websockets would parse them too but uvicorn drops the events of
a read that ends in a parser error (as happens anyway when the bad frame comes
in a later read). Not installed with extensions (permessage-deflate): then
websockets parses everything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from websockets.protocol import OPEN, Protocol
from websockets.streams import StreamReader

from .metrics import METRICS

try:  # websockets' C version, as its own parser uses where built
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets without its C extension
    from websockets.utils import apply_mask

_AT_EOF = StreamReader.at_eof.__code__
_PARSE = Protocol.parse.__code__


def at_frame_boundary(wsconn: Any) -> bool:
    """websockets' protocol ``wsconn`` is OPEN, holds no bytes and no part of
    a fragmented message, and its parser waits for the first byte of a frame
    (suspended in ``Protocol.parse``'s ``reader.at_eof()``, not in the middle
    of ``Frame.parse`` nor in ``discard``)."""
    if wsconn.state is not OPEN or wsconn.reader.buffer or wsconn.current_size is not None:
        return False
    outer = wsconn.parser
    inner = getattr(outer, "gi_yieldfrom", None)
    while inner is not None:
        deeper = getattr(inner, "gi_yieldfrom", None)
        if deeper is None:
            break
        outer, inner = inner, deeper
    return (
        inner is not None
        and getattr(inner, "gi_code", None) is _AT_EOF
        and getattr(outer, "gi_code", None) is _PARSE
    )


def _no_shortcut(data: bytes) -> None:
    raise RuntimeError("FrameSplitter.data_received without uvicorn's protocol behind it")


class FrameSplitter:
    """Stands in for ``wsconn.receive_data`` of one websockets-sansio
    connection: see the module's docstring. ``on_text(payload)`` gets the
    unmasked payload of every frame cut out (bytes; not yet decoded)."""

    __slots__ = (
        "_buf",
        "_feed",
        "_limit",
        "_on_text",
        "_synced",
        "_usual",
        "_wsconn",
        "cut",
        "fed",
        "on_pong",
    )

    def __init__(self, wsconn: Any, on_text: Callable[[bytes], None], limit: int) -> None:
        self._wsconn = wsconn
        self._feed: Callable[[bytes | bytearray], None] = wsconn.receive_data  # websockets' own
        self._on_text = on_text
        most = wsconn.max_message_size
        if wsconn.max_fragment_size is not None:
            most = wsconn.max_fragment_size if most is None else min(most, wsconn.max_fragment_size)
        self._limit = min(limit, 65535) if most is None else min(limit, most, 65535)
        self._buf = b""
        self._synced = False
        self._usual: Callable[[bytes], None] = _no_shortcut
        self.cut = 0
        """Frames cut out here."""
        self.fed = 0
        """Reads (or their rest) that went to websockets."""
        self.on_pong: Callable[[bytes], None] | None = None
        """Set (:class:`Keepalive`): a read that is one whole ``pong`` frame is
        cut out too and its payload handed here."""

    def one_frame(self, data: bytes | bytearray) -> bool:
        """The common read: one whole frame of 0-125 bytes and nothing else,
        cut out (``True``); else nothing done."""
        if not self._synced or self._buf or len(data) < 6:
            return False
        first = data[0]
        if first == 0x81:
            length = data[1] - 0x80
            if (
                0 <= length < 126
                and length + 6 == len(data)
                and length <= self._limit
                and self._wsconn.state is OPEN
            ):
                self.cut += 1
                self._on_text(apply_mask(data[6:], data[2:6]))
                return True
        elif first == 0x8A and self.on_pong is not None:  # FIN, pong (a control frame: < 126)
            length = data[1] - 0x80
            if 0 <= length < 126 and length + 6 == len(data) and self._wsconn.state is OPEN:
                self.cut += 1
                self.on_pong(apply_mask(data[6:], data[2:6]))
                return True
        return False

    def data_received(self, data: bytes) -> None:
        """uvicorn's protocol's ``data_received``, the common read cut out
        first (see :func:`install`)."""
        if not self.one_frame(data):
            self._usual(data)

    def receive_data(self, data: bytes | bytearray) -> None:
        if self.one_frame(data):
            return
        wsconn = self._wsconn
        if not self._synced:
            if not at_frame_boundary(wsconn):
                self.fed += 1
                self._feed(data)
                return
            self._synced = True
        buf = self._buf + data if self._buf else bytes(data)
        self._buf = b""
        if wsconn.state is not OPEN:
            self._to_websockets(buf)
            return
        n = len(buf)
        i = 0
        limit = self._limit
        on_text = self._on_text
        view = memoryview(buf)
        while i < n:
            if buf[i] != 0x81:  # not a final text frame without RSV bits
                break
            if i + 2 > n:
                self._buf = buf[i:]
                return
            b1 = buf[i + 1]
            if b1 < 0x80:  # not masked: websockets refuses it
                break
            length = b1 & 0x7F
            if length < 126:
                start = i + 6
            elif length == 126:
                if i + 4 > n:
                    self._buf = buf[i:]
                    return
                length = (buf[i + 2] << 8) | buf[i + 3]
                start = i + 8
            else:
                break
            if length > limit:
                break
            end = start + length
            if end > n:
                self._buf = buf[i:]
                return
            payload = apply_mask(view[start:end], buf[start - 4 : start])
            i = end
            self.cut += 1
            on_text(payload)
            if wsconn.state is not OPEN:  # the handler began the close (bad UTF-8: 1007)
                break
        if i < n:
            self._to_websockets(buf[i:] if i else buf)

    def detach(self) -> None:
        """Give the parsing back to websockets (the part of a frame held here
        first), so that nothing of the socket's refers to this object: a
        splitter and its connection refer to each other (a reference cycle
        that only a full collection of the heap would free)."""
        self.on_pong = None
        if vars(self._wsconn).get("receive_data") == self.receive_data:
            del self._wsconn.receive_data
        if self._buf:
            buf, self._buf = self._buf, b""
            self._to_websockets(buf)

    def _to_websockets(self, data: bytes) -> None:
        self._synced = False
        self.fed += 1
        self._feed(data)


def install(proto: Any, on_text: Callable[[bytes], None], limit: int) -> FrameSplitter | None:
    """Put a :class:`FrameSplitter` in front of the parser of uvicorn's
    websockets-sansio protocol object ``proto`` (its ``conn.receive_data``,
    which ``data_received`` calls for every read) and let the event loop hand
    it each read first (:meth:`FrameSplitter.data_received`), or do nothing
    and say ``None`` when an extension was negotiated. :func:`uninstall`
    takes both out."""
    wsconn = proto.conn
    if wsconn.extensions:
        return None
    splitter = FrameSplitter(wsconn, on_text, limit)
    wsconn.receive_data = splitter.receive_data
    _shortcut(proto, splitter)
    return splitter


def _shortcut(proto: Any, splitter: FrameSplitter) -> None:
    """Let the event loop hand each read to the splitter before uvicorn's
    ``data_received`` (which feeds the splitter, then asks websockets for
    events: none when the splitter took the whole read): a pong's read skips
    two Python calls. uvloop looks ``data_received`` up when the transport's
    protocol is set, so it is set again (the same object)."""
    usual = getattr(proto, "data_received", None)
    if usual is None:
        return
    splitter._usual = usual
    proto.data_received = splitter.data_received
    _reset_protocol(proto)


def _reset_protocol(proto: Any) -> None:
    transport: Any = getattr(proto, "transport", None)
    set_protocol = getattr(transport, "set_protocol", None)
    if set_protocol is not None and transport.get_protocol() is proto:
        set_protocol(proto)


def uninstall(proto: Any) -> None:
    """Take out the :class:`FrameSplitter` that :func:`install` put in front of
    ``proto``'s parser, if there is one (:meth:`FrameSplitter.detach`), and
    the shortcut to it (it refers back to ``proto``)."""
    vars(proto).pop("handle_pong", None)  # (the class's own again: see take_keepalive)
    if vars(proto).pop("data_received", None) is not None:
        _reset_protocol(proto)
    splitter = getattr(vars(proto.conn).get("receive_data"), "__self__", None)
    if isinstance(splitter, FrameSplitter):
        splitter.detach()


class Keepalive:
    """The WebSocket keepalive of one socket, taken over from uvicorn's
    (:func:`take_keepalive`): a ``ping`` frame every ``every_s`` (uvicorn's
    ``ws_ping_interval``, 20 s under ``slapjack serve``) once the last one was
    answered, sent at a tick of the server's pinger (which already visits
    every socket once a second) instead of from two timers of its own per
    socket, and its ``pong`` cut out by the :class:`FrameSplitter` instead of
    parsed by websockets. What the pinger's not-reading check asks
    (:meth:`unanswered_s`) is the same: how long a ping has gone unanswered."""

    __slots__ = ("_n", "_next", "_proto", "every_s", "payload", "pongs", "sent_at")

    def __init__(self, proto: Any, every_s: float, now: float) -> None:
        self._proto = proto
        self.every_s = every_s
        self._n = 0
        self._next = now + every_s
        self.payload: bytes | None = None
        """The unanswered ping's payload (``None``: none is)."""
        self.sent_at = 0.0
        self.pongs = 0

    def tick(self, now: float) -> bool:
        """A ping if one is due (``now``: ``time.monotonic()``); whether one went."""
        if self.payload is not None or now < self._next:
            return False
        proto = self._proto
        transport = proto.transport
        if proto.close_sent or transport.is_closing() or proto.conn.state is not OPEN:
            return False
        self._n = (self._n + 1) & 0xFFFFFFFF
        payload = self._n.to_bytes(4, "big")
        self.payload, self.sent_at = payload, now
        transport.write(b"\x89\x04" + payload)  # FIN, ping; a server's frames are not masked
        METRICS.count("ws_pings")
        return True

    def pong(self, payload: bytes | bytearray) -> None:
        """A ``pong`` came: it answers the ping if it carries its payload
        (RFC 6455 5.5.3; others are unsolicited, and ignored)."""
        if self.payload is not None and payload == self.payload:
            self.payload = None
            self.pongs += 1
            self._next = self.sent_at + self.every_s
            METRICS.count("ws_pongs")

    def handle_pong(self, event: Any) -> None:
        """uvicorn's ``handle_pong``, for a pong websockets parsed (one that
        came in a read with other frames)."""
        self.pong(bytes(event.data))

    def unanswered_s(self, now: float) -> float:
        return now - self.sent_at if self.payload is not None else 0.0


def take_keepalive(proto: Any, now: float) -> Keepalive | None:
    """Stop uvicorn's keepalive on its websockets-sansio protocol object
    ``proto`` and give it a :class:`Keepalive` instead, if a
    :class:`FrameSplitter` is in front of its parser (:func:`install`) and
    uvicorn has a ping interval; else ``None`` (uvicorn's own goes on).
    :func:`uninstall` takes it out with the splitter."""
    splitter = getattr(vars(proto.conn).get("receive_data"), "__self__", None)
    every = getattr(proto, "ping_interval", None)
    if not isinstance(splitter, FrameSplitter) or not isinstance(every, int | float) or every <= 0:
        return None
    proto.stop_keepalive()
    keepalive = Keepalive(proto, float(every), now)
    splitter.on_pong = keepalive.pong
    proto.handle_pong = keepalive.handle_pong
    return keepalive
