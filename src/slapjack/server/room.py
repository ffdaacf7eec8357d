"""One live room: its seats, its game, its timers, its clients.

A room is a single writer: one asyncio task (:meth:`Room.run`) takes inputs
from a queue (client frames, bot slaps, timer expiries, joins) and applies
them in order. After each input it first writes what changed to the store
(write-ahead: an action is durable before any client sees its result), then
sends the frames it prepared.

Timers (all on the server's monotonic clock):

* ``start``: the game begins a moment after every seat is taken and every
  human has connected (or when a seated player sends ``start``);
* ``turn``: flips for the player on turn after ``turn_seconds`` (a bot's turn
  after its own flip delay); under ``tempo=fixed`` the room flips for everyone;
* ``race``: a race on a Jack (Irish Snap: a match) closes ``window_ms`` after
  its first slap (from the referee), when every seat that may slap has, or
  after the no-slap timeout; then the engine settles it;
* ``deadlock``: nobody can flip; the engine's rule resolves it;
* ``time_limit``: sends ``TimeUp``;
* ``grace:<seat>``: a human seat without a connection is covered by a bot
  once its grace period ends, until the player returns;
* ``call:<seat>`` (say-it): a slap on a Jack waits this long for its call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from slapjack.bots.base import Bot, notice_bots
from slapjack.core import (
    Event,
    Flip,
    Record,
    Rules,
    Settle,
    Slap,
    SlapjackError,
    Table,
    TimeUp,
    card_name,
    observe,
    parse_deck,
)
from slapjack.core.events import RaceTied
from slapjack.core.game import MAX_REACTION_MS
from slapjack.protocol import (
    CallMsg,
    CreateRoom,
    FlipMsg,
    Hello,
    LeaveMsg,
    Pong,
    RematchMsg,
    RoomInfo,
    SeatInfo,
    SlapMsg,
    StartMsg,
    dumps,
    error_frame,
    events_json,
    update_body,
    update_frame,
    view_json,
    welcome_frame,
)
from slapjack.store.base import RoomState, Store, hash_token, token_matches

from .bots import make_bot
from .connection import Conn
from .metrics import METRICS
from .referee import ArrivalReferee, Referee, RefereeFactory, TrustingReferee

log = logging.getLogger(__name__)

Status = Literal["waiting", "playing", "over", "closed"]


@dataclass
class RoomTiming:
    """How long the room waits for things, in milliseconds."""

    start_delay_ms: float = 1500.0
    jack_timeout_ms: float = 2500.0
    """A race nobody slaps closes this long after the flip."""
    irish_timeout_ms: float = 3000.0
    """An Irish Snap match closes this long after the flip if not everyone slapped."""
    deadlock_ms: float = 800.0
    grace_ms: float = 15000.0
    call_grace_ms: float = 350.0
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


@dataclass
class RoomSetup:
    """What only tests (and the app factory) may choose: the deck, the seed."""

    deck: tuple[int, ...] | None = None
    seed: int | None = None
    bot_seed: int | None = None


@dataclass
class SeatState:
    name: str | None = None
    token_hash: str | None = None
    bot: str | None = None
    conns: int = 0
    seen: bool = False
    covered: bool = False
    rematch: bool = False
    grace_until: float | None = None

    @property
    def taken(self) -> bool:
        return self.name is not None

    @property
    def human(self) -> bool:
        return self.name is not None and self.bot is None


@dataclass
class _Timer:
    handle: asyncio.TimerHandle
    deadline: float
    key: Any = None


@dataclass
class _Pending:
    flip_id: int
    reaction: float
    at: float


StoreOp = Callable[[], Awaitable[Any]]


class RoomError(SlapjackError):
    """A request the room refuses (full, closed, bad token…); ``code`` names it."""


@dataclass
class _Outbox:
    frames: list[tuple[Conn, str]] = field(default_factory=list)
    card_sent: int | None = None


class Room:
    """One live room. Create it with :meth:`Room.create` or :meth:`Room.restore`,
    then ``start()`` its task."""

    def __init__(
        self,
        code: str,
        settings: CreateRoom,
        *,
        store: Store,
        referee: RefereeFactory = ArrivalReferee,
        timing: RoomTiming | None = None,
        setup: RoomSetup | None = None,
        clock: Callable[[], float] | None = None,
        on_close: Callable[[Room], None] | None = None,
    ) -> None:
        self.code = code
        self.settings = settings
        self.store = store
        self.referee_factory = referee
        self.referee: Referee = referee()
        self.timing = timing or RoomTiming()
        self.setup = setup or RoomSetup()
        self._clock = clock or (lambda: time.monotonic() * 1000.0)
        self._on_close = on_close
        self.rules = self._make_rules(settings)
        self.seats = [SeatState() for _ in range(settings.seats)]
        for key, level in settings.bots.items():
            s = int(key)
            if s < settings.seats:
                self.seats[s] = SeatState(name=self._bot_name(s, level), bot=level)
        self.status: Status = "waiting"
        self.table: Table | None = None
        self.game_no = 0
        self.conns: set[Conn] = set()
        self._queue: asyncio.Queue[tuple[Callable[[], Any], asyncio.Future[Any] | None, float]] = (
            asyncio.Queue()
        )
        self._task: asyncio.Task[None] | None = None
        self._timers: dict[str, _Timer] = {}
        self._bots: dict[int, Bot] = {}
        self._bot_handles: list[asyncio.TimerHandle] = []
        self._ops: list[StoreOp] = []
        self.write_ahead = True
        """Store an input's actions before its frames go out (else right after)."""
        self._behind: deque[StoreOp] = deque()
        self._writer: asyncio.Task[None] | None = None
        self._out = _Outbox()
        self._persisted = 0
        self._stored = False
        self._t_base = 0
        self._mono_base = self._clock()
        self._race_opened = 0.0
        self._first_slap: float | None = None
        self._race_round = 0
        self._round_slaps = 0
        self._settles = 0
        self._calls: dict[int, int] = {}
        self._pending: dict[int, _Pending] = {}
        self._finished = False
        self.last_game_id: int | None = None
        self._bot_seed = (
            self.setup.bot_seed if self.setup.bot_seed is not None else secrets.randbits(32)
        )

    # ---------------------------------------------------------------- building

    @staticmethod
    def _make_rules(settings: CreateRoom) -> Rules:
        options = dict(settings.rules)
        if settings.time_limit and settings.game == "slapjack":
            options.setdefault("time_limit", settings.time_limit)
        return Rules.from_options(options, game=settings.game)

    @staticmethod
    def _bot_name(seat: int, level: str) -> str:
        return f"{level.capitalize()} bot {seat + 1}"

    @classmethod
    def restore(
        cls,
        state: RoomState,
        *,
        store: Store,
        referee: RefereeFactory = ArrivalReferee,
        clock: Callable[[], float] | None = None,
        on_close: Callable[[Room], None] | None = None,
    ) -> Room:
        """Rebuild a live room from the store after a restart."""
        stored = state.settings
        settings = CreateRoom.model_validate(stored["create"])
        timing = RoomTiming(**stored.get("timing", {}))
        deck = stored.get("deck")
        setup = RoomSetup(
            deck=tuple(parse_deck(deck)) if deck is not None else None,
            seed=stored.get("seed"),
            bot_seed=stored.get("bot_seed"),
        )
        if stored.get("referee") == "trusting":
            referee = TrustingReferee
        room = cls(
            state.code,
            settings,
            store=store,
            referee=referee,
            timing=timing,
            setup=setup,
            clock=clock,
            on_close=on_close,
        )
        room.seats = [SeatState() for _ in range(settings.seats)]
        for seat in state.seats:
            room.seats[seat.seat] = SeatState(
                name=seat.name,
                token_hash=seat.token_hash,
                bot=seat.bot_level or ("casual" if seat.is_bot else None),
                seen=True,
            )
        room.game_no = int(stored.get("game_no", 1))
        room.last_game_id = stored.get("game_id")
        for s in stored.get("rematch", ()):
            if 0 <= s < len(room.seats):
                room.seats[s].rematch = True
        record = state.record()
        room.table = Table(record)
        room._persisted = len(record.actions)
        room._stored = True
        room._t_base = room.table.game.t
        room._mono_base = room._clock()
        game = room.table.game
        if game.over:
            room.status = "over"
            # stored as finished unless the server died between the last action
            # and the finish: then finish it now (finish_game is idempotent)
            room._finished = bool(stored.get("finished"))
            if not room._finished:
                room._finished = True
                room._ops.append(room._finish_op())
        else:
            room.status = "playing"
        for s, taken in enumerate(room.seats):
            if taken.human:
                room._start_grace(s)
        if room.status == "playing":
            room._start_time_limit()
            if game.race_open:
                # the race players last saw: open again, with its slaps so far;
                # the card counts as sent anew, and bots yet to slap react to it
                room._open_race()
                room._out.card_sent = game.flips
                room._schedule()
                room._bots_react(room._yet_to_slap())
            else:
                room._schedule()
        room._arm_idle()
        return room

    # ------------------------------------------------------------------ the task

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run(), name=f"room {self.code}")
        if self._ops:
            self.submit(lambda: None)  # write what restore prepared

    async def stop(self) -> None:
        for timer in self._timers.values():
            timer.handle.cancel()
        self._timers.clear()
        for h in self._bot_handles:
            h.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._writer is not None and not self._writer.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._writer, 10)
        for conn in list(self.conns):
            conn.close(1001, "server shutting down")

    async def run(self) -> None:
        metrics = METRICS
        while True:
            fn, fut, queued = await self._queue.get()
            metrics.inputs += 1
            metrics.queue_lag_ms.append((time.perf_counter() - queued) * 1000.0)
            try:
                result = fn()
            except Exception as exc:
                if fut is not None and not fut.done():
                    fut.set_exception(exc)
                if not isinstance(exc, SlapjackError):
                    log.exception("room %s: input failed", self.code)
            else:
                if fut is not None and not fut.done():
                    fut.set_result(result)
            if self._ops:
                if self.write_ahead:
                    started = time.perf_counter()
                    await self._write_ops()
                    metrics.write_ms.append((time.perf_counter() - started) * 1000.0)
                else:
                    self._behind.extend(self._ops)
                    self._ops = []
                    if self._writer is None or self._writer.done():
                        self._writer = asyncio.create_task(self._write_behind())
            self._flush()
            if self.status == "closed":
                self._finish_close()
                return

    def submit(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` to run in the room task."""
        self._queue.put_nowait((fn, None, time.perf_counter()))

    async def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` in the room task and return its result (or raise its error)."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((fn, fut, time.perf_counter()))
        return await fut

    async def _write_behind(self) -> None:
        """Write-behind mode: store the ops in order, after their frames went out."""
        while self._behind:
            op = self._behind.popleft()
            started = time.perf_counter()
            try:
                await op()
            except Exception:
                log.exception("room %s: store write failed", self.code)
            METRICS.write_ms.append((time.perf_counter() - started) * 1000.0)

    async def _write_ops(self) -> None:
        ops, self._ops = self._ops, []
        for op in ops:
            try:
                await op()
            except Exception:
                log.exception("room %s: store write failed", self.code)

    def _flush(self) -> None:
        out, self._out = self._out, _Outbox()
        if out.card_sent is not None:
            now = self._clock()
            for s in range(len(self.seats)):
                self.referee.on_card_sent(s, out.card_sent, now)
        METRICS.frames += len(out.frames)
        for conn, text in out.frames:
            conn.send(text)

    # ---------------------------------------------------------------- clock

    def now(self) -> float:
        return self._clock()

    def _t(self, at: float | None = None) -> int:
        """Game time in whole ms (never backwards) for an input that arrived ``at``."""
        at = self._clock() if at is None else at
        t = self._t_base + int(max(0.0, at - self._mono_base))
        game_t = self.table.game.t if self.table is not None else 0
        return max(t, game_t)

    # ---------------------------------------------------------------- timers

    def _set_timer(
        self, name: str, deadline: float, fn: Callable[[], Any], key: Any = None
    ) -> None:
        old = self._timers.pop(name, None)
        if old is not None:
            old.handle.cancel()
        delay = max(0.0, (deadline - self._clock()) / 1000.0)
        loop = asyncio.get_running_loop()

        def fire() -> None:
            def run() -> None:
                timer = self._timers.get(name)
                if timer is None or timer.handle is not handle:
                    return  # cancelled or replaced meanwhile
                del self._timers[name]
                fn()

            self.submit(run)

        handle = loop.call_later(delay, fire)
        self._timers[name] = _Timer(handle, deadline, key)

    def _cancel(self, name: str) -> None:
        timer = self._timers.pop(name, None)
        if timer is not None:
            timer.handle.cancel()

    def _later(self, delay_ms: float, fn: Callable[[], Any]) -> None:
        loop = asyncio.get_running_loop()
        self._bot_handles.append(loop.call_later(max(0.0, delay_ms) / 1000.0, self.submit, fn))

    def _arm_idle(self) -> None:
        if self.conns:
            self._cancel("idle")
        else:
            self._set_timer("idle", self._clock() + self.timing.idle_close_ms, self._idle)

    def _idle(self) -> None:
        if not self.conns:
            log.info("room %s: idle, closing", self.code)
            self.close()

    # ---------------------------------------------------------------- seats

    def _seat_of_token(self, token: str) -> int | None:
        for s, seat in enumerate(self.seats):
            if seat.token_hash is not None and token_matches(token, seat.token_hash):
                return s
        return None

    def free_seats(self) -> int:
        return sum(1 for seat in self.seats if not seat.taken) if self.status == "waiting" else 0

    def join(self, name: str) -> tuple[int, str, str]:
        """Take the first free seat (room task only). Returns seat, token, name."""
        if self.status != "waiting":
            raise RoomError("the game has started: no seat is free", code="room_full")
        free = [s for s, seat in enumerate(self.seats) if not seat.taken]
        if not free:
            raise RoomError("every seat is taken", code="room_full")
        from slapjack.protocol import MAX_PLAYER_NAME

        name = " ".join(name.split()) or "Player"
        name = self._unique_name(name[:MAX_PLAYER_NAME])
        token = secrets.token_urlsafe(24)
        s = free[0]
        self.seats[s] = SeatState(name=name, token_hash=hash_token(token))
        self._broadcast([])
        self._maybe_start()
        return s, token, name

    def _unique_name(self, name: str) -> str:
        from slapjack.protocol import MAX_PLAYER_NAME

        taken = {seat.name for seat in self.seats if seat.name}
        if name not in taken:
            return name
        k = 2
        while True:
            suffix = f" {k}"
            candidate = name[: MAX_PLAYER_NAME - len(suffix)].rstrip() + suffix
            if candidate not in taken:
                return candidate
            k += 1

    def _controller(self, s: int) -> Bot | None:
        """The bot that plays seat ``s`` now (a bot seat, or a covered human)."""
        seat = self.seats[s]
        if seat.bot is None and not seat.covered:
            return None
        bot = self._bots.get(s)
        if bot is None:
            level = seat.bot or self.timing.cover_level
            bot = make_bot(level, self._bot_seed * 64 + s * 7 + self.game_no)
            self._bots[s] = bot
        return bot

    def _start_grace(self, s: int) -> None:
        seat = self.seats[s]
        deadline = self._clock() + self.timing.grace_ms
        seat.grace_until = deadline

        def cover() -> None:
            seat.grace_until = None
            if seat.human and seat.conns == 0:
                seat.covered = True
                self._bots.pop(s, None)
                self._update([])

        self._set_timer(f"grace:{s}", deadline, cover)

    # ---------------------------------------------------------------- connections

    def connect(self, conn: Conn, hello: Hello) -> None:
        """A socket said hello (room task)."""
        if self.status == "closed":
            conn.error("room_closed", "this room is closed", hello.id)
            conn.close(4004, "room closed")
            return
        seat_no: int | None = None
        if hello.token is not None:
            seat_no = self._seat_of_token(hello.token)
            if seat_no is None:
                conn.error("bad_token", "this token belongs to no seat of this room", hello.id)
                conn.close(4001, "bad token")
                return
        conn.seat = seat_no
        conn.greeted = True
        self.conns.add(conn)
        self._arm_idle()
        name = None
        if seat_no is not None:
            seat = self.seats[seat_no]
            seat.conns += 1
            seat.seen = True
            seat.grace_until = None
            self._cancel(f"grace:{seat_no}")
            if seat.covered:
                seat.covered = False
                self._bots.pop(seat_no, None)
            name = seat.name
        self._out.frames.append((conn, welcome_frame(self.info(), seat_no, name, hello.id)))
        self._update([])
        self._maybe_start()

    def disconnect(self, conn: Conn) -> None:
        if conn not in self.conns:
            return
        self.conns.discard(conn)
        s = conn.seat
        if s is not None:
            seat = self.seats[s]
            seat.conns -= 1
            if seat.conns == 0 and seat.human:
                self.referee.on_disconnect(s)
                if self.status in ("playing", "over"):
                    self._start_grace(s)
        self._arm_idle()
        if self.status != "closed":
            self._update([])

    def on_pong(self, conn: Conn, msg: Pong, at: float) -> None:
        if conn.seat is not None:
            self.referee.on_pong(conn.seat, msg.id, msg.client_time, at)

    def on_transport_rtt(
        self, conn: Conn, rtt: tuple[float, float, float | None], at: float
    ) -> None:
        """The kernel's RTT estimate for ``conn`` (``TCP_INFO``) for the referee."""
        if conn.seat is not None:
            self.referee.on_transport_rtt(conn.seat, rtt[0], rtt[1], rtt[2], at)

    def on_ping_sent(self, conn: Conn, ping_id: int, at: float) -> None:
        if conn.seat is not None:
            self.referee.on_ping_sent(conn.seat, ping_id, at)

    def handle(self, conn: Conn, msg: Any, at: float) -> None:
        """A validated client frame (room task). Bad requests get an error frame."""
        try:
            if isinstance(msg, Hello):
                if conn.greeted:
                    raise RoomError("hello was already said on this socket", code="bad_message")
                self.connect(conn, msg)
                return
            if not conn.greeted:
                raise RoomError("say hello first", code="bad_message")
            if isinstance(msg, FlipMsg):
                self._client_flip(self._auth(conn, msg.token), msg, at)
            elif isinstance(msg, SlapMsg):
                self._client_slap(self._auth(conn, msg.token), msg, at)
            elif isinstance(msg, CallMsg):
                self._client_call(self._auth(conn, msg.token), msg, at)
            elif isinstance(msg, RematchMsg):
                self._rematch(self._auth(conn, msg.token))
            elif isinstance(msg, LeaveMsg):
                self._leave(self._auth(conn, msg.token), msg.id)
            elif isinstance(msg, StartMsg):
                self._start_now(self._auth(conn, msg.token))
            else:
                raise RoomError(f"unexpected message {type(msg).__name__}", code="bad_message")
        except SlapjackError as exc:
            log.info("room %s: %r: refused %s: %s", self.code, conn, exc.code, exc.message)
            self._out.frames.append((conn, error_frame(exc.code, exc.message, msg.id)))

    def _auth(self, conn: Conn, token: str) -> int:
        if self.status == "closed":
            raise RoomError("this room is closed", code="room_closed")
        if conn.seat is None:
            raise RoomError("spectators cannot act", code="spectator")
        seat = self.seats[conn.seat]
        if not token_matches(token, seat.token_hash):
            raise RoomError("wrong token for this seat", code="bad_token")
        return conn.seat

    # ---------------------------------------------------------------- start, rematch

    def _maybe_start(self) -> None:
        if self.status != "waiting" or "start" in self._timers:
            return
        if all(seat.taken for seat in self.seats) and all(
            seat.seen for seat in self.seats if seat.human
        ):
            self._set_timer("start", self._clock() + self.timing.start_delay_ms, self._start_game)
            self._update([])

    def _start_now(self, s: int) -> None:
        if self.status != "waiting":
            raise RoomError("the game has already started", code="bad_message")
        for i, seat in enumerate(self.seats):
            if not seat.taken:
                self.seats[i] = SeatState(
                    name=self._unique_name(self._bot_name(i, self.timing.cover_level)),
                    bot=self.timing.cover_level,
                )
        self._cancel("start")
        self._start_game()

    def _start_game(self) -> None:
        names = [seat.name or f"Seat {i + 1}" for i, seat in enumerate(self.seats)]
        self.game_no += 1
        meta = {"room": self.code, "game_no": self.game_no}
        if self.setup.deck is not None:
            record = Record.new(self.rules, names, deck=self.setup.deck, meta=meta)
        else:
            seed = self.setup.seed if self.setup.seed is not None else secrets.randbits(63)
            if self.setup.seed is not None:
                seed += self.game_no - 1
            record = Record.new(self.rules, names, seed=seed, meta=meta)
        self.table = Table(record)
        self._bots.clear()
        self._persisted = 0
        self._finished = False
        self._t_base = 0
        self._mono_base = self._clock()
        self._calls.clear()
        self._pending.clear()
        self._race_round = 0
        for seat in self.seats:
            seat.rematch = False
        self.status = "playing"
        header = record.to_dict()
        header.pop("actions", None)
        settings = self._stored_settings()
        seats = list(enumerate(self.seats))
        if not self._stored:
            self._stored = True

            async def create() -> None:
                await self.store.create_room(self.code, settings, header)
                for s, seat in seats:
                    await self.store.set_seat(
                        self.code,
                        s,
                        seat.name or "",
                        seat.token_hash,
                        seat.bot is not None,
                        seat.bot,
                    )

            self._ops.append(create)
        else:

            async def reset() -> None:
                await self.store.reset_room(self.code, header)
                await self._settings_op(settings)()

            self._ops.append(reset)
        for s, seat in enumerate(self.seats):
            if seat.human and seat.conns == 0 and not seat.covered:
                self._start_grace(s)  # joined but absent: a bot covers after the grace
        self._start_time_limit()
        self._update([])

    def _stored_settings(self, *, finished: bool = False) -> dict[str, Any]:
        """What a restart needs besides the record: the room's settings, which
        game this is, its finished game's id and the rematch requests."""
        out: dict[str, Any] = {
            "create": self.settings.model_dump(),
            "timing": asdict(self.timing),
            "game_no": self.game_no,
            "bot_seed": self._bot_seed,
            "rematch": [s for s, seat in enumerate(self.seats) if seat.rematch],
        }
        # a room made through the test hooks keeps what it was made with: its
        # deck or seed for every game, and the test referee that takes claimed
        # reactions as sent (a room of `slapjack serve` has none of these)
        if self.setup.deck is not None:
            out["deck"] = [card_name(c) for c in self.setup.deck]
        if self.setup.seed is not None:
            out["seed"] = self.setup.seed
        if self.referee_factory is TrustingReferee:
            out["referee"] = "trusting"
        if self.last_game_id is not None:
            # the room names its last finished game, also while the rematch plays
            out["game_id"] = self.last_game_id
        if finished:
            out["finished"] = True
        return out

    def _start_time_limit(self) -> None:
        if not self.rules.time_limit or self.table is None:
            return
        remaining = self.rules.time_limit * 1000 - self.table.game.t
        self._set_timer("time_limit", self._clock() + max(0, remaining), self._time_up)

    def _rematch(self, s: int) -> None:
        if self.status != "over":
            raise RoomError("a rematch is only possible after the game", code="bad_message")
        self.seats[s].rematch = True
        if all(
            seat.rematch or not seat.human or seat.conns == 0 or seat.covered for seat in self.seats
        ):
            self._start_game()
        else:
            self._ops.append(self._settings_op(self._stored_settings(finished=True)))
            self._update([])

    def _leave(self, s: int, answer: int | str | None = None) -> None:
        """Give up seat ``s``: its sockets become spectators' and each gets a
        fresh ``welcome`` (``answer``: the ``id`` of the ``leave`` frame)."""
        seat = self.seats[s]
        leaving = [conn for conn in self.conns if conn.seat == s]
        for conn in leaving:
            conn.seat = None
        seat.conns = 0
        self._cancel(f"grace:{s}")
        if self.status == "waiting":
            self.seats[s] = SeatState()
        else:
            seat.token_hash = None
            seat.bot = self.timing.cover_level
            seat.covered = False
            self._bots.pop(s, None)
            name = seat.name or ""
            level = seat.bot
            self._ops.append(lambda: self.store.set_seat(self.code, s, name, None, True, level))
        info = self.info()
        for conn in leaving:
            self._out.frames.append((conn, welcome_frame(info, None, None, answer)))
        self._update([])

    # ---------------------------------------------------------------- actions

    def _game(self) -> Any:
        if self.table is None or self.status == "waiting":
            raise RoomError("the game has not started yet", code="not_started")
        return self.table.game

    def _apply(self, action: Flip | Slap | TimeUp | Settle) -> list[Event]:
        assert self.table is not None
        before = len(self.table.record.actions)
        events = self.table.apply(action)
        record = self.table.record
        for i in range(before, len(record.actions)):
            self._append_op(i)
        return events

    def _append_op(self, index: int) -> None:
        assert self.table is not None
        from slapjack.core.record import action_to_dict

        record = self.table.record
        data = action_to_dict(record.actions[index], record.players)
        self._ops.append(lambda: self.store.append_action(self.code, index, data))

    def _client_flip(self, s: int, msg: FlipMsg, at: float) -> None:
        game = self._game()
        if self.settings.tempo == "fixed":
            raise RoomError("this room flips on a fixed tempo", code="not_your_turn")
        if game.over:
            raise RoomError("the game is over", code="game_over")
        if msg.flip_id != game.flips:
            raise RoomError(f"flip_id {msg.flip_id} is stale (now {game.flips})", code="stale_flip")
        self._flip(s, at)

    def _flip(self, s: int, at: float | None = None) -> None:
        events = self._apply(Flip(s, self._t(at)))
        game = self._game()
        for h in self._bot_handles:
            h.cancel()
        self._bot_handles.clear()
        self._calls.clear()
        self._pending.clear()
        self._out.card_sent = game.flips
        if game.race_open:
            self._open_race()
        self._update(events)
        self._bots_react(range(len(self.seats)))

    def _bots_react(self, seats: Sequence[int]) -> None:
        assert self.table is not None
        game = self.table.game
        flip_id = game.flips
        for s in seats:
            if game.is_out[s]:
                continue
            bot = self._controller(s)
            if bot is None:
                continue
            intent = bot.react(observe(game, s))
            if intent is None:
                continue
            reaction = float(intent.reaction_ms)
            call = bool(intent.call)

            def slap(s: int = s, reaction: float = reaction, call: bool = call) -> None:
                if self.status != "playing" or self._controller(s) is None:
                    return
                self._slap(s, flip_id, reaction, 0.0, reaction, call, self._clock(), bot=True)

            self._later(reaction, slap)

    def _client_slap(self, s: int, msg: SlapMsg, at: float) -> None:
        self._slap(s, msg.flip_id, msg.reaction_ms, msg.shown_at, msg.input_at, msg.call, at)

    def _slap(
        self,
        s: int,
        flip_id: int,
        claimed: float,
        shown_at: float | None,
        input_at: float | None,
        call: bool,
        at: float,
        *,
        bot: bool = False,
    ) -> None:
        game = self._game()
        if game.over:
            if bot:
                return
            raise RoomError("the game is over", code="game_over")
        if flip_id != game.flips:
            if bot:
                return
            raise RoomError(f"flip_id {flip_id} is stale (now {game.flips})", code="stale_flip")
        reaction = self.referee.bound_reaction(s, flip_id, claimed, shown_at, input_at, at)
        reaction = min(max(0.0, float(reaction)), MAX_REACTION_MS)
        call = call or self._calls.get(s) == flip_id
        if game.race_open and self.rules.say_it and not call:
            if s not in self._pending and (game.reslap_among is None or s in game.reslap_among):
                self._pending[s] = _Pending(flip_id, reaction, at)
                self._set_timer(
                    f"call:{s}", at + self.timing.call_grace_ms, lambda: self._flush_pending(s)
                )
            return
        self._apply_slap(s, reaction, call, at)

    def _apply_slap(self, s: int, reaction: float, call: bool, at: float) -> None:
        game = self._game()
        was_open = game.race_open
        events = self._apply(Slap(s, reaction, call, self._t(at)))
        if not events:
            return
        if was_open:
            self._round_slaps += 1
            if self._first_slap is None:
                self._first_slap = at
            if self._all_slapped():
                self._update(events + self._settle_race())
                return
        self._update(events)

    def _all_slapped(self) -> bool:
        return not self._yet_to_slap()

    def _client_call(self, s: int, msg: CallMsg, at: float) -> None:
        game = self._game()
        if msg.flip_id != game.flips:
            raise RoomError(f"flip_id {msg.flip_id} is stale (now {game.flips})", code="stale_flip")
        self._calls[s] = msg.flip_id
        pending = self._pending.pop(s, None)
        if pending is not None and pending.flip_id == game.flips:
            self._cancel(f"call:{s}")
            self._apply_slap(s, pending.reaction, True, at)

    def _flush_pending(self, s: int | None = None) -> None:
        """Apply say-it slaps that waited for their call (without it)."""
        if self.table is None:
            return
        seats = [s] if s is not None else sorted(self._pending)
        for seat in seats:
            pending = self._pending.pop(seat, None)
            self._cancel(f"call:{seat}")
            if pending is None or pending.flip_id != self.table.game.flips:
                continue
            if self.table.game.over or not self.table.game.race_open:
                continue
            self._apply_slap(
                seat, pending.reaction, self._calls.get(seat) == pending.flip_id, pending.at
            )

    # ---------------------------------------------------------------- races

    def _open_race(self) -> None:
        """Start the race's clocks for the game's current round (after a flip,
        or on a restart in the middle of a race or a reslap round)."""
        assert self.table is not None
        game = self.table.game
        self._race_opened = self._clock()
        self._race_round = game.race_round + 1
        self._round_slaps = sum(1 for v in game.race_slaps.values() if len(v) > game.race_round)
        self._first_slap = self._race_opened if self._round_slaps else None

    def _yet_to_slap(self) -> list[int]:
        """Seats that may still slap in the open race's current round."""
        assert self.table is not None
        game = self.table.game
        eligible = game.reslap_among if game.reslap_among is not None else game.in_seats()
        return [s for s in eligible if len(game.race_slaps.get(s, ())) <= game.race_round]

    def _race_deadline(self) -> float:
        assert self.table is not None
        game = self.table.game
        timeout = (
            self.timing.irish_timeout_ms if game.rules.is_irish else self.timing.jack_timeout_ms
        )
        deadline = self._race_opened + timeout
        if self._first_slap is not None and not game.rules.is_irish:
            eligible = game.reslap_among if game.reslap_among is not None else game.in_seats()
            deadline = min(deadline, self._first_slap + self.referee.window_ms(eligible))
        return deadline

    def _settle_race(self) -> list[Event]:
        assert self.table is not None
        game = self.table.game
        if not game.race_open:
            return []
        settles = self._settles
        self._flush_pending()
        if self._settles != settles or not game.race_open or game.over:
            # a slap whose call wait ended here completed the race and settled
            # it (also when that opened a reslap round: it is played, not settled)
            return []
        self._cancel("race")
        final = self._race_round >= 3 or (self._race_round > 1 and self._round_slaps == 0)
        events = self._apply(Settle(final, self._t()))
        self._settles += 1
        if game.race_open and any(isinstance(e, RaceTied) for e in events):
            self._race_round += 1
            self._race_opened = self._clock()
            self._first_slap = None
            self._round_slaps = 0
            self._calls.clear()
            self._out.card_sent = game.flips  # the reslap cue: reactions count from it
            reslap = game.reslap_among or ()
            self._later(0, lambda: self._bots_react(reslap))
        return events

    def _race_timeout(self) -> None:
        events = self._settle_race()
        self._update(events)

    def _deadlock(self) -> None:
        assert self.table is not None
        game = self.table.game
        if game.over or game.race_open or game.turn is not None:
            return
        events = self._apply(Settle(True, self._t()))
        self._settles += 1
        self._update(events)

    def _time_up(self) -> None:
        if self.table is None or self.status != "playing" or self.table.game.over:
            return
        self._flush_pending()
        if self.table.game.over:
            return
        events = self._apply(TimeUp(self._t()))
        self._update(events)

    def _turn_due(self, key: tuple[Any, ...]) -> None:
        assert self.table is not None
        game = self.table.game
        if game.over or game.needs_settle or self._turn_key() != key or game.turn is None:
            return
        self._flip(game.turn)

    def _turn_key(self) -> tuple[Any, ...]:
        assert self.table is not None
        game = self.table.game
        turn = game.turn
        controlled = turn is not None and self._controller(turn) is not None
        return (turn, game.flips, self._settles, controlled)

    # ---------------------------------------------------------------- after a change

    def _schedule(self) -> None:
        """Set the game timers for the state the game is in now."""
        if self.table is None or self.status != "playing":
            return
        game = self.table.game
        if game.over:
            for name in ("turn", "race", "deadlock", "time_limit"):
                self._cancel(name)
            return
        if game.race_open:
            self._cancel("turn")
            self._cancel("deadlock")
            deadline = self._race_deadline()
            timer = self._timers.get("race")
            if timer is None or timer.deadline != deadline:
                self._set_timer("race", deadline, self._race_timeout)
            return
        self._cancel("race")
        if game.turn is None:
            self._cancel("turn")
            if "deadlock" not in self._timers:
                self._set_timer("deadlock", self._clock() + self.timing.deadlock_ms, self._deadlock)
            return
        self._cancel("deadlock")
        key = self._turn_key()
        timer = self._timers.get("turn")
        if timer is not None and timer.key == key:
            return
        delay = self.settings.turn_seconds * 1000.0
        if self.timing.turn_ms is not None:
            delay = self.timing.turn_ms
        bot = self._controller(game.turn)
        if bot is not None and self.settings.tempo == "turn_timer":
            bot_delay = float(bot.flip_delay_ms(observe(game, game.turn))) * self.timing.bot_pace
            delay = min(delay, max(0.0, bot_delay))
        self._set_timer("turn", self._clock() + delay, lambda: self._turn_due(key), key)

    def _finish_op(self) -> StoreOp:
        assert self.table is not None
        record = self.table.record.to_dict()
        # the settings of the game that finished, as they are now (write-behind:
        # a rematch may have started before this is written)
        settings = self._stored_settings(finished=True)

        async def finish() -> None:
            self.last_game_id = await self.store.finish_game(self.code, record)
            await self._settings_op(settings)()
            self.submit(lambda: self._broadcast([]))  # tell the clients the game's id

        return finish

    def _settings_op(self, settings: dict[str, Any]) -> StoreOp:
        """Store ``settings`` with the finished game's id as it is when written
        (write-behind: the finish may be written after the op was made)."""

        async def write() -> None:
            out = dict(settings)
            if self.last_game_id is not None:
                out["game_id"] = self.last_game_id
            await self.store.update_settings(self.code, out)

        return write

    def _update(self, events: list[Event]) -> None:
        """After a change: finish a game that ended, set timers, send an update."""
        notice_bots(
            self._bots.values(),
            events,
            [s for s, x in enumerate(self.seats) if x.human and not x.covered],
        )
        if self.table is not None and self.table.game.over and not self._finished:
            self._finished = True
            self.status = "over"
            for name in ("turn", "race", "deadlock", "time_limit"):
                self._cancel(name)
            self._ops.append(self._finish_op())
        self._schedule()
        self._broadcast(events)

    # ---------------------------------------------------------------- frames

    def status_dict(self) -> dict[str, Any]:
        now = self._clock()
        timers: dict[str, Any] = {}
        for name in ("start", "turn", "race", "deadlock", "time_limit"):
            timer = self._timers.get(name)
            timers[name] = round(timer.deadline, 1) if timer is not None else None
        bots = {}
        for s, seat in enumerate(self.seats):
            if seat.bot is not None:
                bots[str(s)] = seat.bot
            elif seat.covered:
                bots[str(s)] = self.timing.cover_level
        return {
            "code": self.code,
            "status": self.status,
            "game_no": self.game_no,
            "now": round(now, 1),
            "timers": timers,
            "grace": {
                str(s): round(seat.grace_until, 1)
                for s, seat in enumerate(self.seats)
                if seat.grace_until is not None
            },
            "names": [seat.name for seat in self.seats],
            "connected": [seat.conns > 0 for seat in self.seats],
            "bots": bots,
            "covered": [s for s, seat in enumerate(self.seats) if seat.covered],
            "rematch": [s for s, seat in enumerate(self.seats) if seat.rematch],
            "spectators": sum(1 for c in self.conns if c.seat is None),
            "game_id": self.last_game_id,
        }

    def _broadcast(self, events: list[Event]) -> None:
        if not self.conns:
            return
        events_text = events_json(events)
        room_json = dumps(self.status_dict())
        bodies: dict[int | None, str] = {}
        game = self.table.game if self.table is not None and self.status != "waiting" else None
        for conn in self.conns:
            seat = conn.seat
            body = bodies.get(seat)
            if body is None:
                view = view_json(observe(game, seat), game.flips) if game is not None else "null"
                body = update_body(events_text, view, room_json)
                bodies[seat] = body
            self._out.frames.append((conn, update_frame(conn.next_seq(), body)))

    def info(self) -> RoomInfo:
        return RoomInfo(
            code=self.code,
            name=self.settings.name or f"Room {self.code}",
            game=self.rules.game.value,
            preset=self.rules.preset,
            rules=self.rules.to_options(),
            tempo=self.settings.tempo,
            turn_seconds=self.settings.turn_seconds,
            time_limit=self.rules.time_limit,
            public=self.settings.public,
            status=self.status,
            seats=[
                SeatInfo(
                    seat=s,
                    name=seat.name,
                    bot=seat.bot,
                    connected=seat.conns > 0,
                )
                for s, seat in enumerate(self.seats)
            ],
            free_seats=self.free_seats(),
            spectators=sum(1 for c in self.conns if c.seat is None),
            url=f"/r/{self.code}",
            game_no=self.game_no,
        )

    # ---------------------------------------------------------------- closing

    def close(self) -> None:
        """Close the room (room task): stored game kept if finished, else stored as abandoned."""
        if self.status == "closed":
            return
        table, finished = self.table, self._finished
        self.status = "closed"
        for timer in self._timers.values():
            timer.handle.cancel()
        self._timers.clear()
        stored = self._stored

        async def close_op() -> None:
            if table is not None and not finished and table.record.actions:
                await self.store.finish_game(self.code, table.record.to_dict())
            if stored:
                await self.store.close_room(self.code)

        self._ops.append(close_op)
        for conn in self.conns:
            self._out.frames.append(
                (conn, error_frame("room_closed", "room closed", with_id=False))
            )

    def _finish_close(self) -> None:
        for conn in list(self.conns):
            conn.close(4004, "room closed")
        self.conns.clear()
        if self._on_close is not None:
            self._on_close(self)
