"""The terminal game as an online client: a real ``slapjack serve`` app on a
loopback port, real WebSockets, the real Textual app driven by Pilot."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from server.conftest import Client, LiveServer, join, make_room, start_server
from slapjack.core import FULL_DECK, Rules, Table, card_name, event_to_dict, observe, parse_card
from slapjack.core.events import (
    Flipped,
    GameOver,
    PickedUp,
    PileSplit,
    RaceTied,
    RaceWon,
    Slapped,
    WrongSlap,
)
from slapjack.tui.i18n import tr
from slapjack.tui.online import (
    FrameError,
    OnlineClient,
    OnlineError,
    Seat,
    SeatStore,
    Target,
    event_from_dict,
    join_room,
    monotonic_ms,
    parse_target,
    view_from_dict,
)
from slapjack.tui.online_app import OnlineApp
from slapjack.tui.remote import RemoteGame
from slapjack.tui.render import reactions_text

from .util import screen_text

pytestmark = pytest.mark.timeout(90)

JACK_FIRST = ["JS", *(card_name(c) for c in FULL_DECK if c != parse_card("JS"))]
"""Seat 0 flips the Jack of spades first."""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(None, tmp_path_factory.mktemp("online"))
    yield server
    server.stop()


async def until(pred: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or pred}")
        await asyncio.sleep(0.01)


def synced(room: Any, seat: int) -> int:
    """How many clock-sync samples the room's fair referee has for ``seat``."""
    timing = room.referee.seats.get(seat)
    return len(timing.sync.samples) if timing is not None else 0


def fair_room(live: LiveServer, code: str) -> Any:
    room = live.app.state.lobby.get(code)
    assert room is not None
    return room


@contextlib.asynccontextmanager
async def online(
    target: Target, token: str, seat: int
) -> AsyncIterator[tuple[RemoteGame, OnlineClient]]:
    game = RemoteGame(code=target.code, seat=seat)
    client = OnlineClient(target, token, game)
    game.send = client.send
    task = asyncio.create_task(client.run())
    try:
        yield game, client
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(task, 5)


async def slow_slapper(ben: Client, reaction_ms: float) -> None:
    """Ben slaps every Jack ``reaction_ms`` after its update arrived (honestly)."""

    async def on_update(client: Client, frame: dict[str, Any]) -> None:
        view = frame["view"]
        if not view or not view["race_open"] or not view["centre_top"]:
            return
        if not any(e["type"] == "flipped" for e in frame["events"]):
            return
        shown = monotonic_ms()

        async def later() -> None:
            await asyncio.sleep(reaction_ms / 1000)
            now = monotonic_ms()
            with contextlib.suppress(websockets.ConnectionClosed):
                await client.act(
                    "slap",
                    flip_id=view["flip_id"],
                    reaction_ms=round(now - shown, 2),
                    shown_at=shown,
                    input_at=now,
                    call=False,
                )

        asyncio.get_running_loop().create_task(later())

    ben.on_update = on_update


# --------------------------------------------------------------- no network


def test_targets_from_a_code_or_an_invite_link() -> None:
    assert parse_target("k7q2px", "http://example.test:9000") == Target(
        "http://example.test:9000", "K7Q2PX"
    )
    assert parse_target("K7Q2PX") == Target("http://127.0.0.1:8000", "K7Q2PX")
    link = parse_target("http://game.test:8000/r/AB12CD", "http://ignored:1")
    assert link == Target("http://game.test:8000", "AB12CD")
    assert link.ws_url == "ws://game.test:8000/ws/AB12CD"
    assert parse_target("https://games.test/r/XY7/").ws_url == "wss://games.test/ws/XY7"
    assert parse_target("localhost:8000/r/QQ").server == "http://localhost:8000"
    assert parse_target("AB", "localhost:8001").server == "http://localhost:8001"
    for bad in ("", "no spaces", "http://host/rooms/AB", "AB/CD"):
        with pytest.raises(OnlineError):
            parse_target(bad)


