"""The garbage collector's schedule while serving (:mod:`slapjack.server.heap`):
young collections free new cycles, their survivors are frozen, a full
collection comes only once the heap has grown, and ``stop`` gives the heap
back to CPython's own collector."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import Iterator

import pytest

from slapjack.server.heap import HeapKeeper
from slapjack.server.metrics import METRICS


class Node:
    """A container object the collector tracks."""

    def __init__(self) -> None:
        self.other: object = None


class Blocks:
    """A stand-in for ``sys.getallocatedblocks`` that the test sets."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __call__(self) -> int:
        return self.n


def cycle() -> weakref.ref[Node]:
    """A reference cycle nothing else holds, and a weak reference to it."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def is_tracked_unfrozen(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects())


@pytest.fixture
def heap_state() -> Iterator[None]:
    """Whatever a test does to the collector is undone after it."""
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()
    gc.collect()


@contextlib.contextmanager
def running(blocks: Blocks, **kw: float) -> Iterator[HeapKeeper]:
    """A :func:`keeper`, started (a loop runs: the tests are async), stopped after."""
    heap = keeper(blocks, **kw)
    heap.start()
    try:
        yield heap
    finally:
        heap.stop()


def keeper(blocks: Blocks, **kw: float) -> HeapKeeper:
    """A keeper whose clock never fires by itself in a test (steps are called)."""
    return HeapKeeper(
        every_s=kw.get("every_s", 3600.0),
        growth=kw.get("growth", 0.25),
        min_blocks=int(kw.get("min_blocks", 100)),
        blocks=blocks,
        quiet_found=int(kw.get("quiet_found", 100)),
        max_skip=int(kw.get("max_skip", 9)),
        count_min_players=int(kw.get("count_min_players", 5)),
        players_every_s=kw.get("players_every_s", 0.0),
        blocks_every_s=kw.get("blocks_every_s", 0.0),
    )


async def test_start_freezes_everything_and_switches_the_automatic_collector_off(
    heap_state: None,
) -> None:
    blocks = Blocks(1000)
    with running(blocks) as heap:
        assert heap.running and not gc.isenabled()
        assert gc.get_freeze_count() > 10_000  # the modules, pytest, this test
        assert heap.full == 1 and heap.base_blocks == 1000
        ref = cycle()
        gc.collect(0)  # what a step does first; the automatic collector would not
        assert ref() is None
    assert not heap.running and gc.isenabled() and gc.get_freeze_count() == 0


async def test_a_young_step_frees_the_cycles_made_since_the_last(heap_state: None) -> None:
    with running(Blocks(1000)) as heap:
        ref = cycle()
        assert ref() is not None  # nothing collects it by itself now
        assert heap.step() is False
        assert ref() is None
        assert heap.young == 1 and heap.full == 1


async def test_survivors_are_frozen_and_still_freed_when_no_longer_used(
    heap_state: None,
) -> None:
    with running(Blocks(1000)) as heap:
        survivor = Node()
        assert is_tracked_unfrozen(survivor)
        heap.step()
        assert not is_tracked_unfrozen(survivor)  # frozen: no collection walks it
        ref = weakref.ref(survivor)
        del survivor
        assert ref() is None  # reference counting frees it at once


async def test_a_frozen_cycle_waits_for_a_full_collection_when_the_heap_has_grown(
    heap_state: None,
) -> None:
    blocks = Blocks(1000)
    with running(blocks, growth=0.25, min_blocks=100) as heap:
        a, b = Node(), Node()
        heap.step()  # both survive: frozen
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b  # a cycle of frozen objects: young collections cannot see it
        blocks.n = 1249  # grown by less than a quarter
        assert heap.step() is False
        assert ref() is not None
        blocks.n = 1250  # a quarter more
        assert heap.step() is True
        assert ref() is None
        assert heap.full == 2 and heap.base_blocks == 1250
        assert heap.step() is False  # the base moved with it


async def test_full_collections_that_free_little_wait_for_more_growth_next_time(
    heap_state: None,
) -> None:
    blocks = Blocks(1000)
    with running(blocks, growth=0.25, min_blocks=100) as heap:
        assert heap.share == 0.25  # the first full collection (the start) sets nothing
        blocks.n = 1250
        assert heap.step() is True  # freed nothing of its 250 blocks of growth
        assert heap.share == 0.5 and heap.to_dict()["full_growth"] == 0.5
        blocks.n = 1874
        assert heap.step() is False
        blocks.n = 1875  # half again: the most it waits for
        assert heap.step() is True and heap.share == 0.5
        blocks.n = 2812
        assert heap.step() is False
        blocks.n = 2813
        assert heap.step() is True and heap.share == 0.5 and heap.full == 4


async def test_a_full_collection_that_frees_garbage_brings_back_a_quarter(
    heap_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = Blocks(1000)
    heap = keeper(blocks, growth=0.25, min_blocks=100)
    heap.start()
    real = gc.collect
    freed: list[int] = []

    def collect(generation: int = 2) -> int:
        if generation == 2 and freed:
            blocks.n -= freed.pop()
        return real(generation)

    monkeypatch.setattr(gc, "collect", collect)
    try:
        blocks.n = 1250
        assert heap.step() is True and heap.share == 0.5
        blocks.n = 1875
        freed.append(63)  # a tenth of the 625 blocks of growth (62.5), and more
        assert heap.step() is True
        assert heap.share == 0.25 and heap.base_blocks == 1812
    finally:
        heap.stop()


async def test_a_small_heap_needs_the_least_growth_too(heap_state: None) -> None:
    blocks = Blocks(100)
    with running(blocks, growth=0.25, min_blocks=500) as heap:
        blocks.n = 599  # +499: six times a quarter, below the least growth
        assert heap.due() is False
        blocks.n = 600
        assert heap.due() is True


async def test_the_clock_runs_young_collections_and_the_metrics_time_them(
    heap_state: None,
) -> None:
    METRICS.watch_gc()
    METRICS.gc0_ms.clear()
    with running(Blocks(1000), every_s=0.01, max_skip=0) as heap:  # a collection every tick
        await asyncio.sleep(0.2)
        assert heap.young >= 5
        assert len(METRICS.gc0_ms) >= 5
        assert METRICS.to_dict()["gc0_ms"]["n"] >= 5
        assert heap.to_dict()["policy"] == "young+freeze"
    young = heap.young
    await asyncio.sleep(0.05)
    assert heap.young == young  # stopped: the clock is gone
    assert heap.to_dict()["policy"] == "cpython"


async def test_after_quiet_collections_the_ticks_only_freeze_for_longer_and_longer(
    heap_state: None,
) -> None:
    with running(Blocks(1000), quiet_found=10, max_skip=5) as heap:
        pattern = []
        for _ in range(20):
            young = heap.young
            heap.step()
            pattern.append("c" if heap.young > young else "f")
        # a collection, then 1, 3 and at most 5 ticks that only freeze
        assert "".join(pattern) == "cfcfffcfffffcfffffcf"
        assert heap.frozen_only == pattern.count("f")
        assert heap.to_dict()["frozen_only"] == heap.frozen_only
        ref = cycle()
        assert heap.step() is False and heap.young == 5  # a tick that only froze
        assert ref() is not None  # frozen with it: it waits for a full collection


async def test_a_collection_that_finds_garbage_brings_back_one_every_tick(
    heap_state: None,
) -> None:
    with running(Blocks(1000), quiet_found=10, max_skip=5) as heap:
        heap.step()  # quiet: the next tick only freezes
        heap.step()
        refs = [cycle() for _ in range(10)]  # 20 objects of garbage
        young = heap.young
        heap.step()
        assert heap.young == young + 1 and all(r() is None for r in refs)
        for _ in range(3):  # garbage found: collect again at the next tick
            refs = [cycle() for _ in range(10)]
            heap.step()
            assert all(r() is None for r in refs)
        assert heap.young == young + 4


class Players:
    """A stand-in for the lobby's count of connected players."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __call__(self) -> int:
        return self.n


