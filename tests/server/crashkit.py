"""Crash kit: a real ``slapjack serve`` process, ``kill -9`` and a restart on the
same data directory, and every seat's view before and after.

A :class:`CrashKit` starts ``slapjack serve`` as a subprocess (test hooks on,
SQLite in a temp ``--data-dir`` or a PostgreSQL schema, a fixed free port), makes a room through
``POST /api/test/rooms`` (stacked deck, fast timing, the referee), seats its
players through the HTTP API and connects one WebSocket client per seat
(:class:`~tests.server.conftest.Client`, written from ``docs/protocol.md``).
Tests drive the game to a moment, then :meth:`CrashKit.crash`:

1. waits until the server has sent everything (no update for a while);
2. ``kill -9``, lets every socket read what was sent before it closed, and
   keeps each seat's last ``view`` and ``room`` (status, game_no, game_id,
   rematch, names);
3. opens the store the dead server left and checks that the stored record
   gives every seat exactly the view it last saw (write-ahead: nothing a
   player saw may be missing from the store), and that the stored record
   replays;
4. starts the server again on the same port and data directory, reconnects
   every seat with its token and compares each seat's first view with the
   last one it saw before.

Deadlines and ``now`` are not compared: they are the new process's clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from slapjack.core import Game, Settle, Table, card_name, observe, replay
from slapjack.core.cards import parse_card
from slapjack.store import open_store

from .conftest import FAST, Client, free_port

JACKS = ("JC", "JD", "JH", "JS")
ROOM_KEYS = ("code", "status", "game_no", "game_id", "rematch", "names")
"""The parts of an update's ``room`` object a restart must keep."""
QUIET_S = 0.2
"""No update for this long: the server has sent everything for now."""


def stacked(first: Sequence[str], *, irish: bool = False, last: Sequence[str] = ()) -> list[str]:
    """A 52-card deck that deals ``first`` first and ``last`` last.

    With every seat flipping in turn (nobody takes a pile), deck position *i*
    is the *i*-th card flipped. The cards in between are no Jacks (Slapjack)
    or no matches for their call (Irish Snap, calls counting A, 2, 3 … from
    the first flip), as far as the deck allows; the remaining Jacks (Slapjack)
    go just before ``last``.
    """
    names = [card_name(c) for c in range(52)]
    fixed = [*first, *last]
    assert len(set(fixed)) == len(fixed), fixed
    rest = [c for c in names if c not in fixed]
    middle: list[str] = []
    if irish:
        pos = len(first)
        while rest:
            pick = next((c for c in rest if parse_card(c) >> 2 != pos % 13), rest[0])
            rest.remove(pick)
            middle.append(pick)
            pos += 1
    else:
        jacks = [c for c in rest if c in JACKS]
        middle = [c for c in rest if c not in JACKS] + jacks
    deck = [*first, *middle, *last]
    assert sorted(deck) == sorted(names)
    return deck


class Serve:
    """One ``slapjack serve`` process on ``port`` with its data in ``data_dir``
    (or in the PostgreSQL database at ``database_url``)."""

    def __init__(
        self, data_dir: Path, port: int, log: Path, database_url: str | None = None
    ) -> None:
        self.data_dir = data_dir
        self.database_url = database_url
        self.port = port
        self.log = log
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}"
        self.proc: subprocess.Popen[str] | None = None
        self._log: Any = None
        self.starts = 0

    def start(self) -> None:
        env = {**os.environ, "SLAPJACK_TEST_HOOKS": "1"}
        self.starts += 1
        if self._log is None:
            self._log = self.log.open("a")
        self._log.write(f"--- start {self.starts}\n")
        self._log.flush()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "slapjack.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--data-dir",
                str(self.data_dir),
                "--referee",
                "arrival",
                "--log-level",
                "warning",
                *(["--database-url", self.database_url] if self.database_url else []),
            ],
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert f":{self.port}/" in line, f"serve said {line!r}; log: {self.log.read_text()}"
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"{self.url}/api/rooms", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"slapjack serve did not come up: {self.log.read_text()}")
            time.sleep(0.03)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None


@dataclass
class Seen:
    """What one seat last saw: its ``view`` and the kept parts of ``room``."""

    view: dict[str, Any] | None
    room: dict[str, Any]


def seen_by(client: Client) -> Seen:
    ups = client.updates
    assert ups, "no update yet"
    last = ups[-1]
    return Seen(last["view"], {k: last["room"][k] for k in ROOM_KEYS})


def first_seen(client: Client) -> Seen:
    first = client.updates[0]
    return Seen(first["view"], {k: first["room"][k] for k in ROOM_KEYS})


def diff(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any]:
    if a is None or b is None:
        return {"before": a, "after": b}
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def view_of(game: Game, seat: int) -> dict[str, Any]:
    """A seat's view as an update carries it."""
    view = observe(game, seat).to_dict()
    view["flip_id"] = game.flips
    return view