def test_views_and_events_come_back_as_the_engine_wrote_them() -> None:
    rules = Rules.from_options({"preset": "irish-snap"})
    cards = tuple(parse_card(n) for n in JACK_FIRST)
    table = Table.new(rules, ("Anna", "Ben", "Carla"), deck=cards)
    from slapjack.core import Flip

    for i in range(5):
        table.apply(Flip(i % 3, i))
        view = observe(table.game, 1)
        data = json.loads(json.dumps({**view.to_dict(), "flip_id": view.flips}))
        assert view_from_dict(data) == view
    events = [
        Flipped(0, parse_card("10H"), 3, True),
        Slapped(1, 5062.0, True),
        WrongSlap(2, "pay_player", 0),
        RaceWon(1, 7, ((1, 212.0), (0, 5080.0))),
        RaceTied((0, 2), 250.0),
        PileSplit(((0, 3), (2, 4)), ((0, 250.0), (2, 250.0))),
        PickedUp(2, 9, "last", ((0, 300.0), (2, None))),
        GameOver((0, 1), 2),
    ]
    for event in events:
        assert event_from_dict(json.loads(json.dumps(event_to_dict(event))), 3) == event
    assert event_from_dict({"type": "a_new_kind_of_event"}, 3) is None
    with pytest.raises(FrameError):
        event_from_dict({"type": "race_won", "winner": 7, "cards": 1, "reactions": []}, 3)
    with pytest.raises(FrameError):
        view_from_dict({"rules": {"preset": "classic"}, "players": ["A"]})


def test_a_false_start_in_a_race_result_is_shown_as_a_guess() -> None:
    text = reactions_text(((1, 212.0), (0, 5062.0)), ("Anna", "Ben"), "en").plain.replace(
        "\xa0", " "
    )
    assert text == "Ben 212 ms · Anna 62 ms (guess)"
    assert "62 ms (geraten)" in reactions_text(((0, 5062.0),), ("Anna",), "de").plain.replace(
        "\xa0", " "
    )


# ------------------------------------------------------------ real server


async def test_joins_answers_pings_flips_and_wins_a_jack_against_a_slower_hand(
    live: LiveServer,
) -> None:
    code = await make_room(
        live, seats=2, deck=JACK_FIRST, referee="fair", timing={"jack_timeout_ms": 10000.0}
    )
    target = parse_target(code, live.url)
    seat = await join_room(target, "Anna")
    assert seat.seat == 0 and seat.name == "Anna"
    room = fair_room(live, code)
    async with online(target, seat.token, seat.seat) as (game, client):
        await until(lambda: game.welcomed, what="welcome")
        ben_seat = await join(live, code, "Ben")
        ben = await Client(live.ws_url, code, ben_seat["token"]).connect()
        await slow_slapper(ben, 350.0)
        try:
            await until(lambda: game.view is not None and game.view.turn == 0, what="the deal")
            # the fair referee syncs with our clock: every ping answered at once
            await until(lambda: synced(room, 0) >= 3, what="clock sync")
            assert client.pongs >= 3
            samples = list(room.referee.seats[0].sync.samples)
            assert all(s.rtt < 500 for s in samples)
            assert game.seats()[0].slap_key == "a" and game.seats()[1].name == "Ben"

            assert game.flip()
            assert client.sent[-1] == {"type": "flip", "token": seat.token, "flip_id": 0}
            await until(lambda: game.view is not None and game.view.flips == 1, what="the Jack")
            assert game.view is not None and game.view.top == parse_card("JS")
            assert game.state is not None and not game.state.shown
            assert game.slap(monotonic_ms()) is None  # not on screen yet: nothing to slap
            game.shown(game.cue)  # what the screen does after the refresh that draws it
            assert game.state.shown and game.shown_at is not None
            await asyncio.sleep(0.2)
            fields = game.slap(monotonic_ms())
            assert fields is not None
            assert fields["reaction_ms"] == pytest.approx(
                fields["input_at"] - fields["shown_at"], abs=0.01
            )
            assert 190 <= fields["reaction_ms"] < 1000
            assert client.sent[-1] == {"type": "slap", "token": seat.token, **fields}
            assert game.slap(monotonic_ms()) is None  # only the first slap counts

            def won() -> bool:
                return any(isinstance(e, RaceWon) for e in game.log)

            await until(won, what="the race result")
            race = next(e for e in game.log if isinstance(e, RaceWon))
            assert race.winner == 0
            assert race.reactions[0][0] == 0
            # the referee ranked our honest claim as it was (1 ms resolution; a
            # stalled machine may raise it by a few ms)
            assert fields["reaction_ms"] - 1 <= race.reactions[0][1] <= fields["reaction_ms"] + 100
            assert [s for s, _ in race.reactions] == [0, 1]  # Ben slapped, slower
            assert game.state is not None and game.state.reactions == race.reactions
            detail = next(d for d in room.referee.details if d.seat == 0)
            assert detail.claimed == pytest.approx(fields["reaction_ms"], abs=0.01)

            # a typed error frame from the server is shown, play goes on
            client.send("flip", flip_id=99)
            await until(
                lambda: game.notice is not None and game.notice.key.startswith(("error.", "srv."))
            )
            assert game.notice is not None and game.notice.bad
            assert game.connection == "open"
        finally:
            await ben.close()


