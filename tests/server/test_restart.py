"""``kill -9`` the server mid-game, start it again: every room, seat and card is back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from slapjack.core import card_name

from .conftest import FAST, Client, LiveServer

JACKS = {"JC", "JD", "JH", "JS"}


def deck_with_jack_at(index: int) -> list[str]:
    cards = [card_name(c) for c in range(52)]
    others = [c for c in cards if c not in JACKS]
    deck = [*others[:index], "JS", *others[index:], "JC", "JD", "JH"]
    assert len(deck) == 52
    return deck


def start_serve(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "SLAPJACK_TEST_HOOKS": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "slapjack.cli",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            "--referee",
            "arrival",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "http://" in line, line
    url = line.strip().rsplit(" ", 1)[-1].rstrip("/")
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx.get(f"{url}/api/rooms", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("slapjack serve did not come up")
        time.sleep(0.05)
    return proc, url


def as_live(url: str) -> LiveServer:
    return LiveServer(url, url.replace("http://", "ws://"), None, None, None)  # type: ignore[arg-type]


async def two_seat_room(
    url: str, deck: Any, timing: dict[str, Any]
) -> tuple[str, list[dict[str, Any]], list[Client]]:
    """A classic room for Anna and Ben on ``deck`` (test hook), both connected."""
    body = {
        "create": {"seats": 2, "rules": {"preset": "classic"}},
        "deck": deck,
        "timing": timing,
        "referee": "arrival",
    }
    async with httpx.AsyncClient(base_url=url) as http:
        code = (await http.post("/api/test/rooms", json=body)).json()["code"]
        seats = [
            (await http.post(f"/api/rooms/{code}/join", json={"name": n})).json()
            for n in ("Anna", "Ben")
        ]
    live = as_live(url)
    clients = [Client(live.ws_url, code, s["token"]) for s in seats]
    for c in clients:
        await c.connect()
    return code, seats, clients


async def test_kill_9_and_restart_resumes_the_room(tmp_path: Path) -> None:
    proc, url = start_serve(tmp_path)
    clients: list[Client] = []
    try:
        timing: dict[str, Any] = {**FAST, "turn_ms": 60_000.0, "grace_ms": 60_000.0}
        code, seats, clients = await two_seat_room(url, deck_with_jack_at(2), timing)
        a, b = clients
        await a.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        await a.act("flip", flip_id=0)
        await b.wait(lambda c: c.view is not None and c.view["turn"] == 1)
        await b.act("flip", flip_id=1)
        # (each wait names the flip: "turn 0" or "no race" held before it too)
        await a.wait(lambda c: c.view is not None and c.view["flips"] == 2)
        await a.act("flip", flip_id=2)  # the Jack
        await b.wait(lambda c: c.view is not None and c.view["race_open"])
        await b.act("slap", flip_id=3, reaction_ms=210.0)
        await a.act("slap", flip_id=3, reaction_ms=250.0)
        await a.wait(
            lambda c: c.view is not None and c.view["flips"] == 3 and not c.view["race_open"]
        )
        turn = a.view["turn"] if a.view else None
        mover = clients[turn]
        await mover.act("flip", flip_id=3)
        await a.wait(lambda c: c.view is not None and c.view["flips"] == 4)
        await b.wait(lambda c: c.view is not None and c.view["flips"] == 4)
        before = [c.view for c in clients]
        assert before[0] is not None and sum(before[0]["stacks"]) + before[0]["centre_size"] == 52
        for c in clients:
            await c.close()

        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

        proc, url = start_serve(tmp_path)
        live = as_live(url)
        async with httpx.AsyncClient(base_url=url) as http:
            info = (await http.get(f"/api/rooms/{code}")).json()
        assert [s["name"] for s in info["seats"]] == ["Anna", "Ben"]
        assert info["status"] == "playing"
        clients = [Client(live.ws_url, code, s["token"]) for s in seats]
        for c in clients:
            await c.connect()
        for seat, (c, old) in enumerate(zip(clients, before, strict=True)):
            welcome = await c.wait_frame(lambda f: f["type"] == "welcome")
            assert welcome["seat"] == seat
            await c.wait(lambda c: c.view is not None)
            assert c.view == old
        # and the game goes on from there
        a, b = clients
        view = a.view
        assert view is not None
        await clients[view["turn"]].act("flip", flip_id=view["flip_id"])
        await b.wait(lambda c: c.view is not None and c.view["flips"] == 5)
        # a forged token still gets nothing
        spy = Client(live.ws_url, code, "forged")
        await spy.connect()
        await spy.wait(lambda c: c.closed is not None)
        assert spy.errors()[0]["code"] == "bad_token"
    finally:
        for c in clients:
            await c.close()
        proc.kill()
        proc.wait(10)


async def test_kill_9_during_a_race_settles_it_after_restart(tmp_path: Path) -> None:
    """Killed while a Jack's race is open with one slap in: the restarted room
    reopens the race window and settles it for the slapper."""
    proc, url = start_serve(tmp_path)
    clients: list[Client] = []
    try:
        timing: dict[str, Any] = {
            **FAST,
            "turn_ms": 60_000.0,
            "grace_ms": 60_000.0,
            "jack_timeout_ms": 60_000.0,
        }
        code, seats, clients = await two_seat_room(url, deck_with_jack_at(0), timing)
        a, b = clients
        await a.wait(lambda c: c.view is not None and c.view["turn"] == 0)
        await a.act("flip", flip_id=0)
        await b.wait(lambda c: c.view is not None and c.view["race_open"])
        await b.act("slap", flip_id=1, reaction_ms=240.0)
        await b.wait(lambda c: c.view is not None and c.view["slapped"] == [1])
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for c in clients:
            await c.close()

        proc, url = start_serve(tmp_path)
        live = as_live(url)
        back = Client(live.ws_url, code, seats[1]["token"])
        clients = [back]
        await back.connect()
        await back.wait(
            lambda c: c.view is not None and not c.view["race_open"] and c.view["flips"] == 1
        )
        view = back.view
        assert view is not None
        assert view["stacks"] == [25, 27] and view["centre_size"] == 0
        assert view["turn"] == 0  # left of the winner (classic), two seats
    finally:
        for c in clients:
            await c.close()
        proc.kill()
        proc.wait(10)
