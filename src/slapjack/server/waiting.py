"""A room before its first game, in the store: kept apart from :mod:`.room`
so the room stays a small shell.

A room is stored when it is made (its settings with ``waiting``, a
placeholder header, its bot seats), then at every join, leave and first
connection of a seat while it waits, each written before it is answered
(write-ahead). A restarted server, or the node that takes the room over,
rebuilds it with its seats and their tokens (:meth:`Waiting.restore_waiting`)
and re-arms its start timer; its first game's start replaces the header.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slapjack.store.base import RoomState

from .seats import Seats
from .settings import RoomSnapshot

if TYPE_CHECKING:
    from .room import Room

    _Base = Room
else:
    _Base = object


class Waiting(_Base):
    _seen_stored: tuple[int, ...] = ()
    """The seats stored as seen (:meth:`store_seen`)."""

    def store_new(self) -> None:
        """Store the room as it is made (queued before its task starts)."""
        names = [f"Seat {i + 1}" for i in range(len(self.seats))]
        meta = {"room": self.code, "game_no": 0}
        header = self.setup.new_record(self.rules, names, 1, meta).to_dict()
        header.pop("actions", None)
        self._stored = True
        self._ops.append(self.writes.create(self._snapshot(), header, self.seats))

    def store_seat(self, s: int) -> None:
        """Seat ``s`` of a waiting room was taken or left: store it."""
        if not self._stored:
            return
        seat = self.seats[s]
        self._ops.append(self.writes.seat(s, seat) if seat.taken else self.writes.clear_seat(s))
        self.store_seen()  # a player who left is no longer one who connected

    def store_seen(self) -> None:
        """A seat's player connected: stored if it is the seat's first time
        while the room waits (who has connected decides when it starts)."""
        if self._stored and self.status == "waiting":
            snap = self._snapshot()
            if snap.seen != self._seen_stored:
                self._seen_stored = snap.seen
                self._ops.append(self.writes.settings(snap))

    def restore_waiting(self, state: RoomState, snap: RoomSnapshot) -> Room:
        """A stored waiting room back: its seats (tokens, who had connected),
        its idle timer, its start timer if every seat is taken and seen."""
        self.seats = Seats.restored(snap.create.seats, state.seats, ())
        for s, seat in enumerate(self.seats):
            seat.seen = seat.human and s in snap.seen
        self.game_no, self.last_game_id, self._stored = snap.game_no, snap.game_id, True
        self._seen_stored = snap.seen
        self._arm_idle()
        self._maybe_start()
        return self
