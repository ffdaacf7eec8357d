"""The values the cluster's Redis keys hold, as the nodes and ``slapjack
cluster status`` read them: a node's heartbeat (:class:`NodeInfo`), where a
room runs (:class:`Location`), a public room's lobby entry (:class:`Listing`)
and a page of the lobby (:class:`Page`). Plain data, no Redis calls (those
are in :mod:`slapjack.cluster.view`, which re-exports these)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """One node as its last heartbeat described it."""

    node: str
    url: str
    state: str  #: ``live``, ``draining`` or ``gone`` (no heartbeat within its ttl)
    players: int = 0
    rooms: int = 0
    cpu: float = 0.0  #: share of one core the node's process used (0.0 to about 1.0)
    cores: int = 0
    beat: int = 0  #: the node's heartbeat counter (a watcher sees it move)
    started_ms: int = 0
    last_seen_ms: int = 0  #: wall time of the last heartbeat, by the node's clock
    interval_ms: int = 0
    ttl_ms: int = 0
    version: str = ""
    host: str = ""
    pid: int = 0

    @property
    def live(self) -> bool:
        return self.state != "gone"

    @property
    def accepts_rooms(self) -> bool:
        return self.state == "live"

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "url": self.url,
            "state": self.state,
            "players": self.players,
            "rooms": self.rooms,
            "cpu": self.cpu,
            "cores": self.cores,
            "beat": self.beat,
            "started_ms": self.started_ms,
            "last_seen_ms": self.last_seen_ms,
            "interval_ms": self.interval_ms,
            "ttl_ms": self.ttl_ms,
            "version": self.version,
            "host": self.host,
            "pid": self.pid,
        }


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def node_from_hash(node: str, fields: Mapping[str, str], seen_ms: int) -> NodeInfo:
    if not fields:
        return NodeInfo(node=node, url="", state="gone", last_seen_ms=seen_ms)
    return NodeInfo(
        node=node,
        url=fields.get("url", ""),
        state="draining" if fields.get("draining") == "1" else "live",
        players=_int(fields.get("players")),
        rooms=_int(fields.get("rooms")),
        cpu=_float(fields.get("cpu")),
        cores=_int(fields.get("cores")),
        beat=_int(fields.get("beat")),
        started_ms=_int(fields.get("started_ms")),
        last_seen_ms=_int(fields.get("sent_ms"), seen_ms),
        interval_ms=_int(fields.get("interval_ms")),
        ttl_ms=_int(fields.get("ttl_ms")),
        version=fields.get("version", ""),
        host=fields.get("host", ""),
        pid=_int(fields.get("pid")),
    )


@dataclass(frozen=True, slots=True)
class Location:
    """Where a room runs: the ``moved`` target a node names to a client."""

    code: str
    node: str
    epoch: int  #: 0 while the code is reserved and the room is being created
    url: str  #: the owner's public URL ("" if the node is gone)
    live: bool  #: False: the owner stopped heartbeating, a takeover is due; retry
    source: str  #: ``redis`` (the map) or ``store`` (PostgreSQL, when the map had nothing true)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "node": self.node,
            "epoch": self.epoch,
            "url": self.url,
            "live": self.live,
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class Listing:
    """One public room in the lobby, as its node listed it."""

    code: str
    node: str
    epoch: int
    created_ms: int
    info: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {
                "code": self.code,
                "node": self.node,
                "epoch": self.epoch,
                "created_ms": self.created_ms,
                "info": self.info,
            },
            separators=(",", ":"),
            sort_keys=True,
            ensure_ascii=False,
            allow_nan=False,
        )

    @staticmethod
    def from_json(text: str) -> Listing | None:
        try:
            data = json.loads(text)
            return Listing(
                code=str(data["code"]),
                node=str(data["node"]),
                epoch=int(data["epoch"]),
                created_ms=int(data["created_ms"]),
                info=dict(data["info"]),
            )
        except (ValueError, TypeError, KeyError, RecursionError):
            return None


@dataclass(frozen=True, slots=True)
class Page:
    listings: list[Listing]
    total: int
