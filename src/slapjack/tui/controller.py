"""The one object that runs a terminal game: table, bots, timers and reaction times.

Widgets keep no game state. They draw a :class:`TableState` that the
controller publishes after every change; the state is built from
``observe()`` of the first human seat (or the spectator view), never from
hidden state. The controller owns every timer (turn timer, slap window, bot
slaps and flips, say-it call window, time limit) through a :class:`Clock`, and
measures each human slap from the moment the card was drawn on screen
(:meth:`GameController.shown`, called by the app after the refresh that shows
it) to the key event.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Final

from slapjack.bots.base import Bot, notice_bots
from slapjack.core import (
    Event,
    Flip,
    IllegalAction,
    Slap,
    Table,
    TimeUp,
    View,
    observe,
)
from slapjack.core.events import (
    Eliminated,
    Finished,
    Forfeit,
    GameOver,
    NoSlap,
    PickedUp,
    PileReturned,
    PileSplit,
    RaceTied,
    RaceWon,
    Slapped,
    TimeIsUp,
    WrongSlap,
)

from .clock import Clock, Handle
from .config import FALSE_START_MS, GameConfig, SeatSpec

MAX_RESLAP_ROUNDS: Final = 3
"""After this many reslap rounds an exact tie is broken by seat order (final settle)."""
BOT_FLINCH_LIMIT_MS: Final = 10_000.0
"""A bot's slap on a card that is no race is dropped if scheduled later than this."""
MAX_BOT_FLIP_MS: Final = 10_000.0
"""A bot never takes longer than this to flip (a bad bot cannot stall the table)."""
LOG_SIZE: Final = 300


BotFactory = Callable[[str, int], Bot]
"""``make_bot(level, seed)`` or a stand-in with the same signature."""


@dataclass(frozen=True, slots=True)
class Note:
    """A line the app adds to the log itself (an i18n key and its values)."""

    key: str
    values: tuple[tuple[str, object], ...] = ()


LogItem = Event | Note

RESULT_EVENTS: Final = (
    RaceWon,
    RaceTied,
    PileSplit,
    Forfeit,
    NoSlap,
    PickedUp,
    PileReturned,
    WrongSlap,
    Eliminated,
    Finished,
    TimeIsUp,
    GameOver,
)


def log_events(
    log: list[LogItem], events: Sequence[Event]
) -> tuple[tuple[LogItem, ...], tuple[tuple[int, float | None], ...]]:
    """Append ``events`` to ``log`` (keeping its last :data:`LOG_SIZE` items);
    the race results among them and the last reaction times they carry."""
    results: list[LogItem] = []
    reactions: tuple[tuple[int, float | None], ...] = ()
    for event in events:
        log.append(event)
        if isinstance(event, RESULT_EVENTS):
            results.append(event)
        reactions = tuple(getattr(event, "reactions", ())) or reactions
    if len(log) > LOG_SIZE:
        del log[: len(log) - LOG_SIZE]
    return tuple(results), reactions


