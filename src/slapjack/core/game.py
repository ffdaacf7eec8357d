"""The game state machine for Slapjack and Irish Snap.

One :class:`Game` holds one table. Actions go in through :meth:`Game.apply`
(or the unchecked-name fast methods :meth:`flip`, :meth:`slap`, :meth:`settle`,
:meth:`time_up`, which check just the same); events come out. An illegal
action raises :class:`~slapjack.core.errors.IllegalAction` and changes nothing.

Decisions RULES.md leaves to us are marked ``DECISION`` and described in
``docs/rules.en.md``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Final

from .actions import Action, Flip, Settle, Slap, TimeUp
from .cards import ACE, DECK_SIZE, FULL_DECK, JACK, Card, card_name, check_deck
from .errors import IllegalAction, SlapjackError
from .events import (
    Eliminated,
    Event,
    Finished,
    Flipped,
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
from .rules import AfterJack, EmptyStack, IrishGoal, Rules, Tie
from .rules import WrongSlap as WrongSlapRule

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 52
MAX_NAME_LENGTH: Final = 40
MAX_REACTION_MS: Final = 600_000.0


_FLIPPED: list[list[Flipped | None]] = []
"""Slapjack's :class:`Flipped` events by seat and card (Irish Snap's by seat and
``call * 52 + card``, in ``_FLIPPED_CALLED``). An event is an immutable value,
so one of each, made when first needed, serves every flip that shows it."""
_FLIPPED_CALLED: list[list[Flipped | None]] = []


def _flipped_rows(
    n: int, deck: tuple[Card, ...]
) -> tuple[list[list[Flipped | None]], list[list[Flipped | None]]]:
    """The rows of flip events for a game of ``n`` seats: the shared ones for a
    deck of plain ints, else the game's own (so ``True`` never shows as ``1``)."""
    if set(map(type, deck)) != _INT:
        own: list[list[Flipped | None]] = [[None] * DECK_SIZE for _ in range(n)]
        return own, [[None] * (DECK_SIZE * 13) for _ in range(n)]
    while len(_FLIPPED) < n:
        _FLIPPED.append([None] * DECK_SIZE)
        _FLIPPED_CALLED.append([None] * (DECK_SIZE * 13))
    return _FLIPPED, _FLIPPED_CALLED


_INT: Final = {int}