async def test_say_it_the_call_key_sends_the_call_and_the_slap_carries_it(
    live: LiveServer,
) -> None:
    code = await make_room(
        live, seats=2, preset="say-it", deck=JACK_FIRST, timing={"jack_timeout_ms": 10000.0}
    )
    target = parse_target(code, live.url)
    seat = await join_room(target, "Anna")
    async with online(target, seat.token, seat.seat) as (game, client):
        ben_seat = await join(live, code, "Ben")
        ben = await Client(live.ws_url, code, ben_seat["token"]).connect()
        try:
            await until(lambda: game.view is not None and game.view.turn == 0, what="the deal")
            assert game.say_it
            assert not game.call()  # no card yet
            assert game.flip()
            await until(lambda: game.view is not None and game.view.race_open, what="the Jack")
            game.shown(game.cue)
            assert game.call()
            assert client.sent[-1] == {"type": "call", "token": seat.token, "flip_id": 1}
            assert not game.call()  # one call per card
            await asyncio.sleep(0.15)
            fields = game.slap(monotonic_ms())
            assert fields is not None and fields["call"] is True
            await until(lambda: any(isinstance(e, RaceWon) for e in game.log), what="the race")
            slapped = next(e for e in game.log if isinstance(e, Slapped))
            assert slapped.seat == 0 and slapped.call
            assert next(e for e in game.log if isinstance(e, RaceWon)).winner == 0
        finally:
            await ben.close()


async def test_reconnects_with_its_token_after_the_connection_drops(live: LiveServer) -> None:
    code = await make_room(live, seats=2, deck=JACK_FIRST, referee="fair")
    target = parse_target(code, live.url)
    seat = await join_room(target, "Anna")
    async with online(target, seat.token, seat.seat) as (game, client):
        await until(lambda: game.welcomed and client.connected, what="welcome")
        statuses: list[str] = []
        on_status = game.on_status

        def spy(status: str, detail: Any) -> None:
            statuses.append(status)
            on_status(status, detail)

        game.on_status = spy  # type: ignore[method-assign]
        await client._ws.close(1011, "test: drop")  # the network fails
        await until(lambda: "closed" in statuses, what="the drop")
        await until(lambda: client.connected and game.connection == "open", what="reconnect")
        assert game.seat == 0 and not client.gone
        notes = [getattr(n, "key", "") for n in game.log]
        assert notes.count("online.lost") == 1 and notes[-1] == "online.back"


async def test_a_bad_token_is_final_and_said_so(live: LiveServer) -> None:
    code = await make_room(live, seats=2, deck=JACK_FIRST)
    target = parse_target(code, live.url)
    async with online(target, "not-a-token", 0) as (game, client):
        await until(lambda: client.gone, what="the final close")
        assert game.notice is not None and game.notice.key == "online.gone_token"
        assert game.connection == "gone"


