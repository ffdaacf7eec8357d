"""Time for the terminal game: a clock that also schedules callbacks.

The controller reads time and sets timers only through a :class:`Clock`, so the
app runs it on real time with Textual timers (:class:`TextualClock`) and tests
run it on a clock they move by hand (:class:`ManualClock`).
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable
from typing import Any, Protocol


class Handle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Seconds on a monotonic clock, and callbacks after a delay."""

    def now(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle: ...

    def event_time(self, stamp: float) -> float:
        """This clock's time of an input event stamped ``stamp`` by Textual."""
        ...


MIN_DELAY_S = 0.001
"""The shortest delay :class:`TextualClock` asks Textual for."""


class _TimerHandle:
    __slots__ = ("_timer",)

    def __init__(self, timer: Any) -> None:
        self._timer = timer

    def cancel(self) -> None:
        self._timer.stop()


class TextualClock:
    """``time.monotonic`` and Textual's ``set_timer`` on a message pump (the app)."""

    def __init__(self, pump: Any) -> None:
        self._pump = pump

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        # Never 0: a Textual timer of interval 0 that runs late divides by zero
        # (textual 8.2, Timer._run) and its callback never comes.
        return _TimerHandle(self._pump.set_timer(max(MIN_DELAY_S, delay), callback))

    def event_time(self, stamp: float) -> float:
        # Textual stamps events with time.monotonic (on every platform but
        # Windows, where it uses perf_counter): use the stamp when it is ours.
        now = time.monotonic()
        return stamp if 0.0 <= now - stamp < 5.0 else now


class _ManualHandle:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when told: :meth:`advance` runs the callbacks that
    come due, in time order, with :meth:`now` set to each one's due time."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._queue: list[tuple[float, int, _ManualHandle, Callable[[], None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def event_time(self, stamp: float) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        handle = _ManualHandle()
        heapq.heappush(
            self._queue, (self._now + max(0.0, delay), next(self._order), handle, callback)
        )
        return handle

    @property
    def pending(self) -> int:
        """How many callbacks are waiting (cancelled ones not counted)."""
        return sum(1 for *_, h, _cb in self._queue if not h.cancelled)

    def next_due(self) -> float | None:
        for due, _, handle, _cb in sorted(self._queue):
            if not handle.cancelled:
                return due
        return None

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``, firing what comes due on the way."""
        end = self._now + seconds
        while self._queue and self._queue[0][0] <= end:
            due, _, handle, callback = heapq.heappop(self._queue)
            if handle.cancelled:
                continue
            self._now = max(self._now, due)
            callback()
        self._now = end

    def advance_ms(self, ms: float) -> None:
        self.advance(ms / 1000.0)
