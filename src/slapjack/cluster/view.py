"""What every node (and ``slapjack cluster status``) reads and asks of Redis:
the node registry, the room → node map, placement, room codes and the lobby.
The values read from the keys (:class:`NodeInfo`, :class:`Location`,
:class:`Listing`, :class:`Page`) are in :mod:`slapjack.cluster.values`.

Redis keys (all under one prefix, default ``slapjack``, so several
deployments or test runs share one Redis):

| key | type | what |
|---|---|---|
| ``{p}:node:{id}`` | hash, expires ``ttl`` after the last heartbeat | ``url players rooms cpu cores draining beat started_ms sent_ms interval_ms ttl_ms version host pid`` |
| ``{p}:nodes`` | sorted set | every node id, scored by its last heartbeat (wall ms); kept an hour |
| ``{p}:placed:{id}`` | counter | rooms placed on the node since its last heartbeat |
| ``{p}:room:{code}`` | string ``node#epoch`` | which node runs the room (epoch 0: code reserved, room being created) |
| ``{p}:lobby:{id}`` | hash, expires with the node | the node's public rooms: code → listing JSON |
| ``{p}:takeovers`` | list | the last 100 takeovers, newest first (JSON) |

Redis holds what is cheap to lose: a node writes all of its own state again
when it finds its keys gone (a restarted or failed-over Redis). Ownership
itself is decided in PostgreSQL (the fencing epoch, ``slapjack.store``);
``room:{code}`` is a routing hint that never points back to an older epoch.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final, cast

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from slapjack.store import Store, StoreError, UnknownRoom

from .errors import BadClusterInput, ClusterUnavailable, CodesExhausted, NoNodeAvailable
from .values import Listing as Listing  # re-exported: the values live in values.py
from .values import Location as Location
from .values import NodeInfo as NodeInfo
from .values import Page as Page
from .values import node_from_hash as node_from_hash

MAX_ID: Final = 100
OP_TIMEOUT_S: Final = 3.0
"""No Redis call or pipeline of the cluster layer waits longer than this."""
NODES_KEPT_MS: Final = 3_600_000
"""How long a node that stopped heartbeating stays in ``{p}:nodes`` (for status)."""
RESERVATION_MS: Final = 60_000
"""A reserved code (``node#0``) expires unless its room is created meanwhile."""
PLACED_WEIGHT: Final = 2
"""A room placed since a node's last heartbeat counts as this many players."""
HOT_CPU: Final = 0.85
"""A node busier than this share of one core gets new rooms only if every node is."""
TAKEOVERS_KEPT: Final = 100
PLACED_TTL_MS: Final = 10_000
"""A placed-rooms counter outlives its node's heartbeats (which reset it) by this much."""


def check_id(value: Any, what: str = "a node id") -> str:
    """Node ids and room codes: 1 to 100 printable characters, no spaces or '#'."""
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_ID:
        raise BadClusterInput(f"{what} is 1 to {MAX_ID} characters, got {value!r}")
    if "#" in value or any(c.isspace() for c in value) or not value.isprintable():
        raise BadClusterInput(f"{what} has no spaces, control characters or '#': {value!r}")
    return value


def check_prefix(prefix: Any) -> str:
    if not isinstance(prefix, str) or not 1 <= len(prefix) <= 60 or not prefix.isprintable():
        raise BadClusterInput(f"a key prefix is 1 to 60 printable characters, got {prefix!r}")
    if any(c.isspace() or c in "*?[]" for c in prefix):
        raise BadClusterInput(f"a key prefix has no spaces or glob characters: {prefix!r}")
    return prefix


def connect(url: str, *, timeout_s: float = 1.0) -> aioredis.Redis:
    """A client for ``redis://host:port/db`` (``rediss://``, ``unix://``); it
    connects on first use. Every command gives up after ``timeout_s`` (a hung
    Redis is a down Redis) and is retried once on a fresh connection (a
    restarted Redis leaves dead connections in the pool)."""
    if not isinstance(url, str) or not url.startswith(("redis://", "rediss://", "unix://")):
        raise BadClusterInput(f"a Redis URL starts with redis://, got {url!r}")
    try:
        client: aioredis.Redis = aioredis.Redis.from_url(
            url,
            decode_responses=True,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 1),
        )
    except ValueError as exc:
        raise BadClusterInput(f"bad Redis URL: {exc}") from None
    return client