async def test_joining_a_full_room_or_no_room_is_an_error_in_words(live: LiveServer) -> None:
    code = await make_room(live, seats=2, deck=JACK_FIRST)
    target = parse_target(code, live.url)
    await join_room(target, "Anna")
    await join_room(target, "Ben")
    with pytest.raises(OnlineError) as full:
        await join_room(target, "Carla")
    assert full.value.code == "room_full"
    with pytest.raises(OnlineError) as missing:
        await join_room(parse_target("NOROOM", live.url), "Carla")
    assert missing.value.code == "unknown_room"


# -------------------------------------------------------------- the app


async def wait_app(
    pilot: Any, pred: Callable[[], bool], timeout: float = 10.0, what: str = ""
) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}:\n{screen_text(pilot.app)}")
        await pilot.pause(0.02)


async def test_the_app_slaps_with_its_key_and_shows_the_reaction(live: LiveServer) -> None:
    code = await make_room(
        live, seats=2, deck=JACK_FIRST, referee="fair", timing={"jack_timeout_ms": 10000.0}
    )
    app = OnlineApp(parse_target(f"{live.url}/r/{code}"), name="Anna", lang="en", tick_s=0.05)
    async with app.run_test(size=(100, 30)) as pilot:
        game = app.game
        waiting = "Waiting for players: 1 of 2 seats taken"
        await wait_app(pilot, lambda: waiting in screen_text(app), what="the waiting room")
        ben_seat = await join(live, code, "Ben")
        ben = await Client(live.ws_url, code, ben_seat["token"]).connect()
        try:
            await wait_app(pilot, lambda: game.view is not None and game.view.turn == 0)
            await wait_app(pilot, lambda: "your turn" in screen_text(app), what="our turn")
            await pilot.press("space")
            await wait_app(
                pilot,
                lambda: game.state is not None and game.state.view.flips == 1 and game.state.shown,
                what="the Jack on screen",
            )
            assert "Jack of spades" in screen_text(app)
            await asyncio.sleep(0.15)
            await pilot.press("a")
            assert app.client is not None
            slap = app.client.sent[-1]
            assert slap["type"] == "slap" and slap["flip_id"] == 1
            assert slap["reaction_ms"] == pytest.approx(
                slap["input_at"] - slap["shown_at"], abs=0.01
            )
            assert slap["reaction_ms"] >= 150
            await wait_app(
                pilot,
                lambda: any(isinstance(e, RaceWon) for e in game.log),
                what="the race result",
            )
            race = next(e for e in game.log if isinstance(e, RaceWon))
            shown = f"Anna {race.reactions[0][1]:.0f} ms"  # the result panel's reaction times
            await wait_app(pilot, lambda: shown in screen_text(app), what="the reaction time")
            assert "Anna wins the Jack and takes 1 card" in screen_text(app)
        finally:
            await ben.close()


async def test_the_app_says_why_it_cannot_join_and_can_watch_instead(live: LiveServer) -> None:
    app = OnlineApp(parse_target("NOROOM", live.url), name="Anna", lang="de", tick_s=0.05)
    async with app.run_test(size=(100, 30)) as pilot:
        text = "Beitritt fehlgeschlagen: Einen Raum mit diesem Code gibt es nicht. · Esc beendet"
        await wait_app(pilot, lambda: text in screen_text(app), what="the refusal")
        await pilot.press("escape")
        await wait_app(pilot, lambda: not app.is_running, what="Esc")
    code = await make_room(live, seats=2, deck=JACK_FIRST)
    watcher = OnlineApp(parse_target(code, live.url), lang="en", tick_s=0.05)
    async with watcher.run_test(size=(100, 30)) as pilot:
        waiting = "Waiting for players: 0 of 2 seats taken"
        await wait_app(pilot, lambda: waiting in screen_text(watcher), what="the waiting room")
        assert watcher.game.welcomed and watcher.game.seat is None
        text = screen_text(watcher)
        assert "Enter" not in text  # a spectator cannot start the room
        await pilot.press("space", "a", "enter")
        assert watcher.client is not None and not watcher.client.sent


