"""Leases and relay over Redis (redis-py's asyncio client).

Keys and channels carry a prefix (default ``slapjack``) so several
deployments, or test runs, can share one Redis.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, Final

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from .errors import BadClusterInput, ClusterUnavailable
from .lease import Clock, Leases
from .relay import Relay, Subscription, check_channel, decode, encode

_ACQUIRE: Final = """
local epoch = redis.call('INCR', KEYS[2])
if redis.call('SET', KEYS[1], ARGV[1] .. '#' .. epoch, 'NX', 'PX', ARGV[2]) then
  return epoch
end
return false
"""

_RENEW: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def connect(url: str) -> aioredis.Redis:
    """A client for ``redis://host:port/db`` (connects lazily, on first use)."""
    if not isinstance(url, str) or not url.startswith(("redis://", "rediss://", "unix://")):
        raise BadClusterInput(f"a Redis URL starts with redis://, got {url!r}")
    try:
        client: aioredis.Redis = aioredis.Redis.from_url(url, decode_responses=True)
    except ValueError as exc:
        raise BadClusterInput(f"bad Redis URL: {exc}") from None
    return client


@asynccontextmanager
async def _guard(what: str) -> AsyncIterator[None]:
    try:
        yield
    except (RedisError, OSError) as exc:
        raise ClusterUnavailable(f"redis {what}: {type(exc).__name__}: {exc}") from exc


class RedisLeases(Leases):
    def __init__(
        self,
        client: aioredis.Redis,
        node: str,
        ttl_ms: int = 5000,
        *,
        prefix: str = "slapjack",
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(node, ttl_ms, clock=clock)
        self.client = client
        self.prefix = prefix
        self._acquire = client.register_script(_ACQUIRE)
        self._renew_script = client.register_script(_RENEW)
        self._release_script = client.register_script(_RELEASE)

    def key(self, room: str) -> str:
        return f"{self.prefix}:lease:{room}"

    async def _try_acquire(self, room: str, ttl_ms: int) -> int | None:
        async with _guard("acquire"):
            epoch = await self._acquire(
                keys=[self.key(room), f"{self.prefix}:epoch:{room}"], args=[self.node, ttl_ms]
            )
        return int(epoch) if epoch else None

    async def _renew(self, room: str, value: str, ttl_ms: int) -> bool:
        async with _guard("renew"):
            return bool(await self._renew_script(keys=[self.key(room)], args=[value, ttl_ms]))

    async def _release(self, room: str, value: str) -> bool:
        async with _guard("release"):
            return bool(await self._release_script(keys=[self.key(room)], args=[value]))

    async def _owner(self, room: str) -> str | None:
        async with _guard("get"):
            value = await self.client.get(self.key(room))
        return str(value) if value is not None else None


class _RedisSubscription(Subscription):
    def __init__(self, relay: RedisRelay, channels: tuple[str, ...]) -> None:
        super().__init__(channels)
        self._relay = relay
        self._pubsub: Any = None

    async def __aenter__(self) -> Subscription:
        self._pubsub = self._relay.client.pubsub(ignore_subscribe_messages=True)
        async with _guard("subscribe"):
            await self._pubsub.subscribe(*(self._relay.name(c) for c in self.channels))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._pubsub is not None:
            pubsub, self._pubsub = self._pubsub, None
            try:
                await pubsub.unsubscribe()
            except (RedisError, OSError):
                pass
            finally:
                await pubsub.aclose()

    async def get(self) -> tuple[str, dict[str, Any]]:
        if self._pubsub is None:
            raise BadClusterInput("use the subscription inside 'async with'")
        skip = len(self._relay.prefix) + 1
        while True:
            async with _guard("receive"):
                raw = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            if raw is None or raw.get("type") != "message":
                await asyncio.sleep(0)
                continue
            message = decode(raw["data"])
            if message is not None:
                return str(raw["channel"])[skip:], message
            self.dropped += 1


class RedisRelay(Relay):
    def __init__(self, client: aioredis.Redis, *, prefix: str = "slapjack") -> None:
        self.client = client
        self.prefix = prefix

    def name(self, channel: str) -> str:
        return f"{self.prefix}:{channel}"

    async def publish(self, channel: str, message: Mapping[str, Any]) -> int:
        text = encode(message)
        async with _guard("publish"):
            return int(await self.client.publish(self.name(check_channel(channel)), text))

    async def publish_raw(self, channel: str, text: str) -> int:
        """Publish text as it is (tests use it to send malformed messages)."""
        async with _guard("publish"):
            return int(await self.client.publish(self.name(check_channel(channel)), text))

    def subscribe(self, *channels: str) -> Subscription:
        return _RedisSubscription(self, tuple(check_channel(c) for c in channels))
