"""Rooms over HTTP: list the public ones, create one, play now against bots,
look one up, take a seat, and the invite QR code.

With several nodes any node answers: the lobby comes from Redis, a new room
is placed on the least-loaded node (the request is forwarded to it), and a
request about a room another node runs is forwarded to that node; every
answer names the WebSocket of the node that runs the room (``ws``)."""

from __future__ import annotations

import io
from functools import partial
from typing import Annotated, Any, Final

import segno
from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse, Response

from slapjack.cluster import ClusterUnavailable, NoNodeAvailable
from slapjack.core import SlapjackError
from slapjack.protocol import (
    CreateRoom,
    Invite,
    Joined,
    JoinRoom,
    PlayNow,
    RoomCreated,
    RoomInfo,
    RoomPage,
)
from slapjack.store import StaleOwner
from slapjack.texts.words import word

from ..clustering import ws_url
from ..invite import local_only
from ..referee import RefereeFactory
from ..room import Room, RoomError, RoomSetup, RoomTiming
from .context import Ctx, ServerContext, error

router = APIRouter(prefix="/api")

PLAY_NOW_BOT_SEATS = ("1", "2", "3")
"""The seats a Play-now room gives to bots (the player takes seat 0)."""


PLACED: Final = "x-slapjack-placed"
"""A request forwarded to the node placement chose: create the room here."""
RETRY: Final = {"Retry-After": "1"}


def _cluster_error(exc: SlapjackError) -> JSONResponse:
    return error(503, exc.code, exc.message, RETRY)


async def forward(ctx: ServerContext, request: Request, base: str, body: bytes | None) -> Response:
    """The same request, asked of the node at ``base``; its answer as it is."""
    import httpx

    headers = {"content-type": "application/json", PLACED: "1"}
    if request.client is not None:
        headers["x-forwarded-for"] = request.client.host
    url = f"{base}{request.url.path}"
    try:
        answer = await ctx.http().request(
            request.method, url, content=body, headers=headers, params=request.query_params
        )
    except httpx.HTTPError as exc:
        return error(503, "cluster_unavailable", f"the room's node does not answer: {exc}", RETRY)
    kept = {k: v for k, v in answer.headers.items() if k.lower() in ("retry-after",)}
    return Response(
        answer.content,
        status_code=answer.status_code,
        media_type=answer.headers.get("content-type"),
        headers=kept,
    )


async def elsewhere(
    ctx: ServerContext, request: Request, code: str, body: bytes | None = None
) -> Response | None:
    """A request about room ``code`` that another node runs, answered by that
    node; ``None`` when the room is here, or nowhere."""
    member = ctx.member
    if member is None or ctx.lobby.get(code) is not None or request.headers.get(PLACED):
        return None
    try:
        where = await member.locate(code.strip().upper())
    except (ClusterUnavailable, ValueError) as exc:
        if isinstance(exc, ClusterUnavailable):
            return _cluster_error(exc)
        return None
    if where is None:
        return None
    if not where.live or not where.url or where.node == member.node.node:
        return error(503, "room_moving", f"room {code} is moving to another node", RETRY)
    return await forward(ctx, request, where.url, body)


async def place(ctx: ServerContext, request: Request) -> Response | str | None:
    """Where a new room goes: ``None`` (a single server), a reserved code
    (here), or the answer of the node placement chose."""
    member = ctx.member
    if member is None:
        return None
    try:
        if not request.headers.get(PLACED):
            target = await member.node.place()
            if target != member.node.node:
                info = await member.view.node(target)
                if info is not None and info.url:
                    return await forward(ctx, request, info.url, await request.body())
        code = await ctx.lobby.reserve_code()
    except (ClusterUnavailable, NoNodeAvailable) as exc:
        return _cluster_error(exc)
    return code


def create_room(
    ctx: ServerContext,
    settings: CreateRoom,
    setup: RoomSetup | None = None,
    timing: RoomTiming | None = None,
    referee: RefereeFactory | None = None,
    code: str | None = None,
) -> Room | JSONResponse:
    """A new room in the lobby, or the error response that says why not."""
    bad = [k for k in settings.bots if int(k) >= settings.seats]
    if bad:
        return error(422, "bad_request", f"bot seat {bad[0]} is beyond {settings.seats} seats")
    try:
        return ctx.lobby.create(settings, setup=setup, timing=timing, referee=referee, code=code)
    except SlapjackError as exc:
        if exc.code == "server_full":
            after = str(ctx.limits.full_retry_after_s)
            return error(503, exc.code, exc.message, {"Retry-After": after})
        return error(422, exc.code, exc.message)


