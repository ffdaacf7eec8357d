"""What a room is made with, and what it stores besides its record.

:class:`RoomTiming` is how long a room waits for things (the live table's
timings and the room's own: the start delay, the idle close);
:class:`RoomSnapshot` is the typed form of the settings a room stores, so a
restarted server rebuilds the room exactly (see docs/storage.md).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from slapjack.core import Card, Record, Rules, card_name, parse_deck
from slapjack.live import LiveTiming
from slapjack.protocol import CreateRoom


@dataclass
class RoomTiming:
    """How long the room waits for things, in milliseconds."""

    start_delay_ms: float = 1500.0
    resume_delay_ms: float | None = None
    """A game rebuilt from the store (a restart, a takeover) goes on this long
    after it is back, counted down to its players (``timers.resume``);
    ``None``: as long as a game's start (``start_delay_ms``)."""
    jack_timeout_ms: float = 2500.0
    """A race nobody slaps closes this long after the flip."""
    irish_timeout_ms: float = 3000.0
    """An Irish Snap match closes this long after the flip if not everyone slapped."""
    deadlock_ms: float = 800.0
    grace_ms: float = 15000.0
    call_grace_ms: float = 350.0
    """Say-it: a slap on an open race without its call waits this long for it."""
    idle_close_ms: float = 600_000.0
    """A room without any connection closes after this."""
    cover_level: str = "casual"
    """The level of the bot that covers an absent or departed human."""
    bot_pace: float = 1.0
    """Bots' flip delays are multiplied by this (tests use small values)."""
    turn_ms: float | None = None
    """Overrides the room's ``turn_seconds`` (tests only)."""
    rate_limit: float = 30.0
    """Frames a second one socket may send; beyond it the socket is closed (1008)."""

    def resume_ms(self) -> float:
        """The countdown before a rebuilt game goes on."""
        delay = self.resume_delay_ms
        return max(0.0, self.start_delay_ms if delay is None else delay)

    def live(self, settings: CreateRoom) -> LiveTiming:
        """The live table's timings for a room of ``settings``."""
        turn = self.turn_ms if self.turn_ms is not None else settings.turn_seconds * 1000.0
        return LiveTiming(
            jack_timeout_ms=self.jack_timeout_ms,
            irish_timeout_ms=self.irish_timeout_ms,
            deadlock_ms=self.deadlock_ms,
            call_wait_ms=self.call_grace_ms,
            turn_ms=turn,
            tempo=settings.tempo,
            bot_pace=self.bot_pace,
            grace_ms=self.grace_ms,
            cover_level=self.cover_level,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoomTiming:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class RoomSetup:
    """What only tests (and the app factory) may choose: the deck, the seed."""

    deck: tuple[int, ...] | None = None
    seed: int | None = None
    bot_seed: int | None = None

    def new_record(
        self, rules: Rules, names: list[str], game_no: int, meta: dict[str, Any]
    ) -> Record:
        """Game ``game_no``'s record: dealt from the set deck, from the set seed
        (plus the game's number less one), or from a fresh random seed."""
        if self.deck is not None:
            return Record.new(rules, names, deck=self.deck, meta=meta)
        seed = self.seed + game_no - 1 if self.seed is not None else secrets.randbits(63)
        return Record.new(rules, names, seed=seed, meta=meta)


def room_rules(settings: CreateRoom) -> Rules:
    """The rules a room of ``settings`` plays (its preset, options and time limit)."""
    options = dict(settings.rules)
    if settings.time_limit and settings.game == "slapjack":
        options.setdefault("time_limit", settings.time_limit)
    return Rules.from_options(options, game=settings.game)


@dataclass
class RoomSnapshot:
    """The settings a room stores (``Store.update_settings``), typed.

    ``finished``: the current game is stored in the history (else a restart
    finishes it); ``waiting``: no game has started yet (a restart rebuilds the
    waiting room, its seats and ``seen``, not a game); ``game_id``: the room's last finished game, also while its
    rematch plays; ``deck``/``seed``/``referee``: what a room made through the
    test hooks keeps for every game (a room of ``slapjack serve`` has none).
    """

    create: CreateRoom
    timing: RoomTiming = field(default_factory=RoomTiming)
    game_no: int = 1
    bot_seed: int | None = None
    rematch: tuple[int, ...] = ()
    deck: tuple[Card, ...] | None = None
    seed: int | None = None
    referee: str | None = None
    game_id: int | None = None
    finished: bool = False
    waiting: bool = False
    """The room waits for its first game (its stored header is a placeholder)."""
    seen: tuple[int, ...] = ()
    """While waiting: the seats whose players have connected at least once."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "create": self.create.model_dump(),
            "timing": asdict(self.timing),
            "game_no": self.game_no,
            "bot_seed": self.bot_seed,
            "rematch": list(self.rematch),
        }
        if self.deck is not None:
            out["deck"] = [card_name(c) for c in self.deck]
        if self.seed is not None:
            out["seed"] = self.seed
        if self.referee is not None:
            out["referee"] = self.referee
        if self.game_id is not None:
            out["game_id"] = self.game_id
        if self.finished:
            out["finished"] = True
        if self.waiting:
            out["waiting"] = True
            out["seen"] = list(self.seen)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoomSnapshot:
        deck = data.get("deck")
        return cls(
            create=CreateRoom.model_validate(data["create"]),
            timing=RoomTiming.from_dict(data.get("timing", {})),
            game_no=int(data.get("game_no", 1)),
            bot_seed=data.get("bot_seed"),
            rematch=tuple(int(s) for s in data.get("rematch", ())),
            deck=tuple(parse_deck(deck)) if deck is not None else None,
            seed=data.get("seed"),
            referee=data.get("referee"),
            game_id=data.get("game_id"),
            finished=bool(data.get("finished")),
            waiting=bool(data.get("waiting")),
            seen=tuple(int(s) for s in data.get("seen", ())),
        )
