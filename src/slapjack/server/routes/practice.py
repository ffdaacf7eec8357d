"""``POST /api/practice``: a guided first game (docs/protocol.md, "Practice").

A private room with you in seat 0 and two ``beginner`` bots, classic rules,
dealt from :data:`PRACTICE_DECK`: a deck stacked for the lessons the browser
explains (``web/static/js/practice.js``). The game itself is an ordinary one:
the real rules engine, the real referee, the real bots (seeded, so the same
play gives the same game); only the deal and the pace are chosen.

The deck (seat ``s`` gets cards ``s, s+3, s+6, ...``; its first card is its top):

- you flip ``7C`` first: a card that is not a Jack (the first flip);
- the bot after you flips ``JH``: the first Jack, worth slapping;
- after that race the same bot (left of you, who most likely won it) flips
  ``QS``: a Queen, the classic look-alike that tempts a wrong slap;
- the rest was chosen with the engine (``tests/server/test_practice.py``
  replays it): a player who wins every Jack wins in about 55 flips; one who
  lets the bots take the Jacks empties their stack ("last chance") after
  about 50 flips, and winning the next Jack brings them back and wins.
  A player who has won a Jack holds that Jack as their last card, so their
  own empty stack comes only from Jacks they did not win.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from slapjack.core import parse_deck
from slapjack.protocol import CreateRoom, Joined, Practice
from slapjack.texts.words import word

from ..settings import RoomSetup, RoomTiming
from .context import Ctx
from .rooms import create_room, place, take_seat

router = APIRouter(prefix="/api")

PRACTICE_DECK: Final[tuple[str, ...]] = (
    "7C", "JH", "3H", "JD", "QS", "5H", "3D", "2D", "3S", "JC", "10C", "2S", "AH",
    "6C", "8D", "4C", "AS", "8H", "KH", "6H", "QH", "10S", "QC", "5C", "3C", "AD",
    "9C", "6D", "9H", "7H", "KS", "8S", "9S", "QD", "10D", "2H", "KC", "5S", "8C",
    "6S", "9D", "2C", "10H", "4S", "4D", "AC", "5D", "KD", "4H", "JS", "7S", "7D",
)  # fmt: skip
"""The practice deal, in deck order (card ``i`` goes to seat ``i % 3``)."""

PRACTICE_LEVEL: Final = "beginner"
"""The bots' level: the slowest and most forgiving one (docs/bots.md)."""

PRACTICE_BOT_SEATS: Final = ("1", "2")

PRACTICE_BOT_SEED: Final = 12
"""The bots' random draws are seeded: the same play gives the same game."""

PRACTICE_BOT_PACE: Final = 1.6
"""The bots flip this much more slowly than in a normal game."""


def practice_timing(base: RoomTiming | None) -> RoomTiming:
    """The server's timing (``base``), made slow and forgiving: longer to start
    (time to read the first explanation), a race open for at least 3 s, slower bots."""
    base = base or RoomTiming()
    return replace(
        base,
        start_delay_ms=max(base.start_delay_ms, 2500.0),
        jack_timeout_ms=max(base.jack_timeout_ms, 3000.0),
        bot_pace=base.bot_pace * PRACTICE_BOT_PACE,
    )


PRACTICE_TURN_SECONDS: Final = 20.0
"""Your turn waits this long before the game flips for you (you may be reading)."""


@router.post("/practice", response_model=None)
async def practice(ctx: Ctx, request: Request, body: Practice) -> Joined | Response:
    """A new practice room with you seated: its ``Joined`` (open ``url`` with
    the token as for play-now). Rate-limited like play-now (one shared budget)."""
    refused = ctx.limited(request, ctx.quick_games, "practice")
    if refused is not None:
        return refused
    settings = CreateRoom(
        name=word(body.lang, "practice.room_name", name=body.name),
        seats=3,
        bots=dict.fromkeys(PRACTICE_BOT_SEATS, PRACTICE_LEVEL),
        turn_seconds=PRACTICE_TURN_SECONDS,
        public=False,
    )
    setup = RoomSetup(deck=parse_deck(PRACTICE_DECK), bot_seed=PRACTICE_BOT_SEED)
    placed = await place(ctx, request)  # on a cluster: the least-loaded node
    if isinstance(placed, Response):
        return placed
    timing = replace(practice_timing(ctx.lobby.timing), **ctx.practice_timing)
    room = create_room(ctx, settings, setup, timing, code=placed)
    if isinstance(room, JSONResponse):
        return room
    return await take_seat(ctx, request, room, body.name)
