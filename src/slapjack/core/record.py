"""Game records, format ``slapjack-record/1``: rules + seats + deck/seed + timed actions.

A record replays to the identical state; it is the unit of persistence, replay,
crash recovery and bug reports. See ``docs/records.md``.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .actions import Flip, Settle, Slap, TimeUp
from .cards import Card, card_name, parse_deck
from .errors import RecordError, SlapjackError
from .events import Event, event_to_dict
from .game import Game, check_players
from .rules import GameKind, Rules
from .shuffle import shuffled_deck

FORMAT: Final = "slapjack-record/1"
MAX_ACTIONS: Final = 1_000_000
RecordAction = Flip | Slap | TimeUp | Settle

_TOP_KEYS: Final = frozenset(
    {"format", "game", "rules", "players", "deck", "seed", "actions", "meta"}
)


@dataclass
class Record:
    """A game record. ``deck`` is always filled in (from ``seed`` if one was given)."""

    rules: Rules
    players: tuple[str, ...]
    deck: tuple[Card, ...]
    seed: int | None = None
    actions: list[RecordAction] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def new(
        cls,
        rules: Rules,
        players: Iterable[str],
        *,
        seed: int | None = None,
        deck: Iterable[Card] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Record:
        """A record with no actions yet, dealt from ``deck`` or from ``seed``."""
        if (seed is None) == (deck is None):
            raise RecordError("give exactly one of deck and seed")
        names = check_players(list(players))
        cards = tuple(deck) if deck is not None else shuffled_deck(_check_seed(seed))
        game = Game(rules, names, cards)  # validates the deck
        return cls(rules, names, game.deck, seed, [], dict(meta or {}))

    def new_game(self) -> Game:
        return Game(self.rules, self.players, self.deck)

    # -------------------------------------------------------------- to JSON

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "game": self.rules.game.value,
            "rules": self.rules.to_options(),
            "players": list(self.players),
        }
        if self.seed is not None:
            out["seed"] = self.seed
        else:
            out["deck"] = [card_name(c) for c in self.deck]
        out["actions"] = [action_to_dict(a, self.players) for a in self.actions]
        if self.meta:
            out["meta"] = self.meta
        return out

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    # ------------------------------------------------------------ from JSON

    @classmethod
    def from_json(cls, text: str | bytes) -> Record:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RecordError(f"not valid JSON: {exc}", code="bad_json") from None
        except RecursionError:
            raise RecordError("not valid JSON: nested too deeply", code="bad_json") from None
        except ValueError:  # an int of more digits than Python converts
            raise RecordError(
                f"not valid JSON: a number has more than {sys.get_int_max_str_digits()} digits",
                code="bad_json",
            ) from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """Check a record's shape and contents; raise :class:`RecordError` naming what is wrong."""
        if not isinstance(data, dict):
            raise RecordError("a record is a JSON object")
        unknown = sorted(set(data) - _TOP_KEYS)
        if unknown:
            raise RecordError(f"unknown field {unknown[0]!r}")
        if data.get("format") != FORMAT:
            raise RecordError(
                f"format must be {FORMAT!r}, got {data.get('format')!r}", code="bad_format"
            )
        game = data.get("game", GameKind.SLAPJACK.value)
        options = data.get("rules", {})
        if not isinstance(options, dict):
            raise RecordError("rules must be an object")
        try:
            rules = Rules.from_options(options, game=game if isinstance(game, str) else repr(game))
            players = check_players(data.get("players", []))
        except SlapjackError as exc:
            raise RecordError(exc.message, code=exc.code) from None
        has_deck, has_seed = "deck" in data, "seed" in data
        if has_deck == has_seed:
            raise RecordError("a record has either a deck or a seed (exactly one)")
        seed: int | None = None
        try:
            if has_deck:
                deck_names = data["deck"]
                if not isinstance(deck_names, list):
                    raise RecordError("deck must be a list of 52 cards")
                deck = parse_deck(deck_names)
            else:
                seed = _check_seed(data["seed"])
                deck = shuffled_deck(seed)
        except SlapjackError as exc:
            raise RecordError(exc.message, code=exc.code) from None
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise RecordError("meta must be an object")
        raw_actions = data.get("actions", [])
        if not isinstance(raw_actions, list):
            raise RecordError("actions must be a list")
        if len(raw_actions) > MAX_ACTIONS:
            raise RecordError(f"more than {MAX_ACTIONS} actions")
        index = {name: i for i, name in enumerate(players)}
        actions = [_parse_action(i, raw, index) for i, raw in enumerate(raw_actions)]
        return cls(rules, players, deck, seed, actions, meta)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise RecordError(
            f"seed must be a whole number from 0 to 2**64-1, got {seed!r}", code="bad_seed"
        )
    return seed


