"""The live table's run loop for a table of bots only (the simulator's case).

:meth:`LiveTable.run <slapjack.live.table.LiveTable.run>` hands a table whose
every seat is a :class:`~slapjack.bots.FastBot`, shown each cue the moment it
is turned and flipping on its bots' delays, to :func:`run_bots`. The loop does
the common steps itself: a bot flips (a card nobody could slap costs one
look-up in an interest table, and a run of such cards, or of cards some bot
might slap but none does, stays in one step), a race opens and the bots'
reactions are asked from the card alone, a bot's slap is applied (and the
race's next ones in the same step, while nothing else is due before them), a
race of bots that do not learn closes, and what is due next (the open race,
the next turn) is set. It makes the same state changes, the same random
draws in the same order and the same events as the general path
(``LiveTable._fire``), which it calls for everything else (a reslap round, a
say-it wait, a learning bot's race, a deadlock, the time limit).
``tests/live/test_botrun.py`` plays games both ways and compares them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, NamedTuple, cast

from slapjack.bots.base import FastBot, SlapIntent
from slapjack.core import Card, Rules
from slapjack.core.game import MAX_REACTION_MS
from slapjack.core.timing import FALSE_START_OFFSET_MS

from .referee import LocalReferee
from .timing import BOT_FLINCH_LIMIT_MS

if TYPE_CHECKING:  # pragma: no cover
    from .table import LiveTable

INF: Final = math.inf
_BOT, _RACE, _TURN, _LIMIT = 0, 2, 4, 5  # the table's deadline kinds (see table.py)


class Plan(NamedTuple):
    """What :func:`run_bots` asks of a table's bots, gathered once."""

    delays: list[Callable[[], float]]
    """Each seat's flip-delay draw, by seat."""
    deciders: list[tuple[int, Callable[[Card, int | None, Rules], SlapIntent | None]]]
    """Each seat's decision on a new card, in the order ``Seating.reactions`` asks them."""
    learn: bool
    """Some bot learns from the table (``notice``)."""
    keys: tuple[object, ...]
    """Each bot's ``decision_key`` (``None`` for a bot without one)."""


def bots_only(live: LiveTable) -> Plan | None:
    """What :func:`run_bots` needs of the seats, if it may run ``live``; else ``None``."""
    seating = live.seating
    if not live._auto_shown or live.timing.tempo == "fixed" or seating.has_humans or live._grace:
        return None
    fast = seating.fast
    if len(seating.bots) != len(fast):
        return None
    # (n bots on n seats: every seat has one)
    deciders: list[tuple[int, Callable[[Card, int | None, Rules], SlapIntent | None]]] = []
    keys: list[object] = []
    learn = False
    for s, bot in seating.bots.items():
        f = fast[s]
        if f is None:
            return None
        if f:
            deciders.append((s, f.react_card))
        keys.append(getattr(bot, "decision_key", None))
        if not learn and getattr(bot, "notice", None) is not None:
            learn = True
    delays: list[Callable[[], float]] = [cast(FastBot, f).next_flip_delay_ms for f in fast]
    return Plan(delays, deciders, learn, tuple(keys))


_INTEREST: dict[tuple[int, tuple[object, ...]], tuple[Rules, list[bool | None]]] = {}


def _interest(live: LiveTable, keys: tuple[object, ...]) -> list[bool | None]:
    r"""``interest[rank * 14 + call + 1]`` (call 0: none): could any bot slap this
    card? (``Seating.wanted``.) Filled as cards come; shared by the tables whose
    bots have equal ``decision_key``\ s (they answer ``might_slap`` alike) and rules."""
    if None in keys:
        return [None] * (13 * 14)
    rules = live.rules
    entry = _INTEREST.get((id(rules), keys))
    if entry is None or entry[0] is not rules:
        if len(_INTEREST) > 256:
            _INTEREST.clear()
        entry = _INTEREST[(id(rules), keys)] = (rules, [None] * (13 * 14))
    return entry[1]


