"""Clock sync: NTP-style samples, offsets, RTT statistics, robustness."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slapjack.server.clocksync import (
    MAX_RTT_MS,
    ClockSync,
    ClockSyncError,
    SyncSample,
    mad,
    quantile,
)


def exchange(
    sync: ClockSync,
    ping_id: int,
    t: float,
    down: float,
    up: float,
    offset: float,
    hold: float = 0.0,
) -> SyncSample | None:
    sync.ping_sent(ping_id, t)
    return sync.pong(ping_id, t + down + hold + offset, t + down + hold + up)


def test_sample_rtt_and_offset() -> None:
    s = SyncSample(sent_ms=100.0, client_ms=5_020.0, recv_ms=140.0)
    assert s.rtt == 40.0
    assert s.offset == 4_900.0  # client read 5020 at server time 120


def test_offset_and_rtt_from_jittery_symmetric_network() -> None:
    rng = random.Random(3)
    sync = ClockSync()
    offset = -987_654.25
    for i in range(64):
        down = 20 + rng.expovariate(1 / 6)
        up = 20 + rng.expovariate(1 / 6)
        exchange(sync, i, 1_000.0 * i, down, up, offset)
    prof = sync.profile()
    assert prof is not None
    assert prof.samples == 64
    # the lowest-RTT samples have the least asymmetry: the offset is good to a few ms
    assert abs(prof.offset - offset) < 4.0
    assert prof.offset_error < 30.0
    assert 40.0 <= prof.rtt_min < prof.rtt_low < prof.rtt_median < prof.rtt_high
    assert 45.0 < prof.rtt_median < 62.0  # 40 + Gamma(2, 6): median about 50
    assert prof.jitter > 0
    assert sync.to_server(offset + 500.0) == pytest.approx(500.0, abs=4.0)


def test_delayed_pongs_do_not_move_the_offset() -> None:
    """A client holding back most answers only makes those samples look slow."""
    rng = random.Random(5)
    honest, delayed = ClockSync(), ClockSync()
    for i in range(64):
        down, up = 15 + rng.expovariate(1 / 3), 15 + rng.expovariate(1 / 3)
        exchange(honest, i, 1_000.0 * i, down, up, 777.0)
        hold = 0.0 if i % 8 == 0 else rng.uniform(0, 100)
        exchange(delayed, i, 1_000.0 * i, down, up, 777.0, hold=hold)
    a, b = honest.profile(), delayed.profile()
    assert a is not None and b is not None
    assert abs(b.offset - 777.0) < 6.0
    assert b.rtt_median > a.rtt_median + 20  # the typical RTT does look inflated
    assert a.rtt_min <= b.rtt_min < a.rtt_min + 5.0  # the fastest answers stay fast


def test_window_slides_and_keeps_recent_samples() -> None:
    sync = ClockSync(window=10, best=3)
    for i in range(30):
        exchange(sync, i, float(i * 100), 5.0 + i, 5.0 + i, 0.0)
    assert len(sync.samples) == 10
    assert sync.rtts()[0] == pytest.approx(2 * (5.0 + 20))


def test_unknown_repeated_and_late_pongs_are_ignored() -> None:
    sync = ClockSync()
    assert sync.pong(99, 0.0, 10.0) is None
    sync.ping_sent(1, 0.0)
    assert sync.pong(1, 5.0, 10.0) is not None
    assert sync.pong(1, 5.0, 11.0) is None  # repeated
    sync.ping_sent(2, 100.0)
    assert sync.pong(2, 5.0, 100.0 + MAX_RTT_MS + 1) is None
    assert sync.dropped == 3
    assert len(sync.samples) == 1


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "12", None, True])
def test_bad_numbers_raise_a_typed_error(bad: object) -> None:
    sync = ClockSync()
    sync.ping_sent(1, 0.0)
    with pytest.raises(ClockSyncError) as info:
        sync.pong(1, bad, 10.0)  # type: ignore[arg-type]
    assert info.value.code == "bad_time"
    with pytest.raises(ClockSyncError):
        sync.ping_sent(2, bad)  # type: ignore[arg-type]
    with pytest.raises(ClockSyncError):
        sync.set_transport(bad, 1.0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("client", "now"),
    [(float("nan"), 10.0), (5.0, float("inf")), (float("-inf"), float("inf")), (5, True)],
)
def test_answer_checks_both_numbers(client: object, now: object) -> None:
    """The referee's path (``answer``) refuses what ``pong`` refuses, a bad
    server stamp too, and leaves the ping outstanding."""
    sync = ClockSync()
    sync.ping_sent(1, 0.0)
    with pytest.raises(ClockSyncError) as info:
        sync.answer(1, client, now)  # type: ignore[arg-type]
    assert info.value.code == "bad_time"
    assert sync.answer(1, 5.0, 10.0) == 0.0  # still waiting for its pong


def test_answer_is_pong_without_the_sample() -> None:
    """``answer`` and ``pong`` count a pong alike (the ping's send time, the
    same window); huge finite stamps whose sum is infinite are not refused,
    whole numbers are taken as floats."""
    by_answer, by_pong = ClockSync(), ClockSync()
    stamps = [(10.0, 5.0e307, 10.0), (20.0, 9.0e307, 30.0), (40, 7, 45), (50.0, -3.5, 51.0)]
    for i, (sent, client, recv) in enumerate(stamps):
        by_answer.ping_sent(i, sent)
        by_pong.ping_sent(i, sent)
        sample = by_pong.pong(i, client, recv)
        assert sample == SyncSample(float(sent), float(client), float(recv))
        assert by_answer.answer(i, client, recv) == sample.sent_ms
    assert by_answer.samples == by_pong.samples
    assert by_answer.rtts() == by_pong.rtts() == [0.0, 1.0, 5.0, 10.0]
    assert by_answer.answer(99, 1.0, 2.0) is None and by_answer.dropped == 1


def test_time_backwards_raises() -> None:
    sync = ClockSync()
    sync.ping_sent(1, 50.0)
    with pytest.raises(ClockSyncError) as info:
        sync.pong(1, 0.0, 40.0)
    assert info.value.code == "time_backwards"
    with pytest.raises(ClockSyncError):
        sync.set_transport(-1.0, 1.0)


def test_outstanding_pings_are_bounded() -> None:
    sync = ClockSync()
    for i in range(1_000):
        sync.ping_sent(i, float(i))
    assert sync.pong(0, 0.0, 2_000.0) is None  # long forgotten
    assert sync.pong(999, 0.0, 1_000.0) is not None


def test_transport_upper_is_rfc6298() -> None:
    sync = ClockSync()
    sync.set_transport(40.0, 5.0, 35.0, now_ms=3.0)
    assert sync.transport is not None
    assert sync.transport.upper == 60.0
    assert sync.profile() is None  # no ping yet
    exchange(sync, 1, 0.0, 20.0, 20.0, 0.0)
    prof = sync.profile()
    assert prof is not None and prof.transport == sync.transport


def test_constructor_checks() -> None:
    with pytest.raises(ValueError):
        ClockSync(window=0)
    with pytest.raises(ValueError):
        ClockSync(high_quantile=0.2)


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50), st.floats(0, 1))
def test_quantile_matches_statistics(values: list[float], q: float) -> None:
    ordered = sorted(values)
    got = quantile(ordered, q)
    assert ordered[0] <= got <= ordered[-1]
    if len(values) >= 2:
        assert quantile(ordered, 0.5) == pytest.approx(
            statistics.median(values), rel=1e-9, abs=1e-6
        )


def test_quantile_and_mad_edges() -> None:
    assert quantile([1.0, 2.0, 3.0, 4.0], 0.25) == 1.75
    assert mad([1.0, 2.0, 3.0, 4.0, 100.0]) == 1.0
    with pytest.raises(ValueError):
        quantile([], 0.5)
    with pytest.raises(ValueError):
        quantile([1.0], 1.5)
    with pytest.raises(ValueError):
        mad([])


@given(
    st.lists(
        st.tuples(st.floats(0.0, 500.0), st.floats(0.0, 500.0), st.floats(-1e6, 1e6)),
        min_size=1,
        max_size=80,
    )
)
def test_offset_alone_is_the_profiles_offset(legs: list[tuple[float, float, float]]) -> None:
    """The cheap offset of every pong is the one the full profile computes
    (same fastest samples, ties broken alike), and the cached sorted RTTs are
    the window's."""
    sync = ClockSync(window=64, best=8)
    assert sync.offset() is None and sync.rtts() == []
    for i, (down, up, skew) in enumerate(legs):
        sent = 1_000.0 * i
        sync.add(SyncSample(sent, sent + down + skew, sent + down + up))
        alone = sync.offset()
        prof = sync.profile()
        assert prof is not None and alone == prof.offset
        assert sync.rtts() == sorted(s.rtt for s in sync.samples)


