"""Clock sync and network profile of one connection (pure logic, no sockets).

Every time is a number of milliseconds given as an argument: ``now_ms`` and the
other ``*_ms`` values are the server's monotonic clock, ``client_ms`` is the
client's own clock (``performance.now()`` in a browser).

An NTP-style sample comes from one ``ping``/``pong`` exchange: the server sent
the ping at ``sent_ms``, the client stamped its clock ``client_ms`` when it
answered, the server got the answer at ``recv_ms``. Then

* ``rtt = recv_ms - sent_ms`` (the round trip, including any delay the client
  adds before answering), and
* ``offset = client_ms - (sent_ms + recv_ms) / 2`` (client clock minus server
  clock, exact when both legs take equally long; off by at most ``rtt / 2``).

The lowest-RTT samples carry the least queueing and the least error, so the
offset comes from them. A client can only make its pongs *slower* than its
network: the profile is robust to that where it matters (a low quantile for the
offset, the kernel's TCP round-trip estimate as a cap where the server has it).

:class:`Transport` holds the kernel's own estimate for the TCP connection
(``TCP_INFO``: smoothed RTT, its variation, the minimum RTT); a client cannot
make it slower without delaying all its packets, its slaps included.
"""

from __future__ import annotations

import bisect
import math
import struct
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from slapjack.core import SlapjackError

DEFAULT_WINDOW: Final = 64
"""How many recent samples a connection keeps (a sliding window)."""
DEFAULT_BEST: Final = 8
"""How many lowest-RTT samples of the window the offset is taken from."""
MAX_OUTSTANDING: Final = 32
"""Pings remembered while waiting for their pong (older ones are forgotten)."""
MAX_RTT_MS: Final = 10_000.0
"""A pong later than this is no measurement of a network (dropped)."""


_TCPI_RTT_OFFSET: Final = 8 + 15 * 4
"""``struct tcp_info`` (Linux): 8 one-byte fields, then ``tcpi_rto`` … ``tcpi_rtt`` is the 16th u32."""
_TCPI_MIN_RTT_OFFSET: Final = 148
TCP_INFO_SIZE: Final = 152
"""Bytes to ask ``getsockopt(IPPROTO_TCP, TCP_INFO, …)`` for (up to ``tcpi_min_rtt``)."""


def parse_tcp_info(buf: bytes) -> tuple[float, float, float | None] | None:
    """``(srtt_ms, rttvar_ms, min_rtt_ms)`` from a Linux ``struct tcp_info``, or ``None``
    if the buffer is too short or holds no estimate yet. (Pure: the server reads
    the bytes with ``getsockopt``.)"""
    if len(buf) < _TCPI_RTT_OFFSET + 8:
        return None
    rtt_us, rttvar_us = struct.unpack_from("<II", buf, _TCPI_RTT_OFFSET)
    if rtt_us == 0:
        return None
    min_rtt: float | None = None
    if len(buf) >= _TCPI_MIN_RTT_OFFSET + 4:
        raw = struct.unpack_from("<I", buf, _TCPI_MIN_RTT_OFFSET)[0]
        min_rtt = raw / 1000.0 if 0 < raw < 0xFFFFFFFF else None
    return rtt_us / 1000.0, rttvar_us / 1000.0, min_rtt


class ClockSyncError(SlapjackError):
    """A timing value that is not a finite number, or time running backwards."""

    code = "bad_time"


def _finite(name: str, value: object) -> float:
    if type(value) is float and math.isfinite(value):  # the common case, first
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ClockSyncError(f"{name} must be a finite number of milliseconds, got {value!r}")
    return float(value)


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of already sorted values, linearly interpolated."""
    if not sorted_values:
        raise ValueError("quantile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile must be within 0..1, got {q}")
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


def mad(values: Iterable[float]) -> float:
    """The median absolute deviation from the median (a robust spread)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("MAD of no values")
    med = quantile(ordered, 0.5)
    return quantile(sorted([abs(v - med) for v in ordered]), 0.5)


@dataclass(frozen=True, slots=True)
class SyncSample:
    """One ping/pong exchange (server times and the client's stamp)."""

    sent_ms: float
    client_ms: float
    recv_ms: float
    rtt: float = field(init=False, repr=False, compare=False)
    """``recv_ms - sent_ms``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "rtt", self.recv_ms - self.sent_ms)

    @property
    def offset(self) -> float:
        """Client clock minus server clock, assuming symmetric legs."""
        return self.client_ms - (self.sent_ms + self.recv_ms) / 2.0


@dataclass(frozen=True, slots=True)
class Transport:
    """The kernel's round-trip estimate for the connection (Linux ``TCP_INFO``)."""

    srtt_ms: float
    rttvar_ms: float
    min_rtt_ms: float | None = None
    at_ms: float = 0.0

    @property
    def upper(self) -> float:
        """TCP's own "surely longer than a round trip" (RFC 6298: SRTT + 4·RTTVAR)."""
        return self.srtt_ms + 4.0 * self.rttvar_ms


