"""Protocol benchmark: pydantic against msgspec on our real frames, and the
server's update-frame encoder against the string building it replaced.

    .venv/bin/python bench/protocol.py [--number 20000] [--repeat 7] [--json]

The frames are real: a classic game of four seats (Anna, Ben, Carla, Dora)
played until the first Jack, two slaps on it and the race settled. Its
``update`` carries those four events (``flipped``, ``slapped`` twice,
``race_won``), seat 0's view and the room status; the client frames are a
``slap`` as the browser sends it and a ``pong``.

Rows (microseconds per frame, the best of ``--repeat`` runs of ``--number``):

* **decode**: text to a validated model (the server's edge for ``slap`` and
  ``pong``; a client for ``update``), with pydantic (``slapjack.protocol``'s own
  models) and with msgspec (the same messages as ``msgspec.Struct`` types
  with the same constraints, defined below);
* **encode, from the model**: a model to text (pydantic's ``model_dump_json``,
  msgspec's ``json.encode``);
* **the room's fan-out**: what the server does for one change in a room with
  four seats and one spectator: the events and the room status encoded once,
  one view per seat (``observe`` and ``View.to_dict`` included, as in the
  room), five frames each with its own ``seq``. Three ways: the code this
  replaced (``json.dumps`` and string concatenation, from ``room.py`` at
  941c423), ``slapjack.protocol.encode`` (``pydantic_core.to_json``), and the
  same parts with ``msgspec.json.encode``; and the encoding alone (the views'
  dicts made beforehand).

msgspec is not a dependency of the project: without it the msgspec rows say
so (``pip install msgspec`` to compare). Runs pinned to one CPU where the OS
allows it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from slapjack.core import Event, Flip, Record, Rules, Settle, Slap, Table, event_to_dict, observe
from slapjack.core.game import Game
from slapjack.protocol import (
    CLIENT_MESSAGE,
    SERVER_MESSAGE,
    RoomStatus,
    Update,
    dumps,
    events_json,
    update_body,
    update_frame,
    view_json,
)

try:
    import msgspec
except ImportError:  # pragma: no cover - an optional comparison
    msgspec = None  # type: ignore[assignment]

PLAYERS = ("Anna", "Ben", "Carla", "Dora")
SLAP = (
    '{"v":1,"type":"slap","token":"q3Zx7Lk2Pq9Vw4Rt8Ys1Nb6Mc5Hd0Jf","flip_id":12,'
    '"reaction_ms":231.52,"shown_at":6010.216,"input_at":6241.736,"call":false}'
)
PONG = '{"v":1,"type":"pong","id":17,"client_time":51234.125}'


def pin_to_one_core() -> str:
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return "not pinned"


# ------------------------------------------------------------------ the frames


def jack_race() -> tuple[Game, list[Event]]:
    """A classic game of four seats up to its first Jack, two slaps, the race settled."""
    table = Table(Record.new(Rules.from_options({"preset": "classic"}), PLAYERS, seed=3))
    game = table.game
    t = 0
    while True:
        t += 900
        assert game.turn is not None
        events = table.apply(Flip(game.turn, t))
        if game.race_open:
            events += table.apply(Slap(1, 231.52, False, t + 240))
            events += table.apply(Slap(2, 260.0, False, t + 270))
            events += table.apply(Settle(True, t + 700))
            return game, events


def room_status(game: Game) -> dict[str, Any]:
    """The room status of the update, in the shape ``Room.status_dict`` gives."""
    status = {
        "code": "K7Q2PX",
        "status": "playing",
        "game_no": 1,
        "now": 81234.5,
        "timers": {
            "start": None,
            "turn": 86234.5,
            "race": None,
            "deadlock": None,
            "time_limit": None,
        },
        "grace": {},
        "names": list(game.players),
        "connected": [True, True, True, True],
        "bots": {},
        "covered": [],
        "rematch": [],
        "spectators": 1,
        "game_id": None,
    }
    RoomStatus.model_validate_json(json.dumps(status))  # the real shape
    return status


# ------------------------------------------------------------------ msgspec mirror


if msgspec is not None:
    # The client frames and the server frames as msgspec types with the
    # constraints of slapjack.protocol (module level: msgspec resolves the
    # annotations in the module's namespace).
    m = msgspec
    Token = Annotated[str, m.Meta(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]
    FlipId = Annotated[int, m.Meta(ge=0, le=1_000_000)]
    Stamp = Annotated[float, m.Meta(ge=-1e15, le=1e15)]
    FrameId = (
        Annotated[int, m.Meta(ge=0, le=2**31 - 1)]
        | Annotated[str, m.Meta(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9._:-]+$")]
        | None
    )
    Seat = Annotated[int, m.Meta(ge=0, lt=10)]
    Count = Annotated[int, m.Meta(ge=0)]
    Card = Annotated[str, m.Meta(pattern=r"^(A|[2-9]|10|J|Q|K)[CDHS]$")]
    Rank = Annotated[str, m.Meta(pattern=r"^(A|[2-9]|10|J|Q|K)$")]
    SeatKey = Annotated[str, m.Meta(pattern=r"^[0-9]$")]
    Level = Literal["beginner", "casual", "pro", "matched", "perfect"]

    class MsBase(m.Struct, forbid_unknown_fields=True, frozen=True, tag_field="type"):
        pass

    class MsSlapMsg(MsBase, tag="slap"):
        v: Literal[1]
        token: Token
        flip_id: FlipId
        reaction_ms: Annotated[float, m.Meta(ge=0, le=600_000)]
        shown_at: Stamp | None = None
        input_at: Stamp | None = None
        call: bool = False
        id: FrameId = None

    class MsFlipMsg(MsBase, tag="flip"):
        v: Literal[1]
        token: Token
        flip_id: FlipId
        id: FrameId = None

    class MsPong(MsBase, tag="pong"):
        v: Literal[1]
        id: Annotated[int, m.Meta(ge=0, le=2**53)]
        client_time: Stamp

    class MsFlipped(MsBase, tag="flipped"):
        seat: Seat
        card: Card
        call: Rank | None
        match: bool

    class MsSlapped(MsBase, tag="slapped"):
        seat: Seat
        reaction_ms: float
        call: bool

    class MsRaceWon(MsBase, tag="race_won"):
        winner: Seat
        cards: Count
        reactions: list[tuple[Seat, float]]

    class MsRaceTied(MsBase, tag="race_tied"):
        seats: list[Seat]
        reaction_ms: float

    class MsViewFrame(m.Struct, forbid_unknown_fields=True, frozen=True):
        game: Literal["slapjack", "irish-snap"]
        rules: dict[str, str | int | bool]
        players: list[str]
        seat: Seat | None
        stacks: list[Count]
        out: list[bool]
        out_order: list[Seat]
        turn: Seat | None
        centre_size: Count
        centre_face_down: Count
        centre_top: Annotated[list[Card], m.Meta(max_length=5)]
        top_call: Rank | None
        next_call: Rank | None
        race_open: bool
        reslap_among: list[Seat] | None
        slapped: list[Seat]
        last_flipper: Seat | None
        over: bool
        winners: list[Seat]
        loser: Seat | None
        flips: Count
        version: Count
        flip_id: Count

    class MsTimers(m.Struct, forbid_unknown_fields=True, frozen=True):
        start: float | None
        turn: float | None
        race: float | None
        deadlock: float | None
        time_limit: float | None

    class MsStatus(m.Struct, forbid_unknown_fields=True, frozen=True):
        code: str
        status: Literal["waiting", "playing", "over", "closed"]
        game_no: Count
        now: float
        timers: MsTimers
        grace: dict[SeatKey, float]
        names: list[str | None]
        connected: list[bool]
        bots: dict[SeatKey, Level]
        covered: list[Seat]
        rematch: list[Seat]
        spectators: Count
        game_id: Count | None

    class MsUpdate(MsBase, tag="update"):
        seq: Annotated[int, m.Meta(ge=1)]
        events: list[MsFlipped | MsSlapped | MsRaceWon | MsRaceTied]
        view: MsViewFrame | None
        room: MsStatus

    class MsPing(MsBase, tag="ping"):
        id: Annotated[int, m.Meta(ge=0, le=2**53)]
        server_time: float

    MS_CLIENT = m.json.Decoder(MsSlapMsg | MsFlipMsg | MsPong)
    MS_SERVER = m.json.Decoder(MsUpdate | MsPing)


# ------------------------------------------------------------------ fan-out


def old_fanout(
    game: Game, events: Sequence[Event], status: dict[str, Any], seats: int
) -> list[str]:
    """The room's ``_broadcast`` as it was (941c423): json.dumps and concatenation."""

    def _dumps(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    events_text = _dumps([event_to_dict(e) for e in events])
    room_json = _dumps(status)
    out = []
    for seq, seat in enumerate([*range(seats), None], 1):
        view = observe(game, seat).to_dict()
        view["flip_id"] = game.flips
        body = f',"events":{events_text},"view":{_dumps(view)},"room":{room_json}}}'
        out.append(f'{{"type":"update","seq":{seq}{body}')
    return out


def new_fanout(
    game: Game, events: Sequence[Event], status: dict[str, Any], seats: int
) -> list[str]:
    """The room's ``_broadcast`` now: ``slapjack.protocol.encode``."""
    events_text = events_json(events)
    room_json = dumps(status)
    out = []
    for seq, seat in enumerate([*range(seats), None], 1):
        body = update_body(events_text, view_json(observe(game, seat), game.flips), room_json)
        out.append(update_frame(seq, body))
    return out


def msgspec_fanout(
    game: Game, events: Sequence[Event], status: dict[str, Any], seats: int
) -> list[str]:
    """The same parts with msgspec.json.encode."""
    assert msgspec is not None
    enc = msgspec.json.encode
    events_text = enc([event_to_dict(e) for e in events]).decode()
    room_json = enc(status).decode()
    out = []
    for seq, seat in enumerate([*range(seats), None], 1):
        view = observe(game, seat).to_dict()
        view["flip_id"] = game.flips
        body = f',"events":{events_text},"view":{enc(view).decode()},"room":{room_json}}}'
        out.append(f'{{"type":"update","seq":{seq}{body}')
    return out


# ------------------------------------------------------------------ measuring


def per_op(fn: Callable[[], object], number: int, repeat: int) -> float:
    """Microseconds per call: the best of ``repeat`` runs of ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, time.perf_counter() - start)
    return best / number * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--number", type=int, default=20_000, help="calls per run")
    parser.add_argument("--repeat", type=int, default=7, help="runs (the best counts)")
    parser.add_argument("--json", action="store_true", help="one JSON line instead of a table")
    args = parser.parse_args(argv)
    pinned = pin_to_one_core()

    game, events = jack_race()
    status = room_status(game)
    seats = len(PLAYERS)
    update_text = new_fanout(game, events, status, seats)[0]
    update_model = SERVER_MESSAGE.validate_json(update_text)
    assert isinstance(update_model, Update)
    # the three fan-outs send the same frames (as JSON values)
    old = old_fanout(game, events, status, seats)
    assert [json.loads(f) for f in new_fanout(game, events, status, seats)] == [
        json.loads(f) for f in old
    ]
    assert json.loads(update_model.model_dump_json()) == json.loads(update_text)
    views = [observe(game, s).to_dict() | {"flip_id": game.flips} for s in [*range(seats), None]]
    events_dicts = [event_to_dict(e) for e in events]

    def enc_only_old() -> None:
        d = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
        e, r = d(events_dicts), d(status)
        for seq, v in enumerate(views, 1):
            f'{{"type":"update","seq":{seq},"events":{e},"view":{d(v)},"room":{r}}}'

    def enc_only_new() -> None:
        e, r = dumps(events_dicts), dumps(status)
        for seq, v in enumerate(views, 1):
            update_frame(seq, update_body(e, dumps(v), r))

    n, r = args.number, args.repeat
    rows: list[tuple[str, float | None, float | None]] = []
    client: Any = None
    server: Any = None
    if msgspec is not None:
        client, server = MS_CLIENT, MS_SERVER
        assert server.decode(update_text).seq == 1
        assert client.decode(SLAP).reaction_ms == 231.52
    ms_update = server.decode(update_text) if server is not None else None
    ms_slap = client.decode(SLAP) if client is not None else None

    def ms(fn: Callable[[], object] | None) -> float | None:
        return per_op(fn, n, r) if fn is not None and msgspec is not None else None

    rows.append(
        (
            "decode slap (server edge)",
            per_op(lambda: CLIENT_MESSAGE.validate_json(SLAP), n, r),
            ms(lambda: client.decode(SLAP)),
        )
    )
    rows.append(
        (
            "decode pong (server edge)",
            per_op(lambda: CLIENT_MESSAGE.validate_json(PONG), n, r),
            ms(lambda: client.decode(PONG)),
        )
    )
    rows.append(
        (
            "decode update (client)",
            per_op(lambda: SERVER_MESSAGE.validate_json(update_text), n // 4, r),
            ms(lambda: server.decode(update_text)),
        )
    )
    slap_model = CLIENT_MESSAGE.validate_json(SLAP)
    rows.append(
        (
            "encode slap from its model",
            per_op(slap_model.model_dump_json, n, r),
            ms(lambda: msgspec.json.encode(ms_slap)) if msgspec else None,
        )
    )
    rows.append(
        (
            "encode update from its model",
            per_op(update_model.model_dump_json, n // 4, r),
            ms(lambda: msgspec.json.encode(ms_update)) if msgspec else None,
        )
    )
    fanout_old = per_op(lambda: old_fanout(game, events, status, seats), n // 10, r)
    fanout_new = per_op(lambda: new_fanout(game, events, status, seats), n // 10, r)
    fanout_ms = (
        per_op(lambda: msgspec_fanout(game, events, status, seats), n // 10, r)
        if msgspec is not None
        else None
    )
    enc_old = per_op(enc_only_old, n // 10, r)
    enc_new = per_op(enc_only_new, n // 10, r)
    enc_ms: float | None = None
    if msgspec is not None:
        mse = msgspec.json.encode

        def enc_only_ms() -> None:
            e, rr = mse(events_dicts).decode(), mse(status).decode()
            for seq, v in enumerate(views, 1):
                f'{{"type":"update","seq":{seq},"events":{e},"view":{mse(v).decode()},"room":{rr}}}'

        enc_ms = per_op(enc_only_ms, n // 10, r)

    figures = {
        "python": platform.python_version(),
        "pydantic": __import__("pydantic").VERSION,
        "msgspec": getattr(msgspec, "__version__", None),
        "pinned": pinned,
        "update_bytes": len(update_text.encode()),
        "slap_bytes": len(SLAP),
        "rows": {name: {"pydantic": a, "msgspec": b} for name, a, b in rows},
        "fanout_5_frames": {"old": fanout_old, "protocol": fanout_new, "msgspec": fanout_ms},
        "fanout_encoding_only": {"old": enc_old, "protocol": enc_new, "msgspec": enc_ms},
    }
    if args.json:
        print(json.dumps(figures))
        return 0

    def cell(v: float | None) -> str:
        return f"{v:8.2f}" if v is not None else "       -"

    print(
        f"protocol benchmark: Python {figures['python']}, pydantic {figures['pydantic']}, "
        f"msgspec {figures['msgspec'] or 'not installed (pip install msgspec)'}, {pinned}"
    )
    print(
        f"update frame {figures['update_bytes']} bytes (4 events, seat 0's view), slap {len(SLAP)}"
    )
    print(f"µs per frame, best of {r} runs\n")
    print(f"{'':34s} {'pydantic':>8s} {'msgspec':>8s}  ratio")
    for name, a, b in rows:
        ratio = f"{a / b:5.1f}x" if a is not None and b else ""
        print(f"{name:34s} {cell(a)} {cell(b)}  {ratio}")
    print("\nthe room's fan-out of one change (4 seats + 1 spectator: 5 update frames)")
    print(f"{'':34s} {'before':>8s} {'protocol':>8s} {'msgspec':>8s}")
    print(
        f"{'observe + to_dict + encode + seq':34s} {cell(fanout_old)} {cell(fanout_new)} {cell(fanout_ms)}"
    )
    print(f"{'encoding alone':34s} {cell(enc_old)} {cell(enc_new)} {cell(enc_ms)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
