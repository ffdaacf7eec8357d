"""Scale-out: many server nodes on Redis (liveness, routing, the lobby) and
PostgreSQL (the durable record and who owns each room, with fencing epochs).

* :class:`Node`: this process in the cluster (heartbeats, its rooms and
  listings mirrored into Redis, draining, Redis outages);
* :class:`ClusterView`: what any node or tool reads and asks of Redis
  (nodes, placement, room codes, where a room runs, the public room list);
* :class:`Watcher`: takeover of the rooms of a node that died;
* :func:`cluster_status`: ``slapjack cluster status`` and ``/api/cluster``.

The server uses it through ``slapjack.server.clustering`` (``slapjack serve
--redis-url``); docs/storage.md ("Scale-out") and docs/deploy.md describe it.
"""

from __future__ import annotations

from .errors import (
    BadClusterInput,
    ClusterError,
    ClusterUnavailable,
    CodesExhausted,
    NoNodeAvailable,
)
from .node import CpuMeter, Node, NodeLoad
from .status import cluster_status
from .takeover import Claim, Watcher, claim_rooms, heir
from .view import ClusterView, Listing, Location, NodeInfo, Page, connect

__all__ = [
    "BadClusterInput",
    "Claim",
    "ClusterError",
    "ClusterUnavailable",
    "ClusterView",
    "CodesExhausted",
    "CpuMeter",
    "Listing",
    "Location",
    "NoNodeAvailable",
    "Node",
    "NodeInfo",
    "NodeLoad",
    "Page",
    "Watcher",
    "claim_rooms",
    "cluster_status",
    "connect",
    "heir",
]
