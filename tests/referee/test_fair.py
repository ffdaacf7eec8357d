"""The fair referee's bound, false starts, cheat detection and slap window."""

from __future__ import annotations

import math
import random
import statistics
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slapjack.netlab.model import make_table
from slapjack.server.fair import FairConfig, FairReferee, floor_shift, rank_shift

HOME = [(10.0, 4.0), (25.0, 6.0), (40.0, 8.0), (18.0, 5.0)]
MIXED = [(12.0, 5.0), (30.0, 8.0), (60.0, 20.0), (150.0, 30.0)]


def reactions(rng: random.Random, seats: int) -> dict[int, float]:
    return {s: 180.0 + rng.gammavariate(4.0, 20.0) for s in range(seats)}


def test_honest_claim_untouched_and_impossible_claim_raised() -> None:
    ref = FairReferee()
    for i in range(20):  # a steady 60 ms round trip
        ref.on_ping_sent(0, i, 1_000.0 * i)
        ref.on_pong(0, i, 5.0, 1_000.0 * i + 60.0)
    allowance = ref.allowance(0)
    assert 60.0 <= allowance <= 70.0  # the round trip plus a small, capped slack
    ref.on_card_sent(0, 1, 50_000.0)
    # honest: 30 ms out, 250 ms reaction, 30 ms back
    assert ref.bound_reaction(0, 1, 250.0, None, None, 50_310.0) == 250.0
    # the same arrival with a claimed 120 ms would need a 190 ms round trip
    ref.on_card_sent(0, 2, 60_000.0)
    bounded = ref.bound_reaction(0, 2, 120.0, None, None, 60_310.0)
    assert bounded == pytest.approx(310.0 - allowance, abs=1.0)
    assert bounded >= 240.0


def test_claims_are_rounded_to_the_resolution() -> None:
    ref = FairReferee(FairConfig(resolution_ms=5.0))
    ref.on_card_sent(1, 7, 0.0)
    assert ref.bound_reaction(1, 7, 212.4, None, None, 220.0) == 210.0
    assert ref.bound_reaction(1, 7, 213.0, None, None, 220.0) == 215.0


def test_false_start_cannot_win() -> None:
    ref = FairReferee()
    ref.on_card_sent(0, 1, 0.0)
    ref.on_card_sent(1, 1, 0.0)
    early = ref.judge(0, 1, 80.0, None, None, 150.0)
    late = ref.judge(1, 1, 900.0, None, None, 1_000.0)
    assert early.false_start and not late.false_start
    assert early.bounded > late.bounded
    assert early.bounded >= ref.config.false_start_ms
    assert ref.report(0)["false_starts"] == 1


def test_floor_is_configurable() -> None:
    ref = FairReferee(FairConfig(floor_ms=150.0))
    ref.on_card_sent(0, 1, 0.0)
    assert ref.judge(0, 1, 120.0, None, None, 200.0).false_start


def test_stamps_inconsistent_with_the_claim_count_the_worse() -> None:
    ref = FairReferee()
    ref.on_card_sent(0, 1, 0.0)
    detail = ref.judge(0, 1, 150.0, 1_000.0, 1_240.0, 300.0)
    assert detail.claimed == 240.0


def test_unknown_flip_keeps_the_claim() -> None:
    ref = FairReferee()
    detail = ref.judge(3, 42, 230.0, None, None, 1_000.0)
    assert detail.elapsed is None and detail.bounded == 230.0


def test_bad_claim_numbers_do_not_crash() -> None:
    ref = FairReferee()
    ref.on_card_sent(0, 1, 0.0)
    assert ref.judge(0, 1, float("nan"), None, None, 300.0).false_start
    ref.on_pong(0, 99, float("nan"), 10.0)  # ignored, counted
    assert ref.seat(0).sync.dropped == 1


@pytest.mark.parametrize("profile", [HOME, MIXED], ids=["home", "mixed"])
def test_honest_players_are_almost_never_raised_nor_held(
    profile: list[tuple[float, float]],
) -> None:
    table = make_table(profile, seed=11)
    rng = random.Random(2)
    table.sync(32)
    raised = []
    for i in range(300):
        if i % 4 == 0:
            table.sync(1)
        for d in table.race(reactions(rng, 4)).values():
            raised.append(d.bounded - round(d.claimed))
    assert not any(table.referee.seat(s).held for s in range(4))
    share = sum(r > 0.5 for r in raised) / len(raised)
    assert share < 0.04
    assert statistics.fmean(raised) < 1.0