_ACTION_KINDS: Final = ("flip", "slap", "settle", "time_up")
_ACTION_EXTRAS: Final = {
    "slap": frozenset({"reaction_ms", "call"}),
    "settle": frozenset({"final"}),
}


def _parse_action(i: int, raw: Any, index: Mapping[str, int]) -> RecordAction:
    if not isinstance(raw, dict):
        raise RecordError("an action is an object", index=i)
    t = raw.get("t")
    if isinstance(t, bool) or not isinstance(t, int) or t < 0:
        raise RecordError(f"t must be whole milliseconds >= 0, got {t!r}", index=i, code="bad_time")
    kinds = [k for k in _ACTION_KINDS if k in raw]
    if len(kinds) != 1:
        raise RecordError("an action has exactly one of flip, slap, settle, time_up", index=i)
    kind = kinds[0]
    allowed = {"t", kind} | _ACTION_EXTRAS.get(kind, frozenset())
    extra = sorted(set(raw) - allowed)
    if extra:
        raise RecordError(f"unknown field {extra[0]!r} in a {kind} action", index=i)
    if kind == "time_up":
        if raw["time_up"] is not True:
            raise RecordError("time_up must be true", index=i)
        return TimeUp(t)
    if kind == "settle":
        if raw["settle"] is not True:
            raise RecordError("settle must be true", index=i)
        final = raw.get("final", True)
        if not isinstance(final, bool):
            raise RecordError("final must be true or false", index=i)
        return Settle(final, t)
    name = raw[kind]
    if not isinstance(name, str) or name not in index:
        raise RecordError(f"unknown player {name!r}", index=i, code="unknown_player")
    seat = index[name]
    if kind == "flip":
        return Flip(seat, t)
    reaction = raw.get("reaction_ms")
    if (
        isinstance(reaction, bool)
        or not isinstance(reaction, int | float)
        or not math.isfinite(reaction)
        or reaction < 0
    ):
        raise RecordError(
            f"a slap needs reaction_ms >= 0, got {reaction!r}", index=i, code="bad_reaction"
        )
    call = raw.get("call", False)
    if not isinstance(call, bool):
        raise RecordError("call must be true or false", index=i)
    return Slap(seat, reaction, call, t)


