"""The cluster at a glance: what ``slapjack cluster status`` prints and what a
server can serve as ``GET /api/cluster``."""

from __future__ import annotations

from collections import Counter
from typing import Any

from slapjack.store import Store, StoreError

from .view import ClusterView, wall_ms


async def cluster_status(
    view: ClusterView, store: Store | None = None, *, rooms: bool = False, takeovers: int = 10
) -> dict[str, Any]:
    """Nodes with their load, rooms per node (from the room map and, with a
    store, from the store's owners), the last takeovers; with ``rooms``, every
    room with its node, owner and epoch. Raises
    :class:`~slapjack.cluster.ClusterUnavailable` when Redis does not answer; a
    store that fails is reported in ``store_error``."""
    nodes = await view.nodes()
    mapped = await view.room_map()
    per_node = Counter(node for node, epoch in mapped.values() if epoch > 0)
    reserved = Counter(node for node, epoch in mapped.values() if epoch == 0)
    owners: dict[str | None, int] | None = None
    ownership: dict[str, dict[str, Any]] = {}
    store_error: str | None = None
    if store is not None:
        try:
            owners = await store.room_owners()
            if rooms:
                for owner in sorted(o for o in owners if o is not None):
                    for room in await store.owned_rooms(owner):
                        ownership[room.code] = room.to_dict()
        except StoreError as exc:
            store_error = f"{exc.code}: {exc.message}"
            owners = None
    now = wall_ms()
    out_nodes = []
    for info in nodes:
        entry = info.to_dict()
        entry["age_s"] = round(max(0, now - info.last_seen_ms) / 1000, 1)
        entry["mapped_rooms"] = per_node.get(info.node, 0)
        entry["reserved_codes"] = reserved.get(info.node, 0)
        if owners is not None:
            entry["owned_rooms"] = owners.get(info.node, 0)
        out_nodes.append(entry)
    known = {n.node for n in nodes}
    if owners is not None:  # owners the registry no longer knows (gone for over an hour)
        for owner, count in sorted((o, c) for o, c in owners.items() if o and o not in known):
            out_nodes.append(
                {
                    "node": owner,
                    "state": "unknown",
                    "url": "",
                    "owned_rooms": count,
                    "mapped_rooms": per_node.get(owner, 0),
                }
            )
    result: dict[str, Any] = {
        "prefix": view.prefix,
        "at_ms": now,
        "nodes": out_nodes,
        "summary": {
            "nodes": len(nodes),
            "live": sum(1 for n in nodes if n.state == "live"),
            "draining": sum(1 for n in nodes if n.state == "draining"),
            "gone": sum(1 for n in nodes if n.state == "gone"),
            "players": sum(n.players for n in nodes if n.live),
            "mapped_rooms": sum(per_node.values()),
            "reserved_codes": sum(reserved.values()),
            "owned_rooms": None if owners is None else sum(owners.values()),
            "unowned_rooms": None if owners is None else owners.get(None, 0),
        },
        "takeovers": await view.takeovers(takeovers),
    }
    if store_error is not None:
        result["store_error"] = store_error
    if rooms:
        codes = sorted(set(mapped) | set(ownership))
        result["rooms"] = [
            {
                "code": code,
                "node": mapped[code][0] if code in mapped else None,
                "map_epoch": mapped[code][1] if code in mapped else None,
                "owner": ownership[code]["owner"] if code in ownership else None,
                "epoch": ownership[code]["epoch"] if code in ownership else None,
                "since": ownership[code]["since"] if code in ownership else None,
            }
            for code in codes
        ]
    return result
