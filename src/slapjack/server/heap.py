"""The garbage collector while serving: short young collections on a clock,
their survivors frozen, and a full collection only when the heap has grown.

Why not CPython's own schedule. Its collections are stop-the-world, and it
starts a young one after 700 (or, raised, 20,000) *net* allocations of
container objects. A game server in steady play allocates about as many as
it frees (records, timers, referee samples replace older ones), so that
count barely moves while the young generation fills with everything
allocated since the last collection that is still alive: under load
(8,000 players) a young collection came every 4–9 s and walked some 100,000
objects, a 16–129 ms stall of the event loop, and the middle generation's
every 20th, 157–213 ms. Nearly nothing was garbage (0–64 objects freed a
collection): the game's objects die by reference counting. Those stalls, not
the CPU, set the flips' p99 (docs/benchmarks.md, "The tail was the garbage
collector's, and the pinger's").

The policy here (:class:`HeapKeeper`):

- the automatic collector is off; every :data:`YOUNG_EVERY_S` the loop runs
  a young collection (``gc.collect(0)``), which frees the cycles made since
  the last one (a closed socket's, an exception's) and walks only what was
  allocated since then and is still alive: a few milliseconds at most;
- its survivors are frozen (``gc.freeze()``, which splices lists: no walk),
  so no collection walks them again; they are still freed by reference
  counting the moment they are no longer used;
- in steady play those collections free next to nothing (192 objects in
  182 collections at 6,000 players, 2.3 % of the server's CPU): after one
  that freed fewer than :data:`QUIET_FOUND` objects the next ticks only
  freeze (1, then 3, 7, at most :data:`MAX_SKIP` in a row: at least one
  collection a second), and the first that finds garbage brings back one
  every tick. A cycle made and dropped in a tick that only froze waits for
  the next full collection, as any cycle of frozen objects does (below);
- what a frozen object can no longer be freed by is a cycle it joins later.
  Such garbage, and any real growth, shows as more memory blocks in use
  (``sys.getallocatedblocks()``, looked at once a second): once they have grown by
  :data:`FULL_GROWTH` (and at least :data:`FULL_MIN_BLOCKS`) since the last
  full collection, everything is unfrozen, collected and frozen again, as
  CPython itself would when a quarter more objects had reached its oldest
  generation. So held garbage stays within about a quarter of the heap;
- a full collection walks the whole heap (0.1–0.8 s at 6,000 players), and
  while players arrive the heap grows by live objects, not garbage: the
  seven while 6,000 players connected freed about a thousand objects each,
  2.6 s of stalls in all. So one that freed less than
  :data:`GARBAGE_SHARE` of the growth that called it doubles the growth the
  next waits for (up to :data:`FULL_GROWTH_MAX`, half the heap); one that
  freed more brings back :data:`FULL_GROWTH`. Held garbage stays within the
  current share of the heap. (With 6,000 players connecting: 4 full
  collections, 1.1 s, the longest 0.53 s, instead of 7, 2.7 s and 0.8 s;
  up to the heap's whole size made it 3, 0.8 s, but garbage from players
  leaving after such a ramp could then double the heap before the next.)
- growth that more players explain is not what a full collection is for:
  a player's socket, seat and share of a room are live, and a player who
  leaves is freed by reference counting (the socket's edge leaves no cycle,
  ``sockets.let_go``). So, told how many players are connected
  (:attr:`HeapKeeper.players`), the keeper counts the blocks per player at
  each full collection that had players and takes that many for every player
  more than then out of the growth it waits for: a server whose players keep
  arriving no longer stops for most of a second at each step (a full
  collection at 8,000 players walks 1.3 million objects). Garbage is never
  explained that way (the count per player is taken right after a
  collection), so what it holds is bounded as before; and only
  :data:`EXPLAINED_SHARE` of it is set against the growth, so that a count
  taken when the players held more (a game's record grows with its flips)
  than those who come later hides no more than a share of their growth.
"""

from __future__ import annotations

import asyncio
import gc
import math
import sys
import time
from collections.abc import Callable
from typing import Final

