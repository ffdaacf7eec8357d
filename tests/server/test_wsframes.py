"""The frame splitter (:mod:`slapjack.server.wsframes`) in front of websockets'
parser: for any stream of client frames, good or bad, cut into reads
anywhere, websockets with the splitter gives the same text payloads in the
same order, writes the same bytes (pongs, close frames, EOF), ends in the same
state with the same close code and parser error as websockets alone; the
splitter takes the small masked text frames and nothing else."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Opcode, apply_mask
from websockets.protocol import OPEN
from websockets.server import ServerProtocol

from slapjack.server.wsframes import (
    FrameSplitter,
    at_frame_boundary,
    install,
    take_keepalive,
    uninstall,
)

LIMIT = 4096


def raw(
    opcode: int,
    payload: bytes,
    *,
    fin: bool = True,
    rsv: int = 0,
    masked: bool = True,
    form: int | None = None,
    declared: int | None = None,
    key: bytes = b"\x37\xfa\x21\x3d",
) -> bytes:
    """A client frame's bytes, well formed or not: ``form`` the length's
    encoding (7, 16 or 64 bits; by default the shortest), ``declared`` a
    length in the header other than the payload's."""
    n = len(payload) if declared is None else declared
    if form is None:
        form = 7 if n < 126 else 16 if n < 65536 else 64
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    bit = 0x80 if masked else 0
    if form == 7:
        head += bytes([bit | n])
    elif form == 16:
        head += bytes([bit | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([bit | 127]) + n.to_bytes(8, "big")
    if masked:
        return head + key + apply_mask(payload, key)
    return head + payload


def text(payload: bytes | str, **kw: Any) -> bytes:
    return raw(1, payload.encode() if isinstance(payload, str) else payload, **kw)


@dataclass
class Trace:
    got: list[tuple[Any, ...]]
    out: bytes
    state: str
    close_sent: tuple[int, str] | None
    close_rcvd: tuple[int, str] | None
    error: str | None


def drain(ws: ServerProtocol, got: list[tuple[Any, ...]], out: list[bytes]) -> None:
    """What websockets parsed (into ``got``, as the splitter's texts are) and
    wrote (into ``out``) since the last call."""
    for event in ws.events_received():
        if event.opcode is Opcode.TEXT and event.fin:
            got.append(("text", bytes(event.data)))
        else:
            got.append((event.opcode.name, bytes(event.data), event.fin))
    out.extend(ws.data_to_send())


def run(
    reads: list[bytes], *, split: bool, before: int = 0, max_size: int | None = 65536
) -> tuple[Trace, FrameSplitter | None]:
    """Feed ``reads`` to websockets' server protocol (OPEN, as after the
    handshake), through a splitter put in after the first ``before`` reads
    when ``split``; what came out."""
    ws = ServerProtocol(state=OPEN, max_size=max_size)
    got: list[tuple[Any, ...]] = []
    out: list[bytes] = []
    splitter: FrameSplitter | None = None

    for i, data in enumerate(reads):
        if split and i == before:
            splitter = FrameSplitter(ws, lambda p: got.append(("text", bytes(p))), LIMIT)
        (splitter.receive_data if splitter is not None else ws.receive_data)(data)
        drain(ws, got, out)
    trace = Trace(
        got=got,
        out=b"".join(out),
        state=ws.state.name,
        close_sent=(ws.close_sent.code, ws.close_sent.reason) if ws.close_sent else None,
        close_rcvd=(ws.close_rcvd.code, ws.close_rcvd.reason) if ws.close_rcvd else None,
        error=repr(ws.parser_exc) if ws.parser_exc is not None else None,
    )
    return trace, splitter


def cut(stream: bytes, points: list[int]) -> list[bytes]:
    bounds = sorted({p % (len(stream) + 1) for p in points} | {0, len(stream)})
    return [stream[a:b] for a, b in itertools.pairwise(bounds) if b > a] or [b""]


def same(reads: list[bytes], before: int = 0, max_size: int | None = 65536) -> FrameSplitter:
    before = min(before, len(reads) - 1)
    alone, _ = run(reads, split=False, max_size=max_size)
    split, splitter = run(reads, split=True, before=before, max_size=max_size)
    assert split == alone
    assert splitter is not None
    return splitter


PONG = b'{"v":1,"type":"pong","id":7,"client_time":123.5}'

GOOD = [
    text(PONG),
    text(b""),
    text("é" * 62 + "x"),  # 125 bytes
    text(b"x" * 126),
    text(b"y" * 4096),
    text(b"z" * 300, form=16),
    text(b"short", form=16),  # a 16-bit length need not be the shortest
    text(b"\xff\xfe"),  # bad UTF-8 is uvicorn's to refuse (1007), not the parser's
]

OTHER = {  # frames websockets accepts that the splitter leaves to it
    "binary": raw(2, b"\x00\x01"),
    "ping": raw(9, b"are you there"),
    "pong": raw(10, b"yes"),
    "fragmented": raw(1, b"frag", fin=False) + raw(0, b"ment", fin=False) + raw(0, b"ed"),
    "ping inside a fragmented message": raw(1, b"a", fin=False) + raw(9, b"") + raw(0, b"b"),
    "text over the limit": text(b"q" * 4097),
    "text in a 64-bit length": text(b"long form", form=64),
}

BAD = {  # frames websockets refuses, each with its close code
    "unmasked": (text(PONG, masked=False), 1002),
    "rsv1": (text(PONG, rsv=4), 1002),
    "rsv2": (text(PONG, rsv=2), 1002),
    "rsv3": (text(PONG, rsv=1), 1002),
    "opcode 3": (raw(3, b"x"), 1002),
    "opcode 11": (raw(11, b"x"), 1002),
    "continuation alone": (raw(0, b"x"), 1002),
    "text inside a fragmented message": (raw(1, b"a", fin=False) + text(b"b"), 1002),
    "fragmented ping": (raw(9, b"x", fin=False), 1002),
    "long ping": (raw(9, b"p" * 126), 1002),
    "too big": (text(b"", declared=70000, form=64), 1009),
    "too big, binary": (raw(2, b"", declared=65537, form=64), 1009),
    "close, bad code": (raw(8, (999).to_bytes(2, "big")), 1002),
    "close, one byte": (raw(8, b"\x03"), 1002),
    "close, bad UTF-8 reason": (raw(8, (1000).to_bytes(2, "big") + b"\xff"), 1007),
}

CLOSES = {
    "close 1000": raw(8, (1000).to_bytes(2, "big") + b"bye"),
    "close, empty": raw(8, b""),
    "close 4001": raw(8, (4001).to_bytes(2, "big")),
}


@pytest.mark.parametrize("frame", GOOD, ids=range(len(GOOD)))
def test_good_text_frames_are_cut_out(frame: bytes) -> None:
    splitter = same([frame, frame])
    assert splitter.cut == 2 and splitter.fed == 0


@pytest.mark.parametrize("name", list(OTHER))
def test_other_frames_go_to_websockets(name: str) -> None:
    stream = text(PONG) + OTHER[name] + text(PONG)
    splitter = same([stream])
    assert splitter.cut == 1  # the pong before; the rest of the read goes to websockets
    # in reads of one byte: websockets gets the frame's bytes as they come,
    # and the splitter takes over again after it
    splitter = same([stream[i : i + 1] for i in range(len(stream))])
    assert splitter.cut == 2


@pytest.mark.parametrize("name", list(BAD))
def test_bad_frames_fail_as_in_websockets(name: str) -> None:
    frame, code = BAD[name]
    stream = text(PONG) + frame + text(PONG)
    for reads in ([stream], [text(PONG), frame, text(PONG)], [bytes([b]) for b in stream]):
        same(reads)
    alone, _ = run([stream], split=False)
    assert alone.close_sent is not None and alone.close_sent[0] == code
    assert alone.state == "CLOSING"


@pytest.mark.parametrize("name", list(CLOSES))
def test_a_close_from_the_client_is_echoed_and_the_rest_discarded(name: str) -> None:
    stream = text(PONG) + CLOSES[name] + text(PONG) + raw(9, b"late")
    splitter = same([stream])
    same([text(PONG), CLOSES[name], text(PONG), raw(9, b"late")])
    assert splitter.cut == 1


def test_the_limit_follows_websockets_max_size() -> None:
    for size in (0, 10, 125, 126, 300):
        for n in (0, 10, 125, 126, 299, 300, 301):
            same([text(b"a" * n) + text(PONG)], max_size=size)
    same([text(b"a" * 5000)], max_size=None)


def test_a_frame_under_way_in_websockets_when_the_splitter_comes() -> None:
    """Put in while websockets' parser holds part of a frame (only its header,
    or part of its payload): it waits until websockets is at a boundary."""
    stream = text(b"abcdef") + text(PONG) + text(PONG)
    for at in range(1, 14):
        splitter = same([stream[:at], stream[at:]], before=1)
        assert splitter.cut == (2 if at == len(text(b"abcdef")) else 0)
        same([stream[:at], stream[at:20], stream[20:]], before=1)


def test_at_frame_boundary() -> None:
    ws = ServerProtocol(state=OPEN)
    assert at_frame_boundary(ws)
    frame = text(b"abc")
    for i in range(1, len(frame)):
        ws.receive_data(frame[i - 1 : i])
        assert not at_frame_boundary(ws), i
    ws.receive_data(frame[-1:])
    assert at_frame_boundary(ws)
    ws.receive_data(raw(1, b"a", fin=False))
    assert not at_frame_boundary(ws)  # a fragmented message under way
    ws.receive_data(raw(0, b"b"))
    assert at_frame_boundary(ws)
    ws.receive_data(CLOSES["close 1000"])
    assert not at_frame_boundary(ws)  # closing: websockets discards what comes


FRAMES = st.one_of(
    st.sampled_from(GOOD),
    st.binary(max_size=200).map(text),
    st.sampled_from(list(OTHER.values())),
    st.sampled_from([frame for frame, _ in BAD.values()]),
    st.sampled_from(list(CLOSES.values())),
)


@settings(max_examples=int(os.environ.get("WSFRAMES_EXAMPLES", "400")), deadline=None)
@given(
    frames=st.lists(FRAMES, min_size=1, max_size=12),
    points=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
    before=st.integers(min_value=0, max_value=3),
    max_size=st.sampled_from([65536, 200, None]),
)
def test_any_stream_in_any_reads(
    frames: list[bytes], points: list[int], before: int, max_size: int | None
) -> None:
    same(cut(b"".join(frames), points), before=before, max_size=max_size)


@settings(max_examples=int(os.environ.get("WSFRAMES_EXAMPLES", "400")) // 2, deadline=None)
@given(
    frames=st.lists(FRAMES, min_size=1, max_size=8),
    points=st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
    at=st.integers(min_value=0, max_value=8),
)
def test_taken_out_anywhere_websockets_goes_on_as_alone(
    frames: list[bytes], points: list[int], at: int
) -> None:
    """``uninstall`` (a socket's reader has ended) between any two reads, a
    frame's start held in the splitter included: websockets parses the rest as
    it would have parsed the whole stream alone, and nothing of the socket
    refers to the splitter any more (no reference cycle with it)."""
    reads = cut(b"".join(frames), points)
    alone, _ = run(reads, split=False)
    ws = ServerProtocol(state=OPEN, max_size=65536)
    proto = SimpleNamespace(conn=ws)
    got: list[tuple[Any, ...]] = []
    splitter = install(proto, lambda p: got.append(("text", bytes(p))), LIMIT)
    assert splitter is not None and ws.receive_data == splitter.receive_data
    out: list[bytes] = []
    for i, data in enumerate(reads):
        if i == min(at, len(reads) - 1):
            uninstall(proto)
            assert "receive_data" not in vars(ws)
        ws.receive_data(data)
        drain(ws, got, out)
    assert got == alone.got
    assert b"".join(out) == alone.out
    assert ws.state.name == alone.state
    uninstall(proto)  # a second time: nothing to do


# ------------------------------------------------------------- the keepalive


class FakeTransport:
    def __init__(self) -> None:
        self.out: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.out.append(data)

    def is_closing(self) -> bool:
        return self.closing


def uvicorn_like(ping_interval: float | None = 20.0) -> Any:
    """What :func:`take_keepalive` uses of uvicorn's protocol object."""
    stopped: list[bool] = []
    return SimpleNamespace(
        conn=ServerProtocol(state=OPEN, max_size=65536),
        transport=FakeTransport(),
        close_sent=False,
        ping_interval=ping_interval,
        stop_keepalive=lambda: stopped.append(True),
        stopped=stopped,
    )


def test_a_pong_alone_in_a_read_is_cut_out_once_a_keepalive_wants_it() -> None:
    ws = ServerProtocol(state=OPEN, max_size=65536)
    texts: list[bytes] = []
    splitter = FrameSplitter(ws, lambda p: texts.append(bytes(p)), LIMIT)
    splitter.receive_data(text(PONG))  # (in step with websockets' parser from here on)
    pong = raw(10, b"\x00\x00\x00\x01")
    assert not splitter.one_frame(pong)  # nobody wants pongs: websockets' to parse
    pongs: list[bytes] = []
    splitter.on_pong = pongs.append
    assert splitter.one_frame(pong)
    assert pongs == [b"\x00\x00\x00\x01"] and list(ws.events_received()) == []
    assert not splitter.one_frame(raw(10, b"x", masked=False))  # websockets refuses it
    assert not splitter.one_frame(pong + text(PONG))  # more than the pong: the usual way
    assert not splitter.one_frame(raw(10, b"x", fin=False))
    assert pongs == [b"\x00\x00\x00\x01"] and texts == [PONG]


def test_the_keepalive_pings_when_due_and_only_once_unanswered() -> None:
    proto = uvicorn_like(20.0)
    splitter = install(proto, lambda p: None, LIMIT)
    assert splitter is not None
    splitter.receive_data(text(PONG))
    keepalive = take_keepalive(proto, now=100.0)
    assert keepalive is not None and proto.stopped == [True]  # uvicorn's own stopped
    out = proto.transport.out
    assert not keepalive.tick(119.9) and out == []
    assert keepalive.tick(120.0)
    assert out == [b"\x89\x04\x00\x00\x00\x01"]  # FIN + ping, unmasked, 4 bytes
    assert not keepalive.tick(125.0) and keepalive.unanswered_s(125.0) == 5.0
    splitter.receive_data(raw(10, b"\x00\x00\x00\x09"))  # not its payload: unsolicited
    assert keepalive.unanswered_s(126.0) == 6.0
    splitter.receive_data(raw(10, b"\x00\x00\x00\x01"))  # cut out by the splitter
    assert keepalive.unanswered_s(126.0) == 0.0 and keepalive.pongs == 1
    assert not keepalive.tick(139.9)  # the next one a period after the last went
    assert keepalive.tick(140.0) and out[-1] == b"\x89\x04\x00\x00\x00\x02"
    # A pong in a read with other frames is websockets' to parse: uvicorn's
    # handle_pong (the keepalive's now) gets it.
    splitter.receive_data(text(PONG) + raw(10, b"\x00\x00\x00\x02"))
    for event in proto.conn.events_received():
        if event.opcode is Opcode.PONG:
            proto.handle_pong(event)
    assert keepalive.unanswered_s(141.0) == 0.0 and keepalive.pongs == 2
    proto.close_sent = True  # closing: no more pings
    assert not keepalive.tick(500.0)
    uninstall(proto)  # the splitter, the shortcut and the pong handler go
    assert "handle_pong" not in vars(proto) and splitter.on_pong is None


def test_no_keepalive_is_taken_without_a_splitter_or_an_interval() -> None:
    bare = uvicorn_like(20.0)
    assert take_keepalive(bare, now=0.0) is None and bare.stopped == []
    for interval in (None, 0.0):
        proto = uvicorn_like(interval)
        install(proto, lambda p: None, LIMIT)
        assert take_keepalive(proto, now=0.0) is None and proto.stopped == []