@dataclass(frozen=True, slots=True)
class NetworkProfile:
    """A summary of a connection's round trips, all in milliseconds."""

    samples: int
    rtt_min: float
    rtt_low: float
    """The 25 % quantile: what the network gives when nobody delays anything."""
    rtt_median: float
    rtt_high: float
    """A high quantile (default 95 %) of the window."""
    rtt_mad: float
    offset: float
    """Client clock minus server clock (from the lowest-RTT samples)."""
    offset_error: float
    """Half the RTT of the samples the offset came from: its worst-case error."""
    transport: Transport | None

    @property
    def jitter(self) -> float:
        """Robust spread of the round trip (MAD scaled to a normal sd)."""
        return 1.4826 * self.rtt_mad


class ClockSync:
    """Clock sync and round-trip history of one connection.

    The window is kept in flat arrays of floats (``array('d')``: 8 bytes a
    number, not a tuple or an object of boxed floats per sample; there is one
    of these per connected player): the exchanges in arrival order, and their
    round trips sorted (ties in arrival order) with each one's offset beside it.
    """

    __slots__ = (
        "_client",
        "_offset",
        "_offset_by_rtt",
        "_outstanding",
        "_profile",
        "_recv",
        "_rtt_sorted",
        "_sent",
        "best",
        "dropped",
        "high_quantile",
        "transport",
        "window",
    )

    def __init__(
        self,
        window: int = DEFAULT_WINDOW,
        best: int = DEFAULT_BEST,
        high_quantile: float = 0.95,
    ) -> None:
        if window < 1 or best < 1:
            raise ValueError("window and best must be at least 1")
        if not 0.5 <= high_quantile <= 1.0:
            raise ValueError("high_quantile must be within 0.5..1")
        self.window = window
        self.best = best
        self.high_quantile = high_quantile
        self._sent = array("d")
        self._client = array("d")
        self._recv = array("d")
        """The window's exchanges, oldest first (``sent_ms``, ``client_ms``, ``recv_ms``)."""
        self._rtt_sorted = array("d")
        """The window's round trips, sorted; equal ones in arrival order (a stable
        sort): kept sorted as samples come and go, so a pong costs a binary
        search, not a sort of the window."""
        self._offset_by_rtt = array("d")
        """Each of those round trips' offset (the same order)."""
        self._outstanding: dict[int, float] = {}
        self.transport: Transport | None = None
        self.dropped = 0
        """Pongs ignored: unknown or repeated ids, or later than :data:`MAX_RTT_MS`."""
        self._profile: NetworkProfile | None = None
        self._offset: float | None = None

    # ------------------------------------------------------------ input

    def ping_sent(self, ping_id: int, now_ms: float) -> None:
        """A ping with ``ping_id`` left at ``now_ms``."""
        outstanding = self._outstanding
        outstanding[ping_id] = _finite("now_ms", now_ms)
        while len(outstanding) > MAX_OUTSTANDING:
            del outstanding[next(iter(outstanding))]

    def pong(self, ping_id: int, client_ms: float, now_ms: float) -> SyncSample | None:
        """The answer to ``ping_id``. Unknown, repeated or very late pongs are
        ignored (``None``); bad numbers raise :class:`ClockSyncError`."""
        sent = self.answer(ping_id, client_ms, now_ms)
        return None if sent is None else SyncSample(sent, float(client_ms), float(now_ms))

    def answer(self, ping_id: int, client_ms: float, now_ms: float) -> float | None:
        """:meth:`pong` without the sample: the ping's ``sent_ms`` when the
        pong counted (the referee's every pong, so no object is made for it)."""
        if type(client_ms) is float and type(now_ms) is float and math.isfinite(client_ms + now_ms):
            client, now = client_ms, now_ms  # the common case: two finite floats
        else:
            client, now = _finite("client_time", client_ms), _finite("now_ms", now_ms)
        sent = self._outstanding.pop(ping_id, None)
        if sent is None:
            self.dropped += 1
            return None
        rtt = now - sent
        if rtt < 0.0:
            raise ClockSyncError(
                f"pong at {now} ms before its ping at {sent} ms", code="time_backwards"
            )
        if rtt > MAX_RTT_MS:
            self.dropped += 1
            return None
        self._push(sent, client, now, rtt)
        return sent

    def add(self, sample: SyncSample) -> None:
        """Add a sample directly (tests, or a sample measured elsewhere)."""
        sent = _finite("sent_ms", sample.sent_ms)
        client = _finite("client_ms", sample.client_ms)
        recv = _finite("recv_ms", sample.recv_ms)
        rtt = recv - sent
        if rtt < 0:
            raise ClockSyncError("a sample's RTT cannot be negative", code="time_backwards")
        self._push(sent, client, recv, rtt)

    def _push(self, sent: float, client: float, recv: float, rtt: float) -> None:
        by_rtt = self._rtt_sorted
        offsets = self._offset_by_rtt
        best = self.best
        fastest_moved = False
        if len(self._sent) == self.window:
            # the oldest sample goes: among equal round trips it is the first
            gone = bisect.bisect_left(by_rtt, self._recv[0] - self._sent[0])
            del by_rtt[gone]
            del offsets[gone]
            del self._sent[0]
            del self._client[0]
            del self._recv[0]
            fastest_moved = gone < best
        at = bisect.bisect_right(by_rtt, rtt)  # after the equal ones: they came first
        by_rtt.insert(at, rtt)
        offsets.insert(at, client - (sent + recv) / 2.0)
        self._sent.append(sent)
        self._client.append(client)
        self._recv.append(recv)
        self._profile = None
        if fastest_moved or at < best:
            # (else the ``best`` fastest samples, all the offset is taken from, are the same)
            self._offset = None

    def set_transport(
        self,
        srtt_ms: float,
        rttvar_ms: float,
        min_rtt_ms: float | None = None,
        now_ms: float = 0.0,
    ) -> None:
        """The kernel's current RTT estimate for this connection."""
        srtt = _finite("srtt_ms", srtt_ms)
        var = _finite("rttvar_ms", rttvar_ms)
        low = None if min_rtt_ms is None else _finite("min_rtt_ms", min_rtt_ms)
        if srtt < 0 or var < 0 or (low is not None and low < 0):
            raise ClockSyncError("transport RTT values cannot be negative")
        self.transport = Transport(srtt, var, low, _finite("now_ms", now_ms))
        self._profile = None

    # ------------------------------------------------------------ the window

    @property
    def count(self) -> int:
        """How many samples the window holds."""
        return len(self._sent)

    @property
    def samples(self) -> tuple[SyncSample, ...]:
        """The window's samples, oldest first (made on demand: a copy)."""
        return tuple(map(SyncSample, self._sent, self._client, self._recv))

    def recent_rtts(self, n: int) -> list[float]:
        """The round trips of the ``n`` latest samples, oldest first."""
        if n < 1:
            raise ValueError("n must be at least 1")
        return [recv - sent for sent, recv in zip(self._sent[-n:], self._recv[-n:], strict=True)]

    # ------------------------------------------------------------ output

    def rtts(self) -> list[float]:
        """The window's round trips, sorted (a new list)."""
        return self._rtt_sorted.tolist()

    def offset(self) -> float | None:
        """The clock offset alone (``None`` before any sample): the median
        offset of the fastest samples, as in :meth:`profile`, without the rest
        of the profile (called for every pong)."""
        if self._profile is not None:
            return self._profile.offset
        if self._offset is None and self._sent:
            self._offset = quantile(sorted(self._offset_by_rtt[: self.best]), 0.5)
        return self._offset

    def profile(self) -> NetworkProfile | None:
        """The connection's network profile, or ``None`` before any sample."""
        if self._profile is not None:
            return self._profile
        if not self._sent:
            return None
        rtts = self._rtt_sorted.tolist()
        best = min(self.best, len(rtts))
        offsets = sorted(self._offset_by_rtt[:best])
        self._profile = NetworkProfile(
            samples=len(rtts),
            rtt_min=rtts[0],
            rtt_low=quantile(rtts, 0.25),
            rtt_median=quantile(rtts, 0.5),
            rtt_high=quantile(rtts, self.high_quantile),
            rtt_mad=mad(rtts),
            offset=quantile(offsets, 0.5),
            offset_error=rtts[best - 1] / 2.0,
            transport=self.transport,
        )
        return self._profile

    def to_server(self, client_ms: float) -> float | None:
        """A client clock reading as server time (``None`` before any sample)."""
        prof = self.profile()
        if prof is None:
            return None
        return client_ms - prof.offset
