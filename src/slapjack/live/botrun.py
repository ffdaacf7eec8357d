"""The live table's run loop for a table of bots only (the simulator's case).

:meth:`LiveTable.run <slapjack.live.table.LiveTable.run>` hands a table whose
every seat is a :class:`~slapjack.bots.FastBot`, shown each cue the moment it
is turned and flipping on its bots' delays, to :func:`run_bots`. Most cards
are flipped by a bot and nobody could slap them: this loop does that case
itself, with the same state changes, the same random draws in the same order
and the same events as the general path (``LiveTable._fire``), which it calls
for everything else (a race, a slap, a deadlock, the time limit). The tests in
``tests/live/test_botrun.py`` play games both ways and compare them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # pragma: no cover
    from .table import LiveTable

INF: Final = math.inf
_BOT, _TURN = 0, 4  # the table's deadline kinds (see table.py)


def bots_only(live: LiveTable) -> list[Callable[[], float]] | None:
    """The seats' flip-delay draws, if :func:`run_bots` may run ``live``; else ``None``."""
    seating = live.seating
    if not live._auto_shown or live.timing.tempo == "fixed" or seating.has_humans or live._grace:
        return None
    fast = seating.fast
    if len(seating.bots) != len(fast):
        return None
    delays: list[Callable[[], float]] = []
    for f in fast:
        if f is None:
            return None
        delays.append(f.next_flip_delay_ms)
    return delays


def run_bots(live: LiveTable, delays: list[Callable[[], float]], until: float, cap: int) -> None:
    """``live.run(until, max_flips=cap)`` for a table :func:`bots_only` accepted."""
    game = live.game
    centre = game.centre
    fire = live._fire
    do_flip = live._do_flip
    flipped = live._flipped
    wanted = live.seating.wanted
    show = live._show
    out = live._out
    bot_slaps = live._bot_slaps
    waits = live._waits
    called = live._called
    origin = live._origin
    timing = live.timing
    pace = timing.bot_pace  # no humans: never the bots-only pace
    most = timing.max_bot_flip_ms
    turn_ms = timing.turn_ms
    if turn_ms and turn_ms < most:
        most = turn_ms
    # interest[rank * 14 + call + 1] (call 0: none): could any bot slap this card?
    interest: list[bool | None] = [None] * (13 * 14)
    while not game.over and game.flips != cap:
        at, kind = live._due
        if at > until or at == INF:
            return
        seat = game.turn
        if kind != _TURN or seat is None or game.race_open:
            fire(kind, at)
            continue
        # a bot's turn is due: it flips (LiveTable._fire and _flip)
        t = int(at - origin)
        gt = game.t
        out += do_flip(seat, t if t > gt else gt)
        turn = game.turn
        if turn is None or game.race_open or game.over:
            live._turn_at = INF
            live._turn_key = None
            flipped(at)
            continue
        live._cue += 1
        if bot_slaps:
            bot_slaps.clear()
        if waits:
            waits.clear()
        if called:
            called.clear()
        live._race_at = live._deadlock_at = INF
        # the next turn's flip delay first (LiveTable._schedule_turn, fresh)
        hold = live._hold_until
        live._turn_key = (turn, game.flips, live._settles, True, hold)
        delay = float(delays[turn]())
        if not delay >= 0.0:  # also nan
            delay = 0.0
        delay *= pace
        turn_at = (at if at > hold else hold) + (delay if delay < most else most)
        live._turn_at = turn_at
        # then the bots' reactions to the card, if any bot could slap it
        call = game.top_call
        key = (centre[-1] >> 2) * 14 + (0 if call is None else call + 1)
        want = interest[key]
        if want is None:
            want = interest[key] = wanted(game)
        if want:
            show(at)
        else:
            live._cue_shown = at
        # the next deadline (LiveTable._next_due: no waits, race or grace here)
        due, due_kind = turn_at, _TURN
        if bot_slaps:
            first = bot_slaps[0][0]
            if not turn_at < first:
                due, due_kind = first, _BOT
        limit = live._limit_at
        if limit < due:
            due, due_kind = limit, 5
        live._due = (due, due_kind)
