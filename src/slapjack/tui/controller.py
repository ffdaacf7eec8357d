"""The one object that runs a terminal game: the live table, its timer, the log.

Widgets keep no game state. They draw a :class:`TableState` that the
controller publishes after every change; the state is built from
``observe()`` of the first human seat (or the spectator view), never from
hidden state. The game runs on :class:`slapjack.live.LiveTable`, the table
the server and the simulator run too: it decides turn timers, when a race
closes, reslap rounds, the say-it call wait, the time limit and the bots. The
controller gives it time through a :class:`Clock` and wakes it when it asks.
A human slap counts from the moment its card was drawn on screen
(:meth:`GameController.shown`, called by the app after the refresh that shows
it) to the key event.
"""

from __future__ import annotations

import contextlib
import math
import secrets
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from pathlib import Path

from slapjack.bots.base import Bot
from slapjack.core import Event, SlapjackError, Table, observe
from slapjack.core.events import (
    Flipped,
    Slapped,
)
from slapjack.core.timing import is_false_start, measured_reaction
from slapjack.live import LiveTable, LiveTiming, RacePolicy, Tally

from .clock import Clock, Handle
from .config import GameConfig
from .state import LogItem, Note, SeatStats, TableState, log_events

BotFactory = Callable[[str, int], Bot]
"""``make_bot(level, seed)`` or a stand-in with the same signature."""


