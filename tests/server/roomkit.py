"""Room kit: one :class:`Room` driven in-process, without its task, sockets or
real time, and rooms restored from what its store holds.

The room is driven through the doors its task opens: client frames go to
``Room.handle`` from one stand-in connection per seat, the live table's
deadlines to ``Room.wake`` (:func:`apply`), on a :class:`FakeClock`; after each
input :func:`settle_input` writes the store as the task does (write-ahead)
and then "sends". A wake-up is an input of its own (``fire``), so every
interleaving of frames and deadlines is the test's choice. :func:`state_of`
is everything a restart must keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from slapjack.core import observe
from slapjack.protocol import CallMsg, CreateRoom, FlipMsg, Hello, RematchMsg, SlapMsg, StartMsg
from slapjack.server.connection import Conn
from slapjack.server.referee import ArrivalReferee, RefereeFactory, TrustingReferee
from slapjack.server.room import Room, RoomSetup, RoomTiming
from slapjack.store.base import Store

INF = float("inf")


class FakeClock:
    """The room's monotonic clock in ms, moved only by the test."""

    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Input:
    """One input to a room: ``kind`` is ``flip`` (the seat on turn),
    ``flip_wrong`` (``seat`` flips, on turn or not), ``slap``, ``call``,
    ``rematch``, ``wait`` (``value`` ms pass, and the deadlines on the way run
    as the room's wake-up timer runs them) or ``fire`` (time runs to the live
    table's next deadline); ``stale`` sends the previous flip's id."""

    kind: str
    seat: int = 0
    value: float = 0.0
    call: bool = False
    stale: bool = False

    def __str__(self) -> str:
        return f"{self.kind}(seat={self.seat}, {self.value}, call={self.call}, stale={self.stale})"


TOKENS: dict[int, dict[int, str]] = {}
"""The seat tokens of each room (by ``id``), as the players' clients keep them."""


def connect(room: Room, tokens: dict[int, str]) -> list[Conn]:
    """One connection per seat, each said hello with its token."""
    conns = []
    for s in range(len(room.seats)):
        conn = Conn()
        room.handle(conn, Hello(v=1, type="hello", token=tokens[s]), room.now())
        conns.append(conn)
    return conns


CONNS: dict[int, list[Conn]] = {}


async def new_room(
    store: Store,
    clock: FakeClock,
    *,
    game: str = "slapjack",
    rules: dict[str, Any] | None = None,
    seats: int = 2,
    deck: Sequence[int] | None = None,
    referee: RefereeFactory = TrustingReferee,
    time_limit: int = 0,
    code: str = "ROOM01",
) -> Room:
    """A room of ``seats`` humans (``P0``, ``P1``…), every one connected, the
    game started and stored."""
    room = Room(
        code,
        CreateRoom(game=game, rules=rules or {}, seats=seats, time_limit=time_limit),
        store=store,
        referee=referee,
        timing=RoomTiming(start_delay_ms=0.0),
        setup=RoomSetup(deck=tuple(deck) if deck is not None else None, seed=7, bot_seed=1),
        clock=clock,
    )
    tokens = {s: room.join(f"P{s}")[1] for s in range(seats)}
    TOKENS[id(room)] = tokens
    CONNS[id(room)] = connect(room, tokens)
    room.handle(CONNS[id(room)][0], StartMsg(v=1, type="start", token=tokens[0]), clock())
    await settle_input(room)
    return room


def state_of(room: Room, *, with_time: bool = True) -> dict[str, Any]:
    """Everything a restart must keep: the engine's whole position, every seat's
    and the spectator's view, status, game_no, game_id, rematch requests, the
    referee, the armed game timers, the race's round and slap count.
    ``with_time=False`` (a restored room played on, its writes not done): all
    but the game clock and game_id."""
    assert room.table is not None and room.live is not None
    game = room.table.game
    snapshot = game.snapshot()
    views = [observe(game, s).to_dict() for s in range(game.n)]
    views.append(observe(game, None).to_dict())
    timers = {k for k, v in room.live.deadlines().items() if v is not None}
    out: dict[str, Any] = {
        "snapshot": snapshot if with_time else snapshot[:-1],
        "flips": game.flips,
        "views": views,
        "status": room.status,
        "game_no": room.game_no,
        "game_id": room.last_game_id,
        "rematch": [s for s, seat in enumerate(room.seats) if seat.rematch],
        "referee": room.referee_factory,
        "setup": (room.setup.deck, room.setup.seed),
        "timers": timers if room.status == "playing" else set(),
        "actions": len(room.table.record.actions),
    }
    if not with_time:
        del out["game_id"]
    if game.race_open:
        out["race_round"] = room.live.round
        out["round_slaps"] = room.live.round_slaps
    return out


def timeless(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` (a :func:`state_of`) as ``state_of(room, with_time=False)``
    gives it: without the game clock and game_id."""
    out = {k: v for k, v in state.items() if k != "game_id"}
    out["snapshot"] = state["snapshot"][:-1]
    return out


def differences(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def apply(room: Room, inp: Input, clock: FakeClock) -> None:
    """Run ``inp`` as the room task runs an input (a refusal is an error frame)."""
    assert room.table is not None and room.live is not None
    game = room.table.game
    flip_id = max(0, game.flips - 1) if inp.stale else game.flips
    tokens, conns = TOKENS[id(room)], CONNS[id(room)]
    seat = inp.seat
    if inp.kind == "wait":
        # time passes as it does for the room: its wake-up timer runs what comes due
        end = clock.now + inp.value
        while room.live.next_deadline <= end and room.status == "playing":
            clock.now = max(clock.now, room.live.next_deadline)
            room.wake()
        clock.now = end
        return
    if inp.kind == "fire":
        due = room.live.next_deadline
        if due != INF:
            clock.now = max(clock.now, due)
            room.wake()
        return
    if inp.kind in ("flip", "flip_wrong"):
        if inp.kind == "flip" and game.turn is not None:
            seat = game.turn
        msg: Any = FlipMsg(v=1, type="flip", token=tokens[seat], flip_id=flip_id)
    elif inp.kind == "slap":
        msg = SlapMsg(
            v=1,
            type="slap",
            token=tokens[seat],
            flip_id=flip_id,
            reaction_ms=inp.value,
            call=inp.call,
        )
    elif inp.kind == "call":
        msg = CallMsg(v=1, type="call", token=tokens[seat], flip_id=flip_id)
    elif inp.kind == "rematch":
        msg = RematchMsg(v=1, type="rematch", token=tokens[seat])
    else:
        raise AssertionError(f"no such input {inp.kind!r}")
    room.handle(conns[seat], msg, clock())


async def settle_input(room: Room) -> None:
    """What the room task does after an input: store its ops, then send."""
    await room.write_ops()
    room.flush()


async def restored(room: Room, clock: FakeClock) -> Room:
    """The room a restarted server builds from ``room``'s store (the server's
    own referee: arrival), with the same players connected again."""
    state = await room.store.load_room(room.code)
    back = Room.restore(state, store=room.store, referee=ArrivalReferee, clock=clock)
    TOKENS[id(back)] = TOKENS[id(room)]
    CONNS[id(back)] = connect(back, TOKENS[id(room)])
    return back


async def stop(room: Room) -> None:
    await room.stop()