def action_to_dict(action: RecordAction, players: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(action, Flip):
        return {"t": action.t, "flip": players[action.seat]}
    if isinstance(action, Slap):
        out: dict[str, Any] = {
            "t": action.t,
            "slap": players[action.seat],
            "reaction_ms": action.reaction_ms,
        }
        if action.call:
            out["call"] = True
        return out
    if isinstance(action, Settle):
        if action.final:
            return {"t": action.t, "settle": True}
        return {"t": action.t, "settle": True, "final": False}
    return {"t": action.t, "time_up": True}


@dataclass
class Replay:
    """The result of replaying a record: the game at its end, and every event."""

    game: Game
    events: list[Event]


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One step of a replay: an action and the events it gave.

    ``index`` is the action's place in the record, or ``None`` for a slap
    window the replay settled implicitly (a record without settle actions);
    ``action`` is then the :class:`Settle` it applied.
    """

    index: int | None
    action: RecordAction
    events: list[Event]


def replay_steps(
    record: Record, game: Game | None = None, *, settle_at_end: bool = True
) -> Iterator[ReplayStep]:
    """Replay ``record`` on ``game`` (default: a fresh deal), one step at a time.

    Recorded ``settle`` actions close slap windows where the live table closed
    them; a window still open settles before each flip and ``time_up`` and (with
    ``settle_at_end``) at the end, as records without settle actions need. A
    tied player's repeated slap in such a record opens the reslap round. The
    game is changed in place; inspect it between steps. Raises
    :class:`RecordError` naming the first bad action.
    """
    game = record.new_game() if game is None else game
    last_t = 0
    for i, action in enumerate(record.actions):
        try:
            if game.over:
                raise RecordError("the game is already over", index=i, code="game_over")
            # Every action's time counts, also a slap the game ignores.
            if action.t < last_t:
                raise RecordError(
                    f"time goes backwards ({action.t} ms after {last_t} ms)",
                    index=i,
                    code="time_backwards",
                )
            last_t = action.t
            implicit: Settle | None = None
            if isinstance(action, Slap):
                if game.opens_reslap(action.seat):
                    implicit = Settle(final=False, t=game.t)
            elif isinstance(action, Flip) and game.needs_settle:
                implicit = Settle(final=True, t=game.t)  # time_up settles by itself
            if implicit is not None:
                yield ReplayStep(None, implicit, game.apply(implicit))
                if game.over:
                    raise RecordError("the game is already over", index=i, code="game_over")
            events = game.apply(action)
        except RecordError:
            raise
        except SlapjackError as exc:
            raise RecordError(exc.message, index=i, code=exc.code) from None
        yield ReplayStep(i, action, events)
    if settle_at_end and game.needs_settle:
        end = Settle(final=True, t=game.t)
        yield ReplayStep(None, end, game.apply(end))


def replay(record: Record, *, settle_at_end: bool = True, check: bool = False) -> Replay:
    """Replay a record from the deal (see :func:`replay_steps`). ``check``
    verifies the 52-card invariant after every action. Raises
    :class:`RecordError` naming the first bad action; the caller's objects are
    never half-changed."""
    game = record.new_game()
    events: list[Event] = []
    for step in replay_steps(record, game, settle_at_end=settle_at_end):
        events += step.events
        if check:
            game.check_invariant()
    return Replay(game, events)


def final_position(result: Replay) -> dict[str, Any]:
    """The JSON object ``slapjack replay --json`` prints for one record."""
    game = result.game
    names = game.players
    return {
        "finished": game.over,
        "winners": [names[s] for s in game.winners],
        "loser": names[game.loser] if game.loser is not None else None,
        "turn": names[game.turn] if game.turn is not None and not game.over else None,
        "stacks": {names[s]: [card_name(c) for c in game.stacks[s]] for s in range(game.n)},
        "centre": [card_name(c) for c in game.centre],
        "out": [names[s] for s in game.out_order],
        "events": [event_to_dict(e, names) for e in result.events],
    }


class Table:
    """A live game and its record side by side: every accepted action is recorded.

    This is what rooms, the terminal game and the simulator drive. A settle is
    recorded when it changed something (a race closed, a pile handed back), an
    ignored slap is not: the record holds every decision that changed the game.
    """

    __slots__ = ("game", "record")

    def __init__(self, record: Record, *, resume: bool = True) -> None:
        self.record = record
        if resume and record.actions:
            self.game = replay(record, settle_at_end=False).game
        else:
            self.game = record.new_game()

    @classmethod
    def new(cls, rules: Rules, players: Iterable[str], **kw: Any) -> Table:
        return cls(Record.new(rules, players, **kw))

    def apply(self, action: RecordAction) -> list[Event]:
        events = self.game.apply(action)
        if events or not isinstance(action, Slap | Settle):
            self.record.actions.append(action)
        return events

    def flip(self, seat: int, t: int) -> list[Event]:
        """``apply(Flip(seat, t))`` without the dispatch (the live tables' hot path)."""
        events = self.game.flip(seat, t)
        self.record.actions.append(Flip(seat, t))
        return events

    def slap(self, seat: int, reaction_ms: float, call: bool, t: int) -> list[Event]:
        """``apply(Slap(seat, reaction_ms, call, t))`` without the dispatch."""
        events = self.game.slap(seat, reaction_ms, call, t)
        if events:
            self.record.actions.append(Slap(seat, reaction_ms, call, t))
        return events

    def time_up(self, t: int) -> list[Event]:
        """``apply(TimeUp(t))``."""
        return self.apply(TimeUp(t))

    def settle(self, final: bool = True, t: int | None = None) -> list[Event]:
        """Close the slap window (or resolve a table nobody can flip on) at game
        time ``t`` (default: the game's time); recorded if it changed anything."""
        return self.apply(Settle(final, self.game.t if t is None else t))