@asynccontextmanager
async def guard(what: str, timeout_s: float | None = None) -> AsyncIterator[None]:
    """Redis and socket errors become :class:`ClusterUnavailable`, and so does a
    call (or pipeline) that takes longer than ``timeout_s`` (default
    :data:`OP_TIMEOUT_S`) in all: the client's socket timeout bounds each
    read, this bounds the whole, retries and reconnects included."""
    try:
        async with asyncio.timeout(OP_TIMEOUT_S if timeout_s is None else timeout_s):
            yield
    except TimeoutError as exc:
        _cancelled_meanwhile(exc)
        raise ClusterUnavailable(f"redis {what}: no answer within the time limit") from exc
    except (RedisError, OSError) as exc:
        _cancelled_meanwhile(exc)
        raise ClusterUnavailable(f"redis {what}: {type(exc).__name__}: {exc}") from exc


def _cancelled_meanwhile(exc: BaseException) -> None:
    """redis-py can turn the cancellation of a task in the middle of a command
    into a connection error; a caller that then handles ClusterUnavailable
    (a heartbeat loop) would swallow its own cancellation and never stop. If
    the task is being cancelled, it is a cancellation."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError() from exc


def wall_ms() -> int:
    return int(time.time() * 1000)


def parse_owner(value: str | None) -> tuple[str, int] | None:
    """``node#epoch`` → ``(node, epoch)``; None for anything else."""
    if not value:
        return None
    node, sep, epoch = value.rpartition("#")
    if not sep or not node or not epoch.isdigit():
        return None
    return node, int(epoch)


# ------------------------------------------------------------------ scripts

# KEYS[1] room key; ARGV[1] node, ARGV[2] epoch. Never points back to an older epoch.
OWN: Final = """
local cur = redis.call('GET', KEYS[1])
if cur then
  local e = tonumber(string.match(cur, '#(%d+)$'))
  if e and e > tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. '#' .. ARGV[2])
return 1
"""

# KEYS[1] room key; ARGV[1] the exact value to remove.
DISOWN: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS[1..n] node hashes, KEYS[n+1..2n] their placed counters.
# ARGV: n, weight of a placed room, hot CPU share, placed counter ttl (ms).
PLACE: Final = """
local n = tonumber(ARGV[1])
local weight = tonumber(ARGV[2])
local hot_cpu = tonumber(ARGV[3])
local best = nil
local rank = nil
for i = 1, n do
  local f = redis.call('HMGET', KEYS[i], 'url', 'players', 'cpu', 'draining', 'node', 'rooms')
  if f[1] and f[4] ~= '1' then
    local placed = tonumber(redis.call('GET', KEYS[n + i]) or '0') or 0
    local load = (tonumber(f[2]) or 0) + (tonumber(f[6]) or 0) + placed * weight
    local cpu = tonumber(f[3]) or 0
    local hot = 0
    if cpu >= hot_cpu then hot = 1 end
    local id = f[5] or ''
    local better = false
    if best == nil then better = true
    elseif hot ~= rank[1] then better = hot < rank[1]
    elseif load ~= rank[2] then better = load < rank[2]
    elseif cpu ~= rank[3] then better = cpu < rank[3]
    else better = id < rank[4] end
    if better then best = i; rank = {hot, load, cpu, id} end
  end
end
if best == nil then return false end
redis.call('INCR', KEYS[n + best])
redis.call('PEXPIRE', KEYS[n + best], ARGV[4])
return rank[4]
"""

# KEYS[1] node hash; ARGV[1] '1' or '0'; ARGV[2] '1': also hand the rooms
# over and leave. Only a live node can be drained.
DRAIN: Final = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'draining', ARGV[1], 'leave', ARGV[2])
  return 1
