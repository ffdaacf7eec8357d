"""``GET /api/cluster``: the nodes, their load, rooms per node, the last takeovers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from slapjack.cluster import ClusterUnavailable

from .context import Ctx, error

router = APIRouter(prefix="/api")


@router.get("/cluster", response_model=None)
async def cluster(ctx: Ctx) -> dict[str, Any] | JSONResponse:
    """As ``slapjack cluster status --json``; a single server (no ``--redis-url``)
    answers ``{"mode": "single", "rooms": n}``."""
    member = ctx.member
    if member is None:
        return {"mode": "single", "rooms": len(ctx.lobby.rooms)}
    try:
        status = await member.status()
    except ClusterUnavailable as exc:
        return error(503, exc.code, exc.message, {"Retry-After": "1"})
    status["mode"] = "cluster"
    return status
