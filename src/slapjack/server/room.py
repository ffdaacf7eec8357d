"""One live room: a single-writer shell around the live table.

The game itself (turn timers, races, reslap rounds, the say-it call wait, the
time limit, bots and the seats they cover) is a
:class:`~slapjack.live.LiveTable`, the same table the terminal game and the
simulator run. The room adds what only a served game has: seats with tokens,
sockets, the store and the referee's network timings. It is an
:class:`~slapjack.server.actor.Actor`: every input runs in its task, its
store writes go out before its frames (write-ahead). Its own timers: ``start``
(seats full, humans connected), ``idle`` (nobody connected) and ``wake`` (the
live table's next deadline); its life before the first game is :mod:`.waiting`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import weakref
from collections.abc import Callable
from typing import Any, Literal

from slapjack.bots import make_bot
from slapjack.core import Rules, Table
from slapjack.live import LiveTable
from slapjack.protocol import CLOSE_MOVED, CreateRoom, RoomInfo, error_frame, welcome_frame
from slapjack.store.base import RoomState, Store

from . import frames, inputs
from .actor import Actor
from .connection import Conn, Welcome
from .errors import RoomError
from .handover import Handover, RefereeInputs
from .referee import ArrivalReferee, Referee, RefereeFactory, TrustingReferee
from .roomstore import RoomWrites
from .seats import Seats, SeatState, bot_name
from .settings import RoomSetup, RoomSnapshot, RoomTiming, room_rules
from .waiting import Waiting

log = logging.getLogger(__name__)

Status = Literal["waiting", "playing", "over", "closed"]
INF = float("inf")


class Room(Waiting, Handover, RefereeInputs, Actor):
    """One live room. Create it, or :meth:`restore` it from the store, then
    ``start()`` its task."""

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
        owner: str | None = None,
        epoch: int | None = None,
        on_owned: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__(f"room {code}", clock)
        self.code = code
        self.settings = settings
        self.store = store
        # The writes call back into the room through a weak reference: a
        # closed room is then freed by reference counting, not left in a cycle
        # with its writes for a full collection (server/heap.py).
        room = weakref.ref(self)

        def last_id() -> int | None:
            alive = room()
            return None if alive is None else alive.last_game_id

        def finished(game_id: int) -> None:
            alive = room()
            if alive is not None:
                alive._finished_as(game_id)

        self.writes = RoomWrites(
            store, code, last_id, finished, owner=owner, epoch=epoch, on_owned=on_owned
        )
        self.gave_up = False
        """True once this node gave the room up (fenced off, or handed over)."""
        self.referee_factory = referee
        self.referee: Referee = referee()
        self.timing = timing or RoomTiming()
        self.setup = setup or RoomSetup()
        self._on_close = on_close
        self.rules = room_rules(settings)
        self.seats = Seats(SeatState() for _ in range(settings.seats))
        for key, level in settings.bots.items():
            if int(key) < settings.seats:
                self.seats[int(key)] = SeatState(name=bot_name(int(key), level), bot=level)
        self.status: Status = "waiting"
        self.table: Table | None = None
        self.live: LiveTable | None = None
        self.game_no = 0
        self.last_game_id: int | None = None
        self.conns: set[Conn] = set()
        self.view_head: tuple[Rules, tuple[str, ...], str] | None = None
        """The views' encoded head of the game (:func:`frames.updates` keeps it)."""
        self._bot_seed = (
            self.setup.bot_seed if self.setup.bot_seed is not None else secrets.randbits(32)
        )
        self._persisted = 0
        self._stored = False
        self._finished = False
        self._cue = 0
        self._card_sent: int | None = None
        self._covered: tuple[bool, ...] = ()

    @classmethod
    def restore(
        cls,
        state: RoomState,
        *,
        store: Store,
        referee: RefereeFactory = ArrivalReferee,
        clock: Callable[[], float] | None = None,
        on_close: Callable[[Room], None] | None = None,
        owner: str | None = None,
        epoch: int | None = None,
    ) -> Room:
        """Rebuild a live room from the store after a restart (or, with ``owner``
        and ``epoch``, on the node that took it over) as its players last saw it."""
        snap = RoomSnapshot.from_dict(state.settings)
        room = cls(
            state.code,
            snap.create,
            store=store,
            referee=TrustingReferee if snap.referee == "trusting" else referee,
            timing=snap.timing,
            setup=RoomSetup(deck=snap.deck, seed=snap.seed, bot_seed=snap.bot_seed),
            clock=clock,
            on_close=on_close,
            owner=owner,
            epoch=epoch,
        )
        if snap.waiting:
            return room.restore_waiting(state, snap)
        room.seats = Seats.restored(snap.create.seats, state.seats, snap.rematch)
        room.game_no, room.last_game_id = snap.game_no, snap.game_id
        record = state.record()
        room._persisted, room._stored = len(record.actions), True
        # a finished game not yet in the history (the server died in between)
        # is finished now: finish_game is idempotent
        room._finished = snap.finished
        room.hold(Table(record))  # counted down to its players, then played (Handover)
        room._arm_idle()
        return room

    def done(self) -> bool:
        if self.status != "closed":
            return False
        for conn in list(self.conns):
            if self.gave_up:
                conn.close(CLOSE_MOVED, "moved")
            else:
                conn.close(4004, "room closed")
        self.conns.clear()
        if self._on_close is not None:
            self._on_close(self)
        return True

    def flush(self) -> None:
        if self._card_sent is not None:  # the referee learns when each seat got the card
            now, flip, self._card_sent = self.now(), self._card_sent, None
            for s in range(len(self.seats)):
                self.referee.on_card_sent(s, flip, now)
        super().flush()

    async def stop(self) -> None:
        await super().stop()
        for conn in list(self.conns):
            conn.close(1001, "server shutting down")

    def game(self) -> LiveTable:
        if self.live is None or self.status == "waiting":
            raise RoomError("the game has not started yet", code="not_started")
        return self.live

    def _play(self, table: Table) -> None:
        """Seat ``table``'s game on a live table and start its clocks."""
        self.table = table
        self.live = LiveTable(
            table,
            levels=[seat.bot for seat in self.seats],
            timing=self.timing.live(self.settings),
            referee=self.referee,
            bot_factory=make_bot,
            bot_seed=self._bot_seed or 0,
            game_no=self.game_no,
        )
        self.live.start(self.now())
        self.status = "over" if table.game.over else "playing"
        self._cue = -1  # the first update counts as a card sent, for the referee

    def wake(self) -> None:
        """The live table's deadline came (room task): run what is due."""
        if self.live is not None:
            due = self.live.next_deadline
            self.live.wake(max(self.now(), due if due != INF else 0.0))
            self.after()

    def after(self, *, send: bool = True, force: bool = False) -> None:
        """After an input: store the table's new actions, finish a game that
        ended, set the wake-up, send an update if something changed."""
        live, table = self.live, self.table
        if live is None or table is None:
            if send and force:
                self._broadcast([])
            return
        events = live.take()
        if len(table.record.actions) > self._persisted:
            self._ops += self.writes.actions(table.record, self._persisted)
            self._persisted = len(table.record.actions)
        if live.cue != self._cue:
            self._cue, self._card_sent = live.cue, live.game.flips
        covered = tuple(live.seating.covered)
        changed = force or bool(events) or covered != self._covered
        self._covered = covered
        if live.game.over and self.status == "playing":
            self.status = "over"
        if live.game.over and not self._finished:
            self._finished, self.last_game_id = True, None  # its id comes once it is stored
            self._ops.append(self.writes.finish(table.record, self._snapshot(finished=True)))
        due = live.next_deadline
        if due == INF or self.status != "playing":
            self.cancel("wake")
        elif self.deadline("wake") != due:
            self.set_timer("wake", due, self.wake)
        if send and changed:
            self._broadcast(events)

    def _maybe_start(self) -> None:
        if self.status != "waiting" or self.deadline("start") is not None:
            return
        if all(seat.taken for seat in self.seats) and all(
            seat.seen for seat in self.seats if seat.human
        ):
            self.set_timer("start", self.now() + self.timing.start_delay_ms, self._start_game)
            self._broadcast([])

    def start_now(self, s: int) -> None:
        if self.status != "waiting":
            raise RoomError("the game has already started", code="bad_message")
        self.seats.fill_with_bots(self.timing.cover_level)
        self.cancel("start")
        self._start_game()

    def _start_game(self) -> None:
        names = [seat.name or f"Seat {i + 1}" for i, seat in enumerate(self.seats)]
        self.game_no += 1
        meta = {"room": self.code, "game_no": self.game_no}
        record = self.setup.new_record(self.rules, names, self.game_no, meta)
        for seat in self.seats:
            seat.rematch = False
        self._persisted, self._finished = 0, False
        self._play(Table(record))
        header = record.to_dict()
        header.pop("actions", None)
        snap = self._snapshot()
        if not self._stored:
            self._stored = True
            self._ops.append(self.writes.create(snap, header, self.seats))
        else:
            self._ops.append(self.writes.reset(snap, header, self.seats))
        live, now = self.game(), self.now()
        for s, seat in enumerate(self.seats):
            if seat.human and seat.conns == 0:
                live.disconnected(s, now)  # joined but absent: a bot covers after the grace
        self.after(force=True)

    def _snapshot(self, *, finished: bool = False) -> RoomSnapshot:
        return RoomSnapshot(
            create=self.settings,
            timing=self.timing,
            game_no=self.game_no,
            bot_seed=self._bot_seed,
            rematch=self.seats.rematch_asked(),
            deck=self.setup.deck,
            seed=self.setup.seed,
            referee="trusting" if self.referee_factory is TrustingReferee else None,
            game_id=self.last_game_id,
            finished=finished,
            waiting=self.status == "waiting",
            seen=self.seats.seen_humans(),
        )

    def _finished_as(self, game_id: int) -> None:
        """The store kept the game that ended as ``game_id``: tell the clients."""
        self.last_game_id = game_id
        self.submit(lambda: self._broadcast([]))

    def rematch(self, s: int) -> None:
        if self.status != "over":
            raise RoomError("a rematch is only possible after the game", code="bad_message")
        self.seats[s].rematch = True
        live = self.game()
        if all(
            seat.rematch or not seat.human or seat.conns == 0 or live.seating.covered[i]
            for i, seat in enumerate(self.seats)
        ):
            self._start_game()
        else:
            self._ops.append(self.writes.settings(self._snapshot(finished=True)))
            self._broadcast([])

    # ---------------------------------------------------------------- seats, sockets

    def free_seats(self) -> int:
        return len(self.seats.free()) if self.status == "waiting" else 0

    def join(self, name: str) -> tuple[int, str, str]:
        """Take the first free seat (room task only). Returns seat, token, name."""
        if self.status != "waiting":
            raise RoomError("the game has started: no seat is free", code="room_full")
        joined = self.seats.join(name)
        self.store_seat(joined[0])
        self._broadcast([])
        self._maybe_start()
        return joined

    def connect(self, conn: Conn, seat_no: int | None, answer: int | str | None) -> None:
        """A socket said hello as ``seat_no`` (``None``: a spectator), its token
        checked (:mod:`.inputs`); ``answer``: the hello's ``id``."""
        conn.seat, conn.greeted = seat_no, True
        self.conns.add(conn)
        self._arm_idle()
        name = None
        if seat_no is not None:
            name = self.seats.arrive(seat_no)
            self.store_seen()
            self.hold_for(seat_no)
            if self.live is not None:
                self.live.connected(seat_no, self.now())
        self._frames.append((conn, Welcome(welcome_frame(self.info(), seat_no, name, answer))))
        self.after(force=True)
        self._maybe_start()

    def disconnect(self, conn: Conn) -> None:
        if conn not in self.conns:
            return
        self.conns.discard(conn)
        s = conn.seat
        if s is not None and self.seats.depart(s):
            self.referee.on_disconnect(s)
            if self.live is not None:
                self.live.disconnected(s, self.now())
        self._arm_idle()
        if self.status != "closed":
            self.after(force=True)

    def handle(self, conn: Conn, msg: Any, at: float) -> None:
        """A validated client frame (room task); see :mod:`.inputs`."""
        inputs.handle(self, conn, msg, at)

    def on_ping_written(self, conn: Conn, ping_id: int, at: float) -> None:
        """A clock-sync ping written together with another frame for ``conn``
        (it rode on it: :mod:`.pings`). In the room's own task (its send
        step) the referee is told at once: it only keeps the ping's stamp,
        which no input queued meanwhile reads, and an input queued for it
        would cost more than the write the ping saved. From anywhere else as
        :meth:`on_ping_sent`."""
        task = self._task
        if task is None or asyncio.current_task() is not task:
            self.on_ping_sent(conn, ping_id, at)
        elif conn.seat is not None:
            self._run_one(self.referee.on_ping_sent, (conn.seat, ping_id, at))

    def send(self, conn: Conn, text: str) -> None:
        """Send ``text`` to ``conn`` after this input's store writes."""
        self._frames.append((conn, text))

    def leave(self, s: int, answer: int | str | None = None) -> None:
        """Give up seat ``s``: its sockets become spectators' and each gets a
        fresh ``welcome`` (``answer``: the ``id`` of the ``leave`` frame)."""
        leaving = [conn for conn in self.conns if conn.seat == s]
        for conn in leaving:
            conn.seat = None
        playing = self.status != "waiting"
        self.seats.vacate(s, playing, self.timing.cover_level)
        self.store_seat(s)
        if playing and self.live is not None:  # (held: its table starts with the bot)
            self.live.leave(s, self.now())
        info = self.info()
        for conn in leaving:
            self._frames.append((conn, welcome_frame(info, None, None, answer)))
        self.after(force=True)

    def _arm_idle(self) -> None:
        """A room nobody is connected to closes after ``idle_close_ms``."""
        if self.conns:
            self.cancel("idle")
        elif self.deadline("idle") is None:
            self.set_timer("idle", self.now() + self.timing.idle_close_ms, self.close)

    def status_dict(self) -> dict[str, Any]:
        return frames.room_status(self)

    def _broadcast(self, events: list[Any]) -> None:
        if self.conns:
            self._frames += frames.updates(self, events)

    def info(self) -> RoomInfo:
        return frames.room_info(self)

    def close(self) -> None:
        """Close the room (room task): stored game kept if finished, else stored as abandoned."""
        if self.status == "closed":
            return
        log.info("room %s: closing", self.code)
        record = self.table.record if self.table is not None else None
        self._ops.append(self.writes.close(record, self._finished, self._stored))
        self.status = "closed"
        for name in list(self._timers):
            self.cancel(name)
        for conn in self.conns:
            self._frames.append((conn, error_frame("room_closed", "room closed", with_id=False)))