end
return 0
"""


class ClusterView:
    """The cluster as Redis (and, for ownership, the store) knows it.

    Every call raises :class:`ClusterUnavailable` when Redis cannot be reached.
    ``store`` (optional) is the authority on who owns a room: :meth:`locate`
    asks it when the map points at a node that is gone, or has no entry."""

    def __init__(
        self, client: aioredis.Redis, *, prefix: str = "slapjack", store: Store | None = None
    ) -> None:
        self.client = client
        self.prefix = check_prefix(prefix)
        self.store = store
        self._own = client.register_script(OWN)
        self._disown = client.register_script(DISOWN)
        self._place = client.register_script(PLACE)
        self._drain = client.register_script(DRAIN)

    # ------------------------------------------------------------- keys

    def node_key(self, node: str) -> str:
        return f"{self.prefix}:node:{node}"

    @property
    def nodes_key(self) -> str:
        return f"{self.prefix}:nodes"

    def placed_key(self, node: str) -> str:
        return f"{self.prefix}:placed:{node}"

    def room_key(self, code: str) -> str:
        return f"{self.prefix}:room:{code}"

    def lobby_key(self, node: str) -> str:
        return f"{self.prefix}:lobby:{node}"

    @property
    def takeovers_key(self) -> str:
        return f"{self.prefix}:takeovers"

    # ------------------------------------------------------------- nodes

    async def node_ids(self) -> list[str]:
        """Every node seen within the last hour, oldest heartbeat first."""
        async with guard("nodes"):
            ids = await self.client.zrangebyscore(self.nodes_key, wall_ms() - NODES_KEPT_MS, "+inf")
        return [str(i) for i in ids]

    async def nodes(self) -> list[NodeInfo]:
        """Every node seen within the last hour, live ones with their last heartbeat."""
        async with guard("nodes"):
            pairs = cast(
                list[tuple[str, float]],
                await self.client.zrangebyscore(
                    self.nodes_key, wall_ms() - NODES_KEPT_MS, "+inf", withscores=True
                ),
            )
            if not pairs:
                return []
            async with self.client.pipeline(transaction=False) as pipe:
                for node, _ in pairs:
                    pipe.hgetall(self.node_key(str(node)))
                hashes = await pipe.execute()
        return sorted(
            (
                node_from_hash(str(node), fields, int(score))
                for (node, score), fields in zip(pairs, hashes, strict=True)
            ),
            key=lambda n: n.node,
        )

    async def node(self, node: str) -> NodeInfo | None:
        """One node (None if it was never seen or left the registry)."""
        node = check_id(node)
        async with guard("node"):
            fields = cast(dict[str, str], await self.client.hgetall(self.node_key(node)))
            score = await self.client.zscore(self.nodes_key, node)
        if not fields and score is None:
            return None
        return node_from_hash(node, fields, int(score or 0))

    async def live_nodes(self) -> list[NodeInfo]:
        return [n for n in await self.nodes() if n.live]

    async def set_draining(self, node: str, draining: bool = True, *, leave: bool = False) -> bool:
        """Mark a live node draining (no new rooms) or not; with ``leave``, ask
        it also to hand its rooms over and shut down (as at SIGTERM). False if
        it is not live. The node learns it with its next heartbeat."""
        node = check_id(node)
        args = ["1" if draining else "0", "1" if draining and leave else "0"]
        async with guard("drain"):
            done = await self._drain(keys=[self.node_key(node)], args=args)
        return bool(done)

    # ------------------------------------------------------------- placement

    async def place(self) -> str:
        """The node a new room should go to: the least-loaded live node that is
        not draining (fewest players plus rooms, counting each room placed
        since its last heartbeat as two; a node above :data:`HOT_CPU` only if all are; then the
        lowest CPU; then the id). Atomic: concurrent placements spread."""
        ids = await self.node_ids()
        if not ids:
            raise NoNodeAvailable("no node has ever sent a heartbeat")
        keys = [self.node_key(i) for i in ids] + [self.placed_key(i) for i in ids]
        async with guard("place"):
            chosen = await self._place(
                keys=keys, args=[len(ids), PLACED_WEIGHT, HOT_CPU, PLACED_TTL_MS]
            )
        if not chosen:
            raise NoNodeAvailable("no live node takes new rooms (all gone or draining)")
        return str(chosen)

    # ------------------------------------------------------------- room codes

    async def reserve_code(
        self, new_code: Callable[[], str], node: str, *, attempts: int = 20
    ) -> str:
        """A room code no other live or reserved room has, reserved for ``node``
        (``SET room:{code} node#0 NX``, expiring in a minute unless
        :meth:`own` follows). ``new_code()`` draws a candidate. The store's
        primary key on live rooms is the authority behind it: after a Redis
        failover lost a reservation, ``create_room`` answers ``RoomExists``
        and the caller reserves another code."""
        node = check_id(node)
        for _ in range(attempts):
            code = check_id(new_code(), "a room code")
            async with guard("reserve"):
                if await self.client.set(
                    self.room_key(code), f"{node}#0", nx=True, px=RESERVATION_MS
                ):
                    return code
        raise CodesExhausted(f"{attempts} room codes drawn, every one in use")

    async def release_code(self, code: str, node: str) -> bool:
        """Give back a reserved code whose room was not created."""
        code, node = check_id(code, "a room code"), check_id(node)
        async with guard("release"):
            return bool(await self._disown(keys=[self.room_key(code)], args=[f"{node}#0"]))

    # ------------------------------------------------------------- the room map

    async def set_owner(self, code: str, node: str, epoch: int) -> bool:
        """Point ``room:{code}`` at ``node#epoch`` unless it names a newer epoch."""
        async with guard("own"):
            done = await self._own(keys=[self.room_key(code)], args=[node, epoch])
        return bool(done)

    async def mapped(self, code: str) -> tuple[str, int] | None:
        code = check_id(code, "a room code")
        async with guard("get"):
            value = cast(str | None, await self.client.get(self.room_key(code)))
        return parse_owner(value)

    async def room_map(self) -> dict[str, tuple[str, int]]:
        """Every mapped room (code → node, epoch): for status, not for a hot path."""
        out: dict[str, tuple[str, int]] = {}
        skip = len(self.room_key(""))
        async with guard("scan"):
            keys = [str(k) async for k in self.client.scan_iter(self.room_key("*"), count=1000)]
            for i in range(0, len(keys), 1000):
                chunk = keys[i : i + 1000]
                values = cast(list[str | None], await self.client.mget(chunk))
                for key, value in zip(chunk, values, strict=True):
                    owner = parse_owner(value)
                    if owner is not None:
                        out[key[skip:]] = owner
        return out

    async def locate(self, code: str) -> Location | None:
        """Where room ``code`` runs (None: no such room). The map answers; when it
        has no entry, or names a node that is gone, the store (if any) does:
        a takeover may have happened, or Redis lost the entry."""
        code = check_id(code, "a room code")
        mapped = await self.mapped(code)
        if mapped is not None:
            info = await self.node(mapped[0])
            if info is not None and info.live:
                return Location(code, mapped[0], mapped[1], info.url, True, "redis")
        if self.store is None:
            if mapped is None:
                return None
            return Location(code, mapped[0], mapped[1], "", False, "redis")
        try:
            owner = await self.store.room_owner(code)
        except UnknownRoom:
            if mapped is not None and mapped[1] > 0:
                # The room is closed: forget the stale entry (only if unchanged).
                async with guard("disown"):
                    await self._disown(
                        keys=[self.room_key(code)], args=[f"{mapped[0]}#{mapped[1]}"]
                    )
                return None
            if mapped is not None:  # reserved, being created on a node that is gone
                return Location(code, mapped[0], 0, "", False, "redis")
            return None
        except StoreError as exc:
            raise ClusterUnavailable(f"the store cannot say who owns {code}: {exc}") from exc
        if owner.owner is None:
            return None  # a room of a single-node store: not in this cluster
        info = await self.node(owner.owner)
        live = info is not None and info.live
        return Location(code, owner.owner, owner.epoch, info.url if info else "", live, "store")

    # ------------------------------------------------------------- the lobby

    async def public_rooms(
        self,
        select: Callable[[dict[str, Any]], bool] | None = None,
        *,
        limit: int = 50,
        offset: int = 0,
    ) -> Page:
        """The public rooms of every live node, oldest first, the same from every
        node. A room listed twice (an old owner not yet told) counts once, at
        its highest epoch. ``select(info)`` filters (waiting rooms with a free
        seat, say); ``total`` counts what passed."""
        if not 1 <= limit <= 1000 or not 0 <= offset < 2**31:
            raise BadClusterInput("limit is 1 to 1000 and offset >= 0")
        ids = await self.node_ids()
        best: dict[str, Listing] = {}
        if ids:
            async with guard("lobby"), self.client.pipeline(transaction=False) as pipe:
                for node in ids:
                    pipe.hvals(self.lobby_key(node))
                per_node: Sequence[list[str]] = await pipe.execute()
            for texts in per_node:
                for text in texts:
                    listing = Listing.from_json(text)
                    if listing is None:
                        continue
                    seen = best.get(listing.code)
                    if seen is None or listing.epoch > seen.epoch:
                        best[listing.code] = listing
        chosen = [x for x in best.values() if select is None or select(x.info)]
        chosen.sort(key=lambda x: (x.created_ms, x.code))
        return Page(chosen[offset : offset + limit], len(chosen))

    # ------------------------------------------------------------- takeovers

    async def record_takeover(self, event: Mapping[str, Any]) -> None:
        text = json.dumps(dict(event), separators=(",", ":"), sort_keys=True)
        async with guard("takeover"), self.client.pipeline(transaction=True) as pipe:
            pipe.lpush(self.takeovers_key, text)
            pipe.ltrim(self.takeovers_key, 0, TAKEOVERS_KEPT - 1)
            await pipe.execute()

    async def takeovers(self, limit: int = 10) -> list[dict[str, Any]]:
        """The last takeovers, newest first."""
        async with guard("takeovers"):
            texts = await self.client.lrange(self.takeovers_key, 0, max(0, limit - 1))
        out: list[dict[str, Any]] = []
        for text in texts:
            try:
                value = json.loads(text)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
        return out
