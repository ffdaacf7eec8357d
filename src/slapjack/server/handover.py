"""What a room does at the edges of its life on a node, and the referee's
network timings it is told of: kept apart from :mod:`.room` so the room stays
a small shell.

- :class:`Handover`: the store is down (pause, tell the players), the room was
  fenced off by a newer owner, or it is handed over (stop here, send ``moved``),
  a game rebuilt from the store (a restart, a takeover) is counted down to its
  players before it goes on (``timers.resume``);
- :class:`RefereeInputs`: pongs, pings sent and the kernel's round-trip
  estimates reach the referee through the room's queue (single writer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slapjack.core import Table
from slapjack.protocol import ErrorCode, Moved, encode, error_frame
from slapjack.store import StaleOwner, StoreUnavailable

from .connection import Conn
from .errors import RoomError

if TYPE_CHECKING:
    from .room import Room

    _Base = Room
else:
    _Base = object


class Handover(_Base):
    _resume_at: float = 0.0
    """A rebuilt game goes on at this time (room clock); 0: not held."""

    def hold_for_resume(self, table: Table) -> float:
        """A game rebuilt from the store in ``table`` (a restart, a takeover): when its
        clocks start. An unfinished game waits ``timing.resume_ms()`` for its
        players to be back, shown to them as ``timers.resume`` (as a game's
        start is shown as ``timers.start``); players' actions before then are
        refused (``not_started``); then every client gets an update."""
        now = self.now()
        delay = self.timing.resume_ms()
        if delay <= 0 or table.game.over:
            return now
        self._resume_at = now + delay
        self.set_timer("resume", self._resume_at, self._resumed)
        return self._resume_at

    def _resumed(self) -> None:
        self._cue = -1  # the card on the pile counts as shown now, for the referee
        self.after(force=True)

    def play_now(self) -> float:
        """The live table's time for an input now: not before a held game goes on."""
        now = self.now()
        return now if now >= self._resume_at else self._resume_at

    def check_resumed(self) -> None:
        """Refuse a player's action while a rebuilt game is counted down."""
        left = self._resume_at - self.now()
        if left > 0 and self.deadline("resume") is not None:
            raise RoomError(
                f"the game goes on in {left / 1000:.1f} s (it was moved or restarted)",
                code="not_started",
            )

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
    def on_pong(self, conn: Conn, ping_id: int, client_time: float, at: float) -> None:
        """A clock-sync pong (any task): the referee learns it in the room's task
        (pongs that come together are one input, :meth:`Actor.submit_batched`)."""
        if conn.seat is not None:
            self.submit_batched(self.referee.on_pong, conn.seat, ping_id, client_time, at)

    def on_transport_rtt(
        self, conn: Conn, rtt: tuple[float, float, float | None], at: float
    ) -> None:
        """The kernel's RTT estimate for ``conn`` (``TCP_INFO``), for the referee."""
        if conn.seat is not None:
            self.submit_batched(self.referee.on_transport_rtt, conn.seat, *rtt, at)

    def on_ping_sent(self, conn: Conn, ping_id: int, at: float) -> None:
        """A clock-sync ping queued for ``conn`` (the pinger's tick: its pings
        for one room are one input)."""
        if conn.seat is not None:
            self.submit_batched(self.referee.on_ping_sent, conn.seat, ping_id, at)
