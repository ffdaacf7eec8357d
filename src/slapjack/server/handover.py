"""What a room does at the edges of its life on a node, and the referee's
network timings it is told of: kept apart from :mod:`.room` so the room stays
a small shell.

- :class:`Handover`: the store is down (pause, tell the players), the room was
  fenced off by a newer owner, or it is handed over (stop here, send ``moved``),
  a game rebuilt from the store (a restart, a takeover) is counted down to its
  players before it goes on (``timers.resume``);
- :class:`RefereeInputs`: pongs, pings sent and the kernel's round-trip
  estimates reach the referee in the room's order (single writer): at once
  when the room's task is idle, else through its queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slapjack.core import Table
from slapjack.protocol import ErrorCode, Moved, encode, error_frame
from slapjack.store import StaleOwner, StoreUnavailable

from .connection import Conn

if TYPE_CHECKING:
    from .room import Room

    _Base = Room
else:
    _Base = object


class Handover(_Base):
    _held: Table | None = None
    """A game rebuilt from the store that does not run yet (:meth:`hold`)."""

    def hold(self, table: Table) -> None:
        """A game rebuilt from the store (a restart, a takeover): its players
        are counted down to the moment it goes on (``timers.resume``, as a
        game's start is ``timers.start``), ``timing.resume_ms()`` from now and
        from each seat's return, so that nobody meets a card already flipped.
        Until then its table stands still: no clock runs, no bot acts, the
        players' actions are refused (``not_started``)."""
        delay = self.timing.resume_ms()
        if delay <= 0 or table.game.over:
            self._go_on(table, send=False)
            return
        self.table, self.status, self._held = table, "playing", table
        self.set_timer("resume", self.now() + delay, self._resumed)

    def hold_for(self, seat: int) -> None:
        """Seat ``seat``'s player is back while the game is held: it sees the
        whole countdown."""
        due = self.deadline("resume")
        if self._held is not None and due is not None:
            at = self.now() + self.timing.resume_ms()
            if at > due:
                self.set_timer("resume", at, self._resumed)

    def _resumed(self) -> None:
        table, self._held = self._held, None
        if table is not None and self.status == "playing":
            self._go_on(table, send=True)

    def _go_on(self, table: Table, *, send: bool) -> None:
        self._play(table)
        live, now = self.game(), self.now()
        for s, seat in enumerate(self.seats):
            if seat.human and seat.conns == 0:
                live.disconnected(s, now)  # back within the grace, or covered
        self.after(send=send, force=send)

    def store_paused(self, exc: StoreUnavailable) -> None:
        """PostgreSQL is down: tell every client the game is paused (the frames
        of what happened wait until it is stored)."""
        text = error_frame(
            ErrorCode.STORE_UNAVAILABLE,
            "the game is paused: its moves cannot be stored right now; it goes on"
            " by itself once the database answers",
            with_id=False,
        )
        for conn in list(self.conns):
            conn.send(text)

    def fenced_off(self, exc: StaleOwner) -> None:
        """Another node owns the room now: stop here, without writing anything,
        and send every client ``moved`` (it reconnects and is sent on to the
        new owner)."""
        self.give_up("stopped")

    def give_up(self, reason: str, retry_ms: int = 200) -> None:
        """Stop the room on this node (room task): its timers end, its clients
        get ``moved`` and are closed with 4010; nothing more is written."""
        if self.status == "closed":
            return
        self.gave_up = True
        self.status = "closed"
        self._ops = []
        for name in list(self._timers):
            self.cancel(name)
        frame = encode(
            Moved(code=self.code, node=None, url=None, ws=None, retry_ms=retry_ms, reason=reason)  # type: ignore[arg-type]
        )
        self._frames = [(conn, frame) for conn in self.conns]


class RefereeInputs(_Base):
    """The referee's network timings, each an input of the room that makes no
    frames, no store writes and no timers (``on_ping_sent``, ``on_pong`` and
    ``on_transport_rtt`` of both referees only update the seat's clock sync
    and history): so when the room's task is idle, with nothing queued, it
    runs at once in the caller, where the task would have run it next, without
    a wake-up of the task (:meth:`Actor.run_or_batch`); otherwise it waits in
    the queue behind what came first (those that come together are one input)."""

    def on_pong(
        self,
        conn: Conn,
        ping_id: int,
        client_time: float,
        at: float,
        rtt: tuple[float, float, float | None] | None = None,
    ) -> None:
        """A clock-sync pong (any task), for the referee in the room's order,
        with the kernel's RTT estimate read when it came (``rtt``, as
        :meth:`on_transport_rtt`, right after it: one input for both)."""
        if conn.seat is not None:
            self.run_or_batch(self._answered, conn.seat, ping_id, client_time, at, rtt)

    def _answered(
        self,
        seat: int,
        ping_id: int,
        client_time: float,
        at: float,
        rtt: tuple[float, float, float | None] | None,
    ) -> None:
        referee = self.referee
        referee.on_pong(seat, ping_id, client_time, at)
        if rtt is not None:
            referee.on_transport_rtt(seat, *rtt, at)

    def on_transport_rtt(
        self, conn: Conn, rtt: tuple[float, float, float | None], at: float
    ) -> None:
        """The kernel's RTT estimate for ``conn`` (``TCP_INFO``), for the referee."""
        if conn.seat is not None:
            self.run_or_batch(self.referee.on_transport_rtt, conn.seat, *rtt, at)

    def on_ping_sent(self, conn: Conn, ping_id: int, at: float) -> None:
        """A clock-sync ping queued for ``conn`` (the pinger's tick), for the
        referee in the room's order."""
        if conn.seat is not None:
            self.run_or_batch(self.referee.on_ping_sent, conn.seat, ping_id, at)