def test_the_seat_store_keeps_seats_by_server_room_and_name(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "state" / "seats.json")
    room = Target("http://h.test:8000", "AB12")
    other = Target("http://h.test:9000", "AB12")
    assert store.get(room) is None  # no file yet
    store.save(room, Seat("AB12", 2, "tok", "Anna 2"), asked="Anna")
    assert store.get(room) == Seat("AB12", 2, "tok", "Anna 2")
    assert store.get(room, "Anna") == store.get(room, "Anna 2") == store.get(room)
    assert store.get(room, "Ben") is None and store.get(other) is None
    assert (store.path.stat().st_mode & 0o777) == 0o600  # a token is a secret
    data = json.loads(store.path.read_text())
    data[f"{room.server} {room.code}"]["at"] -= 8 * 86400
    store.path.write_text(json.dumps(data))
    assert store.get(room) is None  # too old
    store.save(other, Seat("AB12", 0, "t2", "Ben"))
    assert list(json.loads(store.path.read_text())) == [f"{other.server} {other.code}"]
    store.forget(other)
    assert store.get(other) is None
    store.path.write_text("{broken")
    assert store.get(other) is None
    store.save(other, Seat("AB12", 0, "t3", "Ben"))
    assert store.get(other, "Ben") is not None


async def test_the_app_takes_its_saved_seat_back_or_a_new_one(
    live: LiveServer, tmp_path: Path
) -> None:
    code = await make_room(live, seats=3, deck=JACK_FIRST)
    target = parse_target(code, live.url)
    store = SeatStore(tmp_path / "seats.json")
    first = OnlineApp(target, name="Anna", lang="en", tick_s=0.05, seats=store)
    async with first.run_test(size=(100, 30)) as pilot:
        await wait_app(pilot, lambda: first.game.welcomed, what="welcome")
        token = first.token
        # the way back names the server too: a bare code would go to the default one
        hint = next(n for n in first.game.log if getattr(n, "key", "") == "online.token_hint")
        assert dict(hint.values) == {"code": target.invite, "token": token}  # type: ignore[union-attr]
    saved = store.get(target, "Anna")
    assert saved is not None and saved.seat == 0 and saved.token == token
    again = OnlineApp(target, name="Anna", lang="en", tick_s=0.05, seats=store)
    async with again.run_test(size=(100, 30)) as pilot:
        waiting = "Waiting for players: 1 of 3 seats taken"
        await wait_app(pilot, lambda: waiting in screen_text(again), what="welcome again")
        assert again.game.seat == 0 and again.token == token
    # a saved token the room does not know: forgotten, and a new seat taken
    store.save(target, Seat(code, 0, "stale-token", "Ben"))
    ben = OnlineApp(target, name="Ben", lang="en", tick_s=0.05, seats=store)
    async with ben.run_test(size=(100, 30)) as pilot:
        await wait_app(pilot, lambda: ben.game.welcomed, timeout=15, what="a new seat")
        assert ben.game.seat == 1 and ben.token != "stale-token"
        keys = [getattr(n, "key", "") for n in ben.game.log]
        assert "online.saved_gone" in keys
    renewed = store.get(target, "Ben")
    assert renewed is not None and renewed.seat == 1