@given(
    st.lists(
        st.tuples(
            st.integers(0, 40).map(float),  # few distinct round trips: many ties
            st.floats(-500.0, 500.0, allow_nan=False),
        ),
        min_size=1,
        max_size=200,
    ),
    st.integers(1, 70),
    st.integers(1, 12),
)
def test_the_kept_order_is_a_sort_of_the_window(
    exchanges: list[tuple[float, float]], window: int, best: int
) -> None:
    """The window is kept sorted by round trip as samples come and go: after
    every pong the offset and the profile are those of a fresh stable sort."""
    sync = ClockSync(window=window, best=best)
    for i, (rtt, client) in enumerate(exchanges):
        t = 100.0 * i
        sync.add(SyncSample(t, client + t, t + rtt))
        ordered = sorted(sync.samples, key=lambda s: s.rtt)  # stable: ties by arrival
        chosen = ordered[:best]
        expected = quantile(sorted(s.offset for s in chosen), 0.5)
        assert sync.offset() == expected
        if i % 7 == 0:
            prof = sync.profile()
            assert prof is not None
            assert sync.rtts() == [s.rtt for s in ordered]
            assert prof.offset == expected
            assert prof.offset_error == chosen[-1].rtt / 2.0
            assert prof.samples == len(ordered) == min(i + 1, window)


