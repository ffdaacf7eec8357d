"""Crash durability: every append acknowledged before a ``kill -9`` is there afterwards."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from slapjack.store import PostgresStore, SqliteStore

from .conftest import header_of, play

ROOMS = 8

WRITER = textwrap.dedent(
    """
    import asyncio, json, sys
    from slapjack.store import PostgresStore, SqliteStore

    kind, where, rooms, header = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])

    async def feed(store, code):
        i = 0
        while True:
            await store.append_action(code, i, {"t": i * 10, "flip": "Anna", "n": i})
            sys.stdout.write(f"{code} {i}\\n")
            sys.stdout.flush()
            i += 1

    async def main():
        if kind == "sqlite":
            store = await SqliteStore.open(where)
        else:
            store = await PostgresStore.open(where)
        codes = [f"K{r}" for r in range(rooms)]
        for code in codes:
            await store.create_room(code, {"room": code}, header)
        sys.stdout.write("ready\\n")
        sys.stdout.flush()
        await asyncio.gather(*(feed(store, code) for code in codes))

    asyncio.run(main())
    """
)


def run_and_kill(kind: str, where: str, min_acks: int) -> dict[str, int]:
    """Start the writer, let it acknowledge ``min_acks`` appends, SIGKILL it mid-stream."""
    table, _ = play(1)
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, kind, where, str(ROOMS), json.dumps(header_of(table))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    acked: dict[str, int] = {}
    count = 0
    deadline = time.monotonic() + 60
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first == "ready\n", first + (proc.stderr.read() if proc.stderr else "")
        while count < min_acks and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            code, idx = line.split()
            acked[code] = max(acked.get(code, -1), int(idx))
            count += 1
        os.kill(proc.pid, signal.SIGKILL)
        # Acknowledgements already written to the pipe before the kill count too.
        # Read through the same text stream: ``communicate`` reads the pipe's
        # file descriptor and would skip what ``readline`` has buffered (the
        # rest of a line, read as "7 123" for "K7 123").
        rest = proc.stdout.read()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    for line in rest.splitlines():
        parts = line.split()
        if len(parts) == 2:
            acked[parts[0]] = max(acked.get(parts[0], -1), int(parts[1]))
            count += 1
    assert proc.returncode == -signal.SIGKILL
    assert count >= min_acks, f"only {count} acknowledgements"
    return acked


async def check_after_crash(store: Any, acked: dict[str, int]) -> None:
    assert sorted(await store.live_rooms()) == sorted(f"K{r}" for r in range(ROOMS))
    for code, last in acked.items():
        room = await store.load_room(code)
        assert len(room.actions) >= last + 1, (
            f"{code}: acknowledged {last + 1}, found {len(room.actions)}"
        )
        for i, action in enumerate(room.actions):
            assert action == {"t": i * 10, "flip": "Anna", "n": i}
        # The room goes on where it stopped.
        n = len(room.actions)
        await store.append_action(code, n, {"t": n * 10, "flip": "Anna", "n": n})


async def test_sqlite_survives_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "crash.sqlite3"
    acked = run_and_kill("sqlite", str(path), min_acks=400)
    store = await SqliteStore.open(path)
    try:
        await check_after_crash(store, acked)
        assert await store.pragma("integrity_check") == "ok"
    finally:
        await store.close()


async def test_postgresql_survives_kill_9(pg_url: str) -> None:
    acked = run_and_kill("postgresql", pg_url, min_acks=400)
    store = await PostgresStore.open(pg_url)
    try:
        await check_after_crash(store, acked)
    finally:
        await store.close()


@pytest.mark.slow
async def test_sqlite_survives_repeated_kill_9(tmp_path: Path) -> None:
    """Soak: kill the writer ten times at different moments on one file."""
    path = tmp_path / "crash.sqlite3"
    for round_ in range(10):
        if path.exists():
            store = await SqliteStore.open(path)
            for code in await store.live_rooms():
                await store.close_room(code)
            await store.close()
        acked = run_and_kill("sqlite", str(path), min_acks=200 + 97 * round_)
        store = await SqliteStore.open(path)
        try:
            await check_after_crash(store, acked)
        finally:
            await store.close()
