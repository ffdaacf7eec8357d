"""An online table as the terminal draws it: the server's frames in, a
:class:`~slapjack.tui.state.TableState` out. Nothing here knows Textual.

:class:`RemoteGame` is the :class:`~slapjack.tui.online.FrameHandler` of an
:class:`~slapjack.tui.online.OnlineClient`. It turns each ``update`` into the
engine's view and events (the server's view of the table: it never holds a
card the seat may not see), keeps the log, the latest result with the
reaction times the server ranked (bounded by the fair referee; a false start is
shown as a guess), and the status line: server errors, the connection, the
waiting room.

It measures reactions as the local game does: after a new card (or a reslap
cue) the screen calls :meth:`RemoteGame.shown` once the refresh that draws it
is done, which stamps ``shown_at`` on the client's clock; a slap key's event
time is ``input_at``; the slap goes out with ``reaction_ms = input_at -
shown_at``, both stamps, ``flip_id`` and the say-it call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from slapjack.core import Event, Rules, SlapjackError, View
from slapjack.core.events import RaceTied
from slapjack.live import Tally
from slapjack.protocol import (
    ErrorCode,
    ErrorFrame,
    FrameError,
    RoomInfo,
    RoomStatus,
    Update,
    Welcome,
    decode_event,
    decode_view,
)

from .config import DEFAULT_KEYS, SeatSpec
from .online import monotonic_ms
from .state import LogItem, Note, SeatStats, TableState, log_events

KNOWN_ERRORS: Final[frozenset[ErrorCode]] = frozenset(
    {
        ErrorCode.BAD_JSON,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.TOO_LARGE,
        ErrorCode.BAD_TOKEN,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.STALE_FLIP,
        ErrorCode.GAME_OVER,
        ErrorCode.NOT_SETTLED,
        ErrorCode.NOT_STARTED,
        ErrorCode.PLAYER_OUT,
        ErrorCode.SPECTATOR,
        ErrorCode.RATE_LIMITED,
        ErrorCode.ROOM_CLOSED,
        ErrorCode.ROOM_FULL,
        ErrorCode.UNKNOWN_ROOM,
        ErrorCode.SERVER_FULL,
    }
)
"""The error codes with a text of their own (the shared ``error.CODE`` words);
every other code is shown as ``srv.other`` with the server's message."""


NOTICE_MS: Final = 5000.0
"""How long a passing notice (a server error, your slap) stays in the status line."""


@dataclass(frozen=True, slots=True)
class Notice:
    """The status line's message: an i18n key and its values; ``bad`` in red."""

    key: str
    values: tuple[tuple[str, object], ...] = ()
    bad: bool = False
    until: float | None = None
    """Shown until then (client clock, ms); ``None``: until another replaces it."""


Sender = Callable[..., bool]
"""``send(kind, **fields) -> bool``: :meth:`OnlineClient.send`."""


