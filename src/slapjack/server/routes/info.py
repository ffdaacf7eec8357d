"""What the server tells about itself: the option table, the words, the rules texts, its health."""

from __future__ import annotations

import gc
import hashlib
import json
import os
from functools import cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from slapjack.core import Rules, SlapjackError
from slapjack.protocol import options_body
from slapjack.store import SqliteStore
from slapjack.texts import LanguageError, check_lang, rules_text
from slapjack.texts.words import browser_words

from ..heap import HEAP
from ..metrics import METRICS
from .context import Ctx, error

router = APIRouter(prefix="/api")


@router.get("/options")
async def get_options() -> dict[str, Any]:
    """The games, presets and house-rule options (from the engine's option table)."""
    return options_body()


@cache
def _words_body(lang: str) -> tuple[bytes, str]:
    body = json.dumps(dict(browser_words(lang)), ensure_ascii=False, separators=(",", ":")).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


@router.get("/words/{lang}", response_model=None)
async def get_words(lang: str, request: Request) -> Response:
    """The browser's words in one language: the catalogue's shared entries and its
    ``web.*`` entries without the prefix (``slapjack.texts.words.browser_words``)."""
    try:
        language = check_lang(lang)
    except LanguageError as exc:
        return error(404, "unknown_lang", str(exc))
    body, etag = _words_body(language)
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


@router.get("/rules/{preset}", response_model=None)
async def rules(preset: str, lang: str = "en") -> dict[str, Any] | JSONResponse:
    try:
        language = check_lang(lang)
        text = rules_text(Rules.preset_rules(preset), language)
    except LanguageError as exc:
        return error(404, "unknown_lang", str(exc))
    except SlapjackError as exc:
        return error(404, exc.code, exc.message)
    return {"preset": preset, "lang": language, "markdown": text}


@router.get("/metrics")
async def metrics(
    ctx: Ctx, reset: bool = False, objects: bool = False, wal: bool = False
) -> dict[str, Any]:
    """The server's health (docs/protocol.md); ``wal``: ``store_wal`` with its
    recent resets. ``reset`` clears the samples, not the store's counters."""
    lobby = ctx.lobby
    out = METRICS.to_dict()
    out["gc"] = HEAP.to_dict()
    if objects:
        out["gc_objects"] = len(gc.get_objects())
        out["gc_counts"] = gc.get_count()
        out["gc_frozen"] = gc.get_freeze_count()
    out["store_wal"] = None  # a store without a WAL file of ours (PostgreSQL)
    if isinstance(lobby.store, SqliteStore):
        out["store_batches"] = lobby.store.batch_summary()
        out["store_wal"] = lobby.store.wal_summary(recent=wal)
        if reset:
            lobby.store.batch_timings.clear()
    out["pid"] = os.getpid()
    out["rooms"] = len(lobby.rooms)
    out["connections"] = lobby.connections()
    if reset:
        METRICS.reset()
    return out