class GameController:
    """Runs one game. The app calls :meth:`start`, :meth:`shown`, :meth:`flip`,
    :meth:`slap`, :meth:`call`, :meth:`pause`/:meth:`resume`, :meth:`save`;
    the controller calls ``on_change`` with a new :class:`TableState`.

    The game itself runs on :class:`~slapjack.live.LiveTable` (the same table
    the server's rooms and the simulator run); the controller gives it time
    (milliseconds since the start, paused time left out), wakes it when it
    asks, and turns what happened into the state the widgets draw.
    """

    def __init__(
        self,
        config: GameConfig,
        clock: Clock,
        *,
        bot_factory: BotFactory | None = None,
        bots: Mapping[int, Bot] | None = None,
        on_change: Callable[[TableState], None] | None = None,
        live_timing: LiveTiming | None = None,
        referee: RacePolicy | None = None,
    ) -> None:
        """``live_timing`` and ``referee`` replace what ``config.timing`` gives
        (the served game's timings and referee, to play the very game a server
        room plays: tests/live/test_hosts.py)."""
        config.validate()
        self.config = config
        self.timing = config.timing
        self.clock = clock
        self.on_change = on_change
        seed = config.seed
        if config.deck is None and seed is None:
            seed = secrets.randbelow(2**32)
        self.seed = seed
        meta = {
            "app": "slapjack tui",
            "bots": {s.name: s.bot for s in config.seats if s.bot is not None},
        }
        if config.deck is not None:
            self.table = Table.new(config.rules, config.names, deck=config.deck, meta=meta)
        else:
            self.table = Table.new(config.rules, config.names, seed=seed, meta=meta)
        self.game = self.table.game
        self.seats = config.seats
        self.humans = tuple(i for i, s in enumerate(config.seats) if s.is_human)
        self.view_seat = self.humans[0] if self.humans else None
        self.live = LiveTable(
            self.table,
            levels=[s.bot for s in config.seats],
            bots=bots,
            timing=live_timing or config.timing.live(),
            referee=referee if referee is not None else config.timing.referee(),
            bot_factory=bot_factory or _default_bot_factory,
            bot_seed=seed if seed is not None else 0,
            auto_shown=False,
        )
        self._t0 = clock.now()
        self._paused_at: float | None = None
        self._paused_total = 0.0
        self._wake: Handle | None = None
        self._wake_at = math.inf
        self._log: list[LogItem] = []
        self._banner: tuple[LogItem, ...] = ()
        self._reactions: tuple[tuple[int, float | None], ...] = ()
        self._tally = Tally(len(config.seats))
        self._saved_to: str | None = None
        self._serial = 0
        self._started = False
        self.state = self._build_state()

    # ------------------------------------------------------------------ time

    def now_ms(self) -> float:
        """Milliseconds since the game started, not counting paused time (to a
        nanosecond: seconds to milliseconds must not make 300 ms 299.99999…)."""
        now = self._paused_at if self._paused_at is not None else self.clock.now()
        return round((now - self._t0 - self._paused_total) * 1000.0, 6)

    def _clock_to_ms(self, stamp: float) -> float:
        return min(round((stamp - self._t0 - self._paused_total) * 1000.0, 6), self.now_ms())

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def scheduled(self) -> dict[str, float]:
        """Pending timers and when they are due (controller ms), for tests and debugging."""
        return {k: v for k, v in self.live.deadlines().items() if v is not None}

    def pause(self) -> None:
        """Freeze the game (a dialog is open): timers stop, the clock stands still."""
        if self.paused or self.game.over:
            return
        self._paused_at = self.clock.now()
        self._cancel_wake()

    def resume(self) -> None:
        if self._paused_at is None:
            return
        self._paused_total += self.clock.now() - self._paused_at
        self._paused_at = None
        self._sync()

    def stop(self) -> None:
        """Cancel every timer (the app leaves the table)."""
        self._cancel_wake()
        self._stopped = True

    def _cancel_wake(self) -> None:
        if self._wake is not None:
            self._wake.cancel()
        self._wake = None
        self._wake_at = math.inf

    def _woken(self, due: float) -> None:
        if due != self._wake_at:
            return  # a timer cancelled too late to stop it
        self._wake = None
        self._wake_at = math.inf
        if self.paused or self._stopped:
            return
        # the timer came because ``due`` did (seconds to ms may round a hair short)
        self.live.wake(max(self.now_ms(), due))
        self._sync()

    # ------------------------------------------------------------- game flow

    _stopped = False

    def start(self) -> None:
        if self._started:
            return
        self._started = True
        self._t0 = self.clock.now()  # game time (and the time limit) start now
        self._log.append(Note("game_start"))
        self.live.start(self.now_ms())
        self._sync()

    @property
    def cue(self) -> int:
        return self.live.cue

    def shown(self, cue: int) -> None:
        """The card (or reslap cue) ``cue`` is now on screen: start the clocks on it."""
        if self.paused or self.game.over:
            return
        self.live.shown(cue, self.now_ms())
        self._sync()

    def flip(self, seat: int | None = None) -> bool:
        """A human flips: ``seat`` with its own key, or ``None`` (Space) for whoever
        human is on turn. Returns whether a card was flipped."""
        game = self.game
        if self.paused or game.over or game.needs_settle or game.turn is None:
            return False
        turn = game.turn
        if seat is None:
            seat = turn
        if seat != turn or seat not in self.humans:
            return False
        flips = game.flips
        try:
            self.live.flip(seat, self.now_ms(), flip_id=flips)
        except SlapjackError:
            self._sync()  # a key that came too late or too early: nothing changes
            return False
        self._sync(key_flip=True)
        return True

    def slap(self, seat: int, at: float | None = None) -> None:
        """Human ``seat`` hit its slap key at clock time ``at`` (default: now)."""
        game = self.game
        if self.paused or game.over or seat not in self.humans or game.is_out[seat]:
            return
        now = self._clock_to_ms(at) if at is not None else self.now_ms()
        with contextlib.suppress(SlapjackError):
            self.live.slap(seat, now)
        self._sync()

    def call(self, seat: int, at: float | None = None) -> None:
        """Say-it: human ``seat`` called "Slapjack!" at clock time ``at``."""
        if self.paused or self.game.over or seat not in self.humans:
            return
        now = self._clock_to_ms(at) if at is not None else self.now_ms()
        with contextlib.suppress(SlapjackError):
            self.live.call(seat, now)
        self._sync()

    def _sync(self, *, key_flip: bool = False) -> None:
        """After an input or a wake: take in what happened, set the one timer,
        publish. ``key_flip``: the last flip among the events was a key's."""
        self._absorb(self.live.take(), key_flip)
        due = self.live.next_deadline
        if self.game.over or self._stopped:
            self._cancel_wake()
        elif not self.paused and due != self._wake_at:
            self._cancel_wake()
            if due != math.inf:
                self._wake_at = due
                delay = max(0.0, due - self.now_ms()) / 1000.0
                self._wake = self.clock.call_later(delay, partial(self._woken, due))
        self._publish()

    def _absorb(self, events: list[Event], key_flip: bool = False) -> None:
        if not events:
            return
        self._tally.count(events)
        last_flip = max((i for i, e in enumerate(events) if isinstance(e, Flipped)), default=-1)
        items: list[LogItem] = []
        for i, event in enumerate(events):
            idle = not (key_flip and i == last_flip)  # else the turn timer flipped for them
            if isinstance(event, Flipped) and event.seat in self.humans and idle:
                items.append(Note("idle_flip", (("seat", event.seat),)))
            items.append(event)
            if (
                isinstance(event, Slapped)
                and event.seat in self.humans
                and is_false_start(event.reaction_ms)
            ):
                ms = measured_reaction(event.reaction_ms)
                items.append(Note("false_start", (("seat", event.seat), ("ms", ms))))
        results, reactions = log_events(self._log, items)
        if results:
            self._banner = results
            self._reactions = reactions

    # --------------------------------------------------------------- output

    def _build_state(self) -> TableState:
        self._serial += 1
        tally = self._tally
        stats = tuple(
            SeatStats(
                tally.jacks[s] + tally.shares[s],
                tally.pickups[s] + tally.wrong_pickups[s],
                tally.fastest[s],
                tally.wrong[s],
            )
            for s in range(len(self.seats))
        )
        turn_deadline = None
        turn = self.game.turn
        if turn in self.humans and self.live.seating.level(turn) is None:
            turn_deadline = self.live.deadlines()["turn"]
        end = self.live.deadlines()["time_limit"]
        return TableState(
            view=observe(self.game, self.view_seat),
            seats=self.seats,
            log=tuple(self._log),
            banner=self._banner,
            reactions=self._reactions,
            turn_deadline_ms=turn_deadline,
            end_ms=end,
            cue=self.live.cue,
            shown=self.live.cue_shown is not None,
            stats=stats,
            seed=self.seed,
            saved_to=self._saved_to,
            serial=self._serial,
        )

    def _publish(self) -> None:
        self.state = self._build_state()
        if self.on_change is not None:
            self.on_change(self.state)

    def save(self, directory: Path | str = ".") -> Path:
        """Write the record (``slapjack-record/1``) to a new file in ``directory``."""
        folder = Path(directory)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        path = folder / f"slapjack-{stamp}.json"
        n = 2
        while path.exists():
            path = folder / f"slapjack-{stamp}-{n}.json"
            n += 1
        path.write_text(self.table.record.to_json(indent=2) + "\n", encoding="utf-8")
        self._saved_to = str(path)
        self._log.append(Note("saved", (("path", path.name),)))
        self._publish()
        return path

    def note(self, key: str, **values: object) -> None:
        """Add a line of the app's own to the log."""
        self._log.append(Note(key, tuple(values.items())))
        self._publish()


def _default_bot_factory(level: str, seed: int) -> Bot:
    from slapjack.bots import make_bot

    return make_bot(level, seed)
