"""Finished games over HTTP: the history, one game's record, its replay, a player's stats."""

from __future__ import annotations

import asyncio
import unicodedata
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from slapjack.core import Record, SlapjackError
from slapjack.protocol import NAME_FORM
from slapjack.store import StoreError
from slapjack.web.replay import replay_steps

from .context import Ctx, error

router = APIRouter(prefix="/api")


def lookup_name(name: str) -> str:
    """A name to look up (history, stats) in the form names are kept in (NFKC,
    single spaces), so ``Ａｎｎａ`` finds ``Anna``; nothing is refused here."""
    return " ".join(unicodedata.normalize(NAME_FORM, name).split())


def _store_error(exc: StoreError) -> JSONResponse:
    return error(404 if exc.code == "unknown_game" else 400, exc.code, exc.message)


@router.get("/games", response_model=None)
async def list_games(
    ctx: Ctx,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0)] = 0,
    player: Annotated[str | None, Query(max_length=100)] = None,
) -> dict[str, Any] | JSONResponse:
    if player is not None:
        player = lookup_name(player)
    try:
        store = ctx.lobby.store
        games = await store.list_games(limit, offset, player)
        total = await store.count_games(player)
    except StoreError as exc:
        return error(400, exc.code, exc.message)
    return {"games": [g.to_dict() for g in games], "total": total}


@router.get("/games/{game_id}", response_model=None)
async def get_game(ctx: Ctx, game_id: int, download: bool = False) -> Response:
    try:
        record = await ctx.lobby.store.get_game(game_id)
    except StoreError as exc:
        return _store_error(exc)
    headers = {}
    if download:
        headers["Content-Disposition"] = f'attachment; filename="slapjack-{game_id}.json"'
    return JSONResponse(record, headers=headers)


@router.get("/games/{game_id}/replay", response_model=None)
async def get_replay(ctx: Ctx, game_id: int) -> dict[str, Any] | JSONResponse:
    try:
        data = await ctx.lobby.store.get_game(game_id)
    except StoreError as exc:
        return _store_error(exc)
    try:
        steps = await asyncio.to_thread(replay_steps, Record.from_dict(data))
    except SlapjackError as exc:
        return error(422, exc.code, exc.message)
    return {"id": game_id, "record": data, **steps}


@router.get("/stats/{name}", response_model=None)
async def stats(ctx: Ctx, name: str) -> dict[str, Any] | JSONResponse:
    try:
        figures = await ctx.lobby.store.player_stats(lookup_name(name))
    except StoreError as exc:
        return error(400, exc.code, exc.message)
    return figures.to_dict()
