"""The server's frame builders against the models: the fast update frame is
the model's frame, and the very text the room built before (as JSON values)."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.driver import random_action
from core.util import names
from slapjack.core import Rules, SlapjackError, Table, event_to_dict, observe, parse_card
from slapjack.core.events import (
    EVENT_TYPES,
    Eliminated,
    Finished,
    Flipped,
    Forfeit,
    GameOver,
    NoSlap,
    PickedUp,
    PileReturned,
    PileSplit,
    RaceTied,
    RaceWon,
    Slapped,
    TimeIsUp,
    WrongSlap,
)
from slapjack.protocol import (
    SERVER_MESSAGE,
    ErrorFrame,
    Ping,
    RoomInfo,
    SeatInfo,
    Update,
    Welcome,
    dumps,
    error_frame,
    event_dict,
    events_json,
    ping_frame,
    seat_view,
    update_body,
    update_frame,
    view_json,
    view_parts,
    welcome_frame,
)

PRESETS = ["classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"]


def random_steps(
    table: Table, rng: random.Random, steps: int, illegal: float
) -> Iterator[list[Any]]:
    """Up to ``steps`` random actions on ``table`` (a share ``illegal`` of them
    refused), until its game is over: the events of each (none when refused)."""
    for _ in range(steps):
        game = table.game
        if game.over:
            return
        action = random_action(game, rng, game.t + rng.choice((0, 5, 300)), illegal)
        events: list[Any] = []
        with contextlib.suppress(SlapjackError):
            events = (
                table.settle(final=action[1]) if isinstance(action, tuple) else table.apply(action)
            )
        yield events


def status(n: int) -> dict[str, Any]:
    return {
        "code": "K7Q2PX",
        "status": "playing",
        "game_no": 2,
        "now": 81234.5,
        "timers": {
            "start": None,
            "turn": 86234.5,
            "race": None,
            "deadlock": None,
            "time_limit": None,
            "resume": None,
        },
        "grace": {"1": 95000.0},
        "names": names(n),
        "connected": [True] * n,
        "bots": {"1": "casual"},
        "covered": [1],
        "rematch": [],
        "spectators": 1,
        "game_id": None,
    }


def old_frame(
    seq: int, events: list[Any], view: dict[str, Any] | None, room: dict[str, Any]
) -> str:
    """The update frame as room.py built it before slapjack.protocol (941c423)."""

    def _dumps(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    view_text = _dumps(view) if view is not None else "null"
    body = f',"events":{_dumps(events)},"view":{view_text},"room":{_dumps(room)}}}'
    return f'{{"type":"update","seq":{seq}{body}'


@settings(max_examples=20, deadline=None)
@given(preset=st.sampled_from(PRESETS), n=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_one_view_encoding_serves_every_seat(preset: str, n: int, seed: int) -> None:
    """The view a room encodes once per change, with each seat's number put
    in, is byte for byte that seat's own view encoded (so no seat can ever
    see what another's view would hold that its own does not)."""
    rules = Rules.from_options({"preset": preset})
    rng = random.Random(seed)
    table = Table.new(rules, names(n), seed=seed)
    for _ in [None, *random_steps(table, rng, 150, 0.02)]:
        game = table.game
        parts = view_parts(observe(game, None), game.flips)
        for seat in [None, *range(n)]:
            assert seat_view(parts, seat) == view_json(observe(game, seat), game.flips)