def with_players(blocks: Blocks, players: Players) -> HeapKeeper:
    """A keeper told ``players``, started at 1,000 blocks and no player, then
    a full collection at 1,300 blocks and 10 players: 30 blocks a player."""
    heap = keeper(blocks, growth=0.25, min_blocks=100)
    heap.players = players
    heap.start()
    assert heap.per_player is None and heap.idle_blocks == 1000  # no player to count yet
    players.n, blocks.n = 10, 1300
    assert heap.step() is True  # a quarter more, nothing to set against it
    assert heap.base_players == 10 and heap.per_player == pytest.approx(30.0)
    assert heap.share == 0.5  # it freed nothing: the next waits for half the heap (650)
    return heap


async def test_growth_that_more_players_explain_calls_no_full_collection(
    heap_state: None,
) -> None:
    blocks, players = Blocks(1000), Players(0)
    heap = with_players(blocks, players)
    try:
        players.n, blocks.n = 30, 1900  # +600 blocks, 20 players more at 30 each
        assert heap.step() is False  # 480 of them (four fifths) explained: 120 are not
        blocks.n = 1900 + 529  # 649 not explained, of the 650 (half of 1,300) it waits for
        assert heap.step() is False
        blocks.n = 1900 + 530
        assert heap.step() is True
        assert heap.full == 3 and heap.base_players == 30
        assert heap.per_player == pytest.approx(30.0)  # (2430 - 1000) / 30 is more: kept
        assert heap.to_dict()["players"] == 30 and heap.to_dict()["base_players"] == 30
    finally:
        heap.stop()


