"""The terminal game's clocks."""

from __future__ import annotations

from collections.abc import Callable

from slapjack.tui.clock import MIN_DELAY_S, ManualClock, TextualClock


class _Pump:
    def __init__(self) -> None:
        self.delays: list[float] = []

    def set_timer(self, delay: float, callback: Callable[[], None]) -> object:
        self.delays.append(delay)
        return object()


def test_textual_clock_never_asks_textual_for_a_zero_delay() -> None:
    # A Textual timer of interval 0 that runs late raises ZeroDivisionError in its
    # task, and its callback never comes: a game then hangs for good.
    pump = _Pump()
    clock = TextualClock(pump)
    clock.call_later(0.0, lambda: None)
    clock.call_later(-1.0, lambda: None)
    clock.call_later(0.25, lambda: None)
    assert pump.delays == [MIN_DELAY_S, MIN_DELAY_S, 0.25]


def test_manual_clock_fires_in_time_order_at_each_due_time() -> None:
    clock = ManualClock(start=10.0)
    seen: list[tuple[str, float]] = []
    clock.call_later(0.2, lambda: seen.append(("b", clock.now())))
    clock.call_later(0.1, lambda: seen.append(("a", clock.now())))
    late = clock.call_later(0.15, lambda: seen.append(("x", clock.now())))
    late.cancel()
    clock.advance(0.5)
    assert seen == [("a", 10.1), ("b", 10.2)]
    assert clock.now() == 10.5
