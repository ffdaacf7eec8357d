"""Many games: seeds, chunks and a process pool, reproducible whatever ``jobs`` is.

Game ``i`` of a run with master seed ``S`` is dealt from
``game_seed(S, i)`` and its bots are seeded from that game seed and their seat,
so a game is the same whichever process plays it; results are put back in
game order before they are summed up.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field

from slapjack.bots import make_bot
from slapjack.core import Rules, check_players, shuffled_deck
from slapjack.core.game import MAX_PLAYERS, MIN_PLAYERS

from .play import DEFAULT_CAP, DEFAULT_WINDOW_MS, GameResult, SimulationError, play_game

MAX_GAMES = 100_000_000

IN_FLIGHT = 2
"""Chunks handed to the pool per worker at a time."""

MAX_CHUNK = 100
"""Games per task on the pool at most: each finished task reports its games to
``progress``, so a progress bar moves every ~100 games (some 20-40 ms of work
per process for 4-player Slapjack), not in jumps; smaller tasks cost more in
pickling than they gain (measured on 2 cores, 20,000 games: chunks of 500 ran
at ~5,400 games/s, of 50 at ~5,200, of 20 at ~4,700)."""


def game_seed(master: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``master`` (64 bits, stable)."""
    digest = hashlib.blake2b(f"slapjack-sim/1:{master}:{index}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big")


@dataclass(frozen=True, slots=True)
class SimConfig:
    """What to simulate: the rules, one bot level per seat, the master seed."""

    rules: Rules
    levels: tuple[str, ...]
    seed: int = 0
    cap: int = DEFAULT_CAP
    window_ms: float = DEFAULT_WINDOW_MS
    check: bool = False
    names: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        levels = tuple(self.levels)
        object.__setattr__(self, "levels", levels)
        if not MIN_PLAYERS <= len(levels) <= MAX_PLAYERS:
            raise SimulationError(
                f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(levels)}"
            )
        for level in levels:
            make_bot(level, 0)  # raises UnknownBotLevel
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise SimulationError(f"seed must be a whole number, got {self.seed!r}")
        if isinstance(self.cap, bool) or not isinstance(self.cap, int) or self.cap < 1:
            raise SimulationError(f"cap must be a whole number of flips >= 1, got {self.cap!r}")
        if not self.window_ms > 0:
            raise SimulationError(f"window_ms must be positive, got {self.window_ms!r}")
        if not self.names:
            object.__setattr__(
                self, "names", tuple(f"S{s + 1}-{lv}" for s, lv in enumerate(levels))
            )
        names = check_players(list(self.names))
        if len(names) != len(levels):
            raise SimulationError("one name per bot")


def play_indexed(config: SimConfig, index: int, *, keep_record: bool = False) -> GameResult:
    """Play game ``index`` of the run described by ``config``."""
    seed = game_seed(config.seed, index)
    bots = [make_bot(level, game_seed(seed, seat)) for seat, level in enumerate(config.levels)]
    return play_game(
        config.rules,
        bots,
        shuffled_deck(seed),
        index=index,
        seed=seed,
        cap=config.cap,
        window_ms=config.window_ms,
        check=config.check,
        keep_record=keep_record,
        names=config.names,
    )


def run_range(config: SimConfig, start: int, stop: int) -> list[GameResult]:
    """Play games ``start … stop-1`` in this process."""
    return [play_indexed(config, i) for i in range(start, stop)]


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def simulate(
    config: SimConfig,
    games: int,
    *,
    jobs: int | None = None,
    chunk: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[GameResult]:
    """Play ``games`` games on ``jobs`` processes (default: all cores); return the
    results in game order. ``progress(k)`` is called in this process as each
    task of ``k`` games finishes (tasks of at most :data:`MAX_CHUNK` games)."""
    if isinstance(games, bool) or not isinstance(games, int) or not 0 <= games <= MAX_GAMES:
        raise SimulationError(f"games must be a whole number from 0 to {MAX_GAMES}, got {games!r}")
    jobs = default_jobs() if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise SimulationError(f"jobs must be a whole number >= 1, got {jobs!r}")
    if chunk is None:
        chunk = max(1, min(MAX_CHUNK, games // (jobs * 8) or 1))
    ranges = [(a, min(a + chunk, games)) for a in range(0, games, chunk)]
    if jobs == 1 or len(ranges) <= 1:
        out: list[GameResult] = []
        for a, b in ranges:
            part = run_range(config, a, b)
            out.extend(part)
            if progress is not None:
                progress(len(part))
        return out
    parts: dict[int, list[GameResult]] = {}
    workers = min(jobs, len(ranges))
    todo = iter(ranges)
    # spawn: safe even when the caller runs threads (a progress bar, an event loop).
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_ignore_sigint
    ) as pool:
        pending: dict[Future[list[GameResult]], int] = {}

        def submit_next() -> None:
            job = next(todo, None)
            if job is not None:
                pending[pool.submit(run_range, config, *job)] = job[0]

        try:
            # Two chunks per worker in flight: none waits, and Ctrl-C has little
            # to drop. The first submits start the workers.
            with _sigint_ignored():
                for _ in range(IN_FLIGHT * workers):
                    submit_next()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    start = pending.pop(fut)
                    parts[start] = fut.result()
                    submit_next()
                    if progress is not None:
                        progress(len(parts[start]))
        except BaseException:  # Ctrl-C, or a failed game: drop the queued chunks
            # and wait here for the running ones. (With wait=False, the second
            # shutdown() of the with-block can reset cancel_futures before the
            # pool's thread has read it, and then every queued chunk still runs.)
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return [r for a, _ in ranges for r in parts[a]]


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ctrl-C is ignored while the first chunks are handed to the pool, which
    starts its workers then: a worker started with SIGINT ignored keeps it ignored from
    its first line (Python installs its KeyboardInterrupt handler only when SIGINT
    is at its default), so a Ctrl-C while the workers import cannot kill them
    with a traceback; and the parent is never interrupted half-way through a
    ``submit``. Only in the main thread, the one that handles signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _ignore_sigint() -> None:
    """In a worker: Ctrl-C (sent to the terminal's whole process group) is for the
    parent, which cancels the queued chunks and waits for the running ones (at
    most :data:`MAX_CHUNK` games each). An interrupted worker would print its own
    traceback, or die between two chunks and break the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def levels_of(spec: str | Sequence[str], players: int) -> tuple[str, ...]:
    """Parse ``"pro,casual,casual,beginner"`` into one level per seat."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    levels = tuple(x.strip() for x in items)
    if len(levels) != players:
        raise SimulationError(
            f"{players} players need {players} bot levels, got {len(levels)}: {','.join(levels)}"
        )
    for level in levels:
        make_bot(level, 0)
    return levels
