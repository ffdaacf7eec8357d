"""A room's seats: who sits where, their secret tokens, their names.

Joining a seat gives a secret token (``secrets.token_urlsafe``); the room and
the store keep only its hash (:func:`slapjack.store.base.hash_token`), and
every action frame must carry the token.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from slapjack.protocol import MAX_PLAYER_NAME
from slapjack.store.base import Seat, hash_token, token_matches

from .errors import RoomError


@dataclass
class SeatState:
    """One seat of a room. A bot seat has a ``bot`` level; a human's seat a
    ``token_hash``. ``seen``: its player has connected at least once."""

    name: str | None = None
    token_hash: str | None = None
    bot: str | None = None
    conns: int = 0
    seen: bool = False
    rematch: bool = False
    verified: tuple[str, bytes] | None = field(default=None, repr=False, compare=False)
    """The hash and the token last found to match it (:meth:`Seats.owns`)."""

    @property
    def taken(self) -> bool:
        return self.name is not None

    @property
    def human(self) -> bool:
        return self.name is not None and self.bot is None


def new_token() -> tuple[str, str]:
    """A fresh seat token and the hash to keep of it."""
    token = secrets.token_urlsafe(24)
    return token, hash_token(token)


def seat_of_token(seats: Sequence[SeatState], token: str) -> int | None:
    """The seat ``token`` belongs to, if any (constant time per seat)."""
    for s, seat in enumerate(seats):
        if seat.token_hash is not None and token_matches(token, seat.token_hash):
            return s
    return None


def bot_name(seat: int, level: str) -> str:
    """A bot's name at the table ("Casual bot 2"); clients show it in their own words."""
    return f"{level.capitalize()} bot {seat + 1}"


def unique_name(seats: Sequence[SeatState], name: str) -> str:
    """``name``, or ``name 2``, ``name 3`` … if a seat has it already (at most
    :data:`MAX_PLAYER_NAME` characters)."""
    taken = {seat.name for seat in seats if seat.name}
    if name not in taken:
        return name
    k = 2
    while True:
        suffix = f" {k}"
        candidate = name[: MAX_PLAYER_NAME - len(suffix)].rstrip() + suffix
        if candidate not in taken:
            return candidate
        k += 1


def seat_name(seats: Sequence[SeatState], name: str) -> str:
    """The name a joining player gets: spaces collapsed, cut to length, unique."""
    name = " ".join(name.split()) or "Player"
    return unique_name(seats, name[:MAX_PLAYER_NAME])


class Seats(list[SeatState]):
    """A room's seats in seat order, with what a room asks of them."""

    @classmethod
    def restored(cls, count: int, stored: Sequence[Seat], rematch: Sequence[int]) -> Seats:
        """A restarted room's seats, from the store (a bot seat stored without
        its level is a casual bot's); ``rematch``: the seats that asked for one."""
        seats = cls(SeatState() for _ in range(count))
        for seat in stored:
            level = seat.bot_level or ("casual" if seat.is_bot else None)
            seats[seat.seat] = SeatState(seat.name, seat.token_hash, level, seen=True)
        for s in rematch:
            if 0 <= s < count:
                seats[s].rematch = True
        return seats

    def free(self) -> list[int]:
        return [s for s, seat in enumerate(self) if not seat.taken]

    def join(self, name: str) -> tuple[int, str, str]:
        """A player takes the first free seat: its number, its token, the name given."""
        free = self.free()
        if not free:
            raise RoomError("every seat is taken", code="room_full")
        name = seat_name(self, name)
        token, token_hash = new_token()
        self[free[0]] = SeatState(name=name, token_hash=token_hash)
        return free[0], token, name

    def fill_with_bots(self, level: str) -> None:
        """Every free seat gets a bot of ``level`` (a player starts before the room is full)."""
        for s in self.free():
            self[s] = SeatState(unique_name(self, bot_name(s, level)), bot=level)

    def of_token(self, token: str) -> int | None:
        return seat_of_token(self, token)

    def owns(self, seat: int, token: str) -> bool:
        """Whether ``token`` is ``seat``'s (constant time). Every action
        carries the token: once a token matched the seat's hash, the next
        ones are compared with it (constant time too) instead of hashed
        again, as long as the seat keeps that hash."""
        state = self[seat]
        hashed = state.token_hash
        if hashed is None:
            return False
        raw = token.encode("utf-8", "surrogatepass")
        verified = state.verified
        if verified is not None and verified[0] == hashed:
            return hmac.compare_digest(verified[1], raw)
        if not token_matches(token, hashed):
            return False
        state.verified = (hashed, raw)
        return True

    def arrive(self, seat: int) -> str | None:
        """A socket of ``seat`` said hello; the seat's name."""
        state = self[seat]
        state.conns += 1
        state.seen = True
        return state.name

    def depart(self, seat: int) -> bool:
        """A socket of ``seat`` closed; whether a human lost its last connection."""
        state = self[seat]
        state.conns -= 1
        return state.conns == 0 and state.human

    def vacate(self, seat: int, playing: bool, cover_level: str) -> SeatState:
        """Its player leaves ``seat``: free again before the game, else a bot's for good."""
        state = self[seat]
        state.conns = 0
        if not playing:
            self[seat] = SeatState()
        else:
            state.token_hash, state.bot = None, cover_level
        return self[seat]

    def seen_humans(self) -> tuple[int, ...]:
        """The human seats whose players have connected at least once."""
        return tuple(s for s, seat in enumerate(self) if seat.human and seat.seen)

    def rematch_asked(self) -> tuple[int, ...]:
        return tuple(s for s, seat in enumerate(self) if seat.rematch)