async def take_seat(
    ctx: ServerContext, request: Request, room: Room, name: str
) -> Joined | JSONResponse:
    try:
        seat, token, taken = await room.call(partial(room.join, name))
    except RoomError as exc:
        return error(409, exc.code, exc.message)
    except StaleOwner as exc:  # another node took the room over meanwhile
        return error(503, "room_moving", exc.message, RETRY)
    ctx.lobby.publish(room)
    return Joined(
        code=room.code,
        seat=seat,
        token=token,
        name=taken,
        url=f"/r/{room.code}",
        ws=ws_url(ctx.node_url(request), room.code),
    )


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
    if ctx.member is not None:
        try:
            found = await ctx.member.node.public_rooms(
                lambda info: (
                    all or (info.get("status") == "waiting" and info.get("free_seats", 0) > 0)
                ),
                limit=limit,
                offset=offset,
            )
        except ClusterUnavailable as exc:
            return _cluster_error(exc)
        rooms = [RoomInfo.model_validate(x.info) for x in found.listings]
        return RoomPage(rooms=rooms, total=found.total, limit=limit, offset=offset)
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
async def post_room(
    ctx: Ctx, request: Request, body: Annotated[CreateRoom | None, Body()] = None
) -> RoomCreated | Response:
    """A new room; every field of the body may be left out, the body too."""
    settings = body if body is not None else CreateRoom()
    refused = ctx.limited(request, ctx.creations, "room creation")
    if refused is not None:
        return refused
    placed = await place(ctx, request)
    if isinstance(placed, Response):
        return placed
    room = create_room(ctx, settings, code=placed)
    if isinstance(room, JSONResponse):
        return room
    try:
        await room.call(lambda: None)  # answered once the room is stored (write-ahead)
    except StaleOwner as exc:  # another node claimed the code's room meanwhile
        return error(503, "room_moving", exc.message, RETRY)
    return RoomCreated(
        code=room.code, url=f"/r/{room.code}", ws=ws_url(ctx.node_url(request), room.code)
    )


@router.post("/play-now", response_model=None)
async def play_now(ctx: Ctx, request: Request, body: PlayNow) -> Joined | Response:
    refused = ctx.limited(request, ctx.quick_games, "play-now")
    if refused is not None:
        return refused
    bots = dict.fromkeys(PLAY_NOW_BOT_SEATS, body.level)
    name = word(body.lang, "play_now.room_name", name=body.name)
    settings = CreateRoom(name=name, bots=bots, public=False)
    placed = await place(ctx, request)
    if isinstance(placed, Response):
        return placed
    room = create_room(ctx, settings, code=placed)
    if isinstance(room, JSONResponse):
        return room
    return await take_seat(ctx, request, room, body.name)


@router.get("/rooms/{code}", response_model=None)
async def get_room(ctx: Ctx, request: Request, code: str) -> dict[str, Any] | Response:
    there = await elsewhere(ctx, request, code)
    if there is not None:
        return there
    room = ctx.lobby.get(code)
    if room is None:
        return _unknown(code)
    return room.info().model_dump()


@router.post("/rooms/{code}/join", response_model=None)
async def join_room(ctx: Ctx, request: Request, code: str, body: JoinRoom) -> Joined | Response:
    refused = ctx.limited(request, ctx.joins, "join")
    if refused is not None:
        return refused
    there = await elsewhere(ctx, request, code, await request.body())
    if there is not None:
        return there
    room = ctx.lobby.get(code)
    if room is None:
        return _unknown(code)
    return await take_seat(ctx, request, room, body.name)


@router.get("/rooms/{code}/invite", response_model=None)
async def room_invite(ctx: Ctx, code: str, request: Request) -> Invite | Response:
    there = await elsewhere(ctx, request, code)
    if there is not None:
        return there
    room = ctx.lobby.get(code)
    if room is None:
        return _unknown(code)
    url = f"{ctx.base_url(request)}/r/{room.code}"
    return Invite(url=url, local_only=local_only(url))


@router.get("/rooms/{code}/qr.svg", response_model=None)
async def room_qr(ctx: Ctx, code: str, request: Request) -> Response:
    there = await elsewhere(ctx, request, code)
    if there is not None:
        return there
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
