"""Play one bot-only game with the engine, in simulated time.

How a game runs (``docs/bots.md`` has the whole story):

* The player on turn flips after its bot's flip delay; the simulated clock
  advances by that delay.
* Right after a flip every bot still in is asked (once) whether it slaps the new
  top card. The slaps are applied in ascending reaction order; a wrong slap
  takes effect at once, a slap on a Jack (or an Irish Snap match) joins the race.
  A slap slower than ``window_ms`` comes too late and is dropped.
* An open race is settled as soon as all slaps are in. Under ``tie=reslap`` it is
  settled with ``final=False``; if that opens a reslap round, the tied bots are
  asked again (with a fresh view) and the race is settled with ``final=True``.
* The clock moves on to the last slap, or by ``window_ms`` if someone who could
  have slapped a Jack (or had to slap a match) did not: a room waits out its window.
* A game stops when it is over or after ``cap`` flips ("capped"): it cannot hang.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import cast

from slapjack.bots import Bot, FastBot, SlapIntent
from slapjack.core import (
    Card,
    Flip,
    Game,
    Record,
    Rules,
    Slap,
    SlapjackError,
    Table,
    Tie,
    TimeUp,
    View,
    observe,
)
from slapjack.core.events import (
    Event,
    Forfeit,
    NoSlap,
    PickedUp,
    PileSplit,
    RaceTied,
    RaceWon,
    TimeIsUp,
)

DEFAULT_CAP = 5_000
"""Flips after which a game is stopped and counted as capped."""
DEFAULT_WINDOW_MS = 2_000.0
"""How long a slap window stays open after a flip (simulated milliseconds)."""


class SimulationError(SlapjackError):
    """The simulator was given something it cannot run (or the engine stalled)."""

    code = "bad_simulation"


@dataclass(frozen=True, slots=True)
class GameResult:
    """The figures of one simulated game (seats are indices ``0 … n-1``)."""

    index: int
    seed: int
    flips: int
    duration_ms: int
    finished: bool
    capped: bool
    time_up: bool
    winners: tuple[int, ...]
    loser: int | None
    out_order: tuple[int, ...]
    """Slapjack: the eliminated seats, in order; Irish Snap: the finishing order."""
    jacks: tuple[int, ...]
    """Races won outright per seat (a Jack in Slapjack)."""
    wrong_slaps: tuple[int, ...]
    """Slaps on a card that must not be slapped, per seat (each cost a penalty)."""
    forfeits: tuple[int, ...]
    """Say-it: races lost by a slap without the call, per seat."""
    pickups: tuple[int, ...]
    """Irish Snap: piles picked up for being last on a match, per seat."""
    ties: int
    """Reslap rounds opened by an exact tie."""
    splits: int
    """Piles split among tied players (``tie=split``)."""
    no_slaps: int
    """Jacks nobody slapped (Slapjack)."""
    record: Record | None = None
    """The game record, if asked for (``keep_record=True``)."""


class _Tally:
    __slots__ = ("forfeits", "jacks", "no_slaps", "pickups", "splits", "ties", "time_up", "wrong")

    def __init__(self, n: int) -> None:
        self.jacks = [0] * n
        self.wrong = [0] * n
        self.forfeits = [0] * n
        self.pickups = [0] * n
        self.ties = 0
        self.splits = 0
        self.no_slaps = 0
        self.time_up = False

    def settled(self, events: list[Event]) -> None:
        for ev in events:
            if isinstance(ev, RaceWon):
                self.jacks[ev.winner] += 1
            elif isinstance(ev, PickedUp):
                if ev.reason == "last":
                    self.pickups[ev.seat] += 1
            elif isinstance(ev, NoSlap):
                self.no_slaps += 1
            elif isinstance(ev, Forfeit):
                self.forfeits[ev.seat] += 1
            elif isinstance(ev, RaceTied):
                self.ties += 1
            elif isinstance(ev, PileSplit):
                self.splits += 1
            elif isinstance(ev, TimeIsUp):
                self.time_up = True


_FAST_TYPES: dict[type, bool] = {}


def _is_fast(bot: Bot) -> bool:
    """``isinstance(bot, FastBot)``, cached per class (protocol checks are slow)."""
    kind = type(bot)
    known = _FAST_TYPES.get(kind)
    if known is None:
        known = _FAST_TYPES[kind] = isinstance(bot, FastBot)
    return known


class _ViewBot:
    """Any :class:`~slapjack.bots.Bot` behind the fast-path interface: every
    question goes to the bot with a fresh ``observe()`` of its seat."""

    __slots__ = ("bot", "game", "level", "seat")

    def __init__(self, bot: Bot, game: Game, seat: int) -> None:
        self.bot, self.game, self.seat, self.level = bot, game, seat, bot.level

    def react(self, view: View) -> SlapIntent | None:
        return self.bot.react(view)

    def flip_delay_ms(self, view: View) -> float:
        return self.bot.flip_delay_ms(view)

    def might_slap(self, rank: int, call: int | None, rules: Rules) -> bool:
        return True  # unknown: ask every time

    def react_card(self, top: Card, call: int | None, rules: Rules) -> SlapIntent | None:
        return self.bot.react(observe(self.game, self.seat))

    def next_flip_delay_ms(self) -> float:
        return self.bot.flip_delay_ms(observe(self.game, self.seat))


_INTEREST: dict[tuple[int, tuple[object, ...]], tuple[Rules, tuple[bool | None, ...]]] = {}


def _interest_table(bots: Sequence[FastBot], rules: Rules) -> list[bool | None]:
    """A lazily filled table, or a full one cached for bots with decision keys.

    Bots with a ``decision_key`` (see :class:`~slapjack.bots.HumanBot`) answer
    ``might_slap`` alike when their keys are equal, so the table is computed once
    per rules object and keys.
    """
    keys = tuple(getattr(b, "decision_key", None) for b in bots)
    if None in keys:
        return [None] * (13 * 14)
    cache_key = (id(rules), keys)
    entry = _INTEREST.get(cache_key)
    if entry is None or entry[0] is not rules:
        calls: list[int | None] = [None, *range(13)]
        table = tuple(
            any(b.might_slap(rank, c, rules) for b in bots) for rank in range(13) for c in calls
        )
        if len(_INTEREST) > 256:
            _INTEREST.clear()
        entry = _INTEREST[cache_key] = (rules, table)
    return list(entry[1])


def play_game(
    rules: Rules,
    bots: Sequence[Bot],
    deck: Sequence[Card],
    *,
    index: int = 0,
    seed: int = 0,
    cap: int = DEFAULT_CAP,
    window_ms: float = DEFAULT_WINDOW_MS,
    check: bool = False,
    fast: bool = True,
    keep_record: bool = False,
    names: Sequence[str] | None = None,
) -> GameResult:
    """Play one game of ``rules`` between ``bots`` (one per seat) from ``deck``.

    ``check`` verifies the 52-card invariant after every action. ``fast`` lets
    bots that implement :class:`~slapjack.bots.FastBot` decide from the top card
    instead of a full view (the same decisions; see ``docs/bots.md``).
    ``keep_record`` plays through a :class:`~slapjack.core.Table` and returns its
    record, which replays to the same final position.
    """
    n = len(bots)
    if names is None:
        names = [f"S{s + 1}-{b.level}"[:40] for s, b in enumerate(bots)]
    elif len(names) != n:
        raise SimulationError(f"{n} bots need {n} names, got {len(names)}")
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise SimulationError(f"cap must be a whole number of flips >= 1, got {cap!r}")
    if not window_ms > 0:
        raise SimulationError(f"window_ms must be positive, got {window_ms!r}")
    table: Table | None = None
    do_flip: Callable[[int, int], list[Event]]
    do_slap: Callable[[int, float, bool, int], list[Event]]
    do_time_up: Callable[[int], list[Event]]
    if keep_record:
        meta = {"simulated": {"bots": [b.level for b in bots], "game": index, "seed": seed}}
        table = Table.new(rules, names, deck=deck, meta=meta)
        game = table.game
        tab = table

        def do_flip(seat: int, t: int) -> list[Event]:
            return tab.apply(Flip(seat, t))

        def do_slap(seat: int, reaction: float, call: bool, t: int) -> list[Event]:
            return tab.apply(Slap(seat, reaction, call, t))

        def do_time_up(t: int) -> list[Event]:
            return tab.apply(TimeUp(t))

    else:
        game = Game(rules, names, deck)
        do_flip, do_slap, do_time_up = game.flip, game.slap, game.time_up
    deciders: list[FastBot]
    if fast and all(_is_fast(b) for b in bots):
        deciders = cast(list[FastBot], list(bots))
    else:
        deciders = [_ViewBot(b, game, s) for s, b in enumerate(bots)]
    # interest[rank * 14 + call + 1] (call -1: none): could any bot slap this card?
    # A card nobody could slap costs one lookup.
    interest = _interest_table(deciders, rules)
    flip_delays = [b.next_flip_delay_ms for b in deciders]
    # Bots with the optional notice hook (``matched``) learn from settled races;
    # the seats they learn from are the others (the simulator's stand-ins for
    # people). Without such bots none of this costs anything.
    learners = [hook for b in bots if (hook := getattr(b, "notice", None)) is not None]
    people = [s for s, b in enumerate(bots) if getattr(b, "notice", None) is None]
    settle = game.settle
    centre = game.centre
    is_out = game.is_out
    seats = range(n)
    irish = rules.is_irish
    reslap = not irish and rules.tie is Tie.RESLAP
    limit_ms = rules.time_limit * 1000 if rules.time_limit else math.inf
    window_int = int(window_ms)
    tally = _Tally(n)
    clock = 0.0
    stalls = 0
    stall_at = -1
    capped = False
    call: int | None = None

    while not game.over:
        seat = game.turn
        if seat is None:
            # Nobody can flip: settling hands the pile back (docs/rules.en.md).
            stalls = stalls + 1 if stall_at == game.flips else 1
            stall_at = game.flips
            if stalls > 3:  # pragma: no cover - the engine always resolves this
                raise SimulationError("the engine did not resolve a position nobody can flip")
            events = settle(True)
            tally.settled(events)
            if learners:
                _notice(learners, events, people, is_out)
            continue
        if game.flips >= cap:
            capped = True
            break
        clock += flip_delays[seat]()
        t = int(clock)
        if t >= limit_ms:
            tally.settled(do_time_up(max(int(limit_ms), game.t)))
            clock = float(game.t)
            break
        do_flip(seat, t)
        if check:
            game.check_invariant()
        # ---- who slaps the new top card
        top = centre[-1]
        if irish:
            call = game.top_call
            key = (top >> 2) * 14 + (0 if call is None else call + 1)
        else:
            key = (top >> 2) * 14
        wanted = interest[key]
        if wanted is None:
            wanted = interest[key] = any(b.might_slap(top >> 2, call, rules) for b in deciders)
        if not wanted and not game.race_open:
            continue  # the common case: a card nobody could slap
        if game.over:
            break
        intents: list[tuple[float, int, bool]] = []
        if wanted:
            for s in seats:
                if not is_out[s]:
                    intent = deciders[s].react_card(top, call, rules)
                    if intent is not None:
                        intents.append((intent.reaction_ms, s, intent.call))
        could_slap = n - is_out.count(True)
        last_t = t
        slapped = 0
        if intents:
            intents.sort()
            for reaction, s, call_flag in intents:
                if reaction > window_ms or game.over:
                    break
                if is_out[s]:
                    continue
                before = game.race_open
                slap_t = t + int(reaction)
                events = do_slap(s, reaction, call_flag, slap_t)
                last_t = slap_t
                slapped += 1
                if check:
                    game.check_invariant()
                if events and not before:
                    tally.wrong[s] += 1
        if game.race_open and not game.over:
            close = last_t if slapped >= could_slap else t + window_int
            racing = [s for s in people if not is_out[s]] if learners else people
            events = settle(not reslap)
            tally.settled(events)
            if game.race_open:  # an exact tie opened a reslap round
                close = _reslap_round(game, bots, close, window_ms, do_slap, check)
                events = settle(True)
                tally.settled(events)
            if learners:
                _notice(learners, events, racing, None)
            if close > clock:
                clock = float(close)
        elif last_t > clock:
            clock = float(last_t)

    return GameResult(
        index=index,
        seed=seed,
        flips=game.flips,
        duration_ms=max(int(clock), game.t),
        finished=game.over,
        capped=capped,
        time_up=tally.time_up,
        winners=game.winners,
        loser=game.loser,
        out_order=tuple(game.out_order),
        jacks=tuple(tally.jacks),
        wrong_slaps=tuple(tally.wrong),
        forfeits=tuple(tally.forfeits),
        pickups=tuple(tally.pickups),
        ties=tally.ties,
        splits=tally.splits,
        no_slaps=tally.no_slaps,
        record=table.record if table is not None else None,
    )


def _notice(
    learners: Sequence[Callable[[Sequence[Event], Collection[int]], None]],
    events: list[Event],
    people: Sequence[int],
    is_out: Sequence[bool] | None,
) -> None:
    """Tell the learning bots about a settled race (``people``: who could slap it)."""
    if not events:
        return
    seats = frozenset(s for s in people if is_out is None or not is_out[s])
    for hook in learners:
        hook(events, seats)


def _reslap_round(
    game: Game,
    bots: Sequence[Bot],
    start: int,
    window_ms: float,
    do_slap: Callable[[int, float, bool, int], list[Event]],
    check: bool,
) -> int:
    """Ask the tied bots again (each from its own fresh view); apply their slaps."""
    among = game.reslap_among or ()
    intents: list[tuple[float, int, bool]] = []
    for s in among:
        intent: SlapIntent | None = bots[s].react(observe(game, s))
        if intent is not None and intent.reaction_ms <= window_ms:
            intents.append((intent.reaction_ms, s, intent.call))
    intents.sort()
    last = start
    for reaction, s, call_flag in intents:
        last = start + int(reaction)
        do_slap(s, reaction, call_flag, last)
        if check:
            game.check_invariant()
    return last if len(intents) == len(among) else start + int(window_ms)
