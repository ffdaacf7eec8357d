"""Where the server's event loop stalls (issue 14): loaded into the
``slapjack serve`` process that ``bench/load.py`` starts, by putting this
folder on ``PYTHONPATH`` and naming an output folder in ``SLAPJACK_DIAG``:

    SLAPJACK_DIAG=/tmp/diag PYTHONPATH=bench/diag .venv/bin/python bench/load.py --players 6000 --seconds 20 --pin --json
    .venv/bin/python bench/stalls.py /tmp/diag

It records, in the server only (any other process ignores it):

- every garbage collection's pause, generation and objects freed (a ``gc``
  callback);
- the loop's stalls: a callback on the loop beats every 2 ms; a thread looks
  every millisecond and, while the beat is more than 12 ms late, takes the
  main thread's Python stack every 4 ms (a stack that shows only the loop's
  ``run`` is C code: uvloop, the kernel, or the GIL held elsewhere);
- each pinger tick's sockets and time (``Pinger._ping`` wrapped);
- when ``/api/metrics`` was reset and read (load.py does both around its
  measured seconds), so that the summary can keep to that window.

It writes ``diag.<pid>.json`` in that folder every 3 s. The watching thread
takes the GIL for a moment every millisecond and while it writes: use it to
find stalls, not to time the server (load.py without it does that).
"""

from __future__ import annotations

import os
import sys

if "serve" in sys.argv and os.environ.get("SLAPJACK_DIAG"):
    import asyncio.runners
    import contextlib
    import gc
    import json
    import threading
    import time
    import traceback
    from typing import Any

    _OUT = os.environ["SLAPJACK_DIAG"]
    _MAIN = threading.get_ident()
    _beat = [time.perf_counter()]
    _gc: list[tuple[float, int, float, int]] = []  # (wall time, generation, ms, freed)
    _stalls: list[list[Any]] = []  # [beat, wall time, [(ms late, stack), ...]]
    _ticks: list[tuple[float, int, float]] = []  # (wall time, sockets, ms)
    _marks: list[tuple[str, float]] = []
    _checkpoints: list[tuple[float, float]] = []  # (wall time at start, at end)
    _gc_start = [0.0]

    def _on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            _gc_start[0] = time.perf_counter()
        else:
            ms = (time.perf_counter() - _gc_start[0]) * 1000.0
            _gc.append((time.time(), info["generation"], ms, info.get("collected", 0)))

    gc.callbacks.append(_on_gc)
    _run = asyncio.runners.Runner.run

    def _beating_run(self: Any, coro: Any, *, context: Any = None) -> Any:
        self._lazy_init()
        loop = self._loop

        def beat() -> None:
            _beat[0] = time.perf_counter()
            loop.call_later(0.002, beat)

        loop.call_soon(beat)
        return _run(self, coro, context=context)

    asyncio.runners.Runner.run = _beating_run  # type: ignore[method-assign]

    def _hook_server() -> None:
        import slapjack.server.metrics as metrics
        import slapjack.server.pings as pings

        reset, to_dict = metrics.METRICS.reset, metrics.METRICS.to_dict

        def marked_reset() -> None:
            _marks.append(("reset", time.time()))
            reset()

        def marked_to_dict() -> dict[str, Any]:
            _marks.append(("read", time.time()))
            return to_dict()

        metrics.METRICS.reset = marked_reset  # type: ignore[method-assign]
        metrics.METRICS.to_dict = marked_to_dict  # type: ignore[method-assign]
        serve = pings.Pinger._ping

        def timed_ping(self: Any, due: list[Any]) -> None:
            started = time.perf_counter()
            serve(self, due)
            _ticks.append((time.time(), len(due), (time.perf_counter() - started) * 1000.0))

        pings.Pinger._ping = timed_ping  # type: ignore[method-assign]

        import slapjack.store.sqlite as sqlite_store

        checkpoint = sqlite_store.SqliteStore._run_checkpoint

        async def timed_checkpoint(self: Any) -> None:
            started = time.time()
            try:
                await checkpoint(self)
            finally:
                _checkpoints.append((started, time.time()))

        sqlite_store.SqliteStore._run_checkpoint = timed_checkpoint  # type: ignore[method-assign]

    def _dump() -> None:
        with open(os.path.join(_OUT, f"diag.{os.getpid()}.json"), "w") as out:
            json.dump(
                {
                    "marks": _marks,
                    "gc": _gc,
                    "stalls": _stalls,
                    "ticks": _ticks[-20_000:],
                    "checkpoints": _checkpoints,
                },
                out,
            )

    def _watch() -> None:
        time.sleep(2)  # the server's modules are imported by then
        _hook_server()
        last_dump = time.time()
        current: list[Any] | None = None
        while True:
            time.sleep(0.001)
            late = time.perf_counter() - _beat[0]
            if late > 0.012:
                frame = sys._current_frames().get(_MAIN)
                try:
                    stack = traceback.extract_stack(frame) if frame is not None else []
                except Exception:  # the frame changed under us
                    stack = []
                where = " <- ".join(
                    f"{os.path.basename(f.filename)}:{f.name}({f.lineno})"
                    for f in reversed(stack[-12:])
                )
                if current is None or current[0] != _beat[0]:
                    current = [_beat[0], time.time(), []]
                    _stalls.append(current)
                current[2].append((round(late * 1000.0, 1), where))
                time.sleep(0.003)
            if time.time() - last_dump > 3:
                last_dump = time.time()
                with contextlib.suppress(OSError, ValueError, RuntimeError):
                    _dump()

    os.makedirs(_OUT, exist_ok=True)
    threading.Thread(target=_watch, name="slapjack-diag", daemon=True).start()