def test_honest_slower_network_faster_hand_wins() -> None:
    """150 ms more latency each way does not cost the faster hand the race."""
    table = make_table([(5.0, 1.0), (155.0, 1.0)], seed=3)
    table.sync(16)
    for _ in range(50):
        out = table.race({0: 260.0, 1: 230.0})
        assert out[1].bounded < out[0].bounded


@pytest.mark.parametrize("forge", [30.0, 100.0, 200.0])
def test_forger_detected_within_a_few_dozen_races_and_held(forge: float) -> None:
    table = make_table(HOME, seed=int(forge))
    table.links[2].forge = forge
    rng = random.Random(9)
    table.sync(32)
    gains = []
    held_at = None
    for i in range(120):
        if i % 4 == 0:
            table.sync(1)
        out = table.race(reactions(rng, 4))
        d = out[2]
        true = d.claimed + forge
        gains.append(true - d.bounded)
        if held_at is None and table.referee.seat(2).held:
            held_at = i
    assert held_at is not None and held_at <= 30
    assert table.referee.report(2)["first_held"] == held_at + 1  # one slap a race
    assert not any(table.referee.seat(s).held for s in (0, 1, 3))
    assert table.referee.report(0)["first_held"] is None
    # once held, the forger gains next to nothing on average
    assert statistics.fmean(gains[40:]) < 5.0
    assert max(gains) <= forge + 0.5  # never more than it forged (1 ms rounding)


def test_slow_poser_is_caught_by_the_kernel_rtt() -> None:
    """Delaying pongs by 60 ms and claiming 60 ms faster fools the pings, not TCP."""
    table = make_table(HOME, seed=4)
    table.links[1].pong_delay = lambda: 60.0
    table.links[1].forge = 60.0
    for s in range(4):
        table.transport(s)
    table.sync(32)
    rng = random.Random(4)
    gains = []
    for i in range(100):
        if i % 4 == 0:
            table.sync(1)
        d = table.race(reactions(rng, 4))[1]
        gains.append(d.claimed + 60.0 - d.bounded)
    assert table.referee.seat(1).held
    assert not any(table.referee.seat(s).held for s in (0, 2, 3))
    assert statistics.fmean(gains[20:]) < 8.0


@pytest.mark.parametrize(
    ("profile", "seed", "tcp", "limit", "per_ping"),
    [(HOME, 8, False, 15.0, 4), (MIXED, 41, True, 5.0, 1)],
    ids=["home-pings-only", "4g-phone-with-kernel-rtt"],
)
def test_jitter_inflater_is_held(
    profile: list[tuple[float, float]], seed: int, tcp: bool, limit: float, per_ping: int
) -> None:
    """Pongs held 0-100 ms at random, 50 ms off every claim: found by its fastest
    pings, and on a jittery network by the kernel's round trip too."""
    table = make_table(profile, seed=seed)
    rng = random.Random(seed)
    link = table.links[3]
    link.pong_delay = lambda: rng.uniform(0.0, 100.0)
    link.forge = 50.0
    table.sync(32)
    gains = []
    for i in range(0, 100, per_ping):  # a ping round every ``per_ping`` races
        if tcp and i % 4 == 0:
            for s in range(4):
                table.transport(s)
        gains += play(table, per_ping, rng, 3, 50.0)
    assert table.referee.seat(3).held
    if tcp:
        assert not any(table.referee.seat(s).held for s in (0, 1, 2))
    assert statistics.fmean(gains[40:]) < limit


def test_stamps_that_contradict_the_clock_are_struck() -> None:
    ref = FairReferee()
    for i in range(16):
        ref.on_ping_sent(0, i, 100.0 * i)
        ref.on_pong(0, i, 100.0 * i + 10.0 + 500.0, 100.0 * i + 20.0)  # offset 500, rtt 20
    for f in range(3):
        t = 10_000.0 * (f + 1)
        ref.on_card_sent(0, f, t)
        # claims the input happened 100 ms after the slap arrived
        ref.judge(0, f, 200.0, t + 500.0 + 100.0, t + 500.0 + 300.0, t + 200.0)
    assert ref.seat(0).strikes == 3
    assert ref.seat(0).held