def run_bots(live: LiveTable, plan: Plan, until: float, cap: int) -> None:
    """``live.run(until, max_flips=cap)`` for a table :func:`bots_only` accepted."""
    delays, deciders, learn, keys = plan
    game = live.game
    rules = live.rules
    centre, is_out = game.centre, game.is_out
    fire, flipped, after = live._fire, live._flipped, live._after
    do_flip, do_slap, apply_slap = live._do_flip, live._do_slap, live._apply_slap
    referee = live.referee
    bound = referee.bound_reaction
    local = type(referee) is LocalReferee
    floor = window = 0.0
    if local and isinstance(referee, LocalReferee):
        floor, window = referee._floor, referee._window
    false_start = FALSE_START_OFFSET_MS
    wanted = live.seating.wanted
    out, bot_slaps, waits, called = live._out, live._bot_slaps, live._waits, live._called
    origin = live._origin
    timing = live.timing
    say_it, call_wait = live._say_it, timing.call_wait_ms
    pace = timing.bot_pace  # no humans: never the bots-only pace
    paced = pace != 1.0
    race_ms = timing.irish_timeout_ms if live._irish else timing.jack_timeout_ms
    most = timing.max_bot_flip_ms
    turn_ms = timing.turn_ms
    if turn_ms and turn_ms < most:
        most = turn_ms
    interest = _interest(live, keys)
    irish = live._irish
    n = game.n
    race_deadline = live._race_deadline
    inf, bot_kind, race_kind, turn_kind, limit_kind = INF, _BOT, _RACE, _TURN, _LIMIT
    flinch_ms, most_ms, real = BOT_FLINCH_LIMIT_MS, MAX_REACTION_MS, float
    while not game.over and game.flips != cap:
        at, kind = live._due
        if at > until or at == inf:
            return
        if kind == bot_kind:
            # a bot's slap is due (LiveTable._fire, _slap and _apply_slap)
            _, seat, claimed, call = bot_slaps.pop(0)
            if is_out[seat]:
                after(at)
                continue
            if local:  # LocalReferee.bound_reaction (a bot's reaction is >= 0)
                reaction = claimed + false_start if claimed < floor else claimed
            else:
                reaction = real(bound(seat, game.flips, claimed, 0.0, claimed, at))
                reaction = reaction if reaction > 0.0 else 0.0  # min(max(0.0, r), most), also nan
            if most_ms < reaction:
                reaction = most_ms
            call = call or seat in called
            if not game.race_open:
                if game.top is None:  # nothing to slap: the engine ignores it, nothing changes
                    _settled(live, delays, at)
                    continue
                apply_slap(seat, reaction, call, at)  # a slap on a card that is no race
                after(at)
                continue
            if say_it and not call:
                among = game.reslap_among
                if seat not in waits and (among is None or seat in among):
                    waits[seat] = (at + call_wait, reaction)
                after(at)
                continue
            # a slap in the open race; then the next bot's, and so on, while it is
            # what is due next (before the race closes, the time limit and ``until``)
            closed = False
            while True:
                t = int(at - origin)
                gt = game.t
                events = do_slap(seat, reaction, call, t if t > gt else gt)
                if events:
                    out += events
                    slaps_in = live._round_slaps = live._round_slaps + 1
                    if live._first_slap is None:
                        live._first_slap = at
                        if local:  # (LiveTable._race_deadline)
                            due = live._race_opened + race_ms
                            if not irish and at + window < due:
                                due = at + window
                            live._race_at = due
                        else:
                            live._race_at = race_deadline()
                    among = game.reslap_among  # each seat that may slap, once a round
                    if slaps_in >= (len(among) if among is not None else n - is_out.count(True)):
                        _close(live, delays, learn, at)
                        closed = True
                        break
                if waits or game.over or not bot_slaps or say_it:
                    break
                first, seat, claimed, call = bot_slaps[0]
                due = live._race_at
                if (
                    due < first
                    or due == inf
                    or first > until
                    or live._limit_at < first
                    or is_out[seat]
                    or not game.race_open
                ):
                    break
                # (as the outer loop's step after this slap would leave them)
                live._turn_at = live._deadlock_at = inf
                live._turn_key = None
                del bot_slaps[0]
                at = first
                if local:
                    reaction = claimed + false_start if claimed < floor else claimed
                else:
                    reaction = real(bound(seat, game.flips, claimed, 0.0, claimed, at))
                    reaction = reaction if reaction > 0.0 else 0.0
                if most_ms < reaction:
                    reaction = most_ms
                call = call or seat in called
            if closed:
                continue
            # what is due next (LiveTable._after and _next_due) in the race still open
            if waits or game.over:
                after(at)
                continue
            live._turn_at = live._deadlock_at = inf
            live._turn_key = None
            due = live._race_at
            if due == inf:
                due = live._race_at = race_deadline()
            due_kind = race_kind
            if bot_slaps:
                first = bot_slaps[0][0]
                if not due < first:
                    due, due_kind = first, bot_kind
            limit_at = live._limit_at
            if limit_at < due:
                due, due_kind = limit_at, limit_kind
            live._due = (due, due_kind)
            continue
        if kind == race_kind and game.race_open:
            live._race_at = inf  # the race closes (LiveTable._fire)
            _close(live, delays, learn, at)
            continue
        on_turn = game.turn
        if kind != turn_kind or on_turn is None or game.race_open:
            fire(kind, at)
            continue
        # a bot's turn is due: it flips (LiveTable._fire, _flip and _flipped);
        # and so on, without leaving this loop, while the cards come that no bot
        # could slap (what the outer loop would store for each is stored once, at the end)
        # (each flip here is a fresh cue: the cue count is the table's plus the flips)
        cue = live._cue - game.flips
        hold = live._hold_until
        limit_at = live._limit_at
        stop = until if until < limit_at else limit_at  # a later turn waits for the outer loop
        if bot_slaps:  # (the flip below does not look at these)
            bot_slaps.clear()
        if waits:
            waits.clear()
        if called:
            called.clear()
        t = int(at - origin)
        if t < game.t:
            t = game.t
        start = at if at > hold else hold
        asked = False  # the bots' reactions to the last card flipped are in bot_slaps
        while True:
            out += do_flip(on_turn, t)
            turn = game.turn
            racing = game.race_open
            if turn is None and (game.over or not racing):  # (a flip leaves no reslap open)
                live._cue = cue + game.flips - 1
                live._turn_at = inf
                live._turn_key = None
                flipped(at)
                break
            top = centre[-1]
            if irish:
                called_rank = game.top_call
                key = (top >> 2) * 14 + (0 if called_rank is None else called_rank + 1)
            else:
                key = (top >> 2) * 14  # (no call in Slapjack)
            want = interest[key]
            if want is None:
                want = interest[key] = wanted(game)
            if racing:
                break
            assert turn is not None
            # (race_at and deadlock_at are inf already: a turn was due)
            # the next turn's flip delay first (LiveTable._schedule_turn, fresh)
            delay = delays[turn]() + 0.0  # (a float)
            if not delay >= 0.0:  # also nan
                delay = 0.0
            if paced:
                delay *= pace
            due = start + (delay if delay < most else most)
            if due > stop or game.flips == cap:
                break
            if want:
                # a card some bot might slap: their reactions now (below, Seating.reactions);
                # if none slaps, the next turn is still what is due next
                called_rank = game.top_call
                for s, react in deciders:
                    if is_out[s]:
                        continue
                    intent = react(top, called_rank, rules)
                    if intent is not None:
                        reaction = real(intent.reaction_ms)
                        if 0.0 <= reaction <= flinch_ms:  # also drops nan
                            bot_slaps.append((at + reaction, s, reaction, bool(intent.call)))
                if bot_slaps:
                    asked = True
                    break
            # the common case: a card nobody could slap. Its turn's due time is
            # not before the hold (nor before this flip)
            at = start = due
            on_turn = turn
            t_next = int(at - origin)
            if t_next > t:  # (t is the game's time now)
                t = t_next
        if turn is None and not racing:
            continue
        called_rank = game.top_call
        live._cue = cue + game.flips
        live._cue_shown = at
        if racing:
            # a race opens (LiveTable._show and _after): its clock runs from now
            live._round, live._round_slaps, live._first_slap = 1, 0, None
            live._race_opened = at
            live._turn_at = live._deadlock_at = due = inf
            live._turn_key = None
            live._race_at = race_at = at + race_ms
            limit = race_ms
        else:
            live._turn_key = (turn, game.flips, live._settles, True, hold)
            live._turn_at = due
            if not want:
                live._due = (due, turn_kind) if not limit_at < due else (limit_at, limit_kind)
                continue
            limit = flinch_ms
        # then the bots' reactions to the card, if any bot could slap it (Seating.reactions)
        if asked:
            bot_slaps.sort()
        elif want:
            slaps = []
            for s, react in deciders:
                if is_out[s]:
                    continue
                intent = react(top, called_rank, rules)
                if intent is not None:
                    reaction = real(intent.reaction_ms)
                    if 0.0 <= reaction <= limit:  # also drops nan
                        slaps.append((at + reaction, s, reaction, bool(intent.call)))
            if slaps:
                slaps.sort()
                bot_slaps += slaps
        # the next deadline (LiveTable._next_due: no waits or grace here)
        due_kind = turn_kind
        if bot_slaps:
            first = bot_slaps[0][0]
            if not due < first:
                due, due_kind = first, bot_kind
        if racing and race_at < due:
            due, due_kind = race_at, race_kind
        limit_at = live._limit_at
        if limit_at < due:
            due, due_kind = limit_at, limit_kind
        live._due = (due, due_kind)


