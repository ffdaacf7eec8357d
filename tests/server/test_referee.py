"""The referee interface, the arrival referee, and the factory behind --referee."""

from __future__ import annotations

import pytest

from slapjack.server.connection import RateLimit
from slapjack.server.referee import (
    ArrivalReferee,
    Referee,
    TrustingReferee,
    referee_factory,
)


def test_arrival_referee_ranks_by_arrival_minus_send() -> None:
    ref: Referee = ArrivalReferee(window=450.0)
    ref.on_card_sent(0, 7, 1000.0)
    ref.on_card_sent(1, 7, 1002.0)
    # seat 0 claims a fast hand but arrives late: arrival decides
    assert ref.bound_reaction(0, 7, 150.0, 10.0, 160.0, 1400.0) == 400.0
    assert ref.bound_reaction(1, 7, 380.0, 10.0, 390.0, 1302.0) == 300.0
    assert ref.window_ms([0, 1]) == 450.0


def test_arrival_referee_without_a_send_time_keeps_the_claim() -> None:
    ref = ArrivalReferee()
    assert ref.bound_reaction(2, 3, 275.0, None, None, 5000.0) == 275.0
    ref.on_card_sent(2, 3, 4000.0)
    assert ref.bound_reaction(2, 4, 275.0, None, None, 5000.0) == 275.0  # other flip
    assert ref.bound_reaction(2, 3, -5.0, None, None, 3990.0) == 0.0  # never negative


def test_trusting_referee_takes_claims() -> None:
    ref = TrustingReferee()
    ref.on_card_sent(0, 1, 0.0)
    assert ref.bound_reaction(0, 1, 123.0, None, None, 9999.0) == 123.0


def test_factory() -> None:
    assert referee_factory("arrival") is ArrivalReferee
    from slapjack.server.fair import FairReferee

    fair = referee_factory("fair")
    assert fair is FairReferee and referee_factory(None) is fair
    ref = fair()
    for method in ("on_ping_sent", "on_pong", "on_card_sent", "bound_reaction", "window_ms"):
        assert callable(getattr(ref, method))
    with pytest.raises(ValueError, match="unknown referee"):
        referee_factory("coin")


def test_rate_limit_allows_bursts_then_refuses() -> None:
    limit = RateLimit(rate=30.0, burst=30.0)
    t = 100.0
    assert all(limit.allow(t) for _ in range(30))
    assert not limit.allow(t)
    assert limit.allow(t + 0.1)  # 3 more tokens after 100 ms
    limit2 = RateLimit(rate=30.0, burst=30.0)
    # a steady 20 frames a second never trips it
    assert all(limit2.allow(200.0 + i / 20) for i in range(200))


def test_factory_settings_of_the_fair_referee() -> None:
    from slapjack.server.fair import FairConfig

    ref = referee_factory("fair", floor_ms=150.0, resolution_ms=5.0)()
    assert isinstance(ref.config, FairConfig)  # type: ignore[attr-defined]
    assert ref.config.floor_ms == 150.0 and ref.config.resolution_ms == 5.0  # type: ignore[attr-defined]
    assert referee_factory("fair", floor_ms=0.0)().config.floor_ms == 0.0  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="setting of the fair referee"):
        referee_factory("arrival", floor_ms=80.0)
    with pytest.raises(ValueError, match=r"floor_ms must be within 0..500 ms"):
        referee_factory("fair", floor_ms=900.0)
    with pytest.raises(ValueError, match=r"resolution_ms must be within"):
        referee_factory("fair", resolution_ms=0.0)
    with pytest.raises(ValueError):
        referee_factory("fair", floor_ms=float("nan"))