@settings(max_examples=20, deadline=None)
@given(preset=st.sampled_from(PRESETS), n=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_the_fast_update_frame_is_the_models_frame(preset: str, n: int, seed: int) -> None:
    rules = Rules.from_options({"preset": preset})
    rng = random.Random(seed)
    table = Table.new(rules, names(n), seed=seed)
    room = status(n)
    room_json = dumps(room)
    seq = 0
    for events in random_steps(table, rng, 150, 0.02):
        game = table.game
        shared = events_json(events)
        for seat in (None, rng.randrange(n)):
            seq += 1
            view = observe(game, seat)
            text = update_frame(seq, update_body(shared, view_json(view, game.flips), room_json))
            msg = SERVER_MESSAGE.validate_json(text)
            assert isinstance(msg, Update) and msg.seq == seq
            assert msg.model_dump_json() == text  # byte for byte the model's own encoding
            assert msg.view is not None and msg.view.to_view() == view
            assert [e.to_event(n) for e in msg.events] == events
            old = old_frame(
                seq,
                [event_to_dict(e) for e in events],
                {**view.to_dict(), "flip_id": game.flips},
                room,
            )
            assert json.loads(old) == json.loads(text)


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(PRESETS), n=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_the_events_are_event_to_dicts_text(preset: str, n: int, seed: int) -> None:
    """``events_json`` reads each event by its class's plan, not through
    ``event_to_dict``: the same text, through whole games of every preset."""
    rules = Rules.from_options({"preset": preset})
    rng = random.Random(seed)
    table = Table.new(rules, names(n), seed=seed)
    seen: set[type] = set()
    for events in random_steps(table, rng, 300, 0.05):
        seen.update(type(e) for e in events)
        assert events_json(events) == dumps([event_to_dict(e) for e in events])
    assert seen  # (something happened)


def test_every_event_class_has_a_plan_that_writes_what_event_to_dict_writes() -> None:
    samples: list[Any] = [
        Flipped(seat=1, card=parse_card("JS")),
        Flipped(seat=0, card=parse_card("10H"), call=12, match=True),
        Flipped(seat=0, card=0, call=0),
        Slapped(seat=2, reaction_ms=301.25, call=True),
        WrongSlap(seat=1, penalty="pay_player", to=3),
        WrongSlap(seat=1, penalty="none"),
        RaceWon(winner=2, cards=12, reactions=((2, 301.5), (0, 340.0))),
        RaceTied(seats=(0, 3), reaction_ms=250.0),
        PileSplit(shares=((0, 3), (1, 2))),
        Forfeit(seat=1, shares=((0, 3), (2, 2)), reactions=((1, 400.0),)),
        NoSlap(card=51),
        PickedUp(seat=0, cards=7, reason="wrong", reactions=((0, None), (1, 12.5))),
        PileReturned(seat=3, cards=2),
        Eliminated(seat=2, reason="no_cards"),
        Finished(seat=1),
        TimeIsUp(),
        GameOver(winners=(0, 2), loser=1),
        GameOver(winners=()),
    ]
    assert {type(e) for e in samples} == set(EVENT_TYPES.values())
    for event in samples:
        assert event_dict(event) == event_to_dict(event)
        assert events_json([event]) == dumps([event_to_dict(event)])


def test_the_waiting_room_update_has_no_view() -> None:
    text = update_frame(1, update_body(events_json([]), "null", dumps(status(3))))
    msg = SERVER_MESSAGE.validate_json(text)
    assert isinstance(msg, Update) and msg.view is None and msg.events == []
    assert msg.model_dump_json() == text


def test_welcome_ping_and_error_frames_are_their_models() -> None:
    info = RoomInfo(
        code="K7Q2PX",
        name="Friday table",
        game="slapjack",
        preset="classic",
        rules={"preset": "classic"},
        tempo="turn_timer",
        turn_seconds=5.0,
        time_limit=0,
        public=True,
        status="waiting",
        seats=[SeatInfo(seat=0, name="Änna", bot=None, connected=True)],
        free_seats=1,
        spectators=0,
        url="/r/K7Q2PX",
        game_no=0,
    )
    for frame, model in [
        (welcome_frame(info, 0, "Änna", "h1"), Welcome(room=info, seat=0, name="Änna", id="h1")),
        (welcome_frame(info, None, None), Welcome(room=info, seat=None, name=None)),
        (ping_frame(7, 81002.125), Ping(id=7, server_time=81002.125)),
        (error_frame("stale_flip", "flip_id 0 is stale (now 1)", 9), None),
    ]:
        msg = SERVER_MESSAGE.validate_json(frame)
        assert msg.model_dump_json() == frame
        if model is not None:
            assert msg == model
    assert "Änna" in welcome_frame(info, 0, "Änna")  # UTF-8 as it is, no \\u escapes
    closing = error_frame("room_closed", "room closed", with_id=False)
    assert json.loads(closing) == {"type": "error", "code": "room_closed", "message": "room closed"}
    assert isinstance(SERVER_MESSAGE.validate_json(closing), ErrorFrame)


def test_dumps_is_compact_utf8_and_takes_what_orjson_refuses() -> None:
    assert dumps({"name": "Jörg", "n": [1, 2.5, None, True]}) == (
        '{"name":"Jörg","n":[1,2.5,null,true]}'
    )
    assert dumps({"big": 2**70}) == '{"big":1180591620717411303424}'  # beyond orjson's 64 bits
    assert dumps(SeatInfo(seat=1, name="A", bot=None, connected=True)) == (
        SeatInfo(seat=1, name="A", bot=None, connected=True).model_dump_json()
    )
    assert dumps({"x": float("nan")}) == '{"x":null}'