def test_disconnect_forgets_the_network_not_the_verdict() -> None:
    ref = FairReferee()
    ref.on_ping_sent(0, 1, 0.0)
    ref.on_pong(0, 1, 0.0, 30.0)
    ref.seat(0).held = True
    ref.on_disconnect(0)
    assert ref.seat(0).held
    assert ref.seat(0).sync.profile() is None
    ref.on_disconnect(5)  # unknown seat: nothing to do


def test_window_waits_exactly_as_long_as_a_slower_seat_could_still_win() -> None:
    ref = FairReferee()
    for seat, rtt in ((0, 20.0), (1, 200.0)):
        for i in range(16):
            ref.on_ping_sent(seat, i, 100.0 * i)
            ref.on_pong(seat, i, 0.0, 100.0 * i + rtt)
    assert ref.window_ms([0, 1]) == ref.config.window_cap_ms  # no slap yet
    ref.on_card_sent(0, 1, 10_000.0)
    ref.on_card_sent(1, 1, 10_000.0)
    best = ref.bound_reaction(0, 1, 250.0, None, None, 10_270.0)
    window = ref.window_ms([0, 1])
    close = 10_270.0 + window
    # seat 1's slap arriving at the close can just not beat the best
    assert close == pytest.approx(10_000.0 + ref.allowance(1) + best + 1.0)
    late = ref.bound_reaction(1, 1, 100.0, None, None, close)
    assert late > best
    # a seat that already slapped needs no waiting for
    assert ref.window_ms([0]) == ref.config.window_min_ms


def test_window_is_capped_and_unknown_seats_get_the_cap() -> None:
    ref = FairReferee(FairConfig(window_cap_ms=400.0, unknown_rtt_ms=5_000.0))
    ref.on_card_sent(0, 1, 0.0)
    ref.on_card_sent(1, 1, 0.0)
    ref.bound_reaction(0, 1, 250.0, None, None, 300.0)
    assert ref.window_ms([0, 1]) == 400.0
    assert ref.window_ms([0, 9]) == 400.0


def test_reslap_cue_starts_a_new_race() -> None:
    ref = FairReferee()
    for seat in (0, 1):
        ref.on_card_sent(seat, 1, 0.0)
    ref.bound_reaction(0, 1, 250.0, None, None, 300.0)
    ref.bound_reaction(1, 1, 250.0, None, None, 300.0)
    for seat in (0, 1):
        ref.on_card_sent(seat, 1, 1_000.0)  # tie: a fresh cue to the tied seats
    assert ref.window_ms([0, 1]) == ref.config.window_cap_ms
    assert ref.bound_reaction(0, 1, 200.0, None, None, 1_000.0 + 230.0) == 200.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"floor_ms": -1.0},
        {"resolution_ms": 0.0},
        {"slack_min_ms": 50.0, "slack_max_ms": 10.0},
        {"suspect_min": 0},
        {"window_cap_ms": float("nan")},
        {"floor_q": 0.6},
        {"floor_q": -0.1},
        {"floor_min": 1},
        {"floor_z": float("nan")},
        {"shift_z": -1.0},
    ],
)
def test_bad_config_is_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        FairConfig(**kwargs)  # type: ignore[arg-type]


def test_blurred_forger_is_caught_by_the_tail_share() -> None:
    """Random forgeries widen the forger's own spread; its slaps still sit too high."""
    table = make_table(HOME, seed=21)
    rng = random.Random(21)
    link = table.links[0]
    table.sync(32)
    gains = []
    held_at = None
    for i in range(150):
        if i % 4 == 0:
            table.sync(1)
        link.forge = rng.uniform(0.0, 120.0)
        d = table.race(reactions(rng, 4))[0]
        gains.append(d.claimed + link.forge - d.bounded)
        if held_at is None and table.referee.seat(0).held:
            held_at = i
    assert held_at is not None and held_at <= 40
    assert not any(table.referee.seat(s).held for s in (1, 2, 3))
    assert statistics.fmean(gains[60:]) < 10.0