async def test_the_app_shows_bad_frames_and_errors_and_keeps_going() -> None:
    """A server that sends what no slapjack server sends: the app shows it."""
    pongs: list[dict[str, Any]] = []
    done = asyncio.Event()

    async def handler(ws: Any) -> None:
        hello = json.loads(await ws.recv())
        assert hello["type"] == "hello" and hello["token"] == "tok"
        room = {"code": "ODD1", "status": "waiting", "game": "slapjack", "rules": {}, "seats": []}
        await ws.send(
            json.dumps({"type": "welcome", "v": 1, "room": room, "seat": 0, "name": "Anna"})
        )
        await ws.send(json.dumps({"type": "surprise", "what": 1}))
        odd_room = {"names": 5, "bots": [1], "timers": "x", "now": "y", "status": 7}
        await ws.send(json.dumps({"type": "update", "events": [], "view": None, "room": odd_room}))
        odd_info = {"seats": [1, "x", {"seat": "a", "bot": 3}], "rules": "bad", "status": 5}
        await ws.send(json.dumps({"type": "welcome", "room": odd_info, "seat": "0"}))
        await ws.send(json.dumps({"type": "welcome", "room": room, "seat": 0, "name": "Anna"}))
        await ws.send(json.dumps({"type": "update", "events": [{"type": "flipped"}], "view": None}))
        await ws.send(json.dumps([1, 2]))
        await ws.send("{not json")
        await ws.send(json.dumps({"type": "update", "seq": 1, "events": [], "view": {"rules": 5}}))
        await ws.send(json.dumps({"type": "ping", "id": 1, "server_time": 5.0}))
        pongs.append(json.loads(await ws.recv()))
        await ws.send(
            json.dumps({"type": "error", "code": "not_your_turn", "message": "not your turn"})
        )
        await done.wait()
        await ws.close(4004, "room closed")

    async with websockets.serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        target = Target(f"http://127.0.0.1:{port}", "ODD1")
        app = OnlineApp(target, token="tok", lang="en", tick_s=0.05)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_app(pilot, lambda: bool(pongs), what="the pong")
            assert pongs[0]["type"] == "pong" and pongs[0]["id"] == 1
            assert abs(pongs[0]["client_time"] - monotonic_ms()) < 5000
            await wait_app(
                pilot, lambda: "It is not your turn" in screen_text(app), what="the error"
            )
            bad = [n for n in app.game.log if getattr(n, "key", "") == "online.bad_frame"]
            whats = [dict(n.values)["what"] for n in bad]
            assert "unknown frame type 'surprise'" in whats
            assert "not JSON" in whats and "not an object" in whats
            assert any(w.startswith("view.") for w in whats)
            assert app.is_running
            done.set()
            await wait_app(
                pilot,
                lambda: "The room is closed or does not exist" in screen_text(app),
                what="the close",
            )
            assert app.is_running


async def test_german_texts_for_every_online_message() -> None:
    from slapjack.texts import words

    keys = [k for k in words("en") if k.startswith(("tui.online.", "tui.b.", "error."))]
    assert len(keys) > 30
    for key in keys:
        assert (words("de")[key] and words("de")[key] != words("en")[key]) or key.endswith(
            ("online.remote",)
        ), key
    assert tr("de", "error.not_your_turn") == "Du bist nicht an der Reihe."


def test_server_error_codes_match_the_protocol() -> None:
    from slapjack.tui.remote import KNOWN_ERRORS

    protocol = Path(__file__).parents[2] / "docs" / "protocol.md"
    text = protocol.read_text(encoding="utf-8")
    for code in KNOWN_ERRORS:
        assert f"`{code}`" in text, code


# ------------------------------------------------------------------ the command


