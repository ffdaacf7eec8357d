"""A single writer: one asyncio task that runs its inputs one at a time.

A room is one (:class:`~slapjack.server.room.Room`). Every input — a client
frame, a referee timing, a timer, a join — is a closure put on the actor's
queue; the task runs them in order, so what it drives needs no locks. After
each input the task first awaits the store writes the input prepared
(write-ahead: nothing is told before it is durable), then sends the frames it
prepared. An input that comes while the task is idle runs at once in the
caller and begins its append there; the task then finishes it (its write,
its frames) before it takes the next (:meth:`Actor.submit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from slapjack.core import SlapjackError
from slapjack.store import StaleOwner, StoreUnavailable

from .connection import Conn
from .metrics import METRICS

log = logging.getLogger(__name__)

StoreOp = Callable[[], Awaitable[Any]]
PAUSE_RETRY_S = 0.1
PAUSE_RETRY_MAX_S = 2.0
"""A write the store could not take is tried again after 0.1 s, doubling to 2 s."""


def _nothing() -> None:
    """An input that does nothing (its writes and frames are those already prepared)."""


class Actor:
    """The task, its queue, its store writes, its outbox and its named timers."""

    def __init__(self, name: str, clock: Callable[[], float] | None = None) -> None:
        self.name = name
        self._clock = clock or (lambda: time.monotonic() * 1000.0)
        self.write_ahead = True
        """Store an input's writes before its frames go out (else right after)."""
        self._queue: deque[tuple[Callable[[], Any], asyncio.Future[Any] | None, float]] = deque()
        """The inputs not yet run (the task waits on ``_waiter`` while none is)."""
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        """The named timers' event-loop handles (see :meth:`set_timer`)."""
        self._armed: dict[str, float] = {}
        """When each handle goes off (never later than its timer's deadline)."""
        self._deadlines: dict[str, float] = {}
        self._fns: dict[str, Callable[[], Any]] = {}
        self._ops: list[StoreOp] = []
        self._started: dict[StoreOp, Awaitable[Any]] = {}
        """Ops begun by an input run in the caller (:meth:`_run_now`), and what to await."""
        self._behind: deque[StoreOp] = deque()
        self._writer: asyncio.Task[None] | None = None
        self._frames: list[tuple[Conn, str]] = []
        self._enqueued = 0
        """Inputs queued so far (a batch stays open while this has not moved)."""
        self._batch: list[tuple[Callable[..., Any], tuple[Any, ...]]] | None = None
        self._batch_at = -1
        self._idle = False
        """The task waits for its next input (none is queued, none is running)."""
        self._fenced: StaleOwner | None = None

    def now(self) -> float:
        """The actor's clock, in milliseconds."""
        return self._clock()

    # ------------------------------------------------------------------ the task

    def start(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        self._task = loop.create_task(self.run(), name=self.name)
        if self._ops:
            self.submit(lambda: None)  # write what was prepared before the start

    def _drop_timers(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        self._armed.clear()
        self._deadlines.clear()
        self._fns.clear()

    async def stop(self) -> None:
        self._drop_timers()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._writer is not None and not self._writer.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._writer, 10)

    def done(self) -> bool:
        """After an input: whether the task ends now."""
        return False

    def store_paused(self, exc: StoreUnavailable) -> None:
        """The store does not answer (PostgreSQL down): the actor holds its
        frames and retries the write; a room tells its clients it is paused."""

    def fenced_off(self, exc: StaleOwner) -> None:
        """A write was refused: another node owns this room now (scale-out).
        The input's frames are dropped (nothing that is not stored is told);
        the actor gives up the room (a room sends its clients ``moved``)."""

    async def run(self) -> None:
        metrics = METRICS
        queue = self._queue
        loop = self._loop = asyncio.get_running_loop()
        while True:
            self._idle = True
            while not queue:
                waiter = self._waiter = loop.create_future()
                await waiter
            fn, fut, queued = queue.popleft()
            self._idle = False
            metrics.inputs += 1
            metrics.queue_lag_ms.append((time.perf_counter() - queued) * 1000.0)
            failed: Exception | None = None
            result: Any = None
            try:
                result = fn()
            except Exception as exc:
                failed = exc
                if not isinstance(exc, SlapjackError):
                    log.exception("%s: input failed", self.name)
            if self._ops:
                if self.write_ahead:
                    started = time.perf_counter()
                    self._fenced = None
                    await self.write_ops()
                    if failed is None and self._fenced is not None:
                        failed = self._fenced  # not stored: the call is not answered as done
                    metrics.write_ms.append((time.perf_counter() - started) * 1000.0)
                else:
                    self._behind.extend(self._ops)
                    self._ops = []
                    if self._writer is None or self._writer.done():
                        self._writer = asyncio.create_task(self._write_behind())
            if fut is not None and not fut.done():  # a call's answer, after its writes
                if failed is not None:
                    fut.set_exception(failed)
                else:
                    fut.set_result(result)
            self.flush()
            if self.done():
                self._let_go()
                return

    def _let_go(self) -> None:
        """The task ends: its timers and the inputs still queued go (nothing
        runs them any more, and each refers to the actor, which refers to
        them: a reference cycle that would keep the whole room, its game and
        its record, until a full collection of the heap)."""
        self._drop_timers()
        self._waiter = None
        while self._queue:
            _fn, fut, _queued = self._queue.popleft()
            if fut is not None and not fut.done():
                fut.cancel()

    def submit(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` to run in the task (nothing, once the task has ended).

        When the task is idle (started, waiting for its next input, nothing
        queued) and writes ahead, ``fn`` runs at once, in the caller, where
        the task would have run it next; an append it prepared is begun there
        too (:meth:`_run_now`), and the task, woken for it, awaits the append
        and sends the input's frames. Nothing else runs in between: the task
        is not idle until it has done so."""
        task = self._task
        if self._idle and not self._queue and self.write_ahead and task and not task.done():
            self._enqueued += 1
            self._run_now(fn)
        else:
            self._enqueue(fn)

    def _enqueue(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` for the task, never run at once (an input still to be filled)."""
        task = self._task
        if task is not None and task.done():
            return
        self._enqueued += 1
        self._put((fn, None, time.perf_counter()))

    def _run_now(self, fn: Callable[[], Any]) -> None:
        """An input run in the caller while the task is idle (see :meth:`submit`).

        The frame (or the timer) that brought it is handled where it came, and
        its one append is begun here: it joins the store's group commit at the
        loop's next turn, just before the task's own turn comes (the task was
        woken after the append was queued), so the task finds the append done
        and sends the frames in that turn, not three turns after the frame.
        Anything else the input prepared (several ops, others than appends)
        is written by the task as before."""
        self._idle = False
        self._run_one(fn, ())
        ops = self._ops
        if len(ops) == 1 and not self._started:
            start = getattr(ops[0], "start", None)
            if start is not None:
                try:
                    started = start()
                except Exception:  # bad input, a closed store: the task's write meets it again
                    started = None
                if started is not None:
                    self._started[ops[0]] = started
        self._put((_nothing, None, time.perf_counter()))

    def _put(self, item: tuple[Callable[[], Any], asyncio.Future[Any] | None, float]) -> None:
        self._queue.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def submit_batched(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` to run in the task, in the same input as the
        previous ``submit_batched`` call if nothing else was queued since and
        that input has not run yet: a burst of pings and pongs costs the task
        one wake-up, and every input still runs in the order it came."""
        batch = self._batch
        if batch is None or self._batch_at != self._enqueued:
            batch = self._batch = []
            self._enqueue(partial(self._run_batch, batch))
            self._batch_at = self._enqueued
        batch.append((fn, args))

    def run_or_batch(self, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` at once, in the caller, if the task is idle: started,
        waiting for its next input, and nothing queued (so nothing it would
        have run first waits, and no input is halfway through its writes or
        frames); else as :meth:`submit_batched`. Either way it runs where the
        task would have run it, after every input queued before it.

        For inputs that only change state the task reads later: the referee's
        pings, pongs and ``TCP_INFO`` estimates (a wake-up of the task, its
        queue and its flush for each is most of what they cost). An input run
        here that prepared store writes or frames anyway has them written and
        sent by the task, as the next input."""
        task = self._task
        if not self._idle or self._queue or task is None or task.done():
            self.submit_batched(fn, *args)
            return
        self._run_one(fn, args)
        if self._ops or self._frames:
            self.submit(_nothing)

    def _run_batch(self, batch: list[tuple[Callable[..., Any], tuple[Any, ...]]]) -> None:
        if self._batch is batch:
            self._batch = None
        for fn, args in batch:
            self._run_one(fn, args)

    def _run_one(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        """One input run outside the task's own loop (batched, or at once): a
        refusal (``SlapjackError``) is its answer, any other error is logged;
        neither stops the inputs after it."""
        try:
            fn(*args)
        except Exception as exc:
            if not isinstance(exc, SlapjackError):
                log.exception("%s: input failed", self.name)

    async def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` in the task and return its result (or raise its error)."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._enqueued += 1
        self._put((fn, fut, time.perf_counter()))
        return await fut

    async def write_ops(self) -> None:
        """Store what the inputs so far prepared, in order (the write-ahead step)."""
        ops, self._ops = self._ops, []
        started, self._started = self._started, {}
        for op in ops:
            try:
                await self._write_until_stored(op, started.get(op))
            except StaleOwner as exc:
                log.warning("%s: fenced off (%s): giving the room up", self.name, exc.message)
                METRICS.count("fenced_off")
                self._frames = []
                self._fenced = exc
                self.fenced_off(exc)
                return
            except Exception:
                log.exception("%s: store write failed", self.name)

    async def _write_until_stored(self, op: StoreOp, started: Awaitable[Any] | None = None) -> None:
        """``op``, again and again while the store is unavailable (each write
        is idempotent: a repeat of what was stored is a no-op): nothing that
        is not stored is told, so the actor pauses instead of playing on
        unrecorded. ``started``: the op's first attempt, already begun."""
        delay, paused = PAUSE_RETRY_S, False
        while True:
            try:
                if started is not None:
                    attempt, started = started, None
                    await attempt
                else:
                    await op()
            except StoreUnavailable as exc:
                if not paused:
                    paused = True
                    METRICS.count("store_paused")
                    log.warning("%s: the store is unavailable (%s): paused", self.name, exc)
                    self.store_paused(exc)
                await asyncio.sleep(delay)
                delay = min(PAUSE_RETRY_MAX_S, delay * 2)
                continue
            if paused:
                log.warning("%s: the store answers again: playing on", self.name)
            return

    async def _write_behind(self) -> None:
        """Write-behind mode: store the ops in order, after their frames went out."""
        while self._behind:
            op = self._behind.popleft()
            started = time.perf_counter()
            try:
                await op()
            except StaleOwner as exc:
                log.warning("%s: fenced off (%s): giving the room up", self.name, exc.message)
                METRICS.count("fenced_off")
                self._behind.clear()
                self.submit(lambda exc=exc: self.fenced_off(exc))  # type: ignore[misc]
                return
            except Exception:
                log.exception("%s: store write failed", self.name)
            METRICS.write_ms.append((time.perf_counter() - started) * 1000.0)

    def flush(self) -> None:
        """Send the frames the inputs so far prepared (the send step)."""
        frames, self._frames = self._frames, []
        METRICS.frames += len(frames)
        for conn, text in frames:
            conn.send(text)

    # ---------------------------------------------------------------- timers

    def set_timer(self, name: str, at: float, fn: Callable[[], Any]) -> None:
        """Run ``fn`` in the task at clock time ``at`` (replacing the timer ``name``).

        A timer moved later keeps its event-loop handle: the handle goes off
        at the old time, sees the new one and sets itself again (a room's
        wake-up moves on with every flip, and stopping and starting a libuv
        timer each time was most of what setting one cost). Moved earlier, it
        gets a new handle. Either way only the latest ``at`` and ``fn`` run."""
        self._deadlines[name] = at
        self._fns[name] = fn
        armed = self._armed.get(name)
        if armed is None or armed > at:
            self._arm(name, at)

    def _arm(self, name: str, at: float) -> None:
        old = self._timers.get(name)
        if old is not None:
            old.cancel()
        delay = max(0.0, (at - self._clock()) / 1000.0)
        loop = self._loop or asyncio.get_running_loop()
        self._timers[name] = loop.call_later(delay, self._went_off, name, at)
        self._armed[name] = at

    def _went_off(self, name: str, armed: float) -> None:
        """A timer's handle went off (event loop): queue its run, or set it
        again for the later time it was moved to meanwhile."""
        if self._armed.get(name) != armed:
            return  # replaced by a handle for an earlier time
        del self._armed[name]
        self._timers.pop(name, None)
        at = self._deadlines.get(name)
        if at is None:
            return
        if at > armed:
            self._arm(name, at)
        else:
            self.submit(partial(self._fire, name, at))

    def _fire(self, name: str, at: float) -> None:
        if self._deadlines.get(name) == at:  # not moved or cancelled since it went off
            del self._deadlines[name]
            self._fns.pop(name)()

    def cancel(self, name: str) -> None:
        handle = self._timers.pop(name, None)
        self._deadlines.pop(name, None)
        self._fns.pop(name, None)
        self._armed.pop(name, None)
        if handle is not None:
            handle.cancel()

    def deadline(self, name: str) -> float | None:
        """When the timer ``name`` fires, if it is set."""
        return self._deadlines.get(name)