@given(
    rtts=st.lists(st.floats(2.0, 400.0), min_size=2, max_size=5),
    sends=st.lists(st.floats(0.0, 30.0), min_size=5, max_size=5),
    first_claim=st.floats(100.0, 600.0),
    late_claim=st.floats(100.0, 600.0),
    extra=st.floats(0.0, 500.0),
)
def test_a_slap_after_the_window_cannot_win(
    rtts: list[float], sends: list[float], first_claim: float, late_claim: float, extra: float
) -> None:
    ref = FairReferee()
    seats = list(range(len(rtts)))
    for seat, rtt in zip(seats, rtts, strict=False):
        for i in range(10):
            ref.on_ping_sent(seat, i, 100.0 * i)
            ref.on_pong(seat, i, 0.0, 100.0 * i + rtt + (i % 3))
    for seat in seats:
        ref.on_card_sent(seat, 1, 10_000.0 + sends[seat])
    arrival = 10_000.0 + sends[0] + rtts[0] + first_claim
    best = ref.bound_reaction(0, 1, first_claim, None, None, arrival)
    window = ref.window_ms(seats)
    assert ref.config.window_min_ms <= window <= ref.config.window_cap_ms
    if window < ref.config.window_cap_ms:
        for seat in seats[1:]:
            late = ref.judge(seat, 1, late_claim, None, None, arrival + window + extra)
            assert late.bounded > best or late.false_start


def test_rank_shift_measures_how_much_longer_slaps_take() -> None:
    rng = random.Random(5)
    pings = sorted(300.0 + rng.gammavariate(2.0, 30.0) for _ in range(64))
    same = [300.0 + rng.gammavariate(2.0, 30.0) for _ in range(48)]
    shifted = [w + 30.0 for w in same]
    z_same, _ = rank_shift(same, pings)
    z, shift = rank_shift(shifted, pings)
    assert z_same < 3.0
    assert z > 3.0 and 15.0 < shift < 45.0
    assert rank_shift([w - 50.0 for w in same], pings)[1] == 0.0  # faster: no shift
    assert rank_shift([], pings) == (0.0, 0.0)


def test_floor_shift_measures_how_much_later_the_fastest_come() -> None:
    rng = random.Random(7)
    pings = sorted(150.0 + rng.expovariate(1 / 30.0) for _ in range(64))
    same = [150.0 + rng.expovariate(1 / 30.0) for _ in range(20)]
    z_same, shift_same = floor_shift(same, pings, 0.1)
    z, shift = floor_shift([w + 30.0 for w in same], pings, 0.1)
    assert z_same < 2.0 and abs(shift_same) < 10.0
    # the floor of 20 slaps is known to a few ms although each varies by 30
    assert z > 5.0 and 20.0 < shift < 40.0
    assert floor_shift([w - 30.0 for w in same], pings, 0.1)[0] < 0  # faster: no shift
    assert floor_shift([], pings, 0.1) == (0.0, 0.0)
    assert floor_shift(same, pings, 0.0) == (0.0, 0.0)
    flat = floor_shift([200.0] * 20, [150.0] * 64, 0.1)  # no spread: the slope's floor
    assert flat[1] == 50.0 and math.isfinite(flat[0]) and flat[0] > 100.0


def test_the_floor_test_cuts_the_long_wait_for_a_forger_on_a_jittery_seat() -> None:
    """The rank-sum test alone leaves some 4G forgers unheld for dozens of
    races (their early slaps happen to be slow); their floor gives them away."""

    def holds(config: FairConfig) -> list[int]:
        found = []
        for seed in range(16):
            table = make_table(MIXED, seed=seed, referee=FairReferee(config))
            table.links[3].forge = 30.0
            for s in range(4):
                table.transport(s)
            table.sync(32)
            held = races_to_hold(table, 3, 80, random.Random(seed))
            found.append(80 if held is None else held)
        return found

    with_floor, without = holds(FairConfig()), holds(FairConfig(floor_q=0.0))
    assert max(with_floor) <= 20 and sum(h > 15 for h in with_floor) <= 1
    assert sum(h > 15 for h in without) >= 5
    assert statistics.median(with_floor) <= statistics.median(without)


def play(table: Any, races: int, rng: random.Random, seat: int, forge: float = 0.0) -> list[float]:
    """``races`` races with a ping round every fourth; the gains of ``seat``."""
    gains = []
    for i in range(races):
        if i % 4 == 0:
            table.sync(1)
        d = table.race(reactions(rng, 4))[seat]
        gains.append(d.claimed + forge - d.bounded)
    return gains


