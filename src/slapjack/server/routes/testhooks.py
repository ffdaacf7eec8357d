"""Routes for tests only, mounted when a test asks (``create_app(test_hooks=True)``
or ``SLAPJACK_TEST_HOOKS=1`` in the environment of ``slapjack serve``); a
production server never has them.

- ``POST /api/test/rooms``: a room with a stacked deck, a seed, chosen timing and referee;
- ``POST /api/test/rooms/{code}/run``: play that room's game on a :class:`HandClock`;
- ``POST /api/test/practice``: the timers of the practice rooms made from now on
  (a browser test plays the real practice game at a quicker pace).
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, fields, replace
from typing import Any, Final, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from slapjack.core import SlapjackError, parse_deck
from slapjack.protocol import CreateRoom
from slapjack.store import StaleOwner

from ..referee import RefereeFactory, TrustingReferee, referee_factory
from ..room import RoomSetup, RoomTiming
from .context import Ctx, error
from .practice import practice_timing
from .rooms import RETRY, create_room

ENV: Final = "SLAPJACK_TEST_HOOKS"
"""``SLAPJACK_TEST_HOOKS=1``: a ``slapjack serve`` started by a test mounts these routes."""

router = APIRouter(prefix="/api/test")


class HandClock:
    """A room clock (ms) that moves only when told (``/api/test/rooms/{code}/run``)."""

    def __init__(self, now_ms: float = 0.0) -> None:
        self.now_ms = now_ms

    def __call__(self) -> float:
        return self.now_ms


class TestRoom(BaseModel):
    """``POST /api/test/rooms``: a room with a chosen deck and timing."""

    model_config = ConfigDict(extra="forbid")

    create: CreateRoom = Field(default_factory=CreateRoom)
    deck: list[str] | None = None
    seed: int | None = None
    bot_seed: int | None = None
    timing: dict[str, float | str] = Field(default_factory=dict)
    referee: Literal["fair", "arrival", "trusting"] | None = None


@router.post("/rooms", response_model=None)
async def test_room(ctx: Ctx, body: TestRoom) -> dict[str, str] | JSONResponse:
    try:
        deck = tuple(parse_deck(body.deck)) if body.deck is not None else None
        ref: RefereeFactory | None = None
        if body.referee == "trusting":
            ref = TrustingReferee
        elif body.referee:
            ref = referee_factory(body.referee)
    except (SlapjackError, ValueError) as exc:
        return error(422, "bad_request", str(exc))
    names = {f.name for f in fields(RoomTiming)}
    unknown = sorted(set(body.timing) - names)
    if unknown:
        return error(422, "bad_request", f"unknown timing {unknown[0]!r}")
    timing = RoomTiming(**body.timing)  # type: ignore[arg-type]
    setup = RoomSetup(deck=deck, seed=body.seed, bot_seed=body.bot_seed)
    try:
        code = await ctx.lobby.reserve_code()  # a test room is made on the node asked
    except SlapjackError as exc:
        return error(503, exc.code, exc.message)
    room = create_room(ctx, body.create, setup, timing, ref, code)
    if isinstance(room, JSONResponse):
        return room
    try:
        # answered once the room is stored, as POST /api/rooms is: a server
        # killed right after the answer keeps the room (the soak's restarts)
        await room.call(lambda: None)
    except StaleOwner as exc:
        return error(503, "room_moving", exc.message, RETRY)
    return {"code": room.code, "url": f"/r/{room.code}"}


@router.post("/rooms/{code}/run", response_model=None)
async def run_room(ctx: Ctx, code: str, steps: int = 100_000) -> dict[str, Any] | JSONResponse:
    """Play room ``code``'s game on the :class:`HandClock`: the clock goes to
    the live table's next deadline, the room wakes, and again, until the
    game is over (or ``steps`` deadlines)."""
    room = ctx.lobby.get(code)
    if room is None:
        return error(404, "unknown_room", f"no room {code!r}")
    clock = ctx.clock
    if not isinstance(clock, HandClock):
        return error(409, "bad_request", "the server does not run on a test clock")
    for _ in range(1000):  # the game starts on the room's start timer
        if await room.call(lambda: room.live is not None):
            break
        await asyncio.sleep(0.01)
    for _ in range(steps):
        live = room.live
        if live is None or live.game.over or live.next_deadline == float("inf"):
            break
        clock.now_ms = max(clock.now_ms, live.next_deadline)
        await room.call(room.wake)
    while room.status == "over" and room.last_game_id is None:
        await room.call(lambda: None)  # the finished game is being stored
        await asyncio.sleep(0.001)
    return {"status": room.status, "game_id": room.last_game_id}


class TestPractice(BaseModel):
    """``POST /api/test/practice``: ``RoomTiming`` fields that practice rooms
    made from now on get instead of their own; ``{}`` restores the real ones."""

    model_config = ConfigDict(extra="forbid")

    timing: dict[str, float] = Field(default_factory=dict)


@router.post("/practice", response_model=None)
async def test_practice(ctx: Ctx, body: TestPractice) -> dict[str, Any] | JSONResponse:
    """Set the practice rooms' timers; answers with the timing they will get."""
    names = {f.name for f in fields(RoomTiming)} - {"cover_level"}
    unknown = sorted(set(body.timing) - names)
    if unknown:
        return error(422, "bad_request", f"unknown timing {unknown[0]!r}")
    timing = replace(practice_timing(ctx.lobby.timing), **body.timing)
    try:
        timing.live(CreateRoom())  # the live table's checks: finite, not negative
    except SlapjackError as exc:
        return error(422, "bad_request", exc.message)
    ctx.practice_timing = dict(body.timing)
    return {"timing": asdict(timing)}