@pytest.mark.parametrize("seed", range(4))
def test_the_offset_kept_between_pongs_is_a_fresh_one(seed: int) -> None:
    """The offset is kept from pong to pong while the fastest samples stay the
    same (a sample that comes or goes among the slower ones); after every pong
    it is the offset of a fresh stable sort of the window, through windows
    that are full (the oldest sample goes: often one of the fastest) and
    round trips with many ties."""
    rng = random.Random(seed)
    for _ in range(60):
        window, best = rng.randint(1, 24), rng.randint(1, 10)
        sync = ClockSync(window=window, best=best)
        for i in range(80):
            t = 100.0 * i
            rtt = float(rng.randint(0, 30)) if rng.random() < 0.7 else rng.uniform(0.0, 30.0)
            sync.add(SyncSample(t, t + rng.uniform(-5.0, 5.0), t + rtt))
            chosen = sorted(sync.samples, key=lambda s: s.rtt)[:best]
            assert sync.offset() == quantile(sorted(s.offset for s in chosen), 0.5)


def test_the_window_is_read_through_copies() -> None:
    """``samples`` is a copy made on demand (the window itself is flat arrays):
    changing it changes nothing; ``recent_rtts`` are the latest, oldest first."""
    sync = ClockSync(window=8, best=2)
    for i, rtt in enumerate((5.0, 1.0, 3.0)):
        sync.add(SyncSample(10.0 * i, 10.0 * i + 1.0, 10.0 * i + rtt))
    samples = sync.samples
    assert isinstance(samples, tuple) and [s.rtt for s in samples] == [5.0, 1.0, 3.0]
    assert sync.count == 3 and sync.recent_rtts(2) == [1.0, 3.0]
    assert sync.recent_rtts(10) == [5.0, 1.0, 3.0]
    rtts = sync.rtts()
    rtts.clear()
    assert sync.rtts() == [1.0, 3.0, 5.0]
    with pytest.raises(ValueError):
        sync.recent_rtts(0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_sample_added_directly_is_checked(bad: float) -> None:
    sync = ClockSync()
    with pytest.raises(ClockSyncError):
        sync.add(SyncSample(0.0, bad, 10.0))
    with pytest.raises(ClockSyncError):
        sync.add(SyncSample(0.0, 1.0, bad))
    with pytest.raises(ClockSyncError) as info:
        sync.add(SyncSample(10.0, 1.0, 5.0))
    assert info.value.code == "time_backwards"
    assert sync.count == 0 and sync.offset() is None


class ReferenceSync:
    """The clock sync the plain way: the last ``window`` exchanges in a list,
    sorted afresh (stably: ties by arrival) for every question."""

    def __init__(self, window: int, best: int) -> None:
        self.window, self.best = window, best
        self.kept: list[tuple[float, float, float]] = []

    def add(self, sent: float, client: float, recv: float) -> None:
        self.kept = [*self.kept, (sent, client, recv)][-self.window :]

    def ordered(self) -> list[tuple[float, float, float]]:
        return sorted(self.kept, key=lambda s: s[2] - s[0])

    def offset(self) -> float | None:
        best = self.ordered()[: self.best]
        if not best:
            return None
        return quantile(sorted(c - (s + r) / 2.0 for s, c, r in best), 0.5)


@given(
    st.lists(
        st.tuples(
            st.one_of(st.integers(0, 30).map(float), st.floats(0.0, 12_000.0)),  # round trip
            st.floats(-1e7, 1e7),  # the client's clock
            st.integers(0, 9),  # what happens to the exchange
        ),
        min_size=1,
        max_size=150,
    ),
    st.integers(1, 70),
    st.integers(1, 12),
)
def test_the_clock_sync_is_a_plain_sort_of_its_window(
    exchanges: list[tuple[float, float, int]], window: int, best: int
) -> None:
    """After every exchange (answered, lost, answered twice, answered for an
    unknown ping, or later than MAX_RTT_MS) the offset, the profile and the
    window are those of the plain version: the compact window decides alike."""
    sync = ClockSync(window=window, best=best)
    ref = ReferenceSync(window, best)
    dropped = 0
    for i, (rtt, clock, fate) in enumerate(exchanges):
        sent = 20_000.0 * i
        sync.ping_sent(i, sent)
        if fate == 0:
            continue  # lost
        ping = i + 10_000 if fate == 1 else i  # an unknown id
        recv = sent + rtt
        got = sync.pong(ping, clock + sent, recv)
        if fate == 1 or recv - sent > MAX_RTT_MS:
            assert got is None
            dropped += 1
        else:
            assert got is not None and got.rtt == recv - sent
            ref.add(sent, clock + sent, recv)
        if fate == 2:
            assert sync.pong(ping, clock + sent, recv + 1.0) is None  # repeated
            dropped += 1
        assert sync.dropped == dropped
        assert sync.offset() == ref.offset()
        ordered = ref.ordered()
        assert [(s.sent_ms, s.client_ms, s.recv_ms) for s in sync.samples] == ref.kept
        if fate >= 7 or i == len(exchanges) - 1:
            prof = sync.profile()
            if not ordered:
                assert prof is None and sync.rtts() == []
                continue
            rtts = [r - s for s, _, r in ordered]
            assert prof is not None and sync.rtts() == rtts
            assert prof.samples == len(rtts) and prof.rtt_min == rtts[0]
            assert prof.rtt_low == quantile(rtts, 0.25)
            assert prof.rtt_median == quantile(rtts, 0.5)
            assert prof.rtt_high == quantile(rtts, 0.95)
            assert prof.rtt_mad == mad(rtts)
            assert prof.offset == ref.offset()
            assert prof.offset_error == rtts[:best][-1] / 2.0
