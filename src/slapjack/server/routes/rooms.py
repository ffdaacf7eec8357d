"""Rooms over HTTP: list the public ones, create one, play now against bots,
look one up, take a seat, and the invite QR code."""

from __future__ import annotations

import io
from functools import partial
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from slapjack.core import SlapjackError
from slapjack.protocol import (
    CreateRoom,
    Invite,
    Joined,
    JoinRoom,
    PlayNow,
    RoomCreated,
    RoomPage,
)

from ..invite import local_only
from ..referee import RefereeFactory
from ..room import Room, RoomError, RoomSetup, RoomTiming
from .context import Ctx, ServerContext, error

router = APIRouter(prefix="/api")

PLAY_NOW_BOT_SEATS = ("1", "2", "3")
"""The seats a Play-now room gives to bots (the player takes seat 0)."""


def create_room(
    ctx: ServerContext,
    settings: CreateRoom,
    setup: RoomSetup | None = None,
    timing: RoomTiming | None = None,
    referee: RefereeFactory | None = None,
) -> Room | JSONResponse:
    """A new room in the lobby, or the error response that says why not."""
    bad = [k for k in settings.bots if int(k) >= settings.seats]
    if bad:
        return error(422, "bad_request", f"bot seat {bad[0]} is beyond {settings.seats} seats")
    try:
        return ctx.lobby.create(settings, setup=setup, timing=timing, referee=referee)
    except SlapjackError as exc:
        if exc.code == "server_full":
            after = str(ctx.limits.full_retry_after_s)
            return error(503, exc.code, exc.message, {"Retry-After": after})
        return error(422, exc.code, exc.message)


async def take_seat(room: Room, name: str) -> Joined | JSONResponse:
    try:
        seat, token, taken = await room.call(partial(room.join, name))
    except RoomError as exc:
        return error(409, exc.code, exc.message)
    return Joined(code=room.code, seat=seat, token=token, name=taken, url=f"/r/{room.code}")


def _unknown(code: str) -> JSONResponse:
    return error(404, "unknown_room", f"no room {code!r}")


@router.get("/rooms", response_model=None)
async def list_rooms(
    ctx: Ctx,
    all: bool = False,
    limit: Annotated[int, Query(ge=1)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> RoomPage | JSONResponse:
    if limit > ctx.limits.rooms_page_max:
        return error(422, "bad_request", f"limit: at most {ctx.limits.rooms_page_max} rooms a page")
    listed = [
        room
        for room in ctx.lobby.rooms.values()
        if room.settings.public
        and room.status != "closed"
        and (all or (room.status == "waiting" and room.free_seats() > 0))
    ]
    page = [room.info() for room in listed[offset : offset + limit]]
    return RoomPage(rooms=page, total=len(listed), limit=limit, offset=offset)


@router.post("/rooms", response_model=None)
async def post_room(ctx: Ctx, request: Request, settings: CreateRoom) -> RoomCreated | JSONResponse:
    refused = ctx.limited(request, ctx.creations, "room creation")
    if refused is not None:
        return refused
    room = create_room(ctx, settings)
    if isinstance(room, JSONResponse):
        return room
    return RoomCreated(code=room.code, url=f"/r/{room.code}")


@router.post("/play-now", response_model=None)
async def play_now(ctx: Ctx, request: Request, body: PlayNow) -> Joined | JSONResponse:
    refused = ctx.limited(request, ctx.quick_games, "play-now")
    if refused is not None:
        return refused
    bots = dict.fromkeys(PLAY_NOW_BOT_SEATS, body.level)
    settings = CreateRoom(name=f"{body.name} vs bots", bots=bots, public=False)
    room = create_room(ctx, settings)
    if isinstance(room, JSONResponse):
        return room
    return await take_seat(room, body.name)


@router.get("/rooms/{code}", response_model=None)
async def get_room(ctx: Ctx, code: str) -> dict[str, Any] | JSONResponse:
    room = ctx.lobby.get(code)
    if room is None:
        return _unknown(code)
    return room.info().model_dump()


@router.post("/rooms/{code}/join", response_model=None)
async def join_room(ctx: Ctx, request: Request, code: str, body: JoinRoom) -> Joined | JSONResponse:
    refused = ctx.limited(request, ctx.joins, "join")
    if refused is not None:
        return refused
    room = ctx.lobby.get(code)
    if room is None:
        return _unknown(code)
    return await take_seat(room, body.name)


@router.get("/rooms/{code}/invite", response_model=None)
async def room_invite(ctx: Ctx, code: str, request: Request) -> Invite | JSONResponse:
    room = ctx.lobby.get(code)
    if room is None:
        return _unknown(code)
    url = f"{ctx.base_url(request)}/r/{room.code}"
    return Invite(url=url, local_only=local_only(url))


@router.get("/rooms/{code}/qr.svg", response_model=None)
async def room_qr(ctx: Ctx, code: str, request: Request) -> Response:
    room = ctx.lobby.get(code)
    if room is None:
        return _unknown(code)
    url = f"{ctx.base_url(request)}/r/{room.code}"
    qr = segno.make(url, error="m")
    # A standalone SVG file needs its xmlns (svg_inline omits it: an <img> won't show it).
    buf = io.BytesIO()
    qr.save(buf, kind="svg", scale=4, dark="#111", light="#fff", xmldecl=False)
    svg = buf.getvalue().decode()
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})
