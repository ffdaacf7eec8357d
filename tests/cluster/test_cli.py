"""``slapjack cluster``: status of a real cluster (Redis and PostgreSQL), --json,
drain and undrain, and every refusal as one line with exit status 2."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from typer.testing import CliRunner

from slapjack.cli import app
from slapjack.cluster import ClusterView, NodeLoad, Watcher, cluster_status
from slapjack.core import Rules, Table

from .conftest import REDIS_URL, Cluster
from .test_takeover import pause, scan_until

runner = CliRunner()
HEADER = Table.new(Rules.from_options({"preset": "classic"}), ["A", "B"], seed=1).record.to_dict()
HEADER.pop("actions")


def invoke(*args: str) -> Any:
    return runner.invoke(app, ["cluster", *args], env={"COLUMNS": "120"})


async def run(*args: str) -> Any:
    """The command in a thread of its own (it runs its own event loop)."""
    return await asyncio.to_thread(invoke, *args)


async def a_cluster(cluster: Cluster, stores: Any) -> tuple[Any, dict[str, Any]]:
    """Nodes a (3 rooms), b (draining, 1 room), c (dead, its 2 rooms taken by a)."""
    store = await stores()
    cluster.loads.update(a=NodeLoad(players=12), b=NodeLoad(players=4), c=NodeLoad(players=8))
    nodes = {n: cluster.node(n, interval_s=0.1, ttl_s=0.5, store=store) for n in "abc"}
    for node in nodes.values():
        await node.start()
    owners = "abacc"
    for i, owner in enumerate(owners):
        code = await nodes[owner].reserve_code(lambda i=i: f"CL{i}")
        nodes[owner].own(code, await store.create_room(code, {}, HEADER, owner=owner))
    await nodes["b"].reserve_code(lambda: "RESV")
    for node in nodes.values():
        await node.flush()
    await nodes["b"].drain()
    watcher = Watcher(nodes["a"], store)
    await watcher.scan()
    pause(nodes["c"])
    await scan_until([watcher], 2)
    return store, nodes


async def test_status_shows_nodes_rooms_epochs_and_takeovers(
    cluster: Cluster, stores: Any, pg_url: str
) -> None:
    store, nodes = await a_cluster(cluster, stores)
    status = await cluster_status(cluster.view(), store, rooms=True)
    by_node = {n["node"]: n for n in status["nodes"]}
    assert by_node["a"]["state"] == "live" and by_node["a"]["players"] == 12
    assert by_node["b"]["state"] == "draining"
    assert (by_node["a"]["owned_rooms"], by_node["b"]["owned_rooms"]) == (4, 1)
    assert by_node["c"]["owned_rooms"] == 0 and by_node["b"]["reserved_codes"] == 1
    assert status["summary"]["owned_rooms"] == 5 and status["summary"]["draining"] == 1
    assert sorted(t["code"] for t in status["takeovers"]) == ["CL3", "CL4"]
    rooms = {r["code"]: r for r in status["rooms"]}
    assert rooms["CL3"]["owner"] == "a" and rooms["CL3"]["node"] == "a"
    assert rooms["CL3"]["epoch"] == rooms["CL3"]["map_epoch"] == nodes["a"].owned["CL3"]
    assert rooms["RESV"]["map_epoch"] == 0 and rooms["RESV"]["owner"] is None

    common = ["--redis-url", REDIS_URL, "--prefix", cluster.prefix]
    done = await run(*common, "--database-url", pg_url, "--rooms")
    assert done.exit_code == 0, done.output
    out = done.stdout
    assert f"cluster '{cluster.prefix}'" in out and "3 nodes (1 live, 1 draining" in out
    assert "5 rooms in the store" in out and "last takeovers" in out
    assert "room CL3: c -> a" in out or "room CL4: c -> a" in out
    assert "RESV" in out and "(reserved)" in out and nodes["a"].url in out
    as_json = await run(*common, "--database-url", pg_url, "--json")
    assert as_json.exit_code == 0
    data = json.loads(as_json.stdout)
    assert data["summary"] == status["summary"] and "rooms" not in data
    # Without the store: rooms as the map has them.
    plain = await run(*common, "--json")
    assert json.loads(plain.stdout)["summary"]["owned_rooms"] is None
    assert "5 rooms mapped" in (await run(*common)).stdout


async def test_drain_and_undrain(cluster: Cluster) -> None:
    a = cluster.node("a")
    await a.start()
    common = ["--redis-url", REDIS_URL, "--prefix", cluster.prefix]
    done = await run("drain", "a", *common, "--keep-rooms")
    assert done.exit_code == 0
    assert done.stdout == "node a: draining: no new rooms (it keeps its rooms)\n"
    view = ClusterView(cluster.view().client, prefix=cluster.prefix)
    assert (await view.node("a")).state == "draining"  # type: ignore[union-attr]
    await a.heartbeat()
    assert a.draining and not a.leave_asked
    done = await run("undrain", "a", *common, "--json")
    assert json.loads(done.stdout) == {"node": "a", "draining": False, "leaving": False}
    await a.heartbeat()
    assert not a.draining and not a.leave_asked
    # without --keep-rooms the node is asked to hand its rooms over and leave
    done = await run("drain", "a", *common)
    assert done.stdout == "node a: draining: hands its rooms over, then shuts down\n"
    await a.heartbeat()
    assert a.draining and a.leave_asked
    await run("undrain", "a", *common)
    await a.heartbeat()
    assert not a.draining and not a.leave_asked


def test_refusals_are_one_line() -> None:
    cases = {
        ("frob",): "unknown action 'frob': use status, drain, undrain",
        ("drain",): "drain needs the NODE",
        ("status", "a"): "status takes no NODE",
        ("--redis-url", "http://x"): "--redis-url: a Redis URL starts with redis://",
        ("--database-url", "mysql://x"): "--database-url: unsupported database URL",
        ("--redis-url", "redis://127.0.0.1:1/0"): "cannot reach Redis at redis://127.0.0.1:1/0",
        ("--prefix", "a b"): "--prefix: a key prefix has no spaces",
        ("drain", "nobody", "--prefix", "slapjack-test-none"): "no live node 'nobody'",
    }
    for args, message in cases.items():
        done = invoke(*args)
        assert done.exit_code == 2, (args, done.output)
        assert done.stdout == "", args
        assert done.stderr.startswith(f"slapjack cluster: {message}"), (args, done.stderr)
        assert done.stderr.count("\n") == 1, done.stderr