@dataclass(frozen=True, slots=True)
class SeatStats:
    """What the end screen shows per seat besides its cards."""

    jacks: int = 0
    pickups: int = 0
    fastest: float | None = None
    wrong: int = 0


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything a widget may draw. Immutable; a new one comes with every change."""

    view: View
    seats: tuple[SeatSpec, ...]
    log: tuple[LogItem, ...]
    banner: tuple[LogItem, ...]
    """The latest result (race, penalty, pick-up, someone out), shown large."""
    reactions: tuple[tuple[int, float | None], ...]
    """The reaction times of the latest race, fastest first."""
    turn_deadline_ms: float | None
    """When the idle flip comes for the human on turn (controller time)."""
    end_ms: float | None
    """When the time limit is up (controller time)."""
    cue: int
    """Counts cards shown and reslap rounds; the app reports it back via ``shown``."""
    shown: bool
    stats: tuple[SeatStats, ...]
    seed: int | None
    saved_to: str | None
    serial: int = 0


@dataclass(slots=True)
class _Job:
    due_ms: float
    callback: Callable[[], None]
    token: int
    handle: Handle | None


@dataclass(slots=True)
class _Stats:
    jacks: int = 0
    pickups: int = 0
    fastest: float | None = None
    wrong: int = 0

    def frozen(self) -> SeatStats:
        return SeatStats(self.jacks, self.pickups, self.fastest, self.wrong)


@dataclass(slots=True)
class _Race:
    """The slap race on the current cue (a Jack, a match, or a reslap round)."""

    reactions: dict[int, float] = field(default_factory=dict)
    bots_due: dict[int, float] = field(default_factory=dict)
    window_passed: bool = False


class GameController:
    """Runs one game. The app calls :meth:`start`, :meth:`shown`, :meth:`flip`,
    :meth:`slap`, :meth:`call`, :meth:`pause`/:meth:`resume`, :meth:`save`;
    the controller calls ``on_change`` with a new :class:`TableState`."""

    def __init__(
        self,
        config: GameConfig,
        clock: Clock,
        *,
        bot_factory: BotFactory | None = None,
        bots: Mapping[int, Bot] | None = None,
        on_change: Callable[[TableState], None] | None = None,
    ) -> None:
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
        if bots is not None:
            self.bots: dict[int, Bot] = dict(bots)
        else:
            factory = bot_factory or _default_bot_factory
            base = seed if seed is not None else 0
            self.bots = {
                i: factory(s.bot, (base * 31 + i) % 2**63)
                for i, s in enumerate(config.seats)
                if s.bot is not None
            }
        self._t0 = clock.now()
        self._paused_at: float | None = None
        self._paused_total = 0.0
        self._jobs: dict[str, _Job] = {}
        self._tokens = 0
        self._cue = 0
        self._cue_flips = 0
        self._shown_ms: float | None = None
        self._round = 0
        self._race = _Race()
        self._hold_until = 0.0
        self._turn_key: tuple[object, ...] | None = None
        self._turn_deadline: float | None = None
        self._end_ms: float | None = None
        self._pending_calls: dict[int, float] = {}
        self._last_call: dict[int, float] = {}
        self._log: list[LogItem] = []
        self._banner: tuple[LogItem, ...] = ()
        self._reactions: tuple[tuple[int, float | None], ...] = ()
        self._stats = [_Stats() for _ in config.seats]
        self._saved_to: str | None = None
        self._serial = 0
        self._started = False
        self._busy = False
        self.state = self._build_state()

    # ------------------------------------------------------------------ time

    def now_ms(self) -> float:
        """Milliseconds since the game started, not counting paused time."""
        now = self._paused_at if self._paused_at is not None else self.clock.now()
        return (now - self._t0 - self._paused_total) * 1000.0

    def _clock_to_ms(self, stamp: float) -> float:
        return (stamp - self._t0 - self._paused_total) * 1000.0

    def _t(self) -> int:
        return max(self.game.t, int(self.now_ms()))

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def _at(self, name: str, delay_ms: float, callback: Callable[[], None]) -> None:
        self._cancel(name)
        self._tokens += 1
        token = self._tokens
        due = self.now_ms() + max(0.0, delay_ms)
        handle = None
        if not self.paused:
            handle = self.clock.call_later(
                max(0.0, delay_ms) / 1000.0, partial(self._fire, name, token)
            )
        self._jobs[name] = _Job(due, callback, token, handle)

    def _cancel(self, name: str) -> None:
        job = self._jobs.pop(name, None)
        if job is not None and job.handle is not None:
            job.handle.cancel()

    def _cancel_prefix(self, prefix: str) -> None:
        for name in [n for n in self._jobs if n.startswith(prefix)]:
            self._cancel(name)

    def _fire(self, name: str, token: int) -> None:
        job = self._jobs.get(name)
        if job is None or job.token != token or self.paused:
            return
        del self._jobs[name]
        job.callback()

    def scheduled(self) -> dict[str, float]:
        """Pending timers and when they are due (controller ms), for tests and debugging."""
        return {name: job.due_ms for name, job in self._jobs.items()}

    def pause(self) -> None:
        """Freeze the game (a dialog is open): timers stop, the clock stands still."""
        if self.paused or self.game.over:
            return
        self._paused_at = self.clock.now()
        for job in self._jobs.values():
            if job.handle is not None:
                job.handle.cancel()
                job.handle = None

    def resume(self) -> None:
        if self._paused_at is None:
            return
        self._paused_total += self.clock.now() - self._paused_at
        self._paused_at = None
        now = self.now_ms()
        for name, job in self._jobs.items():
            job.handle = self.clock.call_later(
                max(0.0, job.due_ms - now) / 1000.0, partial(self._fire, name, job.token)
            )
        self._publish()

    def stop(self) -> None:
        """Cancel every timer (the app leaves the table)."""
        for name in list(self._jobs):
            self._cancel(name)

    # ------------------------------------------------------------- game flow

    def start(self) -> None:
        if self._started:
            return
        self._started = True
        self._t0 = self.clock.now()  # game time (and the time limit) start now
        self._log.append(Note("game_start"))
        limit = self.config.rules.time_limit
        if limit and not self.config.rules.is_irish:
            self._end_ms = limit * 1000.0
            self._at("time_up", self._end_ms, self._time_up)
        self._advance()

    @property
    def cue(self) -> int:
        return self._cue

    def shown(self, cue: int) -> None:
        """The card (or reslap cue) ``cue`` is now on screen: start the clocks on it."""
        game = self.game
        if cue != self._cue or self._shown_ms is not None or game.over:
            return
        self._shown_ms = self.now_ms()
        self._race = _Race()
        race = game.race_open
        among = game.reslap_among
        limit = self._race_timeout() if race else BOT_FLINCH_LIMIT_MS
        for seat, bot in self.bots.items():
            if game.is_out[seat] or (among is not None and seat not in among):
                continue
            intent = bot.react(observe(game, seat))
            if intent is None:
                continue
            reaction = float(intent.reaction_ms)
            if not (math.isfinite(reaction) and 0.0 <= reaction <= limit):
                continue
            call = bool(intent.call)
            self._race.bots_due[seat] = reaction
            self._at(f"bot:{seat}", reaction, partial(self._bot_slap, cue, seat, reaction, call))
        if race:
            window = (
                self.timing.irish_timeout_ms
                if self.config.rules.is_irish
                else self.timing.slap_window_ms
            )
            self._at("window", window, partial(self._window_closed, cue))
        self._publish()

    def flip(self, seat: int | None = None) -> bool:
        """A human flips: ``seat`` with its own key, or ``None`` (Space) for whoever
        human is on turn. Returns whether a card was flipped."""
        game = self.game
        if self.paused or game.over or game.needs_settle or game.turn is None:
            return False
        turn = game.turn
        if seat is None:
            if turn not in self.humans:
                return False
            seat = turn
        if seat != turn or seat not in self.humans:
            return False
        return self._flip(seat)

    def _flip(self, seat: int, idle: bool = False) -> bool:
        if idle:
            self._log.append(Note("idle_flip", (("seat", seat),)))
        return self._apply(Flip(seat, self._t())) is not None

    def slap(self, seat: int, at: float | None = None) -> None:
        """Human ``seat`` hit its slap key at clock time ``at`` (default: now)."""
        game = self.game
        if self.paused or game.over or seat not in self.humans or game.is_out[seat]:
            return
        if self._shown_ms is None:
            return  # the card is not on screen yet: the key was meant for the one before
        now = self._clock_to_ms(at) if at is not None else self.now_ms()
        now = min(now, self.now_ms())
        # whole milliseconds, as the web referee ranks them (equal is a tie)
        reaction = float(round(max(0.0, now - self._shown_ms)))
        if reaction < self.timing.anticipation_ms:
            # faster than anyone can react: a guess, ranked behind every real
            # reaction (as the web referee does; see the rules text)
            reaction += FALSE_START_MS
        call = False
        if self.config.rules.say_it:
            last = self._last_call.get(seat)
            if last is not None and now - last <= self.timing.call_window_ms:
                call = True
            elif game.race_open and seat not in self._pending_calls:
                # hold the slap for the call that may still come
                self._pending_calls[seat] = reaction
                cue = self._cue
                self._at(
                    f"call:{seat}",
                    self.timing.call_window_ms,
                    partial(self._call_expired, cue, seat),
                )
                return
        self._do_slap(seat, reaction, call)

    def call(self, seat: int, at: float | None = None) -> None:
        """Say-it: human ``seat`` called "Slapjack!" at clock time ``at``."""
        if self.paused or self.game.over or seat not in self.humans:
            return
        if not self.config.rules.say_it:
            return
        now = self._clock_to_ms(at) if at is not None else self.now_ms()
        if seat in self._pending_calls:
            reaction = self._pending_calls.pop(seat)
            self._cancel(f"call:{seat}")
            self._do_slap(seat, reaction, True)
            return
        self._last_call[seat] = now

    def _call_expired(self, cue: int, seat: int) -> None:
        reaction = self._pending_calls.pop(seat, None)
        if reaction is None or cue != self._cue:
            return
        self._do_slap(seat, reaction, False)

    def _bot_slap(self, cue: int, seat: int, reaction: float, call: bool) -> None:
        if cue != self._cue:
            return
        self._race.bots_due.pop(seat, None)
        self._do_slap(seat, reaction, call)

    def _do_slap(self, seat: int, reaction: float, call: bool) -> None:
        game = self.game
        if game.over or game.is_out[seat]:
            return
        race = game.race_open
        events = self._apply(Slap(seat, reaction, call, self._t()))
        if events and reaction >= FALSE_START_MS and seat in self.humans:
            self.note("false_start", seat=seat, ms=reaction - FALSE_START_MS)
        if race and events and any(isinstance(e, Slapped) for e in events):
            self._race.reactions.setdefault(seat, reaction)
            self._maybe_settle_early()

    def _race_timeout(self) -> float:
        t = self.timing
        return t.irish_timeout_ms if self.config.rules.is_irish else t.jack_timeout_ms

    def _window_closed(self, cue: int) -> None:
        if cue != self._cue or not self.game.race_open:
            return
        if self.config.rules.is_irish:
            self._settle()
            return
        self._race.window_passed = True
        if not self._race.reactions:
            # nobody yet: keep waiting for a first slap, up to the Jack timeout
            elapsed = self.now_ms() - (self._shown_ms or 0.0)
            self._at(
                "window",
                max(0.0, self.timing.jack_timeout_ms - elapsed),
                partial(self._jack_timeout, cue),
            )
            return
        self._maybe_settle_early()

    def _jack_timeout(self, cue: int) -> None:
        if cue == self._cue and self.game.race_open:
            self._settle()

    def _maybe_settle_early(self) -> None:
        """Settle as soon as no slap still to come could change the result."""
        game = self.game
        if not game.race_open:
            return
        race = self._race
        if self.config.rules.is_irish:
            waiting = [s for s in game.in_seats() if s not in race.reactions]
            if not waiting:
                self._settle()
            return
        if not race.window_passed or not race.reactions:
            return
        if self._pending_calls:
            latest = max(self._cue_due(f"call:{s}") for s in self._pending_calls)
            self._at(
                "window", latest - self.now_ms() + 1.0, partial(self._window_closed, self._cue)
            )
            return
        best = min(race.reactions.values())
        contenders = [r for r in race.bots_due.values() if r <= best]
        if contenders:
            self._cancel("settle")
            due = (self._shown_ms or 0.0) + max(contenders) + self.timing.grace_ms
            self._at("window", due - self.now_ms(), partial(self._window_closed, self._cue))
            return
        if "settle" not in self._jobs:
            # a key is handled a moment after it was pressed: give one that is
            # on its way a little time before the race is decided
            self._at("settle", self.timing.grace_ms, partial(self._settle_cue, self._cue))

    def _settle_cue(self, cue: int) -> None:
        if cue == self._cue and self.game.race_open:
            self._settle()

    def _cue_due(self, name: str) -> float:
        job = self._jobs.get(name)
        return job.due_ms if job is not None else self.now_ms()

    def _settle(self) -> None:
        game = self.game
        if game.over or not game.needs_settle:
            return
        final = self.config.rules.is_irish or self._round >= MAX_RESLAP_ROUNDS
        self._cancel("window")
        self._cancel("settle")
        self._cancel_prefix("bot:")
        self._cancel_prefix("call:")
        self._pending_calls.clear()
        events = self.table.settle(final=final)
        if game.race_open:  # a tie: a reslap round for the tied players
            self._round += 1
            self._new_cue()
        else:
            self._round = 0
        self._absorb(events)

    def _time_up(self) -> None:
        if self.game.over:
            return
        self._pending_calls.clear()
        self._apply(TimeUp(self._t()))

    def _new_cue(self) -> None:
        self._cue += 1
        self._shown_ms = None
        self._race = _Race()
        self._cancel("window")
        self._cancel("settle")
        self._cancel_prefix("bot:")

    def _apply(self, action: Flip | Slap | TimeUp) -> list[Event] | None:
        try:
            events = self.table.apply(action)
        except IllegalAction:
            return None  # a key that came too late or too early: nothing changes
        self._absorb(events)
        return events

    def _absorb(self, events: list[Event]) -> None:
        notice_bots(self.bots.values(), events, self.humans)
        for event in events:
            self._count(event)
        results, reactions = log_events(self._log, events)
        if results:
            self._banner = results
            self._reactions = reactions
            if not isinstance(results[0], RaceTied):
                self._hold_until = self.now_ms() + self.timing.pause_ms
        self._advance()

    def _count(self, event: Event) -> None:
        stats = self._stats
        if isinstance(event, Slapped):
            s = stats[event.seat]
            real = event.reaction_ms < FALSE_START_MS
            if real and (s.fastest is None or event.reaction_ms < s.fastest):
                s.fastest = event.reaction_ms
        elif isinstance(event, RaceWon):
            stats[event.winner].jacks += 1
        elif isinstance(event, PileSplit):
            for seat, _ in event.shares:
                stats[seat].jacks += 1
        elif isinstance(event, WrongSlap | Forfeit):
            stats[event.seat].wrong += 1
        elif isinstance(event, PickedUp):
            stats[event.seat].pickups += 1

    def _advance(self) -> None:
        """After any change: resolve a table nobody can flip on, start a new cue
        after a flip, (re)start the turn timer, publish."""
        if self._busy:
            return
        self._busy = True
        try:
            game = self.game
            while not game.over and game.turn is None and not game.race_open:
                events = self.table.settle(final=True)
                for event in events:
                    self._log.append(event)
                    self._count(event)
                if events:
                    self._banner = tuple(e for e in events if isinstance(e, RESULT_EVENTS))
            if game.over:
                self._turn_deadline = None
                self.stop()
                self._publish()
                return
            if game.flips != self._cue_flips:
                self._cue_flips = game.flips
                self._new_cue()
            if game.race_open:
                self._cancel("turn")
                self._turn_key = None
                self._turn_deadline = None
            else:
                self._schedule_turn()
        finally:
            self._busy = False
        self._publish()

    def _schedule_turn(self) -> None:
        game = self.game
        turn = game.turn
        key = (turn, game.flips, self._hold_until)
        if key == self._turn_key or turn is None:
            return
        self._turn_key = key
        self._cancel("turn")
        self._turn_deadline = None
        hold = max(0.0, self._hold_until - self.now_ms())
        if turn in self.bots:
            delay = float(self.bots[turn].flip_delay_ms(observe(game, turn)))
            if not (math.isfinite(delay) and delay >= 0):
                delay = 0.0
            delay = min(delay, MAX_BOT_FLIP_MS)
            self._at("turn", hold + delay, partial(self._turn_due, key, turn, False))
        elif self.timing.turn_ms > 0:
            delay = hold + self.timing.turn_ms
            self._turn_deadline = self.now_ms() + delay
            self._at("turn", delay, partial(self._turn_due, key, turn, True))

    def _turn_due(self, key: tuple[object, ...], seat: int, idle: bool) -> None:
        game = self.game
        if key != self._turn_key or game.over or game.needs_settle or game.turn != seat:
            return
        self._turn_key = None
        self._flip(seat, idle=idle)

    # --------------------------------------------------------------- output

    def _build_state(self) -> TableState:
        self._serial += 1
        return TableState(
            view=observe(self.game, self.view_seat),
            seats=self.seats,
            log=tuple(self._log),
            banner=self._banner,
            reactions=self._reactions,
            turn_deadline_ms=self._turn_deadline,
            end_ms=self._end_ms,
            cue=self._cue,
            shown=self._shown_ms is not None,
            stats=tuple(s.frozen() for s in self._stats),
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
