"""Scale-out: room ownership (leases) and a message relay between server nodes.

``memory`` for one process (the default), ``Redis`` for many (``--redis-url``).
Not wired into the server yet; docs/storage.md describes how the server uses it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from .errors import BadClusterInput, ClusterError, ClusterUnavailable, LeaseLost
from .lease import Lease, Leases, Owner
from .memory import Hub, LeaseTable, MemoryLeases, MemoryRelay
from .redis_backend import RedisLeases, RedisRelay, connect
from .relay import Relay, Subscription, room_in, room_out


@dataclass
class Cluster:
    """One node's view of the cluster: its id, its leases and its relay."""

    node: str
    leases: Leases
    relay: Relay
    client: Any = None  #: the Redis client, if any

    async def close(self) -> None:
        await self.relay.close()
        await self.leases.close()
        if self.client is not None:
            await self.client.aclose()


def open_cluster(
    redis_url: str | None,
    *,
    node: str | None = None,
    ttl_ms: int = 5000,
    prefix: str = "slapjack",
) -> Cluster:
    """In-memory leases and relay without a URL; Redis ones with ``redis://…``."""
    name = node or f"node-{uuid.uuid4().hex[:12]}"
    if redis_url is None:
        return Cluster(name, MemoryLeases(name, ttl_ms), MemoryRelay())
    client = connect(redis_url)
    leases = RedisLeases(client, name, ttl_ms, prefix=prefix)
    relay = RedisRelay(client, prefix=prefix)
    return Cluster(name, leases, relay, client)


__all__ = [
    "BadClusterInput",
    "Cluster",
    "ClusterError",
    "ClusterUnavailable",
    "Hub",
    "Lease",
    "LeaseLost",
    "LeaseTable",
    "Leases",
    "MemoryLeases",
    "MemoryRelay",
    "Owner",
    "RedisLeases",
    "RedisRelay",
    "Relay",
    "Subscription",
    "connect",
    "open_cluster",
    "room_in",
    "room_out",
]