@pytest.mark.parametrize("tcp", [False, True])
def test_small_forgery_on_a_jittery_network_is_found_by_its_shift(tcp: bool) -> None:
    """30 ms off every claim hides in a 4G phone's jitter slap by slap, not over dozens."""
    table = make_table(MIXED, seed=21)
    table.links[3].forge = 30.0
    if tcp:
        for s in range(4):
            table.transport(s)
    table.sync(32)
    rng = random.Random(21)
    gains = play(table, 40, rng, 3, 30.0)
    assert table.referee.seat(3).held
    assert not any(table.referee.seat(s).held for s in (0, 1, 2))
    gains += play(table, 60, rng, 3, 30.0)
    assert statistics.fmean(gains[40:]) < 5.0


def test_honest_players_with_a_display_frame_of_delay_are_not_held() -> None:
    """A browser stamps the frame that paints the card: up to 17 ms after it
    arrived; and a busy one answers pings a few ms late, which the kernel's
    round trip does not see."""
    for profile in ([(2.0, 1.0)] * 4, HOME, MIXED):
        table = make_table(profile, seed=31)
        for link in table.links.values():
            link.display = 16.7
            busy = random.Random(link.clock_offset)
            link.pong_delay = lambda busy=busy: busy.uniform(0.0, 16.0)  # type: ignore[misc]
        for s in range(4):
            table.transport(s)
        table.sync(32)
        rng = random.Random(31)
        for seat in range(4):
            play(table, 25, rng, seat)
        assert not any(table.referee.seat(s).held for s in range(4)), profile


def races_to_hold(table: Any, seat: int, races: int, rng: random.Random) -> int | None:
    """Play up to ``races`` races; the index of the first one after which ``seat`` is held."""
    for i in range(races):
        if i % 4 == 0:
            table.sync(1)
        table.race(reactions(rng, 4))
        if table.referee.seat(seat).held:
            return i
    return None


def forged_stamp_holds(painted_share: float, seeds: range) -> tuple[list[int], set[str | None]]:
    """How soon a 30 ms forger on the 4G seat of ``MIXED`` is held, per seed."""
    found, reasons = [], set()
    for seed in seeds:
        table = make_table(MIXED, seed=seed)
        table.links[3].forge = 30.0
        table.links[3].painted_share = painted_share
        for s in range(4):
            table.transport(s)
        table.sync(32)
        held = races_to_hold(table, 3, 60, random.Random(seed))
        found.append(60 if held is None else held)
        reasons.add(table.referee.seat(3).reason)
    return found, reasons


@pytest.mark.parametrize("painted_share", [1.0, 0.0], ids=["later-painted", "earlier-input"])
def test_a_forged_stamp_shows_on_its_leg(
    painted_share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 4G phone's legs vary by Exp(30) ms each; 30 ms forged into one stamp
    stands out of that one leg sooner than out of the whole round trip."""
    with_legs, reasons = forged_stamp_holds(painted_share, range(12))
    monkeypatch.setattr(FairReferee, "_legs_shifted", lambda self, state, scale: False)
    round_trip_only, _ = forged_stamp_holds(painted_share, range(12))
    assert "leg" in reasons
    assert statistics.median(with_legs) <= 16
    assert statistics.median(with_legs) + 5 <= statistics.median(round_trip_only)


def test_legs_follow_an_asymmetric_route_and_a_drifting_clock() -> None:
    """The offset's error (a route slower one way) and a client clock running
    100 ppm fast move pings and slaps alike: no honest seat is held."""
    for seed in range(6):
        table = make_table(MIXED, seed=seed)
        table.links[3].up = (60.0, 45.0)
        table.links[2].up = (20.0, 5.0)
        for link in table.links.values():
            link.drift_ppm = 100.0
        for s in range(4):
            table.transport(s)
        table.sync(32)
        rng = random.Random(seed)
        for _ in range(150):
            if rng.random() < 0.25:
                table.sync(1)
            table.race(reactions(rng, 4))
            assert not any(table.referee.seat(s).held for s in range(4)), seed
        assert len(table.referee.seat(3).legs) == table.referee.config.shift_window


def test_slaps_without_stamps_have_no_legs() -> None:
    ref = FairReferee()
    for ping in range(12):
        ref.on_ping_sent(0, ping, ping * 100.0)
        ref.on_pong(0, ping, 5_000.0 + ping * 100.0 + 20.0, ping * 100.0 + 40.0)
    assert len(ref.seat(0).ping_legs) == 12 - ref.seat(0).sync.best + 1
    ref.on_card_sent(0, 1, 2_000.0)
    ref.judge(0, 1, 250.0, None, None, 2_300.0)
    assert not ref.seat(0).legs and ref.seat(0).wires