def cards_in(view: dict[str, Any]) -> int:
    return int(sum(view["stacks"]) + view["centre_size"])


class CrashKit:
    """One crash test: a server, a room, its seats; see the module docstring."""

    def __init__(self, tmp_path: Path, database_url: str | None = None) -> None:
        self.tmp = tmp_path
        self.server = Serve(tmp_path / "data", free_port(), tmp_path / "serve.log", database_url)
        self.code = ""
        self.names: list[str] = []
        self.tokens: list[str] = []
        self.clients: list[Client] = []
        self.before: list[Seen] = []
        self.after: list[Seen] = []

    # ------------------------------------------------------------ set up

    async def room(
        self,
        names: Sequence[str] = ("Anna", "Ben"),
        *,
        preset: str = "classic",
        deck: Sequence[str] | None = None,
        seed: int | None = None,
        timing: dict[str, float] | None = None,
        referee: str = "trusting",
        rules: dict[str, Any] | None = None,
        **create: Any,
    ) -> None:
        """A room of ``names`` (every seat a human with a token), all connected,
        the game started. Slow timers by default (a test sets the ones it needs)."""
        game = "irish-snap" if preset.startswith("irish") else "slapjack"
        slow = {
            "turn_ms": 60_000.0,
            "grace_ms": 60_000.0,
            "jack_timeout_ms": 60_000.0,
            "irish_timeout_ms": 60_000.0,
            "call_grace_ms": 60_000.0,
        }
        body: dict[str, Any] = {
            "create": {
                "game": game,
                "rules": {"preset": preset, **(rules or {})},
                "seats": len(names),
                **create,
            },
            "timing": {**FAST, **slow, **(timing or {})},
            "referee": referee,
        }
        if deck is not None:
            body["deck"] = list(deck)
        else:
            body["seed"] = seed if seed is not None else 9
        async with httpx.AsyncClient(base_url=self.server.url) as http:
            r = await http.post("/api/test/rooms", json=body)
            assert r.status_code == 200, r.text
            self.code = r.json()["code"]
            for name in names:
                r = await http.post(f"/api/rooms/{self.code}/join", json={"name": name})
                assert r.status_code == 200, r.text
                self.tokens.append(r.json()["token"])
        self.names = list(names)
        self.clients = [Client(self.server.ws_url, self.code, t) for t in self.tokens]
        for c in self.clients:
            await c.connect()
        await self.until(lambda v: v["flips"] == 0 and v["turn"] == 0)

    async def close(self) -> None:
        for c in self.clients:
            await c.close()
        self.server.stop()

    # ------------------------------------------------------------ views

    def view(self, seat: int = 0) -> dict[str, Any]:
        view = self.clients[seat].view
        assert view is not None, f"seat {seat} has no view yet"
        return view

    def room_of(self, seat: int = 0) -> dict[str, Any]:
        return dict(self.clients[seat].updates[-1]["room"])

    async def until(
        self,
        pred: Callable[[dict[str, Any]], bool],
        seats: Sequence[int] | None = None,
        timeout: float = 10.0,
    ) -> None:
        """Wait until the latest view of every seat (or of ``seats``) satisfies ``pred``."""
        for s in range(len(self.clients)) if seats is None else seats:
            await self.clients[s].wait(lambda c: c.view is not None and pred(c.view), timeout)

    async def until_room(self, pred: Callable[[dict[str, Any]], bool]) -> None:
        for c in self.clients:
            await c.wait(lambda c: bool(c.updates) and pred(c.updates[-1]["room"]))

    async def quiet(self) -> None:
        """Wait until no seat has had an update for :data:`QUIET_S`."""
        while True:
            count = sum(len(c.updates) for c in self.clients)
            await asyncio.sleep(QUIET_S)
            if sum(len(c.updates) for c in self.clients) == count:
                return

    # ------------------------------------------------------------ play

    async def flip(self) -> None:
        """The seat on turn flips; wait until every seat sees the card."""
        view = self.view()
        turn = view["turn"]
        assert turn is not None and not view["race_open"], view
        flips = view["flips"]
        await self.clients[turn].act("flip", flip_id=flips)
        await self.until(lambda v: v["flips"] == flips + 1)

    async def flips(self, count: int, *, until_jack_settles: bool = True) -> None:
        """Flip ``count`` cards in turn; a race nobody slaps is waited out."""
        for _ in range(count):
            if until_jack_settles:
                await self.until(lambda v: not v["race_open"] and v["turn"] is not None)
            await self.flip()

    async def slap(self, seat: int, reaction_ms: float, call: bool = False) -> None:
        await self.clients[seat].act(
            "slap",
            flip_id=self.view(seat)["flip_id"],
            reaction_ms=reaction_ms,
            shown_at=1000.0,
            input_at=1000.0 + reaction_ms,
            call=call,
        )

    async def rematch(self, seat: int) -> None:
        await self.clients[seat].act("rematch")

    # ------------------------------------------------------------ the crash

    async def crash(self, *, may_settle: bool = False) -> None:
        """``kill -9`` now, check the store, restart, reconnect, compare.

        ``may_settle``: a Slapjack race with slaps in, whose referee window
        (500 ms after its first slap, counted again from the restart) may close
        at any time: just before the kill (stored, maybe not yet sent), or
        after the restart before a seat is back. Then a seat may see the race
        settled from exactly the slaps it saw, and nothing else.
        """
        await self.quiet()
        self.server.kill9()
        for c in self.clients:  # what was sent before the kill still arrives
            await c.wait(lambda c: c.closed is not None)
            await c.close()
        self.before = [seen_by(c) for c in self.clients]
        settled = await self.check_store(may_settle)
        self.server.start()
        self.clients = [Client(self.server.ws_url, self.code, t) for t in self.tokens]
        for c in self.clients:
            await c.connect()
        for seat, c in enumerate(self.clients):
            welcome = await c.wait_frame(lambda f: f["type"] == "welcome")
            assert welcome["seat"] == seat and welcome["name"] == self.names[seat]
            await c.wait(lambda c: bool(c.updates))
        self.after = [first_seen(c) for c in self.clients]
        for seat, (old, new) in enumerate(zip(self.before, self.after, strict=True)):
            assert new.room == old.room, f"seat {seat}'s room changed: {diff(old.room, new.room)}"
            if new.view != old.view and new.view in settled[seat]:
                continue  # may_settle: the window closed, on exactly the slaps seen
            assert new.view == old.view, f"seat {seat}'s view changed: {diff(old.view, new.view)}"

    async def check_store(self, may_settle: bool = False) -> list[list[dict[str, Any]]]:
        """The dead server's store gives every seat the view it last saw, the
        room's game_no, game_id and rematch requests; its record replays with
        the 52 cards after every action. Returns, per seat, the other views a
        restarted server may show it first: none, or with ``may_settle`` the
        race it saw settled (see :meth:`crash`)."""
        store = await open_store(self.server.database_url, self.server.data_dir)
        try:
            state = await store.load_room(self.code)
        finally:
            await store.close()
        record = state.record()
        replay(record, check=True)  # every action valid, 52 cards after each
        stored = Table(record).game
        seen = stored
        last = record.actions[-1] if record.actions else None
        if may_settle and isinstance(last, Settle):
            # the window closed and was stored just before the kill
            seen = Table(replace(record, actions=record.actions[:-1])).game
        settled = Table(state.record())
        if may_settle and settled.game.needs_settle:
            settled.settle(final=True)
        others: list[list[dict[str, Any]]] = []
        for seat, old in enumerate(self.before):
            view = view_of(stored, seat)
            if old.view != view:
                assert may_settle and old.view == view_of(seen, seat), (
                    f"the store lacks what seat {seat} saw: {diff(old.view, view)}"
                )
            others.append([view, view_of(settled.game, seat)] if may_settle else [])
        room, kept = self.before[0].room, state.settings
        assert kept.get("game_no") == room["game_no"], f"stored {kept}, seen {room}"
        assert sorted(kept.get("rematch", [])) == room["rematch"], f"stored {kept}, seen {room}"
        assert kept.get("game_id") == room["game_id"], f"stored {kept}, seen {room}"
        return others

    # ------------------------------------------------------------ after

    def check_cards(self) -> None:
        """The 52 cards through every seat's public view: stacks plus centre."""
        for seat, c in enumerate(self.clients):
            view = c.view
            assert view is not None
            assert cards_in(view) == 52, f"seat {seat} sees {cards_in(view)} cards: {view}"

    def replay_file(self, path: Path) -> dict[str, Any]:
        """``slapjack replay --json`` on a record file: it must replay (exit 0)."""
        done = subprocess.run(
            [sys.executable, "-m", "slapjack.cli", "replay", "--json", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    async def replay_finished(self) -> dict[str, Any]:
        """Download the finished game (the room's ``game_id``) and replay it."""
        game_id = self.room_of()["game_id"]
        assert game_id is not None
        async with httpx.AsyncClient(base_url=self.server.url) as http:
            r = await http.get(f"/api/games/{game_id}", params={"download": 1})
            assert r.status_code == 200, r.text
        path = self.tmp / f"game-{game_id}.json"
        path.write_bytes(r.content)
        return self.replay_file(path)


@contextlib.asynccontextmanager
async def crash_kit(tmp_path: Path, database_url: str | None = None) -> Any:
    kit = CrashKit(tmp_path, database_url)
    kit.server.start()
    try:
        yield kit
    finally:
        await kit.close()
