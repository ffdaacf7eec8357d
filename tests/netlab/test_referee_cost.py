"""``bench/referee_cost.py``: what the fair referee costs per pong and per race."""

from __future__ import annotations

import re
from types import ModuleType

import pytest

from slapjack.netlab import referee_cost


def load() -> ModuleType:
    return referee_cost


def test_it_prints_the_cost_of_a_pong_and_of_a_race(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load()
    assert bench.main(["--pongs", "400", "--races", "40"]) == 0
    out = capsys.readouterr().out
    found = re.search(r"([\d.]+) µs a pong, (\d+) µs a race of 4 slaps", out)
    assert found is not None, out
    pong, race = float(found.group(1)), float(found.group(2))
    assert 0 < pong < race  # four judged slaps cost more than one pong
    assert re.search(r"at 2,000 players .*: [\d.]+ % of a core", out)


def test_the_session_is_a_real_one() -> None:
    """The timed work is the referee's: a full clock-sync window, slaps judged
    with their stamps (legs recorded), nobody held on an honest network."""
    bench = load()
    session = bench.Session(3)
    for i in range(300):
        session.pong(i % 4)
    for _ in range(60):
        session.race()
    for seat in range(4):
        state = session.referee.seat(seat)
        assert len(state.sync.samples) == state.sync.window
        assert state.slaps == 60 and len(state.legs) == session.referee.config.shift_window
        assert not state.held


def test_bad_counts_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load()
    with pytest.raises(SystemExit) as exc:
        bench.main(["--pongs", "0"])
    assert exc.value.code == 2
    assert "--pongs must be" in capsys.readouterr().err


@pytest.mark.parametrize(("forgery", "reason"), [(15.0, {"shift", "leg"}), (40.0, {"cusum"})])
def test_a_forger_is_held_and_the_others_are_not(forgery: float, reason: set[str]) -> None:
    """``--forgery``: seat 0's claims lose that many ms; the referee holds it,
    by the shift test for a forgery within the jitter (the case where the
    timed races compute the pairwise median), the others not."""
    bench = load()
    session = bench.Session(1, forgery=forgery)  # the bench's seed
    for i in range(300):
        session.pong(i % 4)
    for _ in range(150):
        session.race()
    held = [session.referee.seat(seat).held for seat in range(4)]
    assert held == [True, False, False, False]
    assert session.referee.seat(0).reason in reason


def test_a_forgery_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load()
    with pytest.raises(SystemExit) as exc:
        bench.main(["--forgery", "-5"])
    assert exc.value.code == 2
    assert "--forgery must be" in capsys.readouterr().err


def test_pongs_between_races_are_not_timed_as_races(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load()
    pong, race = bench.measure(200, 20, between=12)
    assert 0 < pong < race
    with pytest.raises(SystemExit):
        bench.main(["--between", "-1"])
    assert "--between must be" in capsys.readouterr().err


def test_with_the_kernels_estimate_every_pong_tells_it_and_nobody_is_held() -> None:
    bench = load()
    session = bench.Session(3, tcp_info=True)
    for i in range(300):
        session.pong(i % 4)
    for _ in range(60):
        session.race()
    for seat in range(4):
        state = session.referee.seat(seat)
        assert state.sync.transport is not None and len(state.kernel) == state.kernel.maxlen
        assert not state.held, state.reason
