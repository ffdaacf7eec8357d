"""Server health figures for ``GET /api/metrics`` (and ``bench/load.py``).

Recent samples of: how long an input waited in its room's queue, how long a
room waited for its store writes, how late the event loop woke up; counters
of inputs handled and frames queued; and the event loop's task count.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections import deque
from typing import Any, Final

SAMPLES: Final = 20_000


def _summary(values: deque[float]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "p50": None, "p99": None, "max": None}
    ordered = sorted(values)
    n = len(ordered)
    return {
        "n": n,
        "p50": round(ordered[n // 2], 3),
        "p99": round(ordered[min(n - 1, int(n * 0.99))], 3),
        "max": round(ordered[-1], 3),
    }


class Metrics:
    """Process-wide figures (one server process, one event loop)."""

    def __init__(self) -> None:
        self.queue_lag_ms: deque[float] = deque(maxlen=SAMPLES)
        self.write_ms: deque[float] = deque(maxlen=SAMPLES)
        self.loop_lag_ms: deque[float] = deque(maxlen=SAMPLES)
        self.send_lag_ms: deque[float] = deque(maxlen=SAMPLES)
        """From a frame queued for a socket to its write to the socket."""
        self.gc_ms: deque[float] = deque(maxlen=SAMPLES)
        """How long each full collection of the garbage collector paused the process."""
        self.gc0_ms: deque[float] = deque(maxlen=SAMPLES)
        """The same for each young collection (see :mod:`.heap`)."""
        self.inputs = 0
        self.frames = 0
        self.counts: dict[str, int] = {}
        """Refusals and closes by kind (``rate_limited:create``, ``close:1013``,
        ``bad_utf8``, ``rooms_expired``…): see :meth:`count`."""
        self.dropped_frames = 0
        """Frames dropped unsent because their socket was closed as not reading."""
        self._gc_start = 0.0

    def count(self, kind: str, n: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n

    def watch_gc(self) -> None:
        """Record how long each garbage collection pauses the process."""
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
            return
        pauses = {0: self.gc0_ms, 2: self.gc_ms}.get(info.get("generation", -1))
        if pauses is not None:
            pauses.append((time.perf_counter() - self._gc_start) * 1000.0)

    def reset(self) -> None:
        self.queue_lag_ms.clear()
        self.write_ms.clear()
        self.loop_lag_ms.clear()
        self.send_lag_ms.clear()
        self.gc_ms.clear()
        self.gc0_ms.clear()
        self.inputs = 0
        self.frames = 0
        self.counts.clear()
        self.dropped_frames = 0

    async def watch_loop(self, every: float = 0.05) -> None:
        """Sample how late ``asyncio.sleep`` wakes up (a blocked loop shows here)."""
        while True:
            start = time.perf_counter()
            await asyncio.sleep(every)
            self.loop_lag_ms.append((time.perf_counter() - start - every) * 1000.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "inputs": self.inputs,
            "frames": self.frames,
            "counts": dict(sorted(self.counts.items())),
            "dropped_frames": self.dropped_frames,
            "queue_lag_ms": _summary(self.queue_lag_ms),
            "write_ms": _summary(self.write_ms),
            "loop_lag_ms": _summary(self.loop_lag_ms),
            "send_lag_ms": _summary(self.send_lag_ms),
            "gc2_ms": _summary(self.gc_ms),
            "gc0_ms": _summary(self.gc0_ms),
            "tasks": _tasks(),
        }


def _tasks() -> int | None:
    """The event loop's unfinished tasks (a task leak shows here), or ``None``
    outside a running loop."""
    try:
        return len(asyncio.all_tasks())
    except RuntimeError:
        return None


METRICS: Final = Metrics()
