"""A room's seats: tokens, and what an action's token is checked against."""

from __future__ import annotations

import pytest

import slapjack.server.seats as seats_module
from slapjack.server.seats import Seats, SeatState


def four() -> Seats:
    return Seats(SeatState() for _ in range(4))


def test_a_seat_owns_its_token_and_no_other() -> None:
    seats = four()
    a, token_a, _ = seats.join("Ann")
    b, token_b, _ = seats.join("Bo")
    for _ in range(3):  # the first check hashes, the next ones compare
        assert seats.owns(a, token_a)
        assert not seats.owns(a, token_b)
        assert not seats.owns(b, token_a)
        assert not seats.owns(a, token_a[:-1])
        assert not seats.owns(a, token_a + "x")
        assert not seats.owns(a, "")
        assert not seats.owns(a, "\ud800" + token_a[1:])
    assert seats.owns(b, token_b)
    assert seats.of_token(token_b) == b


def test_a_token_that_matched_once_is_not_hashed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    seats = four()
    a, token, _ = seats.join("Ann")
    hashed: list[str] = []
    real = seats_module.token_matches

    def counting(candidate: str, token_hash: str | None) -> bool:
        hashed.append(candidate)
        return real(candidate, token_hash)

    monkeypatch.setattr(seats_module, "token_matches", counting)
    assert not seats.owns(a, "wrong")  # a wrong token is never remembered
    assert all(seats.owns(a, token) for _ in range(50))
    assert hashed == ["wrong", token]
    assert not seats.owns(a, "wrong")
    assert hashed == ["wrong", token]  # compared with the remembered token


def test_a_seat_left_or_taken_again_refuses_the_old_token() -> None:
    seats = four()
    a, token, _ = seats.join("Ann")
    assert seats.owns(a, token)
    seats.vacate(a, playing=True, cover_level="casual")  # a bot covers the seat for good
    assert not seats.owns(a, token)
    seats = four()
    a, token, _ = seats.join("Ann")
    assert seats.owns(a, token)
    seats.vacate(a, playing=False, cover_level="casual")  # free again before the game
    again, new_token, _ = seats.join("Cy")
    assert again == a
    assert not seats.owns(a, token)
    assert seats.owns(a, new_token)
    # Restored seats (a restarted room) know only the hash.
    restored = Seats.restored(4, [], [])
    restored[a] = SeatState(name="Cy", token_hash=seats[a].token_hash)
    assert restored.owns(a, new_token) and not restored.owns(a, token)