async def test_a_frozen_cycle_is_never_explained_by_players(heap_state: None) -> None:
    """Garbage grows the heap with no player to explain it: a full collection
    comes after the same growth as without players."""
    blocks, players = Blocks(1000), Players(0)
    heap = with_players(blocks, players)
    try:
        a, b = Node(), Node()
        heap.step()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        blocks.n = 1300 + 649
        assert heap.step() is False and ref() is not None
        blocks.n = 1300 + 650  # the same 10 players: the growth is not theirs
        assert heap.step() is True and ref() is None
    finally:
        heap.stop()


async def test_few_players_left_in_a_big_heap_do_not_raise_the_count(heap_state: None) -> None:
    """After most players left (their rooms wait for them), a full collection
    with a few players, or with fewer than the least to count, in a heap
    their predecessors grew: the count per player stays the lowest so far."""
    blocks, players = Blocks(1000), Players(0)
    heap = with_players(blocks, players)
    try:
        players.n, blocks.n = 4, 1300 + 650  # 4 players (under the 5 to count)
        assert heap.step() is True
        assert heap.per_player == pytest.approx(30.0) and heap.base_players == 4
        players.n, blocks.n = 6, 1950 + 975 + 48  # half the heap, and 2 players more (48)
        assert heap.step() is True
        assert heap.per_player == pytest.approx(30.0)  # not (2973 - 1000) / 6, 329
        players.n, blocks.n = 106, 2973 + 2400 + 1486  # 100 more explain 2,400 (not 26,000)
        assert heap.step() is False  # 1,486 not explained, of the 1,486.5 it waits for
        blocks.n += 1
        assert heap.step() is True
    finally:
        heap.stop()