class RemoteGame:
    """One seat's online table (or a spectator's, with no token)."""

    def __init__(
        self,
        *,
        code: str,
        name: str = "",
        seat: int | None = None,
        keys: tuple[str, str, str] = DEFAULT_KEYS[0],
        clock_ms: Callable[[], float] = monotonic_ms,
        on_change: Callable[[RemoteGame], None] | None = None,
    ) -> None:
        self.code = code
        self.name = name
        self.seat = seat
        self.keys = keys
        self.clock_ms = clock_ms
        self.on_change = on_change
        self.send: Sender = lambda kind, **fields: False
        self.info: RoomInfo | None = None
        """The room as the latest ``welcome`` described it."""
        self.room: RoomStatus | None = None
        """The room's status from the latest ``update``."""
        self.status = "connecting"
        self.connection = "connecting"
        self.view: View | None = None
        self.rules: Rules | None = None
        self.game_no: int | None = None
        self.state: TableState | None = None
        self.notice: Notice | None = None
        self.welcomed = False
        self._log: list[LogItem] = []
        self._banner: tuple[LogItem, ...] = ()
        self._reactions: tuple[tuple[int, float | None], ...] = ()
        self._cue = 0
        self._flip_id: int | None = None
        self._round = 0
        self._shown_at: float | None = None
        self._slap_sent: tuple[int, int] | None = None
        self._call_sent: int | None = None
        self._flip_sent: int | None = None
        self._rematch_sent = False
        self._turn_deadline: float | None = None
        self._end_ms: float | None = None
        self.resume_at: float | None = None
        """A game moved to another node (or restarted) goes on at this time (client clock)."""
        self._serial = 0
        self._lost = False
        self._tally: Tally | None = None

    # ----------------------------------------------------------------- clock

    def now_ms(self) -> float:
        return self.clock_ms()

    @property
    def cue(self) -> int:
        return self._cue

    @property
    def shown_at(self) -> float | None:
        return self._shown_at

    @property
    def fixed_tempo(self) -> bool:
        return self.info is not None and self.info.tempo == "fixed"

    @property
    def playing(self) -> bool:
        return self.view is not None and self.status in ("playing", "over")

    @property
    def over(self) -> bool:
        return self.view is not None and self.view.over

    @property
    def say_it(self) -> bool:
        return self.rules is not None and self.rules.say_it

    # ------------------------------------------------------------- handler

    def on_welcome(self, msg: Welcome) -> None:
        room = msg.room
        self.info = room
        self.status = room.status
        try:
            self.rules = Rules.from_options(room.rules, room.game)
        except SlapjackError:
            self.rules = None
        self.seat = msg.seat
        if msg.name is not None:
            self.name = msg.name
        if not self.welcomed:
            if self.seat is not None:
                self._note("online.joined", number=self.seat + 1, who=self.name, code=self.code)
            else:
                self._note("online.watching", code=self.code)
        self.welcomed = True
        self._publish()

    def on_update(self, msg: Update) -> None:
        received = self.clock_ms()
        room = msg.room
        try:
            view = decode_view(msg.view) if msg.view is not None else None
            events: list[Event] = []
            unknown = 0
            for raw in msg.events:
                event = decode_event(raw, len(view.players) if view else 0)
                if event is None:
                    unknown += 1
                else:
                    events.append(event)
        except FrameError as exc:
            self.on_bad_frame(exc.message)
            return
        self.room = room
        self.status = room.status
        game_no = room.game_no
        if game_no != self.game_no:
            if self.game_no and self.view is not None:  # a rematch (not the first deal)
                self._new_game()
            self.game_no = game_no
        previous = self.view
        self.view = view
        if view is not None:
            self.rules = view.rules
        self._absorb(events)
        if unknown:
            self._note("online.unknown_events", count=unknown)
        held = self.resume_at is not None  # the game stood still (a rebuilt game counting down)
        self._timers(room, received)
        if view is not None and view.centre_top:
            flip_id = view.flips
            if previous is None or flip_id != self._flip_id:
                self._flip_id = flip_id
                self._round = 0
                self._next_cue()
            elif any(isinstance(e, RaceTied) for e in events):
                self._round += 1  # a reslap round: reactions count from its cue
                self._next_cue()
            elif held and self.resume_at is None:
                # A game rebuilt after a restart or a takeover goes on with
                # the same card: the server counts it as shown again now, so
                # reactions count from this cue, not the stamp from before.
                self._next_cue()
        if self.notice is not None and self.notice.key == "online.reconnecting":
            self.notice = None
        self._publish()

    def on_server_error(self, msg: ErrorFrame) -> None:
        code, message = msg.code, msg.message[:200]
        if code is ErrorCode.STALE_FLIP and self._flip_sent is not None:
            self._flip_sent = None
        key = f"error.{code}" if code in KNOWN_ERRORS else "srv.other"
        self.notice = Notice(
            key, (("code", code), ("message", message)), bad=True, until=self._soon()
        )
        self._log.append(Note(key, (("code", code), ("message", message))))
        self._publish()

    def on_bad_frame(self, what: str) -> None:
        self.notice = Notice("online.bad_frame", (("what", what),), bad=True, until=self._soon())
        self._log.append(Note("online.bad_frame", (("what", what),)))
        self._publish()

    def on_status(self, status: str, detail: Mapping[str, Any]) -> None:
        previous = self.connection
        self.connection = status
        if status == "open":
            if self.notice is not None and self.notice.key.startswith("online.re"):
                self.notice = None
            if self._lost:
                self._lost = False
                self._log.append(Note("online.back"))
        elif status == "closed":
            if detail.get("error") and not self.welcomed:
                self.notice = Notice(
                    "online.unreachable_retry",
                    (("error", detail.get("error")), ("s", detail.get("retry_s"))),
                    bad=True,
                )
            else:
                self.notice = Notice(
                    "online.reconnecting",
                    (("s", detail.get("retry_s")), ("n", detail.get("attempt"))),
                    bad=True,
                )
            if self.welcomed and previous == "open":
                self._lost = True
                self._log.append(Note("online.lost"))
        elif status == "gone":
            code = detail.get("code")
            key = {4001: "online.gone_token", 4004: "online.gone_room", 1008: "online.gone_flood"}
            self.notice = Notice(
                key.get(code, "online.gone") if isinstance(code, int) else "online.gone",
                (("reason", detail.get("reason") or code or ""),),
                bad=True,
            )
            self._log.append(Note(self.notice.key, self.notice.values))
        self._publish()

    # ------------------------------------------------------------- actions

    def shown(self, cue: int) -> None:
        """The card (or reslap cue) ``cue`` is on screen now: stamp ``shown_at``."""
        if cue != self._cue or self._shown_at is not None:
            return
        self._shown_at = self.clock_ms()
        self._publish()

    def can_act(self) -> bool:
        view = self.view
        return (
            self.seat is not None
            and view is not None
            and self.status == "playing"
            and not view.over
            and self.connection == "open"
        )

    def flip(self) -> bool:
        """Space (or the flip key): flip when it is our turn."""
        view = self.view
        if not self.can_act() or view is None:
            return False
        if view.turn != self.seat or view.race_open or self.fixed_tempo:
            return False
        if self._flip_sent == view.flips:
            return False
        if self.send("flip", flip_id=view.flips):
            self._flip_sent = view.flips
            return True
        return False

    def slap(self, input_at: float) -> dict[str, Any] | None:
        """The slap key's event at ``input_at`` (client clock, ms). Returns the
        fields sent, or ``None`` when there is nothing to slap (no card on
        screen yet, out, already slapped this card or round)."""
        view = self.view
        if not self.can_act() or view is None or self.seat is None:
            return None
        if not view.centre_top or view.out[self.seat] or self._shown_at is None:
            return None
        if self.resume_at is not None:
            return None  # the game stands still until it goes on (timers.resume)
        if view.reslap_among is not None and self.seat not in view.reslap_among:
            return None
        key = (view.flips, self._round)
        if self._slap_sent == key:
            return None  # only the first slap on a card counts
        shown_at = self._shown_at
        input_at = min(input_at, self.clock_ms())
        reaction = round(max(0.0, input_at - shown_at), 2)
        fields = {
            "flip_id": view.flips,
            "reaction_ms": reaction,
            "shown_at": round(shown_at, 3),
            "input_at": round(input_at, 3),
            "call": self._call_sent == view.flips,
        }
        if not self.send("slap", **fields):
            return None
        self._slap_sent = key
        self.notice = Notice("online.you_slapped", (("ms", reaction),), until=self._soon())
        self._publish()
        return fields

    def call(self) -> bool:
        """Say-it: the call key sends the "Slapjack!" call for this card."""
        view = self.view
        if not self.can_act() or view is None or not self.say_it or not view.centre_top:
            return False
        if self._call_sent == view.flips:
            return False
        if self.send("call", flip_id=view.flips):
            self._call_sent = view.flips
            return True
        return False

    def rematch(self) -> bool:
        if self.seat is None or not self.over or self._rematch_sent:
            return False
        if self.send("rematch"):
            self._rematch_sent = True
            self.notice = Notice("online.rematch_asked")
            self._publish()
            return True
        return False

    def start_now(self) -> bool:
        """While the room waits: start now, bots take the free seats."""
        if self.seat is None or self.status != "waiting":
            return False
        return bool(self.send("start"))

    # -------------------------------------------------------------- inside

    def _soon(self) -> float:
        return self.clock_ms() + NOTICE_MS

    def _next_cue(self) -> None:
        self._cue += 1
        self._shown_at = None

    def _count(self, events: list[Event]) -> None:
        """Count the game's events for the results table (Jacks won, fastest
        reaction, wrong slaps), as the local table's tally does."""
        n = len(self.view.players) if self.view is not None else 0
        if self._tally is None or len(self._tally.jacks) != n:
            self._tally = Tally(n)
        self._tally.count(events)

    def seat_stats(self, n: int) -> tuple[SeatStats, ...]:
        """Per seat: Jacks won (or pick-ups), fastest reaction, wrong slaps, from
        the events this client has seen of this game (all of them unless it
        joined late or was disconnected)."""
        tally = self._tally
        if tally is None or len(tally.jacks) != n:
            return tuple(SeatStats() for _ in range(n))
        return tuple(
            SeatStats(
                tally.jacks[s] + tally.shares[s],
                tally.pickups[s] + tally.wrong_pickups[s],
                tally.fastest[s],
                tally.wrong[s],
            )
            for s in range(n)
        )

    def _new_game(self) -> None:
        self._tally = None
        self._banner = ()
        self._reactions = ()
        self._slap_sent = self._call_sent = self._flip_sent = None
        self._rematch_sent = False
        self._flip_id = None
        self._log.append(Note("online.new_game"))
        if self.notice is not None and self.notice.key == "online.rematch_asked":
            self.notice = None

    def _absorb(self, events: list[Event]) -> None:
        self._count(events)
        results, reactions = log_events(self._log, events)
        if results:
            self._banner = results
            self._reactions = reactions
            if self.notice is not None and self.notice.key == "online.you_slapped":
                self.notice = None

    def _timers(self, room: RoomStatus, received: float) -> None:
        """Server deadlines (its clock) as client-clock deadlines: the time
        left when the frame was sent, counted from when it arrived."""

        def local(deadline: float | None) -> float | None:
            return None if deadline is None else received + max(0.0, deadline - room.now)

        view = self.view
        self._turn_deadline = None
        if view is not None and not view.over and view.turn is not None and not view.race_open:
            self._turn_deadline = local(room.timers.turn)
        self._end_ms = local(room.timers.time_limit)
        self.resume_at = local(room.timers.resume)

    def _note(self, key: str, **values: object) -> None:
        self._log.append(Note(key, tuple(values.items())))

    def note(self, key: str, **values: object) -> None:
        """A line of the app's own in the log."""
        self._note(key, **values)
        self._publish()

    # ------------------------------------------------------- who sits where

    def seat_names(self) -> list[str | None]:
        """Every seat's name (``None``: free), from the latest update, else the
        room info of the welcome."""
        if self.view is not None:
            return list(self.view.players)
        if self.room is not None:
            names = self.room.names
        else:
            names = [s.name for s in self.info.seats] if self.info is not None else []
        return [n or None for n in names]

    def seat_bots(self) -> dict[int, str]:
        """Bot seats and covered seats (a bot plays for an absent person): their level."""
        if self.room is not None:
            return {int(seat): level for seat, level in self.room.bots.items()}
        seats = self.info.seats if self.info is not None else []
        return {s.seat: s.bot for s in seats if s.bot is not None}

    def seat_connected(self) -> list[bool]:
        if self.room is not None:
            return list(self.room.connected)
        return [s.connected for s in self.info.seats] if self.info is not None else []

    @property
    def starting(self) -> bool:
        """The room is full and starts in a moment."""
        return self.room is not None and self.room.timers.start is not None

    @property
    def room_name(self) -> str:
        return self.info.name if self.info is not None else ""

    def seats(self) -> tuple[SeatSpec, ...]:
        """Who sits where: our seat with its keys, bots (and covered seats) with
        their level, other people with no keys (drawn as online players)."""
        bots = self.seat_bots()
        out: list[SeatSpec] = []
        for i, name in enumerate(self.seat_names()):
            label = name or "—"
            level = bots.get(i)
            if i == self.seat:
                out.append(SeatSpec(label, None, *self.keys))
            elif level is not None:
                out.append(SeatSpec(label, level))
            else:
                out.append(SeatSpec(label, None))
        return tuple(out)

    def _build_state(self) -> TableState | None:
        view = self.view
        if view is None:
            return None
        self._serial += 1
        return TableState(
            view=view,
            seats=self.seats(),
            log=tuple(self._log),
            banner=self._banner,
            reactions=self._reactions,
            turn_deadline_ms=self._turn_deadline,
            end_ms=self._end_ms,
            cue=self._cue,
            shown=self._shown_at is not None or not view.centre_top,
            stats=self.seat_stats(len(view.players)),
            seed=None,
            saved_to=None,
            serial=self._serial,
        )

    @property
    def log(self) -> tuple[LogItem, ...]:
        return tuple(self._log)

    def _publish(self) -> None:
        self.state = self._build_state()
        if self.on_change is not None:
            self.on_change(self)
