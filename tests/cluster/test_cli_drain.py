"""``slapjack cluster drain NODE`` on real ``slapjack serve`` nodes: the node
is asked through Redis, hands its room over (as at SIGTERM) and exits; the
game ends on another node with the uninterrupted game's record."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

from slapjack.protocol import Update

from .conftest import REDIS_URL, nodes_http
from .test_serve_nodes import (
    NodeProc,
    Player,
    players_running,
    reference,
    start_game,
    stored_record,
    until_over,
    untimed,
)
from .test_serve_nodes import nodes as nodes

HOLD = asyncio.Event()


def held(player: Player) -> Any:
    """``player.on_update``, deaf while :data:`HOLD` is set."""
    plain = player.on_update

    def on_update(msg: Update) -> None:
        if not HOLD.is_set():
            plain(msg)

    return on_update


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "slapjack.cli", "cluster", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_cluster_drain_hands_the_rooms_over_and_the_node_exits(
    nodes: list[NodeProc],
) -> None:
    a, b, c = nodes
    async with nodes_http() as http:
        code, players = await start_game(nodes, http)
        for p in players:
            p.on_update = held(p)  # type: ignore[method-assign]
        with players_running(players):
            # Mid-race, once both seats have seen it (so both slaps are on their way:
            # a seat whose update came in after HOLD would never slap this race).
            await asyncio.wait_for(asyncio.gather(*(p.race_seen.wait() for p in players)), 30)
            HOLD.set()  # the players wait (a human game would go on meanwhile)
            done = await asyncio.to_thread(
                cli, "drain", "a", "--redis-url", REDIS_URL, "--prefix", a.prefix
            )
            assert done.returncode == 0, done.stderr
            assert "hands its rooms over" in done.stdout
            assert a.proc is not None
            try:
                code_ = await asyncio.to_thread(a.proc.wait, 60)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"node a did not exit: {a.log.read_text()[-3000:]}") from None
            assert code_ == 0  # it left once empty
            HOLD.clear()
            await until_over(players)
        assert {p.welcomes[-1] for p in players} <= {b.url, c.url}
        log = a.log.read_text()
        assert "asked to drain and leave" in log and f"room {code} handed to node" in log, log[
            -2000:
        ]
        record = await stored_record(http, b, code)
        assert untimed(record) == reference(record)
        status = (await http.get(f"{b.url}/api/cluster")).json()
        assert "a" not in {n["node"] for n in status["nodes"] if n["state"] == "live"}
