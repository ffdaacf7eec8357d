"""Room kit: one :class:`Room` driven in-process, without its task, sockets or
real time, and rooms restored from what its store holds.

The room is driven by the methods its task runs for client frames and timer
expiries (:func:`apply`, :func:`fire`), on a :class:`FakeClock`; after each
input :func:`settle_input` writes the store as the task does (write-ahead)
and then "sends". Timers are armed on the real event loop but never run: a
timer's expiry is an input of its own (:func:`fire`), so every interleaving
is the test's choice. :func:`state_of` is everything a restart must keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from slapjack.core import SlapjackError, observe
from slapjack.protocol import CallMsg, CreateRoom, FlipMsg, SlapMsg
from slapjack.server.referee import ArrivalReferee, RefereeFactory, TrustingReferee
from slapjack.server.room import Room, RoomSetup, RoomTiming
from slapjack.store.base import Store

GAME_TIMERS = ("race", "turn", "deadlock", "time_limit")
TOKEN = "t"


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
    ``rematch``, ``wait`` (``value`` ms pass) or ``fire:<timer>``; ``stale``
    sends the previous flip's id."""

    kind: str
    seat: int = 0
    value: float = 0.0
    call: bool = False
    stale: bool = False

    def __str__(self) -> str:
        return f"{self.kind}(seat={self.seat}, {self.value}, call={self.call}, stale={self.stale})"


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
    for s in range(seats):
        room.join(f"P{s}")
    for seat in room.seats:
        seat.conns = 1  # as if connected: a rematch waits for every one of them
    room._cancel("start")
    room._start_game()
    await settle_input(room)
    return room


def armed(room: Room) -> set[str]:
    return {name for name in GAME_TIMERS if name in room._timers}


def state_of(room: Room, *, with_time: bool = True) -> dict[str, Any]:
    """Everything a restart must keep: the engine's whole position, every seat's
    and the spectator's view, status, game_no, game_id, rematch requests, the
    referee, the armed game timers, the race's round and slap count.
    ``with_time=False`` (a restored room played on, its writes not done): all
    but the game clock and game_id."""
    assert room.table is not None
    game = room.table.game
    snapshot = game.snapshot()
    views = [observe(game, s).to_dict() for s in range(game.n)]
    views.append(observe(game, None).to_dict())
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
        "timers": armed(room),
        "actions": len(room.table.record.actions),
    }
    if not with_time:
        del out["game_id"]
    if game.race_open:
        out["race_round"] = room._race_round
        out["round_slaps"] = room._round_slaps
        out["first_slap"] = room._first_slap is not None
    return out


def differences(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def apply(room: Room, inp: Input, clock: FakeClock) -> None:
    """Run ``inp`` as the room task runs an input (a refusal is an error frame)."""
    assert room.table is not None
    game = room.table.game
    flip_id = max(0, game.flips - 1) if inp.stale else game.flips
    try:
        if inp.kind == "wait":
            clock.now += inp.value
        elif inp.kind in ("flip", "flip_wrong"):
            seat = game.turn if inp.kind == "flip" and game.turn is not None else inp.seat
            room._client_flip(
                seat, FlipMsg(v=1, type="flip", token=TOKEN, flip_id=flip_id), clock()
            )
        elif inp.kind == "slap":
            slap = SlapMsg(
                v=1, type="slap", token=TOKEN, flip_id=flip_id, reaction_ms=inp.value, call=inp.call
            )
            room._client_slap(inp.seat, slap, clock())
        elif inp.kind == "call":
            call = CallMsg(v=1, type="call", token=TOKEN, flip_id=flip_id)
            room._client_call(inp.seat, call, clock())
        elif inp.kind == "rematch":
            room._rematch(inp.seat)
        elif inp.kind.startswith("fire:"):
            fire(room, inp.kind[5:], clock)
        else:
            raise AssertionError(f"no such input {inp.kind!r}")
    except SlapjackError:
        pass  # refused: the room sends an error frame and changes nothing


def fire(room: Room, name: str, clock: FakeClock) -> None:
    """Timer ``name`` of ``room`` expires (at its deadline), if it is armed."""
    timer = room._timers.pop(name, None)
    if timer is None:
        return
    timer.handle.cancel()
    clock.now = max(clock.now, timer.deadline)
    if name == "race":
        room._race_timeout()
    elif name == "deadlock":
        room._deadlock()
    elif name == "turn":
        room._turn_due(timer.key)
    elif name == "time_limit":
        room._time_up()
    elif name.startswith("call:"):
        room._flush_pending(int(name[5:]))
    else:
        raise AssertionError(f"no such timer {name!r}")


async def settle_input(room: Room) -> None:
    """What the room task does after an input: store its ops, then send."""
    await room._write_ops()
    room._flush()


async def restored(room: Room, clock: FakeClock) -> Room:
    """The room a restarted server builds from ``room``'s store (the server's
    own referee: arrival), with the same players connected again."""
    state = await room.store.load_room(room.code)
    back = Room.restore(state, store=room.store, referee=ArrivalReferee, clock=clock)
    for mine, theirs in zip(back.seats, room.seats, strict=True):
        mine.conns = theirs.conns
    return back


async def stop(room: Room) -> None:
    for handle in room._bot_handles:
        handle.cancel()
    await room.stop()
