"""One game, three hosts: the simulator, a server room and the terminal game
all run the same live table, so the same seats, bots, deck and input times
give the same record, byte for byte.

The server room is a real server (uvicorn on a loopback port) playing on its
test clock: a spectator watches over a real WebSocket, the test hook
``/api/test/rooms/{code}/run`` moves the clock from one of the room's
deadlines to the next, and the finished game comes back from the history
(``/api/games/{id}``). The terminal game's controller runs on a hand-moved
clock, each card counted as shown the moment it is turned (as the room and the
simulator count it). All three get the served game's timings and a referee
that takes the bots' claimed reactions as they are, with the window of the
server's test referee (500 ms).

``matched`` bots are left out: they learn from the people at the table, and
who stands for a person differs by host (a human's seat in a room, any
non-learning seat in the simulator).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.conftest import Client, LiveServer, start_server
from slapjack.bots import make_bot
from slapjack.core import Record, Rules, card_name, replay, shuffled_deck, spectate
from slapjack.live import LiveTiming, LocalReferee, seat_bot_seed
from slapjack.protocol import CreateRoom
from slapjack.server import RoomTiming
from slapjack.server.routes.testhooks import HandClock
from slapjack.server.seats import bot_name
from slapjack.sim import play_game
from slapjack.tui import GameConfig, GameController, ManualClock, SeatSpec

PRESETS = (
    ("slapjack", "classic"),
    ("slapjack", "klatsch-bube"),
    ("slapjack", "say-it"),
    ("irish-snap", "irish-snap"),
    ("irish-snap", "irish-snap-winner"),
)
GAMES_PER_PRESET = 40
LEVELS = ("beginner", "casual", "pro")
WINDOW_MS = 500.0
"""The window of the server's test referee (``TrustingReferee``, as ``ArrivalReferee``)."""
MAX_FLIPS = 50_000


def timing() -> LiveTiming:
    """The served game's timings (a room of four with the default turn timer)."""
    return RoomTiming(start_delay_ms=0.0).live(CreateRoom(seats=4))


def table_of(i: int) -> tuple[str, str, tuple[str, ...], tuple[int, ...], int]:
    """Game ``i``: its game, preset, four bot levels, deck and bot seed."""
    game, preset = PRESETS[i % len(PRESETS)]
    levels = tuple(LEVELS[(i // len(PRESETS) + k) % len(LEVELS)] for k in range(4))
    if i % 7 == 3:
        levels = ("pro", "pro", "pro", "pro")  # equal bots: more exact ties, more reslap rounds
    return game, preset, levels, shuffled_deck(1000 + i), 77 + i


def names(levels: tuple[str, ...]) -> list[str]:
    return [bot_name(s, level) for s, level in enumerate(levels)]


def bots(levels: tuple[str, ...], bot_seed: int) -> list[Any]:
    """The bots a room makes for its first game (``seat_bot_seed(…, game_no=1)``)."""
    return [make_bot(level, seat_bot_seed(bot_seed, s, 1)) for s, level in enumerate(levels)]


def canonical(record: dict[str, Any]) -> str:
    """A record's JSON without its ``meta`` (each host notes itself there)."""
    return json.dumps({k: v for k, v in record.items() if k != "meta"}, sort_keys=True)


def simulated(i: int) -> dict[str, Any]:
    game, preset, levels, deck, bot_seed = table_of(i)
    rules = Rules.from_options({"preset": preset}, game=game)
    result = play_game(
        rules,
        bots(levels, bot_seed),
        deck,
        names=names(levels),
        window_ms=WINDOW_MS,
        timing=timing(),
        keep_record=True,
        cap=MAX_FLIPS,
    )
    assert result.finished and result.record is not None
    return result.record.to_dict()


def in_terminal(i: int) -> dict[str, Any]:
    game, preset, levels, deck, bot_seed = table_of(i)
    rules = Rules.from_options({"preset": preset}, game=game)
    seats = tuple(SeatSpec(name, level) for name, level in zip(names(levels), levels, strict=True))
    clock = ManualClock()
    controller = GameController(
        GameConfig(rules=rules, seats=seats, deck=deck),
        clock,
        bots=dict(enumerate(bots(levels, bot_seed))),
        live_timing=timing(),
        referee=LocalReferee(WINDOW_MS),
    )
    controller.start()
    for _ in range(20 * MAX_FLIPS):
        if controller.game.over:
            break
        if not controller.state.shown:
            controller.shown(controller.cue)  # on screen the moment it is turned
            continue
        due = clock.next_due()
        assert due is not None, "the terminal game hangs"
        clock.advance(due - clock.now())
    assert controller.game.over
    return controller.table.record.to_dict()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, HandClock]]:
    clock = HandClock()
    server = start_server(None, Path(tmp_path_factory.mktemp("hosts")), clock=clock)
    yield server, clock
    server.stop()


async def in_room(server: LiveServer, clock: HandClock, i: int) -> dict[str, Any]:
    game, preset, levels, deck, bot_seed = table_of(i)
    create = {
        "game": game,
        "rules": {"preset": preset},
        "seats": 4,
        "bots": {str(s): level for s, level in enumerate(levels)},
        "public": False,
    }
    body = {
        "create": create,
        "deck": [card_name(c) for c in deck],
        "bot_seed": bot_seed,
        "timing": {"start_delay_ms": 0.0},
        "referee": "trusting",
    }
    clock.now_ms = 0.0  # each game starts at 0 on the clock, as in the other hosts
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        made = await http.post("/api/test/rooms", json=body)
        assert made.status_code == 200, made.text
        code = made.json()["code"]
        watcher = await Client(server.ws_url, code).connect()  # a spectator starts the game
        try:
            ran = await http.post(f"/api/test/rooms/{code}/run")
            assert ran.status_code == 200, ran.text
            assert ran.json()["status"] == "over"
            record = (await http.get(f"/api/games/{ran.json()['game_id']}")).json()
            final = spectate_final(record)
            await watcher.wait(lambda c: c.view is not None and c.view["over"])
            assert {k: v for k, v in watcher.view.items() if k != "flip_id"} == final
        finally:
            await watcher.close()
    return record


def spectate_final(record: dict[str, Any]) -> dict[str, Any]:
    return spectate(replay(Record.from_dict(record)).game).to_dict()


def test_the_three_hosts_play_the_same_game(served: tuple[LiveServer, HandClock]) -> None:
    server, clock = served
    games = range(GAMES_PER_PRESET * len(PRESETS))

    async def all_rooms() -> list[dict[str, Any]]:
        return [await in_room(server, clock, i) for i in games]

    rooms = asyncio.run(all_rooms())
    differ = []
    for i, room in zip(games, rooms, strict=True):
        sim, tui = canonical(simulated(i)), canonical(in_terminal(i))
        if not sim == canonical(room) == tui:
            differ.append(i)
    assert not differ, f"games {differ[:10]} differ between the hosts"
    # the games covered what makes live play live: races, reslap rounds, penalties
    events = Counter(type(e).__name__ for r in rooms for e in replay(Record.from_dict(r)).events)
    for kind in ("RaceWon", "RaceTied", "WrongSlap", "PickedUp", "Forfeit"):
        assert events[kind] > 0, f"no {kind} in {len(rooms)} games"
