"""The live table: what a game played in real time adds to the rules.

The engine (:mod:`slapjack.core`) knows the rules and is told when a race
closes. A :class:`LiveTable` decides that and everything else a live game
needs: the turn timer, when a race closes (its referee's window after the
first slap, every seat slapped, or the no-slap timeout), reslap rounds, the
say-it call wait, the time limit, a bot covering an absent human, and when
and how each bot slaps (:mod:`.seating`). It is pure: time arrives as data
(``now``, the host's clock in ms) and the table says when to wake it
(:attr:`LiveTable.next_deadline`). The server's rooms, the terminal game and
the simulator all run it, so a record is the same whichever host played it.

A host feeds it inputs as they come (``slap(seat, now, …)``), wakes it at its
next deadline (``wake(now)``) and takes the events after each (``take()``).
Every input first runs the deadlines due by its ``now``, each at its own time,
so a late host timer changes nothing. Simultaneous deadlines run in this
order: bot slaps, the end of a call wait, the race, the pile handed back, the
turn, the time limit, a bot covering an absent human. Every action is in the
table's record before its host hears of it.
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Collection, Mapping, Sequence
from typing import Final

from slapjack.bots.base import Bot
from slapjack.core import Event, Game, IllegalAction, Rules, SlapjackError, Table, Tie
from slapjack.core.events import RaceTied
from slapjack.core.game import MAX_REACTION_MS

from .botrun import bots_only, run_bots
from .referee import LocalReferee, RacePolicy
from .seating import BotFactory, Seating
from .timing import BOT_FLINCH_LIMIT_MS, LiveTiming

INF: Final = math.inf

# deadline kinds, in the order simultaneous deadlines run
_BOT, _WAIT, _RACE, _DEADLOCK, _TURN, _LIMIT, _GRACE = range(7)


class LiveError(SlapjackError):
    """An input the live table refuses; ``code`` names why (``stale_flip`` …)."""

    code = "refused"


class LiveTable:
    """One game played live. See the module docstring for how a host drives it.

    ``levels[s]`` is the bot level of seat ``s``, or ``None`` for a human.
    ``bots`` gives bot instances for some seats (their levels come from them);
    other bots are made by ``bot_factory`` from ``bot_seed`` (see
    :func:`seat_bot_seed`). ``referee`` ranks the slaps (default: a
    :class:`~slapjack.live.referee.LocalReferee`). With ``auto_shown`` a new
    card or reslap cue counts as shown the moment it is turned; otherwise the
    host says when it is on screen (:meth:`shown`): bots react, and a race's
    clocks run, from then.
    """

    def __init__(
        self,
        table: Table | Game,
        *,
        levels: Sequence[str | None] | None = None,
        bots: Mapping[int, Bot] | None = None,
        timing: LiveTiming | None = None,
        referee: RacePolicy | None = None,
        bot_factory: BotFactory | None = None,
        bot_seed: int = 0,
        game_no: int = 0,
        auto_shown: bool = True,
        people: Collection[int] | None = None,
    ) -> None:
        game = table.game if isinstance(table, Table) else table
        self.table: Table | None = table if isinstance(table, Table) else None
        self.game: Game = game
        self.rules: Rules = game.rules
        # a Table records every action; a bare Game (a simulation that keeps no
        # record) is played the same way, unrecorded
        self._do_flip, self._do_slap = table.flip, table.slap
        self._do_settle, self._do_time_up = table.settle, table.time_up
        self.timing = timing or LiveTiming()
        self.referee: RacePolicy = referee if referee is not None else LocalReferee()
        n = self.game.n
        lv: list[str | None] = list(levels) if levels is not None else [None] * n
        if len(lv) != n:
            raise ValueError(f"{n} seats need {n} levels, got {len(lv)}")
        self.seating = Seating(
            self.rules,
            lv,
            bots=bots,
            bot_factory=bot_factory,
            bot_seed=bot_seed,
            game_no=game_no,
            cover_level=self.timing.cover_level,
            people=people,
        )
        self._auto_shown = auto_shown
        self._irish = self.rules.is_irish
        self._say_it = self.rules.say_it
        self._reslap = not self._irish and self.rules.tie is Tie.RESLAP
        self._origin = 0.0
        self._out: list[Event] = []
        self._cue = 0
        self._cue_shown: float | None = None
        self._round = self._round_slaps = 0
        self._first_slap: float | None = None
        self._race_opened = INF
        self._settles = 0
        self._called: set[int] = set()
        self._hold_until = -INF
        self._turn_at = INF
        self._turn_key: tuple[object, ...] | None = None
        self._race_at = INF
        self._deadlock_at = INF
        self._limit_at = INF
        self._bot_slaps: list[tuple[float, int, float, bool]] = []
        self._waits: dict[int, tuple[float, float]] = {}
        self._grace: dict[int, float] = {}
        self._due: tuple[float, int] = (INF, -1)

    # ------------------------------------------------------------------ queries

    @property
    def cue(self) -> int:
        """Counts the cues shown: every flip, and every reslap round's fresh cue."""
        return self._cue

    @property
    def cue_shown(self) -> float | None:
        """When the current cue was shown (host ms), ``None`` until it is."""
        return self._cue_shown

    @property
    def next_deadline(self) -> float:
        """When the host should call :meth:`wake` next (``inf``: not before an input)."""
        return self._due[0]

    def deadlines(self) -> dict[str, float | None]:
        """The game's pending timers by name (host ms), for status displays."""
        at = (self._turn_at, self._race_at, self._deadlock_at, self._limit_at)
        names = ("turn", "race", "deadlock", "time_limit")
        return {k: None if v == INF else v for k, v in zip(names, at, strict=True)}

    def grace_until(self, seat: int) -> float | None:
        """When an absent human's seat will be covered by a bot, if it is waiting for that."""
        return self._grace.get(seat)

    @property
    def round(self) -> int:
        """The open race's round: 1, then 2, 3 … for reslap rounds (0: no race)."""
        return self._round if self.game.race_open else 0

    @property
    def round_slaps(self) -> int:
        """Slaps so far in the open race's current round."""
        return self._round_slaps if self.game.race_open else 0

    def waiting_for_call(self) -> tuple[int, ...]:
        """Say-it: the seats whose slap waits for its call (not applied yet)."""
        return tuple(sorted(self._waits))

    def holds_calls(self) -> bool:
        """Say-it: a slap waits for its call, or a call waits for its slap:
        inputs nobody has been told of, which the record (and a restart) does not keep."""
        return bool(self._waits or self._called)

    def take(self) -> list[Event]:
        """The events since the last call, in order (hand them to the players)."""
        out, self._out = self._out, []
        return out

    # ------------------------------------------------------------------ inputs

    def start(self, now: float) -> None:
        """Start the clocks: the game's time 0 (or, when resuming a record, its
        last time) is ``now``. A race left open resumes at its round; the card
        counts as shown again, and bots yet to slap react to it."""
        game = self.game
        self._origin = now - game.t
        limit = self.rules.time_limit
        if limit and not game.over:
            self._limit_at = self._origin + limit * 1000.0
        if game.race_open:
            self._round = game.race_round + 1
            self._round_slaps = sum(1 for v in game.race_slaps.values() if len(v) > game.race_round)
            self._first_slap = now if self._round_slaps else None
            self._cue += 1
            if self._auto_shown:
                self._show(now)
        self._after(now)

    def wake(self, now: float) -> None:
        """Run every deadline due by ``now``."""
        self._run_due(now)

    def run(self, until: float = INF, *, max_flips: int | None = None) -> None:
        """Run deadline after deadline, each at its own time, as a host with a
        simulated clock does: until the next is later than ``until``, the game
        is over, ``max_flips`` cards have been flipped, or nothing is due."""
        game = self.game
        cap = max_flips if max_flips is not None else -1
        plan = bots_only(self)  # a table of bots only: the loop of .botrun
        if plan is not None:
            return run_bots(self, plan, until, cap)
        fire = self._fire
        while not game.over and game.flips != cap:
            at, kind = self._due
            if at > until or at == INF:
                return
            fire(kind, at)

    def shown(self, cue: int, now: float) -> None:
        """The host's screen shows cue ``cue`` (see :attr:`cue`) since ``now``."""
        self._run_due(now)
        if cue == self._cue and self._cue_shown is None and not self.game.over:
            self._show(now)
            self._after(now)

    def flip(self, seat: int, now: float, *, flip_id: int | None = None) -> None:
        """A human flips (``flip_id``: the flip count the client saw, if it sent one)."""
        self._input(now, flip_id)
        if self.timing.tempo == "fixed":
            raise LiveError("this table flips on a fixed tempo", code="not_your_turn")
        self._flip(seat, now)

    def slap(
        self,
        seat: int,
        now: float,
        *,
        flip_id: int | None = None,
        claimed_ms: float | None = None,
        shown_at: float | None = None,
        input_at: float | None = None,
        call: bool = False,
    ) -> None:
        """A human slaps. ``claimed_ms`` is the reaction the client measured
        (``None``: measured here, from the cue shown to ``now``; a slap before
        the cue was shown is dropped: it was meant for the card before)."""
        self._input(now, flip_id)
        if claimed_ms is None:
            if self._cue_shown is None:
                return
            claimed_ms = float(round(max(0.0, now - self._cue_shown)))
        self._slap(seat, claimed_ms, shown_at, input_at, call, now, bot=False)
        self._after(now)

    def call(self, seat: int, now: float, *, flip_id: int | None = None) -> None:
        """Say-it: ``seat`` calls "Slapjack!": a slap waiting for it goes in
        with it; a later slap on the same cue counts as called."""
        self._input(now, flip_id)
        if not self._say_it:
            return
        wait = self._waits.pop(seat, None)
        if wait is not None:
            self._apply_slap(seat, wait[1], True, now)
        else:
            self._called.add(seat)
        self._after(now)

    def _input(self, now: float, flip_id: int | None) -> None:
        """Before a player's input: what is due by ``now`` runs first; then the
        game must still be on, on the flip the client saw (``flip_id``)."""
        self._run_due(now)
        game = self.game
        if game.over:
            raise LiveError("the game is over", code="game_over")
        if flip_id is not None and flip_id != game.flips:
            raise LiveError(f"flip_id {flip_id} is stale (now {game.flips})", code="stale_flip")

    def disconnected(self, seat: int, now: float) -> None:
        """A human seat lost its last connection: a bot covers it after the grace period."""
        self._run_due(now)
        seating = self.seating
        if seating.levels[seat] is None and not seating.covered[seat] and not self.game.over:
            self._grace[seat] = now + self.timing.grace_ms
            self._after(now)

    def connected(self, seat: int, now: float) -> None:
        """A human seat is back: the covering bot (or the grace period) ends."""
        self._run_due(now)
        self._grace.pop(seat, None)
        self.seating.uncover(seat)
        self._after(now)

    def leave(self, seat: int, now: float) -> None:
        """A human leaves for good: a bot of the cover level plays the seat from now on."""
        self._run_due(now)
        self._grace.pop(seat, None)
        self.seating.leave(seat)
        self._after(now)

    # ------------------------------------------------------------- deadlines

    def _next_due(self) -> tuple[float, int]:
        """The earliest deadline and its kind (kept in ``_due`` by :meth:`_after`,
        which every change of a timer ends with)."""
        t, kind = INF, -1
        if self._bot_slaps:
            t, kind = self._bot_slaps[0][0], _BOT
        race = self._race_at
        if self._waits:
            ends = [v[0] for v in self._waits.values()]
            if min(ends) < t:
                t, kind = min(ends), _WAIT
            # a slap awaiting its call holds the race open, not past its limit
            race = max(race, min(max(ends), self._race_limit()))
        if race < t:
            t, kind = race, _RACE
        if self._deadlock_at < t:
            t, kind = self._deadlock_at, _DEADLOCK
        if self._turn_at < t:
            t, kind = self._turn_at, _TURN
        if self._limit_at < t:
            t, kind = self._limit_at, _LIMIT
        if self._grace:
            g = min(self._grace.values())
            if g < t:
                t, kind = g, _GRACE
        return t, kind

    def _run_due(self, now: float) -> None:
        while self._due[0] <= now and self._due[0] != INF:
            at, kind = self._due
            self._fire(kind, at)

    def _fire(self, kind: int, at: float) -> None:
        game = self.game
        if kind == _TURN:
            self._turn_at = INF
            self._turn_key = None
            seat = game.turn
            if seat is not None and not game.race_open and not game.over:
                self._flip(seat, at)
                return
        elif kind == _BOT:
            _, seat, reaction, call = self._bot_slaps.pop(0)
            self._slap(seat, reaction, 0.0, reaction, call, at, bot=True)
        elif kind == _WAIT:
            seat = min(self._waits, key=lambda s: (self._waits[s][0], s))
            _, reaction = self._waits.pop(seat)
            self._apply_slap(seat, reaction, seat in self._called, at)
        elif kind == _RACE:
            self._race_at = INF
            self._close_race(at)
        elif kind == _DEADLOCK:
            self._deadlock_at = INF
            if not game.over and not game.race_open and game.turn is None:
                self._settle(True, at)
                self._result(at)
        elif kind == _LIMIT:
            self._limit_at = INF
            self._time_up(at)
        else:
            seat = min(self._grace, key=lambda s: (self._grace[s], s))
            del self._grace[seat]
            if not game.over:
                self.seating.cover(seat)
        self._after(at)

    # ------------------------------------------------------------- the game

    def _t(self, at: float) -> int:
        return max(self.game.t, int(at - self._origin))

    def _flip(self, seat: int, at: float) -> None:
        game = self.game
        t = int(at - self._origin)
        self._out += self._do_flip(seat, t if t > game.t else game.t)
        self._flipped(at)

    def _flipped(self, at: float) -> None:
        """After a flip at ``at``: a fresh cue, the next turn's timer, the bots' reactions."""
        game = self.game
        self._cue += 1
        self._bot_slaps.clear()
        self._waits.clear()
        self._called.clear()
        if game.race_open:
            self._round = 1
            self._round_slaps = 0
            self._first_slap = None
            self._race_opened = INF
        common = not (game.race_open or game.over or game.turn is None)
        if common:
            # the next turn first: its bot draws its flip delay before any bot
            # draws a reaction to the card, whenever the host shows the card
            self._race_at = self._deadlock_at = INF
            self._schedule_turn(at, fresh=True)
        if not self._auto_shown:
            self._cue_shown = None
        elif not common or self.seating.wanted(game):
            self._show(at)
        else:
            self._cue_shown = at  # shown, and no bot would slap it: nothing to ask
        if common:
            self._due = self._next_due()
        else:
            self._after(at)

    def _show(self, at: float) -> None:
        """The current cue is on screen from ``at``: start the race's clocks, let the bots react."""
        self._cue_shown = at
        game = self.game
        if game.race_open:
            self._race_opened = at
        if not game.over and (game.reslap_among is not None or self.seating.wanted(game)):
            if game.race_open:
                limit = self.timing.irish_timeout_ms if self._irish else self.timing.jack_timeout_ms
            else:
                limit = BOT_FLINCH_LIMIT_MS
            for reaction, seat, call in self.seating.reactions(game, limit):
                insort(self._bot_slaps, (at + reaction, seat, reaction, call))

    def _slap(
        self,
        seat: int,
        claimed: float,
        shown_at: float | None,
        input_at: float | None,
        call: bool,
        at: float,
        *,
        bot: bool,
    ) -> None:
        game = self.game
        if game.over or game.is_out[seat]:
            if bot:
                return
            name = game.players[seat]
            raise IllegalAction(f"{name} is out of the game", code="player_out")
        reaction = self.referee.bound_reaction(seat, game.flips, claimed, shown_at, input_at, at)
        reaction = min(max(0.0, float(reaction)), MAX_REACTION_MS)
        call = call or seat in self._called
        if game.race_open and self._say_it and not call:
            among = game.reslap_among
            if seat not in self._waits and (among is None or seat in among):
                self._waits[seat] = (at + self.timing.call_wait_ms, reaction)
            return
        self._apply_slap(seat, reaction, call, at)

    def _apply_slap(
        self, seat: int, reaction: float, call: bool, at: float, settle: bool = True
    ) -> None:
        game = self.game
        was_open = game.race_open
        events = self._do_slap(seat, reaction, call, self._t(at))
        if not events:
            return
        self._out += events
        if not was_open:
            self._result(at)  # a penalty, a pick-up, a forfeit
            return
        self._round_slaps += 1
        if self._first_slap is None:
            self._first_slap = at
            self._race_at = self._race_deadline()
        among = game.reslap_among  # each seat that may slap, once a round
        eligible = len(among) if among is not None else game.n - game.is_out.count(True)
        if settle and self._round_slaps >= eligible:
            self._close_race(at)

    def _close_race(self, at: float) -> None:
        game = self.game
        if not game.race_open or game.over:
            return
        # say-it slaps still waiting for their call go in without it
        for seat in sorted(self._waits):
            _, reaction = self._waits.pop(seat)
            self._apply_slap(seat, reaction, seat in self._called, at, settle=False)
        if not game.race_open or game.over:
            return
        rounds = self.timing.max_rounds
        final = (
            not self._reslap
            or self._round >= rounds
            or (self._round > 1 and self._round_slaps == 0)
        )
        racing = self.seating.racing_people(game)
        events = self._settle(final, at)
        self.seating.notice(events, game, racing)
        self._settled(events, at)

    def _settled(self, events: list[Event], at: float) -> None:
        """After a race's settle: a reslap round for an exact tie, else the result."""
        if self.game.race_open and any(isinstance(e, RaceTied) for e in events):
            # an exact tie: a fresh cue for the tied players
            self._round += 1
            self._round_slaps = 0
            self._first_slap = None
            self._race_opened = self._race_at = INF
            self._called.clear()
            self._bot_slaps.clear()
            self._cue += 1
            self._cue_shown = None
            if self._auto_shown:
                self._show(at)
        else:
            self._result(at)

    def _settle(self, final: bool, at: float) -> list[Event]:
        events = self._do_settle(final, self._t(at))
        self._settles += 1
        self._out += events
        return events

    def _time_up(self, at: float) -> None:
        game = self.game
        if game.over:
            return
        for seat in sorted(self._waits):
            _, reaction = self._waits.pop(seat)
            self._apply_slap(seat, reaction, seat in self._called, at)
        if not game.over:
            self._out += self._do_time_up(self._t(at))

    def _result(self, at: float) -> None:
        pause = self.timing.result_pause_ms
        if pause:
            self._hold_until = at + pause

    # -------------------------------------------------------------- timers

    def _after(self, at: float) -> None:
        """After any change: set the game's timers for the position it is in."""
        game = self.game
        if game.over:
            self._turn_at = self._race_at = self._deadlock_at = self._limit_at = INF
            self._turn_key = None
            self._bot_slaps.clear()
            self._waits.clear()
            self._grace.clear()
        elif game.race_open:
            self._turn_at = self._deadlock_at = INF
            self._turn_key = None
            if self._race_at == INF:
                self._race_at = self._race_deadline()
        elif game.turn is None:
            self._race_at = self._turn_at = INF
            self._turn_key = None
            if self._deadlock_at == INF:
                self._deadlock_at = at + self.timing.deadlock_ms
        else:
            self._race_at = self._deadlock_at = INF
            self._schedule_turn(at)
        self._due = self._next_due()

    def _race_limit(self) -> float:  # the open race's end at the latest: its timeout
        t = self.timing
        return self._race_opened + (t.irish_timeout_ms if self._irish else t.jack_timeout_ms)

    def _race_deadline(self) -> float:
        deadline = self._race_limit()
        if self._irish:
            return deadline
        first = self._first_slap
        if first is not None:
            among = self.game.reslap_among
            eligible = among if among is not None else self.game.in_seats()
            deadline = min(deadline, first + self.referee.window_ms(eligible))
        return deadline

    def _schedule_turn(self, at: float, fresh: bool = False) -> None:
        """(Re)start the turn timer unless it runs for this turn already
        (``fresh``: a card was just flipped, so it cannot)."""
        game = self.game
        turn = game.turn
        assert turn is not None
        seating = self.seating
        bot = turn in seating.bots
        key = (turn, game.flips, self._settles, bot, self._hold_until)
        if not fresh and key == self._turn_key:
            return
        self._turn_key = key
        timing = self.timing
        hold = self._hold_until
        start = at if at > hold else hold
        if timing.tempo == "fixed":
            assert timing.turn_ms is not None
            self._turn_at = start + timing.turn_ms
            return
        if bot:
            pace = timing.bot_pace
            if seating.has_humans and seating.humans_out(game):
                pace *= timing.bots_only_pace
            delay = (seating.flip_delay(game, turn) or 0.0) * pace
            cap = timing.max_bot_flip_ms
            turn_ms = timing.turn_ms
            if turn_ms and turn_ms < cap:
                cap = turn_ms
            self._turn_at = start + (delay if delay < cap else cap)
        elif timing.turn_ms:
            self._turn_at = start + timing.turn_ms
        else:
            self._turn_at = INF