def test_the_command_joins_first_then_starts_the_online_app(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--join`` checks the server and the room and takes the seat before the
    app opens (a real server on a loopback port); the seat is saved under
    XDG_STATE_HOME and the way back into it printed after the game."""
    from typer.testing import CliRunner

    from slapjack.cli import app as cli

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    started: list[OnlineApp] = []
    monkeypatch.setattr(OnlineApp, "run", lambda self, **kw: started.append(self))
    code = asyncio.run(make_room(live, seats=3))
    runner = CliRunner()
    ok = runner.invoke(cli, ["tui", "--join", f"{live.url}/r/{code.lower()}", "--name", "Zoe"])
    assert ok.exit_code == 0, ok.output
    app = started.pop()
    assert app.target == Target(live.url, code)
    assert app.joined is not None and app.joined.seat == 0 and app.joined.name == "Zoe"
    assert not app.joined_saved and app.player_name == "Zoe"
    saved = SeatStore(tmp_path / "state" / "slapjack" / "seats.json").get(app.target, "Zoe")
    assert saved == app.joined
    back = f"back into it: slapjack tui --join {live.url}/r/{code} --token {saved.token}"
    assert back in ok.stderr and "seats.json" in ok.stderr  # printed after the game
    # the same --join with the same name takes the saved seat, not a new one
    again = runner.invoke(cli, ["tui", "--join", code, "--server", live.url, "--name", "Zoe"])
    assert again.exit_code == 0, again.output
    app = started.pop()
    assert app.joined == saved and app.joined_saved
    ok = runner.invoke(cli, ["tui", "--join", code, "--server", live.url, "--token", "t0k"])
    assert ok.exit_code == 0, ok.output
    app = started.pop()
    assert app.target.server == live.url and app.token == "t0k" and app.joined is None
    assert app.player_name is None
    ok = runner.invoke(
        cli, ["tui", "--join", code, "--server", live.url, "--watch", "--lang", "de"]
    )
    assert ok.exit_code == 0, ok.output
    app = started.pop()
    assert app.token is None and app.player_name is None and app.lang == "de"
    for args, message in [
        (["--join", "a/b"], "not a room code or invite link"),
        (["--server", live.url], "need --join"),
        (["--join", code, "--watch", "--name", "Zoe"], "--watch takes no seat"),
        (["--join", code, "--name", "x" * 30], "1 to 24 characters"),
    ]:
        bad = runner.invoke(cli, ["tui", *args])
        assert bad.exit_code == 2, (args, bad.output)
        assert message in bad.output, (args, bad.output)
    assert not started


def test_the_command_refuses_before_the_app_opens(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No server, no such room, a full room: one line ``slapjack tui: …`` on
    stderr and exit status 2; the app never opens."""
    from typer.testing import CliRunner

    from server.conftest import free_port
    from slapjack.cli import app as cli

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    started: list[OnlineApp] = []
    monkeypatch.setattr(OnlineApp, "run", lambda self, **kw: started.append(self))
    code = asyncio.run(make_room(live, seats=2))
    asyncio.run(join(live, code, "Anna"))
    asyncio.run(join(live, code, "Ben"))
    nobody = f"http://127.0.0.1:{free_port()}"
    runner = CliRunner()
    cases = [
        (["--join", "K7Q2PX", "--server", nobody, "--name", "Zoe"], f"cannot reach {nobody}"),
        (["--join", "K7Q2PX", "--server", nobody, "--watch"], f"cannot reach {nobody}"),
        (["--join", "NOROOM", "--server", live.url, "--name", "Zoe"], "there is no room NOROOM"),
        (["--join", "NOROOM", "--server", live.url, "--token", "t"], "there is no room NOROOM"),
        (
            ["--join", code, "--server", live.url, "--name", "Zoe"],
            f"room {code} on {live.url} is full or its game has started; watch it with --watch",
        ),
    ]
    for args, message in cases:
        bad = runner.invoke(cli, ["tui", *args])
        assert bad.exit_code == 2, (args, bad.output)
        assert bad.stdout == "", args
        lines = bad.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("slapjack tui: "), (args, bad.stderr)
        assert message in lines[0], (args, lines[0])
    assert not started


async def test_a_frame_while_the_screen_closes_does_not_end_the_app(live: LiveServer) -> None:
    """The network worker redraws on every frame; once the table's widgets are
    gone (the app is closing), a redraw must do nothing, not raise."""
    code = await make_room(live, seats=2, referee="fair")
    app = OnlineApp(parse_target(f"{live.url}/r/{code}"), name="Anna", lang="en", tick_s=0.05)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_app(pilot, lambda: "Waiting for players" in screen_text(app), what="the lobby")
        screen = app.screen
        for selector in ("#lobby", "#main", "#seats"):
            for widget in screen.query(selector):
                await widget.remove()
        screen._shape = -1  # type: ignore[attr-defined]  # force the seats relayout path
        screen._on_change(app.game)  # type: ignore[attr-defined]
        await pilot.pause(0.05)
