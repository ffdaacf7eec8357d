"""``slapjack cluster [status|drain NODE|undrain NODE]``: the nodes of a cluster,
their load and rooms, epochs and the last takeovers; mark a node draining.

Reads Redis (``--redis-url``) and, with ``--database-url``, the store, which
is the authority on who owns each room and at which epoch. The same figures
as ``--json`` are what :func:`slapjack.cluster.cluster_status` returns (a
server can serve it as ``/api/cluster``). See docs/deploy.md.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import datetime
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .common import CommandError, VersionOption

ACTIONS = ("status", "drain", "undrain")
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


async def _gather(
    action: str,
    node: str | None,
    redis_url: str,
    database_url: str | None,
    prefix: str,
    rooms: bool,
    keep_rooms: bool = False,
) -> dict[str, Any]:
    from slapjack.cluster import (
        BadClusterInput,
        ClusterUnavailable,
        ClusterView,
        cluster_status,
        connect,
    )
    from slapjack.store import BadDatabaseUrl, StoreError, open_store

    try:
        client = connect(redis_url, timeout_s=3.0)
    except BadClusterInput as exc:
        raise CommandError(f"--redis-url: {exc.message}") from None
    try:
        view = ClusterView(client, prefix=prefix)
    except BadClusterInput as exc:
        await client.aclose()
        raise CommandError(f"--prefix: {exc.message}") from None
    store = None
    try:
        if database_url is not None:
            try:
                store = await open_store(database_url, ".")
            except BadDatabaseUrl as exc:
                raise CommandError(f"--database-url: {exc.message}") from None
            except StoreError as exc:
                raise CommandError(f"cannot open the store: {exc.message}") from None
            view.store = store
        try:
            if action != "status":
                assert node is not None
                drain, leave = action == "drain", action == "drain" and not keep_rooms
                if not await view.set_draining(node, drain, leave=leave):
                    raise CommandError(f"no live node {node!r} (see 'slapjack cluster status')")
                return {"node": node, "draining": drain, "leaving": leave}
            return await cluster_status(view, store, rooms=rooms)
        except BadClusterInput as exc:
            raise CommandError(exc.message) from None
        except ClusterUnavailable as exc:
            raise CommandError(f"cannot reach Redis at {redis_url}: {exc.message}") from None
    finally:
        if store is not None:
            await store.close()
        await client.aclose()


def _age(seconds: Any) -> str:
    if not isinstance(seconds, int | float):
        return "-"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _when(ms: Any) -> str:
    if not isinstance(ms, int):
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms / 1000))


def _since(iso: Any) -> str:
    if not isinstance(iso, str):
        return "-"
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def render(status: dict[str, Any], redis_url: str, console: Console) -> None:
    """The status as a person reads it: a line, the nodes, the takeovers, the rooms."""
    s = status["summary"]
    owned = s["owned_rooms"]
    rooms = (
        f"{owned} rooms in the store" if owned is not None else f"{s['mapped_rooms']} rooms mapped"
    )
    console.print(
        Text.assemble(
            (f"cluster '{status['prefix']}'", "bold"),
            f" at {redis_url}: {s['nodes']} nodes ({s['live']} live, {s['draining']} draining,"
            f" {s['gone']} gone), {s['players']} players, {rooms}",
        )
    )
    if "store_error" in status:
        console.print(Text(f"store: {status['store_error']}", style="red"))
    if status["nodes"]:
        table = Table(box=None, pad_edge=False, header_style="bold")
        for name in ("node", "state", "players", "rooms", "mapped", "owned", "cpu", "beat", "url"):
            table.add_column(
                name,
                justify="right"
                if name in ("players", "rooms", "mapped", "owned", "cpu")
                else "left",
            )
        for n in status["nodes"]:
            style = {"live": "green", "draining": "yellow"}.get(n["state"], "red")
            live = n["state"] in ("live", "draining")  # a gone node's last load means nothing
            table.add_row(
                n["node"],
                Text(n["state"], style=style),
                str(n["players"]) if live else "-",
                str(n["rooms"]) if live else "-",
                str(n.get("mapped_rooms", "-")),
                str(n["owned_rooms"]) if "owned_rooms" in n else "-",
                f"{n['cpu'] * 100:.0f}%" if live else "-",
                _age(n.get("age_s")) + " ago" if "age_s" in n else "-",
                n.get("url") or "-",
            )
        console.print(table)
    else:
        console.print("no node has sent a heartbeat")
    takeovers = status["takeovers"]
    if takeovers:
        console.print(Text("last takeovers", style="bold"))
        for t in takeovers:
            console.print(
                f"  {_when(t.get('at_ms'))}  room {t.get('code')}:"
                f" {t.get('previous_owner')} -> {t.get('node')},"
                f" epoch {t.get('previous_epoch')} -> {t.get('epoch')}"
                f" (silent {_age(t.get('silent_s'))})"
            )
    else:
        console.print("no takeover yet")
    if "rooms" in status:
        table = Table(box=None, pad_edge=False, header_style="bold")
        for name in ("room", "node (Redis)", "owner (store)", "epoch", "since"):
            table.add_column(name)
        for r in status["rooms"]:
            node = r["node"] or "-"
            if r["map_epoch"] == 0:
                node += " (reserved)"
            table.add_row(
                r["code"],
                node,
                r["owner"] or "-",
                "-" if r["epoch"] is None else str(r["epoch"]),
                _since(r["since"]),
            )
        console.print(table)


def register(app: typer.Typer) -> None:
    """Add ``slapjack cluster`` to the CLI."""

    @app.command("cluster")
    def cluster_command(
        action: Annotated[
            str,
            typer.Argument(metavar="ACTION", help="status (default), drain NODE or undrain NODE."),
        ] = "status",
        node: Annotated[
            str | None, typer.Argument(metavar="NODE", help="The node to drain or undrain.")
        ] = None,
        redis_url: Annotated[
            str,
            typer.Option("--redis-url", metavar="URL", help="The cluster's Redis."),
        ] = DEFAULT_REDIS,
        database_url: Annotated[
            str | None,
            typer.Option(
                "--database-url",
                metavar="URL",
                help="The cluster's PostgreSQL: who owns each room, at which epoch.",
            ),
        ] = None,
        prefix: Annotated[
            str, typer.Option("--prefix", metavar="NAME", help="The cluster's Redis key prefix.")
        ] = "slapjack",
        rooms: Annotated[bool, typer.Option("--rooms", help="List every room too.")] = False,
        keep_rooms: Annotated[
            bool,
            typer.Option(
                "--keep-rooms",
                help="drain only: stop new rooms going to the node, but let it keep its rooms.",
            ),
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
        _version: VersionOption = False,
    ) -> None:
        """Show a cluster's nodes, their load, rooms, epochs and takeovers; drain a node.

        'drain NODE' drains a live node as SIGTERM does: no new rooms go to it,
        it hands its rooms to the other nodes (their players follow 'moved')
        and shuts down once it has none; with --keep-rooms it only stops
        taking new rooms. 'undrain NODE' lets new rooms come again (to a node
        drained with --keep-rooms, or one that has not begun to leave).
        """
        if action not in ACTIONS:
            raise CommandError(f"unknown action {action!r}: use {', '.join(ACTIONS)}")
        if action == "status" and node is not None:
            raise CommandError("status takes no NODE")
        if action != "status" and node is None:
            raise CommandError(f"{action} needs the NODE")
        result = asyncio.run(
            _gather(action, node, redis_url, database_url, prefix, rooms, keep_rooms)
        )
        if as_json:
            typer.echo(json.dumps(result, sort_keys=True))
        elif action != "status":
            verb = (
                "draining: hands its rooms over, then shuts down"
                if result["leaving"]
                else "draining: no new rooms (it keeps its rooms)"
                if result["draining"]
                else "taking new rooms again"
            )
            typer.echo(f"node {node}: {verb}")
        else:
            render(result, redis_url, Console(soft_wrap=True))