YOUNG_EVERY_S: Final = 0.1
"""How often the young collection runs (and its survivors are frozen)."""
QUIET_FOUND: Final = 100
"""A young collection that frees fewer objects than this found next to nothing..."""
MAX_SKIP: Final = 9
"""...then up to this many ticks in a row only freeze what is new (no walk)."""
FULL_GROWTH: Final = 0.25
"""A full collection once the memory blocks in use have grown by this share
since the last full collection..."""
FULL_GROWTH_MAX: Final = 0.5
"""...or, after full collections that found next to nothing, up to this share..."""
GARBAGE_SHARE: Final = 0.1
"""...(next to nothing: fewer blocks freed than this share of the growth)..."""
EXPLAINED_SHARE: Final = 0.8
"""...by more than this share of what the players who came since explain..."""
COUNT_MIN_PLAYERS: Final = 100
"""...(the blocks per player: counted at a full collection with at least this
many players, and never raised: the lowest count so far)."""
PLAYERS_EVERY_S: Final = 1.0
"""...(the players counted for it at most once a second)..."""
BLOCKS_EVERY_S: Final = 1.0
"""...(and the blocks looked at once a second, not every tick: counting them
visits every pool of the heap, about 1 ms at 8,000 players)..."""
FULL_MIN_BLOCKS: Final = 250_000
"""...and by at least this many blocks (a small server does not collect
everything again for a few thousand new objects)."""


