"""Play one bot-only game with the engine, in simulated time.

The game runs on the same live table as a served game
(:class:`slapjack.live.LiveTable`, with the served game's timings): the player
on turn flips after its bot's flip delay, bots react to each card shown, a
race closes when every seat that may slap has slapped, after the referee's
window from its first slap, or at the no-slap timeout, exact ties get up to
two reslap rounds, and so on (``docs/bots.md`` and ``docs/architecture.md``).
Only the clock is simulated: the loop jumps from one deadline to the next.
The referee is a :class:`~slapjack.live.LocalReferee` (reactions as the bots
claim them, ``window_ms`` after the first slap). A game stops when it is over
or after ``cap`` flips ("capped"): it cannot hang.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from slapjack.bots import Bot, SlapIntent
from slapjack.core import Card, Game, Record, Rules, SlapjackError, Table, View
from slapjack.live import LiveTable, LiveTiming, LocalReferee, Tally

DEFAULT_CAP = 5_000
"""Flips after which a game is stopped and counted as capped."""
DEFAULT_WINDOW_MS = 300.0
"""How long a race stays open after its first slap (the local referee's window):
what the served game's fair referee waits at a table of bots, whose round
trips it does not know (``FairConfig.unknown_rtt_ms``)."""


_SERVED = LiveTiming()
"""The served game's timings (made once: every simulated game uses them by default)."""


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


class _ViewBot:
    """A bot seen only through :class:`~slapjack.bots.Bot` (no fast path): every
    decision comes from a fresh ``observe()`` of its seat."""

    __slots__ = ("bot", "level")

    def __init__(self, bot: Bot) -> None:
        self.bot, self.level = bot, bot.level

    def react(self, view: View) -> SlapIntent | None:
        return self.bot.react(view)

    def flip_delay_ms(self, view: View) -> float:
        return self.bot.flip_delay_ms(view)


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
    timing: LiveTiming | None = None,
) -> GameResult:
    """Play one game of ``rules`` between ``bots`` (one per seat) from ``deck``.

    ``check`` verifies the 52-card invariant after every step. ``fast`` lets
    bots that implement :class:`~slapjack.bots.FastBot` decide from the top card
    instead of a full view (the same decisions; see ``docs/bots.md``).
    ``keep_record`` returns the game's record, which replays to the same final
    position. ``timing`` is the live table's (default: the served game's).
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
    meta = (
        {"simulated": {"bots": [b.level for b in bots], "game": index, "seed": seed}}
        if keep_record
        else None
    )
    table = Table.new(rules, names, deck=deck, meta=meta) if keep_record else None
    game = table.game if table is not None else Game(rules, names, deck)
    players: dict[int, Bot] = (
        dict(enumerate(bots)) if fast else {s: _ViewBot(b) for s, b in enumerate(bots)}
    )
    # bots that learn from the table (``matched``) learn from every seat that
    # does not: those stand for people (``human:MS``) or other bots
    people = [s for s, b in enumerate(bots) if getattr(b, "notice", None) is None]
    live = LiveTable(
        table or game,
        bots=players,
        timing=timing if timing is not None else _SERVED,
        referee=LocalReferee(window_ms),
        people=people,
    )
    tally = Tally(n)
    live.start(0.0)
    if check:
        while not game.over and game.flips < cap and live.next_deadline != math.inf:
            live.wake(live.next_deadline)
            tally.count(live.take())
            game.check_invariant()
    else:
        live.run(max_flips=cap)
    tally.count(live.take())
    if not game.over and live.next_deadline == math.inf:  # pragma: no cover - cannot happen
        raise SimulationError("the live table stalled: nothing is due")
    capped = not game.over
    return GameResult(
        index=index,
        seed=seed,
        flips=game.flips,
        duration_ms=game.t,
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