def _settled(live: LiveTable, delays: list[Callable[[], float]], at: float) -> None:
    """What is due after a change that left no race open (LiveTable._after, _next_due)."""
    game, waits, bot_slaps = live.game, live._waits, live._bot_slaps
    turn = game.turn
    if turn is None or waits or game.over:
        live._after(at)
        return
    live._race_at = live._deadlock_at = INF
    hold = live._hold_until
    key = (turn, game.flips, live._settles, True, hold)
    if key == live._turn_key:
        due = live._turn_at  # the turn's timer runs already
    else:  # (LiveTable._schedule_turn)
        live._turn_key = key
        timing = live.timing
        most = timing.max_bot_flip_ms
        turn_ms = timing.turn_ms
        if turn_ms and turn_ms < most:
            most = turn_ms
        delay = float(delays[turn]())
        if not delay >= 0.0:  # also nan
            delay = 0.0
        delay *= timing.bot_pace
        due = live._turn_at = (at if at > hold else hold) + (delay if delay < most else most)
    due_kind = _TURN
    if bot_slaps:
        first = bot_slaps[0][0]
        if not due < first:
            due, due_kind = first, _BOT
    limit_at = live._limit_at
    if limit_at < due:
        due, due_kind = limit_at, _LIMIT
    live._due = (due, due_kind)


def _close(live: LiveTable, delays: list[Callable[[], float]], learn: bool, at: float) -> None:
    """LiveTable._close_race and what is due next, for an open race of a game on
    (``learn``: a bot learns from the table)."""
    if live._waits or learn:
        live._close_race(at)
        live._after(at)
        return
    game = live.game
    r = live._round
    final = not live._reslap or r >= live.timing.max_rounds or (r > 1 and live._round_slaps == 0)
    t = int(at - live._origin)
    gt = game.t
    events = live._do_settle(final, t if t > gt else gt)
    live._settles += 1
    live._out += events
    if game.race_open:  # an exact tie: a reslap round
        live._settled(events, at)
        live._after(at)
        return
    pause = live.timing.result_pause_ms
    if pause:
        live._hold_until = at + pause
    _settled(live, delays, at)