class Game:
    """A live game: rules, seats, stacks, the centre pile and whose turn it is.

    Seats are ``0 … n-1`` in clockwise order; seat 0 received the first card and
    flips first. ``stacks[s][0]`` is the top of seat ``s``'s face-down stack.
    ``centre`` is bottom first; its lowest ``centre_hidden`` cards lie face down
    (penalty cards under ``wrong_slap=pay_pile``).
    """

    __slots__ = (
        "_flipped",
        "_flipped_called",
        "_irish",
        "_slapjack_empty_until_turn",
        "centre",
        "centre_hidden",
        "deck",
        "flips",
        "is_out",
        "last_flipper",
        "loser",
        "n",
        "next_call",
        "out_order",
        "over",
        "pending_from",
        "players",
        "race_open",
        "race_round",
        "race_slaps",
        "reslap_among",
        "rules",
        "slapped",
        "stacks",
        "t",
        "top_call",
        "turn",
        "version",
        "winners",
    )

    def __init__(self, rules: Rules, players: Sequence[str], deck: Sequence[Card]) -> None:
        self.rules: Final = rules
        self.players: Final[tuple[str, ...]] = check_players(players)
        self.deck: Final[tuple[Card, ...]] = check_deck(deck)
        n = len(self.players)
        self.n: Final = n
        self._flipped, self._flipped_called = _flipped_rows(n, self.deck)
        self._irish: Final = rules.is_irish
        self._slapjack_empty_until_turn: Final = (
            not rules.is_irish and rules.empty_stack is EmptyStack.UNTIL_TURN
        )
        # Card i goes to seat i % n; the first card a seat receives is its top.
        self.stacks: list[deque[Card]] = [deque(self.deck[s::n]) for s in range(n)]
        self.centre: list[Card] = []
        self.centre_hidden = 0
        self.is_out: list[bool] = [False] * n
        self.out_order: list[int] = []
        self.turn: int | None = 0
        self.pending_from = 0
        self.last_flipper: int | None = None
        self.race_open = False
        self.race_round = 0
        self.race_slaps: dict[int, list[tuple[float, bool]]] = {}
        self.reslap_among: tuple[int, ...] | None = None
        self.slapped: set[int] = set()
        self.next_call = ACE
        self.top_call: int | None = None
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.loser: int | None = None
        self.t = 0
        self.flips = 0
        self.version = 0

    # ------------------------------------------------------------------ queries

    @property
    def top(self) -> Card | None:
        """The face-up top card of the centre pile, if any."""
        if len(self.centre) > self.centre_hidden:
            return self.centre[-1]
        return None

    @property
    def needs_settle(self) -> bool:
        """A slap window is open or nobody can flip: call :meth:`settle` to go on."""
        return not self.over and (self.race_open or self.turn is None)

    def opens_reslap(self, seat: int) -> bool:
        """Would a slap by ``seat`` now be its slap in a reslap round not yet opened?

        Records hold no settle actions. In a live game a repeated slap within a
        round is ignored (never recorded), so a record's repeated slap on the same
        Jack stands for the reslap round the room opened after an exact tie. True
        when ``seat`` already slapped in this round and settling now (non-final)
        opens a reslap round that includes it.
        """
        if self._irish or not self.race_open or self.rules.tie is not Tie.RESLAP:
            return False
        mine = self.race_slaps.get(seat)
        if mine is None or len(mine) <= self.race_round:
            return False
        probe = self.copy()
        probe.settle(final=False)
        return probe.race_open and probe.reslap_among is not None and seat in probe.reslap_among

    def in_seats(self) -> list[int]:
        """Seats still in the game, in seat order."""
        return [s for s in range(self.n) if not self.is_out[s]]

    def stack_sizes(self) -> tuple[int, ...]:
        return tuple(len(s) for s in self.stacks)

    def must_slap(self) -> tuple[int, ...]:
        """Irish Snap: the seats that must slap the current match."""
        return tuple(s for s in range(self.n) if not self.is_out[s])

    def ranking(self) -> list[int]:
        """Seats from first to last place (for end screens)."""
        if self._irish:
            if self.rules.irish_goal is IrishGoal.FIRST_OUT:
                rest = sorted(
                    (s for s in range(self.n) if s not in self.winners),
                    key=lambda s: (len(self.stacks[s]), s),
                )
                return [*self.winners, *rest]
            holders = sorted(
                (s for s in range(self.n) if not self.is_out[s]),
                key=lambda s: (len(self.stacks[s]), s),
            )
            return [*self.out_order, *holders]
        still_in = sorted(
            (s for s in range(self.n) if not self.is_out[s]),
            key=lambda s: (s not in self.winners, -len(self.stacks[s]), s),
        )
        return [*still_in, *reversed(self.out_order)]

    def check_invariant(self) -> None:
        """Raise ``AssertionError`` unless the 52 cards are all present exactly once."""
        cards = [c for st in self.stacks for c in st] + self.centre
        if len(cards) != DECK_SIZE or set(cards) != set(FULL_DECK):
            raise AssertionError(
                f"card invariant broken: {len(cards)} cards, {len(set(cards))} distinct"
            )
        if not 0 <= self.centre_hidden <= len(self.centre):
            raise AssertionError("centre_hidden out of range")

    def copy(self) -> Game:
        """An independent copy (cheap: no cards are re-validated)."""
        new = object.__new__(Game)
        for name in Game.__slots__:
            setattr(new, name, getattr(self, name))
        new.stacks = [deque(s) for s in self.stacks]
        new.centre = list(self.centre)
        new.is_out = list(self.is_out)
        new.out_order = list(self.out_order)
        new.race_slaps = {k: list(v) for k, v in self.race_slaps.items()}
        new.slapped = set(self.slapped)
        return new

    def snapshot(self) -> tuple[object, ...]:
        """A comparable value of the whole position (for tests and restart checks)."""
        return (
            tuple(tuple(s) for s in self.stacks),
            tuple(self.centre),
            self.centre_hidden,
            tuple(self.is_out),
            tuple(self.out_order),
            self.turn,
            self.pending_from,
            self.last_flipper,
            self.race_open,
            self.race_round if self.race_open else 0,
            tuple(sorted((k, tuple(v)) for k, v in self.race_slaps.items())),
            self.reslap_among,
            tuple(sorted(self.slapped)),
            self.next_call,
            self.top_call,
            self.over,
            self.winners,
            self.loser,
            self.t,
        )

    # ------------------------------------------------------------------ actions

    def apply(self, action: Action) -> list[Event]:
        """Apply one action; return its events. Illegal actions raise and change nothing."""
        if isinstance(action, Flip):
            return self.flip(action.seat, action.t)
        if isinstance(action, Slap):
            return self.slap(action.seat, action.reaction_ms, action.call, action.t)
        if isinstance(action, Settle):
            return self.settle(final=action.final, t=action.t)
        if isinstance(action, TimeUp):
            return self.time_up(action.t)
        raise IllegalAction(f"not an action: {action!r}", code="bad_action")

    def _check_time(self, t: int) -> None:
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise IllegalAction(f"time must be whole milliseconds >= 0, got {t!r}", code="bad_time")
        if t < self.t:
            raise IllegalAction(
                f"time goes backwards ({t} ms after {self.t} ms)", code="time_backwards"
            )

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n:
            raise IllegalAction(f"no seat {seat!r}", code="bad_seat")
        if self.is_out[seat]:
            raise IllegalAction(f"{self.players[seat]} is out of the game", code="player_out")

    def flip(self, seat: int, t: int = 0) -> list[Event]:
        """``seat`` flips its top card. Only the player on turn may, and only once
        any open slap window has been settled."""
        if (
            type(seat) is not int
            or seat != self.turn
            or type(t) is not int
            or t < self.t
            or self.race_open
            or self.over
            or self.is_out[seat]
        ):
            # Not the plain legal case (checked above in one go, for speed): find the error.
            if self.over:
                raise IllegalAction("the game is over", code="game_over")
            self._check_seat(seat)
            self._check_time(t)
            if self.race_open or self.turn is None:
                raise IllegalAction("a slap window is open: settle it first", code="not_settled")
            if seat != self.turn:
                raise IllegalAction(
                    f"it is {self.players[self.turn]}'s turn, not {self.players[seat]}'s",
                    code="not_your_turn",
                )
        self.t = t
        self.version += 1
        self.flips += 1
        stacks = self.stacks
        stack = stacks[seat]
        card = stack.popleft()
        self.centre.append(card)
        self.slapped.clear()
        self.last_flipper = seat
        if not self._irish:
            row = self._flipped[seat]
            flipped = row[card]
            if flipped is None:
                flipped = row[card] = Flipped(seat, card)
            if card >> 2 == JACK:
                self._open_race(seat)
                return [flipped]
            events: list[Event] = [flipped]
            # the next seat, if it can flip (the common case of _set_turn_from)
            after = seat + 1
            if after == self.n:
                after = 0
            if stacks[after] and not self.is_out[after]:
                self.pending_from = self.turn = after
            else:
                self._set_turn_from(after, events)
            return events
        call = self.next_call
        self.top_call = call
        self.next_call = (call + 1) % 13
        match = card >> 2 == call
        row = self._flipped_called[seat]
        flipped = row[call * DECK_SIZE + card]
        if flipped is None:
            flipped = row[call * DECK_SIZE + card] = Flipped(seat, card, call, match)
        events = [flipped]
        if not stack and self.rules.irish_goal is IrishGoal.AVOID_LAST:
            self._finish(seat, events)
            if self.over:
                return events
        if match:
            self._open_race(seat)
        else:
            self._set_turn_from(seat + 1, events)
        return events

    def _open_race(self, seat: int) -> None:
        self.race_open = True
        self.race_round = 0
        self.race_slaps = {}
        self.reslap_among = None
        self.turn = None
        self.pending_from = seat + 1

    def slap(self, seat: int, reaction_ms: float, call: bool = False, t: int = 0) -> list[Event]:
        """``seat`` slaps the current top card ``reaction_ms`` after it was shown.

        Returns no events if the slap is ignored (empty centre, a repeated slap,
        a slap after the window closed).
        """
        if not (
            type(seat) is int
            and 0 <= seat < self.n
            and type(t) is int
            and t >= self.t
            and (type(reaction_ms) is float or type(reaction_ms) is int)
            and 0 <= reaction_ms <= MAX_REACTION_MS
            and type(call) is bool
            and not self.over
            and not self.is_out[seat]
        ):
            # Not the plain legal case (checked above in one go, for speed): find the error.
            if self.over:
                raise IllegalAction("the game is over", code="game_over")
            self._check_seat(seat)
            self._check_time(t)
            if (
                isinstance(reaction_ms, bool)
                or not isinstance(reaction_ms, int | float)
                or not 0 <= reaction_ms <= MAX_REACTION_MS
            ):
                raise IllegalAction(
                    f"reaction_ms must be a number from 0 to {MAX_REACTION_MS:.0f}, got {reaction_ms!r}",
                    code="bad_reaction",
                )
            if not isinstance(call, bool):
                raise IllegalAction("call must be true or false", code="bad_call")
        top = self.top
        if top is None:
            return []  # nothing to slap: ignored
        if self.race_open:
            if self._irish:
                if seat in self.race_slaps:
                    return []
                self.race_slaps[seat] = [(reaction_ms, call)]
            else:
                if self.reslap_among is not None and seat not in self.reslap_among:
                    return []
                mine = self.race_slaps.get(seat)
                if mine is not None and len(mine) > self.race_round:
                    return []  # a repeat within this round: only the first slap counts
                self.race_slaps.setdefault(seat, []).append((reaction_ms, call))
            self.t = t
            self.version += 1
            return [Slapped(seat, reaction_ms, call)]
        if not self._irish and top >> 2 == JACK:
            return []  # the window on this Jack has closed: too late
        if seat in self.slapped:
            return []  # only a player's first slap on a card counts
        self.slapped.add(seat)
        self.t = t
        self.version += 1
        events: list[Event] = []
        if self._irish:
            self._pick_up(seat, "wrong", (), events)
            return events
        if self.rules.say_it:
            flipper = self.last_flipper if self.last_flipper is not None else seat
            self._forfeit(seat, flipper, (), events)
            return events
        self._pay_penalty(seat, events)
        return events

    def _pay_penalty(self, seat: int, events: list[Event]) -> None:
        stack = self.stacks[seat]
        if not stack:
            events.append(WrongSlap(seat, "none"))
            self._eliminate(seat, "wrong_slap", events)
            if not self.over:
                self._repair_turn(events)
            return
        card = stack.popleft()
        to = self.last_flipper
        if (
            self.rules.wrong_slap is WrongSlapRule.PAY_PLAYER
            and to is not None
            and not self.is_out[to]
        ):
            self.stacks[to].append(card)
            events.append(WrongSlap(seat, "pay_player", to))
        else:
            # DECISION: under pay_player, a card owed to a player who is out goes
            # face down under the centre pile instead.
            self.centre.insert(0, card)
            self.centre_hidden += 1
            events.append(WrongSlap(seat, "pay_pile"))
        self._repair_turn(events)

    def _repair_turn(self, events: list[Event]) -> None:
        """After cards moved between stacks: the player on turn must still hold cards."""
        if self.turn is not None and not self.stacks[self.turn]:
            self._set_turn_from(self.turn, events)

    def settle(self, final: bool = True, t: int | None = None) -> list[Event]:
        """Close the slap window on the top card and, if nobody can flip, resolve that.

        A live table settles when its window closes (at game time ``t``; the
        time advances only if something was settled). Records without settle
        actions settle implicitly before every flip and ``time_up`` and at their end.
        """
        if self.over:
            raise IllegalAction("the game is over", code="game_over")
        if t is not None:
            self._check_time(t)
            if self.needs_settle:
                self.t = t
        events: list[Event] = []
        if self.race_open:
            self.version += 1
            if self._irish:
                self._settle_irish(events)
            else:
                self._settle_jack(final, events)
                if self.race_open:
                    return events  # tie: a reslap round is open
        if not self.over and self.turn is None:
            self.version += 1
            self._set_turn_from(self.pending_from, events)
            if not self.over and self.turn is None:
                self._return_pile(events)
        return events

    def time_up(self, t: int = 0) -> list[Event]:
        """The time limit is reached: settle, then the most cards win (ties share)."""
        if self.over:
            raise IllegalAction("the game is over", code="game_over")
        if not self.rules.time_limit:
            raise IllegalAction("these rules have no time limit", code="no_time_limit")
        self._check_time(t)
        self.t = t
        self.version += 1
        # Settle exactly as a record does before any other action (the race, then
        # nobody-can-flip), so a live game and its replay agree.
        events = self.settle(final=True)
        if self.over:
            return events
        events.append(TimeIsUp())
        alive = self.in_seats()
        most = max(len(self.stacks[s]) for s in alive)
        self._end(tuple(s for s in alive if len(self.stacks[s]) == most), None, events)
        return events

    # ------------------------------------------------------------- internals

    def _order_from(self, start: int) -> list[int]:
        n = self.n
        return [(start + k) % n for k in range(n)]

    def _set_turn_from(self, start: int, events: list[Event]) -> None:
        """Give the turn to the first seat clockwise from ``start`` (inclusive) that can flip.

        Under ``empty_stack=until_turn`` an empty player whose turn comes is out.
        If no player still in holds a card, the turn stays ``None`` (see
        :meth:`_return_pile`).
        """
        n = self.n
        stacks = self.stacks
        is_out = self.is_out
        first = start % n
        self.pending_from = first
        if stacks[first] and not is_out[first]:
            self.turn = first  # the common case, whatever empty_stack says
            return
        for k in range(n):
            s = (start + k) % n
            if not is_out[s] and stacks[s]:
                break
        else:
            self.turn = None
            return
        if not self._slapjack_empty_until_turn:
            self.turn = s
            return
        for k in range(n):
            s = (start + k) % n
            if is_out[s]:
                continue
            if stacks[s]:
                self.turn = s
                return
            self._eliminate(s, "turn", events)
            if self.over:
                self.turn = None
                return
        self.turn = None  # pragma: no cover - a holder was found above

    def _return_pile(self, events: list[Event]) -> None:
        """DECISION: nobody still in can flip (every card is in the centre). The pile
        goes face down, oldest card first, to the player who flipped last (or the
        next player still in after them); in Irish Snap the call restarts at Ace."""
        last = self.last_flipper if self.last_flipper is not None else 0
        to = next(s for s in self._order_from(last) if not self.is_out[s])
        count = len(self.centre)
        self.stacks[to].extend(self.centre)
        self.centre.clear()
        self.centre_hidden = 0
        self.next_call = ACE
        events.append(PileReturned(to, count))
        self._set_turn_from(to, events)

    def _take_pile(self, seat: int) -> int:
        count = len(self.centre)
        self.stacks[seat].extend(self.centre)
        self.centre.clear()
        self.centre_hidden = 0
        return count

    def _deal_pile(self, seats: Sequence[int]) -> tuple[tuple[int, int], ...]:
        """Deal the centre pile, oldest card first, one by one to ``seats`` in order."""
        counts = dict.fromkeys(seats, 0)
        k = len(seats)
        for i, card in enumerate(self.centre):
            s = seats[i % k]
            self.stacks[s].append(card)
            counts[s] += 1
        self.centre.clear()
        self.centre_hidden = 0
        return tuple(counts.items())

    def _eliminate(self, seat: int, reason: str, events: list[Event]) -> None:
        if self.is_out[seat]:
            return
        self.is_out[seat] = True
        self.out_order.append(seat)
        events.append(Eliminated(seat, reason))
        alive = self.in_seats()
        if len(alive) <= 1:
            self._end(tuple(alive), None, events)

    def _finish(self, seat: int, events: list[Event]) -> None:
        """Irish Snap, avoid_last: ``seat`` got rid of its cards and is safe."""
        self.is_out[seat] = True
        self.out_order.append(seat)
        events.append(Finished(seat))
        holders = self.in_seats()
        if len(holders) <= 1:
            self._end(tuple(self.out_order), holders[0] if holders else None, events)

    def _end(self, winners: tuple[int, ...], loser: int | None, events: list[Event]) -> None:
        self.over = True
        self.turn = None
        self.race_open = False
        self.reslap_among = None
        self.winners = winners
        self.loser = loser
        events.append(GameOver(winners, loser))

    def _settle_jack(self, final: bool, events: list[Event]) -> None:
        slaps = self.race_slaps
        jack_seat = self.last_flipper if self.last_flipper is not None else 0
        rules = self.rules
        if not slaps:
            # DECISION: nobody slapped the Jack: it stays buried, play goes on
            # with the player after the one who flipped it.
            self.race_open = False
            self.reslap_among = None
            top = self.top
            events.append(NoSlap(top if top is not None else -1))
            self.pending_from = jack_seat + 1
            return
        n = self.n
        # (s - jack_seat) % n: a seat's place in seat order from the Jack's player.
        first = sorted([(v[0][0], (s - jack_seat) % n, s) for s, v in slaps.items()])
        reactions = tuple([(s, r) for r, _, s in first])
        # The common case, decided without the loop: one fastest first slap.
        tie = len(first) > 1 and first[0][0] == first[1][0]
        tied = [first[0][2]]
        candidates = sorted(slaps, key=lambda s: (s - jack_seat) % n) if tie else tied
        k = 0
        best = 0.0
        while tie:
            entries = [(slaps[s][k][0], s) for s in candidates if len(slaps[s]) > k]
            if not entries:
                if not final:
                    self.race_round = k
                    self.reslap_among = tuple(candidates)
                    events.append(RaceTied(tuple(candidates), best))
                    return
                # DECISION: the tied players did not slap again: seat order from
                # the Jack's player decides.
                tied = candidates[:1]
                break
            best = min(r for r, _ in entries)
            tied = [s for r, s in entries if r == best]
            if len(tied) == 1 or rules.tie is Tie.SPLIT:
                break
            candidates = tied
            k += 1
        self.race_open = False
        self.reslap_among = None
        calls = {s: slaps[s][min(k, len(slaps[s]) - 1)][1] for s in tied}
        if rules.say_it:
            callers = [s for s in tied if calls[s]]
            if not callers:
                self._forfeit(tied[0], jack_seat, reactions, events)
                return
            tied = callers
        if len(tied) == 1:
            winner = tied[0]
            count = self._take_pile(winner)
            events.append(RaceWon(winner, count, reactions))
        else:
            winner = tied[0]
            events.append(PileSplit(self._deal_pile(tied), reactions))
        if rules.empty_stack is EmptyStack.NEXT_JACK:
            # DECISION: players this Jack puts out together are ranked by the
            # race: a slap ahead of none, a faster one ahead of a slower, then
            # clockwise from the winner. ``ranking`` places the last one out
            # first, so they go out from the worst of them to the best.
            empty = [
                s for s in self._order_from(winner) if not self.is_out[s] and not self.stacks[s]
            ]
            if len(empty) > 1:
                place = {s: i for i, (s, _) in enumerate(reactions)}
                empty.sort(key=lambda s: place.get(s, n))
            for s in reversed(empty):
                self._eliminate(s, "lost_jack", events)
                if self.over:
                    return
        if rules.after_jack is AfterJack.LEFT_OF_WINNER:
            self.pending_from = winner + 1
        else:
            self.pending_from = jack_seat + 1

    def _forfeit(
        self,
        offender: int,
        flipper: int,
        reactions: tuple[tuple[int, float], ...],
        events: list[Event],
    ) -> None:
        """Say-it: the pile is shared out among the others, clockwise from the offender's left.

        DECISION: an offender with no cards is out as well; play goes on as after a
        won Jack with the offender in the winner's place.
        """
        others = [s for s in self._order_from(offender + 1) if s != offender and not self.is_out[s]]
        shares = self._deal_pile(others) if others else ()
        if not others:  # pragma: no cover - the game ends before anyone is alone
            self._take_pile(offender)
        events.append(Forfeit(offender, shares, reactions))
        self.race_open = False
        self.reslap_among = None
        if not self.stacks[offender]:
            self._eliminate(offender, "wrong_slap", events)
            if self.over:
                return
        if self.rules.after_jack is AfterJack.LEFT_OF_WINNER:
            self._set_turn_from(offender + 1, events)
        else:
            self._set_turn_from(flipper + 1, events)

    def _settle_irish(self, events: list[Event]) -> None:
        slaps = self.race_slaps
        flipper = self.last_flipper if self.last_flipper is not None else 0
        order = self._order_from(flipper)
        must = [s for s in order if not self.is_out[s]]
        missing = [s for s in must if s not in slaps]
        # DECISION: whoever did not slap is later than every slapper; among
        # equals, the first clockwise from the card's player (that player
        # included) is the last.
        if missing:
            loser = missing[0]
        else:
            latest = max(v[0][0] for v in slaps.values())
            loser = next(s for s in must if slaps[s][0][0] == latest)
        reactions: tuple[tuple[int, float | None], ...] = tuple(
            sorted(
                ((s, slaps[s][0][0] if s in slaps else None) for s in must),
                key=lambda x: (x[1] is None, x[1] if x[1] is not None else 0.0, order.index(x[0])),
            )
        )
        self.race_open = False
        winner: int | None = None
        if self.rules.irish_goal is IrishGoal.FIRST_OUT:
            done = [
                (slaps[s][0][0], order.index(s), s)
                for s in must
                if s in slaps and s != loser and not self.stacks[s]
            ]
            if done:
                winner = min(done)[2]
        self._pick_up(loser, "last", reactions, events)
        if winner is not None:
            events.append(Finished(winner))
            self._end((winner,), None, events)

    def _pick_up(
        self,
        seat: int,
        reason: str,
        reactions: tuple[tuple[int, float | None], ...],
        events: list[Event],
    ) -> None:
        if reason == "wrong":
            events.append(WrongSlap(seat, "pickup"))
        count = self._take_pile(seat)
        events.append(PickedUp(seat, count, reason, reactions))
        self.next_call = ACE
        self.race_open = False
        self._set_turn_from(seat + 1, events)


def check_players(players: Sequence[str]) -> tuple[str, ...]:
    """2–52 unique, non-blank names of at most 40 characters, each Unicode text."""
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise SlapjackError("players must be a list of names", code="bad_players")
    names = tuple(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise SlapjackError(
            f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}",
            code="bad_players",
        )
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise SlapjackError(
                f"a player name must be a non-blank string, got {name!r}", code="bad_players"
            )
        if len(name) > MAX_NAME_LENGTH:
            raise SlapjackError(
                f"player name longer than {MAX_NAME_LENGTH} characters: {name!r}",
                code="bad_players",
            )
        if not name.isascii() and not _is_text(name):
            raise SlapjackError(
                f"a player name must be Unicode text (no lone surrogates), got {name!r}",
                code="bad_players",
            )
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise SlapjackError(
            f"player names must be unique; {dup!r} appears twice", code="bad_players"
        )
    return names


def _is_text(name: str) -> bool:
    """Whether ``name`` can be written out (JSON reads ``"\\ud800"`` into a lone surrogate)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def describe_card(card: Card | None) -> str:
    return card_name(card) if card is not None else "-"
