"""PostgreSQL itself goes down mid-game and comes back: a private PostgreSQL
of this test's own (``initdb`` into a temporary directory, on a free port;
the machine's shared PostgreSQL on 5432 is never touched) is stopped
(``pg_ctl stop -m immediate``, as a crash) while a room plays on it. The room
pauses with a visible message and tells nothing more; once the same
PostgreSQL is started again the game goes on by itself, and the stored
record has every card (the 52-card invariant after every action) and no
action twice.

Without ``initdb`` (``/usr/lib/postgresql/*/bin`` or the PATH) this skips,
except under ``CI=true``, where it fails. Run as root, PostgreSQL runs as the
``postgres`` user (``runuser``)."""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from slapjack.core import replay
from slapjack.store import PostgresStore

from .conftest import Client, join, make_room, start_server

pytestmark = pytest.mark.postgres


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required under CI=true")
    pytest.skip(f"{what} is not installed")


def _tool(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    path = found[-1] if found else shutil.which(name)
    if path is None:
        _missing(f"PostgreSQL's {name}")
    assert path is not None
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class OwnPostgres:
    """A PostgreSQL cluster of the test's own: made, started, stopped, started again."""

    def __init__(self) -> None:
        self.initdb, self.pg_ctl = _tool("initdb"), _tool("pg_ctl")
        self.port = _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="slapjack-pg-"))
        self.data = self.dir / "data"
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            runuser = shutil.which("runuser")
            if runuser is None:
                _missing("runuser (to run PostgreSQL as the postgres user)")
            shutil.chown(self.dir, "postgres")
            os.chmod(self.dir, 0o700)
            self.as_user = [str(runuser), "-u", "postgres", "--"]

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self.as_user, *args], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stdout}\n{done.stderr}")

    def create(self) -> None:
        self._run(self.initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
            " -c fsync=off -c full_page_writes=off"
        )
        self._run(self.pg_ctl, "-D", str(self.data), "-o", options,
                  "-l", str(self.dir / "log"), "-w", "-t", "60", "start")  # fmt: skip

    def stop(self, mode: str = "immediate") -> None:
        self._run(self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def remove(self) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(RuntimeError):
                self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def own_pg() -> Iterator[OwnPostgres]:
    pg = OwnPostgres()
    try:
        pg.create()
        pg.start()
        yield pg
    finally:
        pg.remove()


async def test_the_room_pauses_while_postgresql_is_down_and_goes_on_after(
    own_pg: OwnPostgres, tmp_path: Path
) -> None:
    server = await asyncio.to_thread(start_server, own_pg.url, tmp_path)
    try:
        timing = {"start_delay_ms": 0.0, "turn_ms": 40.0, "bot_pace": 0.05, "grace_ms": 60_000.0}
        code = await make_room(server, seats=3, bots={"1": "casual", "2": "casual"}, timing=timing)
        seat = await join(server, code, "Ann")
        client = await Client(server.ws_url, code, seat["token"]).connect()
        await client.wait(lambda c: c.view is not None and c.view["flips"] >= 3)
        await asyncio.to_thread(own_pg.stop)  # PostgreSQL goes away mid-game
        await client.wait(lambda c: bool(c.errors()), timeout=20)
        (paused,) = client.errors()
        assert paused["code"] == "store_unavailable" and "paused" in paused["message"]
        seen = client.view["flips"] if client.view else 0
        await asyncio.sleep(1.5)
        assert client.view is not None and client.view["flips"] <= seen + 1  # nothing more told
        told = len(client.frames)
        await asyncio.to_thread(own_pg.start)  # the same PostgreSQL, back
        await client.wait(
            lambda c: c.view is not None and (c.view["flips"] > seen + 5 or c.view["over"]),
            timeout=30,
        )
        assert len(client.frames) > told  # it went on by itself
        # what the store has: every action the client was told of, none twice
        shown = client.view["flips"]  # (told after it was stored: write-ahead)
        store = await PostgresStore.open(own_pg.url)
        try:
            state = await store.load_room(code)
        finally:
            await store.close()
        record = state.record()
        final = replay(record)  # raises on an action out of order, or twice
        final.game.check_invariant()  # all 52 cards
        assert final.game.flips >= shown
        times = [a.t for a in record.actions]
        assert times == sorted(times)
        assert len(client.errors()) == 1
        await client.ws.close()
    finally:
        await asyncio.to_thread(server.stop)