async def test_players_are_counted_at_most_once_a_second_between_full_collections(
    heap_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lobby walks all its rooms to count them: ten ticks a second need
    one count, not ten (a full collection counts afresh)."""
    clock = [100.0]
    monkeypatch.setattr("slapjack.server.heap.time.monotonic", lambda: clock[0])
    blocks, players = Blocks(1000), Players(0)
    counted = 0

    def counting() -> int:
        nonlocal counted
        counted += 1
        return players()

    heap = keeper(blocks, growth=0.25, min_blocks=100, players_every_s=1.0)
    heap.players = counting
    heap.start()
    try:
        players.n, blocks.n = 10, 1300
        assert heap.step() is True and heap.per_player == pytest.approx(30.0)
        counted = 0
        players.n, blocks.n = 30, 2000  # 700, 480 of them explained by 20 more players
        clock[0] += 1.0
        for _ in range(10):
            assert heap.step() is False
            clock[0] += 0.09
        assert counted == 1  # the first tick counted; the nine after it took that count
        blocks.n = 2430  # 650 not explained: due
        assert heap.step() is True and counted == 2  # the full collection counts afresh
        assert heap.share == 0.5  # (it freed nothing: the next waits for 1,215)
        players.n, blocks.n = 40, 2430 + 1300  # 10 more players would explain 240 of 1,300
        clock[0] += 0.5
        assert heap.step() is True and counted == 3  # 30 players as counted half a second ago
    finally:
        heap.stop()


async def test_players_who_left_explain_nothing(heap_state: None) -> None:
    blocks, players = Blocks(1000), Players(0)
    heap = with_players(blocks, players)
    try:
        players.n, blocks.n = 4, 1300 + 650  # fewer players than at the last one
        assert heap.step() is True
    finally:
        heap.stop()


async def test_players_explain_four_fifths_of_their_count_so_their_growth_calls_one_too(
    heap_state: None,
) -> None:
    """A count per player taken when the players held more than those who
    come later (a game's record grows) hides at most a fifth of their growth."""
    blocks, players = Blocks(1000), Players(0)
    heap = with_players(blocks, players)
    try:
        players.n, blocks.n = 60, 1300 + 1849  # 50 more at 30: 1,200 of 1,849 set against it
        assert heap.step() is False
        blocks.n = 1300 + 1850  # 650 not explained
        assert heap.step() is True
    finally:
        heap.stop()


def test_impossible_settings_are_refused() -> None:
    for kw in (
        {"every_s": 0.0},
        {"growth": 0.0},
        {"min_blocks": -1},
        {"quiet_found": -1},
        {"max_skip": -1},
    ):
        with pytest.raises(ValueError):
            HeapKeeper(**kw)  # type: ignore[arg-type]


async def test_started_twice_it_keeps_one_clock_and_gives_the_collector_back(
    heap_state: None,
) -> None:
    assert gc.isenabled()
    heap = keeper(Blocks(1000), every_s=0.01, max_skip=0)  # a collection every tick
    heap.start()
    heap.start()
    try:
        await asyncio.sleep(0.3)
        # one clock: at most 30 young collections in 0.3 s (two would make about 60)
        assert 1 <= heap.young <= 40, heap.young
    finally:
        heap.stop()
    assert gc.isenabled() and gc.get_freeze_count() == 0


async def test_the_blocks_are_counted_once_a_second_not_every_tick(
    heap_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting the blocks in use visits every pool of the heap (about 1 ms at
    8,000 players): ten ticks a second look at them once; growth is still
    seen within a second."""
    clock = [100.0]
    monkeypatch.setattr("slapjack.server.heap.time.monotonic", lambda: clock[0])
    blocks = Blocks(1000)
    looked = 0

    def counting() -> int:
        nonlocal looked
        looked += 1
        return blocks()

    heap = keeper(counting, growth=0.25, min_blocks=100, blocks_every_s=1.0)
    heap.start()
    try:
        looked = 0
        for _ in range(10):
            assert heap.step() is False
            clock[0] += 0.099
        assert looked == 1
        blocks.n = 2000  # grown past the quarter: due, seen at the next second
        steps = [heap.step() for _ in range(3)]
        assert steps == [False, False, False] and looked == 1
        clock[0] += 0.02
        assert heap.step() is True
        assert heap.full == 2
    finally:
        heap.stop()