class HeapKeeper:
    """Runs the collector on the schedule above on one event loop.

    ``blocks`` counts the memory blocks in use (``sys.getallocatedblocks``;
    tests pass their own). :meth:`start` takes over from the automatic
    collector, :meth:`stop` gives it back."""

    def __init__(
        self,
        every_s: float = YOUNG_EVERY_S,
        growth: float = FULL_GROWTH,
        min_blocks: int = FULL_MIN_BLOCKS,
        blocks: Callable[[], int] = sys.getallocatedblocks,
        quiet_found: int = QUIET_FOUND,
        max_skip: int = MAX_SKIP,
        count_min_players: int = COUNT_MIN_PLAYERS,
        players_every_s: float = PLAYERS_EVERY_S,
        blocks_every_s: float = BLOCKS_EVERY_S,
    ) -> None:
        if every_s <= 0 or growth <= 0 or min(min_blocks, quiet_found, max_skip) < 0:
            raise ValueError(
                "every_s and growth must be positive; min_blocks, quiet_found, max_skip not negative"
            )
        self.every_s = every_s
        self.growth = growth
        self.min_blocks = min_blocks
        self.quiet_found = quiet_found
        self.max_skip = max_skip
        self.count_min_players = max(1, count_min_players)
        self.players_every_s = players_every_s
        self.blocks_every_s = blocks_every_s
        self._blocks_looked = -math.inf
        """When (``time.monotonic()``) :meth:`step` last asked :meth:`due`."""
        self._quiet = 0
        self._skip = 0
        self.frozen_only = 0
        """Ticks that only froze (after young collections that freed next to nothing)."""
        self._blocks = blocks
        self.base_blocks = 0
        """Blocks in use right after the last full collection."""
        self.share = growth
        """The growth (a share of ``base_blocks``) the next full collection waits for."""
        self.young = 0
        self.full = 0
        """Collections run so far (young ones, full ones)."""
        self.last_full_ms = 0.0
        self.players: Callable[[], int] | None = None
        """How many players are connected now (the server sets it); ``None``:
        the growth is not set against them."""
        self.base_players = 0
        """Players connected at the last full collection."""
        self._players_seen: tuple[float, int] | None = None
        """(``time.monotonic()``, players) as :meth:`due` last counted them."""
        self.idle_blocks: int | None = None
        """Blocks in use after the first full collection (no player yet)."""
        self.per_player: float | None = None
        """Blocks per player: the lowest count at a full collection with at
        least ``count_min_players`` players. Never raised, so that a count
        taken when few players are left in rooms that many filled (rooms
        wait for their players) does not explain the next players' garbage."""
        self._handle: asyncio.TimerHandle | None = None
        self._was_enabled = True

    @property
    def running(self) -> bool:
        return self._handle is not None

    def start(self) -> None:
        """Collect everything once, freeze what lives (the modules, the app,
        resumed rooms), switch the automatic collector off and start the
        clock (on the running loop)."""
        loop = asyncio.get_running_loop()
        if self._handle is not None:  # started again (a new loop): one clock only
            self._handle.cancel()
        else:
            self._was_enabled = gc.isenabled()
        gc.disable()
        self.collect_all()
        self._handle = loop.call_later(self.every_s, self._tick)

    def stop(self) -> None:
        """Stop the clock and give the heap back to the automatic collector
        (frozen objects return to its oldest generation)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        gc.unfreeze()
        if self._was_enabled:
            gc.enable()

    def _tick(self) -> None:
        try:
            self.step()
        finally:
            if self._handle is not None:
                self._handle = asyncio.get_running_loop().call_later(self.every_s, self._tick)

    def step(self) -> bool:
        """One young collection, its survivors frozen (or, after quiet ones,
        only the freeze); a full collection instead when the heap has grown
        enough (looked at once per ``blocks_every_s``). Whether it was full."""
        now = time.monotonic()
        if now - self._blocks_looked >= self.blocks_every_s:
            self._blocks_looked = now
            if self.due():
                self.collect_all()
                return True
        if self._skip:
            self._skip -= 1
            gc.freeze()
            self.frozen_only += 1
            return False
        found = gc.collect(0)
        gc.freeze()
        self.young += 1
        if found < self.quiet_found:
            self._quiet = min(self.max_skip, self._quiet * 2 + 1)
        else:
            self._quiet = 0
        self._skip = self._quiet
        return False

    def due(self) -> bool:
        """Has the heap grown enough since the last full collection, not
        counting :data:`EXPLAINED_SHARE` of what the players who came since explain?"""
        grown = self._blocks() - self.base_blocks
        if grown < self.min_blocks or grown < self.share * self.base_blocks:
            return False
        if self.players is None or self.per_player is None:
            return True
        more = self._players_lately() - self.base_players
        unexplained = grown - EXPLAINED_SHARE * max(0, more) * self.per_player
        return unexplained >= self.min_blocks and unexplained >= self.share * self.base_blocks

    def _players_lately(self) -> int:
        """:attr:`players`, counted at most once per ``players_every_s``
        (:data:`PLAYERS_EVERY_S`; the lobby counts them over all its rooms: at
        6,000 players, ten times a second, that was 1 % of the server's CPU)."""
        assert self.players is not None
        now = time.monotonic()
        seen = self._players_seen
        if seen is None or now - seen[0] >= self.players_every_s:
            seen = self._players_seen = (now, self.players())
        return seen[1]

    def collect_all(self) -> None:
        """A full collection of everything, frozen or not, then all frozen
        again; the growth the next one waits for (see the module's docstring)."""
        started = time.perf_counter()
        before = self._blocks()
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        after = self._blocks()
        if self.full:  # (not the first, at the start: no growth called it)
            grown = before - self.base_blocks
            if before - after < GARBAGE_SHARE * grown:
                self.share = max(self.growth, min(FULL_GROWTH_MAX, self.share * 2))
            else:
                self.share = self.growth
        self.base_blocks = after
        if self.idle_blocks is None:
            self.idle_blocks = after
        if self.players is not None:
            self.base_players = players = self.players()
            self._players_seen = (time.monotonic(), players)
            if players >= self.count_min_players and after > self.idle_blocks:
                count = (after - self.idle_blocks) / players
                self.per_player = count if self.per_player is None else min(self.per_player, count)
        self.full += 1
        self.last_full_ms = (time.perf_counter() - started) * 1000.0

    def to_dict(self) -> dict[str, float | int | bool | None]:
        """For ``/api/metrics`` (``gc``)."""
        return {
            "policy": "young+freeze" if self.running else "cpython",
            "young": self.young,
            "frozen_only": self.frozen_only,
            "full": self.full,
            "full_growth": self.share,
            "last_full_ms": round(self.last_full_ms, 3),
            "base_blocks": self.base_blocks,
            "players": None if self.players is None else self.players(),
            "base_players": self.base_players,
            "per_player_blocks": None if self.per_player is None else round(self.per_player, 1),
            "blocks": self._blocks(),
        }


HEAP: Final = HeapKeeper()
"""The server process's keeper (started by ``slapjack serve``)."""
