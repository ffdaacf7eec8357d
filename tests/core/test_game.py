"""The game state machine: every rule, option value and DECISION of core/game.py."""

from __future__ import annotations

import math
from typing import Any

import pytest

from slapjack.core import (
    FULL_DECK,
    Flip,
    Game,
    IllegalAction,
    Rules,
    Settle,
    Slap,
    SlapjackError,
    Table,
    TimeUp,
    card_name,
    check_players,
    parse_card,
    replay,
)
from slapjack.core.events import (
    Eliminated,
    Finished,
    Flipped,
    Forfeit,
    GameOver,
    NoSlap,
    PickedUp,
    PileReturned,
    PileSplit,
    RaceTied,
    RaceWon,
    Slapped,
    TimeIsUp,
    WrongSlap,
)

from .util import centre, names, set_position, stack, table


def flip_all(t: Table, *seats: int, at: int = 0) -> list[Any]:
    events: list[Any] = []
    for seat in seats:
        events += t.apply(Flip(seat, at))
    return events


def all_but(*cards: str) -> list[str]:
    """Every card except ``cards``, non-Jacks first (so the top of such a pile is no Jack)."""
    skip = {parse_card(c) for c in cards}
    rest = [c for c in FULL_DECK if c not in skip]
    rest.sort(key=lambda c: c >> 2 != 10)  # Jacks first: at the bottom of a centre pile
    return [card_name(c) for c in rest]


# ------------------------------------------------------------------ basics


def test_deal_round_robin_first_card_is_top() -> None:
    t = table(3, [["5C"], ["KD"], ["JS"]])
    g = t.game
    assert [len(s) for s in g.stacks] == [18, 17, 17]
    assert stack(g, 0)[0] == "5C" and stack(g, 1)[0] == "KD" and stack(g, 2)[0] == "JS"
    assert g.turn == 0 and not g.needs_settle and not g.over
    g.check_invariant()


def test_flip_passes_turn_clockwise_and_counts_flips() -> None:
    t = table(3, [["5C", "6C"], ["KD"], ["2H"]])
    ev = flip_all(t, 0, 1, 2)
    assert [e for e in ev if isinstance(e, Flipped)] == [
        Flipped(0, parse_card("5C")),
        Flipped(1, parse_card("KD")),
        Flipped(2, parse_card("2H")),
    ]
    assert t.game.turn == 0 and t.game.flips == 3
    assert centre(t.game) == ["5C", "KD", "2H"]
    assert t.game.top == parse_card("2H")


# ------------------------------------------------------- worked examples


def test_en_worked_example() -> None:
    """RULES.md 6, EN: Ben slaps first, Carla on top: Ben takes 3; Ben's left flips next."""
    t = table(3, [["5C"], ["KD"], ["JS"]], players=["Anna", "Ben", "Carla"], preset="classic")
    flip_all(t, 0, 1, 2)
    assert t.game.race_open and t.game.turn is None
    t.apply(Slap(1, 231, t=4390))
    t.apply(Slap(2, 262, t=4400))
    ev = t.settle()
    assert ev == [RaceWon(1, 3, ((1, 231), (2, 262)))]
    g = t.game
    assert stack(g, 1)[-3:] == ["5C", "KD", "JS"]  # oldest card of the pile drawn first
    assert [len(s) for s in g.stacks] == [17, 19, 16]
    assert g.centre == [] and g.turn == 2  # Carla: the player on Ben's left


def test_de_short_worked_example() -> None:
    """RULES.md 6, DE-short (klatsch-bube): Ben takes four, flips next (5S); Clara pays the pile."""
    t = table(
        3,
        [["8H", "JD", "9H"], ["QS", "5S"], ["3C", "2C", "7D"]],
        players=["Anna", "Ben", "Clara"],
        preset="klatsch-bube",
    )
    flip_all(t, 0, 1, 2, 0)
    for seat, r in ((1, 180), (0, 240), (2, 260)):
        t.apply(Slap(seat, r, t=10))
    assert t.settle() == [RaceWon(1, 4, ((1, 180), (0, 240), (2, 260)))]
    g = t.game
    assert stack(g, 1)[-4:] == ["8H", "QS", "3C", "JD"]
    assert g.turn == 1  # next after Anna, who flipped the Jack
    t.apply(Flip(1, 20))
    assert centre(g) == ["5S"]
    t.apply(Flip(2, 21))  # 2C
    t.apply(Flip(0, 22))  # 9H
    ev = t.apply(Slap(2, 300, t=23))
    assert ev == [WrongSlap(2, "pay_pile")]
    assert centre(g) == ["7D", "5S", "2C", "9H"] and g.centre_hidden == 1
    assert g.top == parse_card("9H") and g.turn == 1


# ---------------------------------------------------------------- after_jack


@pytest.mark.parametrize(("value", "turn"), [("left_of_winner", 0), ("continue", 2)])
def test_after_jack(value: str, turn: int) -> None:
    t = table(4, [["2C"], ["JS"]], after_jack=value)
    flip_all(t, 0, 1)
    t.apply(Slap(3, 200))
    t.apply(Slap(1, 250))
    assert t.settle()[0] == RaceWon(3, 2, ((3, 200), (1, 250)))
    assert t.game.turn == turn


# ---------------------------------------------------------------- wrong_slap


def test_pay_player_moves_top_card_under_the_flippers_stack() -> None:
    t = table(3, [["5C", "9C"], ["6D", "7D"], ["8H", "QH"]], wrong_slap="pay_player")
    t.apply(Flip(0))
    assert t.apply(Slap(2, 300)) == [WrongSlap(2, "pay_player", 0)]
    g = t.game
    assert stack(g, 0)[-1] == "8H" and len(g.stacks[0]) == 18
    assert stack(g, 2)[0] == "QH" and len(g.stacks[2]) == 16
    assert centre(g) == ["5C"] and g.turn == 1  # the pile stays, play goes on
    assert t.apply(Slap(2, 100)) == []  # only the first slap on a card counts
    assert len(g.stacks[2]) == 16


def test_pay_player_own_card_moves_top_to_bottom() -> None:
    t = table(3, [["5C", "9C"]], wrong_slap="pay_player")
    t.apply(Flip(0))
    assert t.apply(Slap(0, 300)) == [WrongSlap(0, "pay_player", 0)]
    assert stack(t.game, 0)[0] != "9C" and stack(t.game, 0)[-1] == "9C"
    assert len(t.game.stacks[0]) == 17


def test_pay_pile_goes_face_down_under_the_centre_and_to_the_jack_winner() -> None:
    t = table(3, [["5C"], ["6D", "JS"], ["8H", "QH"]], wrong_slap="pay_pile")
    t.apply(Flip(0))
    assert t.apply(Slap(2, 300)) == [WrongSlap(2, "pay_pile")]
    g = t.game
    assert centre(g) == ["8H", "5C"] and g.centre_hidden == 1 and g.top == parse_card("5C")
    flip_all(t, 1, 2, 0, 1)  # 6D, QH, (Anna's 2nd), JS
    t.apply(Slap(0, 200))
    won = t.settle()[0]
    assert isinstance(won, RaceWon) and won.winner == 0 and won.cards == 6
    assert stack(g, 0)[-6] == "8H"  # the face-down penalty card is the oldest
    assert g.centre_hidden == 0


def test_wrong_slap_with_no_cards_is_out() -> None:
    g = Game(Rules(), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 2: []}, bank=1, turn=0)
    g.flip(0)
    ev = g.slap(2, 300)
    assert ev == [WrongSlap(2, "none"), Eliminated(2, "wrong_slap")]
    assert g.is_out[2] and g.out_order == [2] and not g.over
    g.check_invariant()


def test_pay_player_owed_to_a_player_who_is_out_goes_under_the_centre() -> None:
    """DECISION: the slapped card's player is out: the penalty card goes under the centre."""
    g = Game(Rules(), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 2: ["9D", "9S"]}, bank=1, turn=0)
    g.flip(0)  # Anna flips her last card
    assert g.slap(0, 250) == [WrongSlap(0, "none"), Eliminated(0, "wrong_slap")]
    assert g.slap(2, 300) == [WrongSlap(2, "pay_pile")]
    assert [card_name(c) for c in g.centre] == ["9D", "5C"] and g.centre_hidden == 1
    assert stack(g, 2) == ["9S"]
    g.check_invariant()


def test_wrong_slap_by_the_player_on_turn_with_last_card_passes_the_turn() -> None:
    g = Game(Rules(), names(3), FULL_DECK)
    set_position(g, {1: ["9D"], 2: ["2C"]}, bank=0, turn=0)
    g.flip(0)
    assert g.turn == 1
    assert g.slap(1, 300) == [WrongSlap(1, "pay_player", 0)]
    assert g.stacks[1] == deque_of() and g.turn == 2  # empty: skipped (next_jack)


def deque_of(*cards: str) -> Any:
    from collections import deque

    return deque(parse_card(c) for c in cards)


# --------------------------------------------------------------- empty_stack


def _emptied(**options: Any) -> Game:
    """Anna holds one 5C and flips it; Ben (bank) and Carla (JS, 4C, JH, …) hold the rest."""
    g = Game(Rules.from_options(options), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 2: ["JS", "4C", "JH", "4D"]}, bank=1, turn=0)
    g.flip(0)
    assert not g.stacks[0] and not g.is_out[0]
    return g


def test_next_jack_empty_player_is_skipped_and_wins_back_in() -> None:
    g = _emptied(empty_stack="next_jack")
    g.flip(1)
    assert g.turn == 2
    g.flip(2)  # JS
    g.slap(0, 180)
    g.slap(1, 220)
    assert g.settle()[0] == RaceWon(0, 3, ((0, 180), (1, 220)))
    assert len(g.stacks[0]) == 3 and not g.is_out[0] and g.turn == 1


def test_next_jack_empty_player_is_out_when_someone_else_wins_it() -> None:
    g = _emptied(empty_stack="next_jack")
    g.flip(1)
    g.flip(2)
    g.slap(0, 280)
    g.slap(1, 220)
    ev = g.settle()
    assert ev[:2] == [RaceWon(1, 3, ((1, 220), (0, 280))), Eliminated(0, "lost_jack")]
    assert g.is_out[0] and g.turn == 2  # left of Ben


def test_players_one_jack_puts_out_together_are_ranked_by_that_race() -> None:
    """Ben, Carla and Dora hold nothing and Anna wins her own Jack: all three
    go out at once. Carla slapped faster than Dora, Ben not at all: Carla is
    second, Dora third, Ben last (not the reverse of seat order)."""
    g = Game(Rules(), names(4), FULL_DECK)
    set_position(g, {0: ["JS"]}, bank=0, turn=0)
    g.flip(0)
    g.slap(3, 300)
    g.slap(2, 200)
    g.slap(0, 150)
    ev = g.settle()
    assert ev[0] == RaceWon(0, 1, ((0, 150), (2, 200), (3, 300)))
    assert g.over and g.winners == (0,)
    assert g.ranking() == [0, 2, 3, 1]
    assert [e.seat for e in ev if isinstance(e, Eliminated)] == [1, 3, 2]  # the worst first


def test_players_out_together_without_a_slap_are_ranked_clockwise_from_the_winner() -> None:
    g = Game(Rules(), names(4), FULL_DECK)
    set_position(g, {1: ["JS"]}, bank=1, turn=1)
    g.flip(1)
    g.slap(1, 250)
    g.settle()
    assert g.over and g.ranking() == [1, 2, 3, 0]


def test_next_jack_nobody_slaps_keeps_the_empty_player_in() -> None:
    g = _emptied(empty_stack="next_jack")
    g.flip(1)
    g.flip(2)
    assert g.settle() == [NoSlap(parse_card("JS"))]
    assert not g.is_out[0] and g.turn == 1  # after Carla, skipping empty Anna


def test_next_jack_wrong_slap_meanwhile_is_out() -> None:
    g = _emptied(empty_stack="next_jack")
    assert g.slap(0, 300) == [WrongSlap(0, "none"), Eliminated(0, "wrong_slap")]


def test_until_turn_out_when_the_turn_comes() -> None:
    g = _emptied(empty_stack="until_turn")
    assert g.turn == 1
    g.flip(1)
    g.flip(2)  # JS: nobody slaps
    ev = g.settle()
    assert ev == [NoSlap(parse_card("JS")), Eliminated(0, "turn")]
    assert g.is_out[0] and g.turn == 1


def test_until_turn_winning_a_jack_first_keeps_you_in() -> None:
    g = _emptied(empty_stack="until_turn")
    g.flip(1)
    g.flip(2)
    g.slap(0, 150)
    ev = g.settle()
    assert ev == [RaceWon(0, 3, ((0, 150),))]
    assert not g.is_out[0] and g.turn == 1


def test_until_turn_someone_else_wins_out_at_the_turn_not_before() -> None:
    g = _emptied(empty_stack="until_turn", after_jack="left_of_winner")
    g.flip(1)
    g.flip(2)
    g.slap(1, 150)
    g.slap(0, 170)
    ev = g.settle()
    assert ev == [RaceWon(1, 3, ((1, 150), (0, 170)))]
    assert not g.is_out[0] and g.turn == 2  # left of Ben: Anna's turn has not come yet
    g.flip(2)  # 4C
    assert g.is_out[0] and g.turn == 1


def test_klatsch_bube_continue_after_jack_eliminates_the_empty_next_player() -> None:
    g = _emptied(preset="klatsch-bube")
    g.flip(1)
    g.flip(2)
    g.slap(1, 150)
    ev = g.settle()
    assert Eliminated(0, "turn") in ev and g.turn == 1


# ----------------------------------------------------------------------- tie


def _tie_table(**options: Any) -> Table:
    t = table(3, [["2C", "9C"], ["3D", "9D"], ["JS", "9S"]], **options)
    flip_all(t, 0, 1, 2)
    return t


def test_reslap_tie_opens_a_round_for_the_tied_players_only() -> None:
    t = _tie_table(tie="reslap")
    t.apply(Slap(0, 200))
    t.apply(Slap(1, 200))
    t.apply(Slap(2, 300))
    assert t.settle(final=False) == [RaceTied((0, 1), 200)]
    g = t.game
    assert g.race_open and g.reslap_among == (0, 1) and g.turn is None and g.needs_settle
    with pytest.raises(IllegalAction) as err:
        t.apply(Flip(0))
    assert err.value.code == "not_settled"
    assert t.apply(Slap(2, 10)) == []  # not tied: ignored
    assert t.apply(Slap(1, 150)) == [Slapped(1, 150)]
    assert t.apply(Slap(1, 90)) == []  # a second slap in the same round: ignored
    assert t.apply(Slap(0, 170)) == [Slapped(0, 170)]
    ev = t.settle(final=False)
    assert ev == [RaceWon(1, 3, ((0, 200), (1, 200), (2, 300)))]
    assert g.turn == 2


def test_reslap_several_rounds() -> None:
    t = _tie_table(tie="reslap")
    t.apply(Slap(2, 200))
    t.apply(Slap(0, 200))
    assert t.settle(final=False) == [RaceTied((2, 0), 200)]  # seat order from the Jack's player
    t.apply(Slap(0, 180))
    t.apply(Slap(2, 180))
    assert t.settle(final=False) == [RaceTied((2, 0), 180)]
    t.apply(Slap(0, 140))
    t.apply(Slap(2, 160))
    won = t.settle(final=False)[0]
    assert isinstance(won, RaceWon) and won.winner == 0
    assert replay(t.record).game.snapshot() == t.game.snapshot()


def test_double_tap_does_not_decide_a_tie() -> None:
    t = _tie_table(tie="reslap")
    t.apply(Slap(0, 200))
    assert t.apply(Slap(0, 350)) == []  # a repeat before any tie: ignored, not recorded
    t.apply(Slap(1, 200))
    assert t.settle(final=False) == [RaceTied((0, 1), 200)]
    # three flips, two slaps (the repeat is not recorded) and the settle that opened the round
    assert t.record.actions[3:] == [Slap(0, 200), Slap(1, 200), Settle(final=False)]


def test_reslap_fallback_seat_order_from_the_jacks_player() -> None:
    """DECISION: the tied players did not slap again: seat order from the Jack's player."""
    t = table(3, [["2C"], ["JS"], ["3D"]], tie="reslap")
    flip_all(t, 0, 1)
    t.apply(Slap(0, 200))
    t.apply(Slap(2, 200))
    assert t.settle(final=False) == [RaceTied((2, 0), 200)]
    ev = t.settle(final=True)
    assert ev[0] == RaceWon(2, 2, ((2, 200), (0, 200)))  # Carla is before Anna, from Ben
    assert t.game.turn == 0


def test_reslap_fallback_only_one_reslapped() -> None:
    t = _tie_table(tie="reslap")
    t.apply(Slap(0, 200))
    t.apply(Slap(1, 200))
    t.settle(final=False)
    t.apply(Slap(1, 400))
    assert isinstance(won := t.settle(final=False)[0], RaceWon) and won.winner == 1


def test_reslap_in_a_record_replays_to_the_same_position() -> None:
    t = _tie_table(tie="reslap")
    t.apply(Slap(0, 200, t=10))
    t.apply(Slap(1, 200, t=11))
    t.settle(final=False)
    t.apply(Slap(1, 150, t=20))
    t.apply(Slap(0, 170, t=21))
    t.settle(final=False)
    t.apply(Flip(2, 30))
    r = replay(t.record)
    assert r.game.snapshot() == t.game.snapshot()
    assert [type(e) for e in r.events[3:]] == [
        Slapped,
        Slapped,
        RaceTied,
        Slapped,
        Slapped,
        RaceWon,
        Flipped,
    ]


def test_repeated_slap_in_a_record_without_a_tie_is_ignored() -> None:
    """Only a player's first slap counts: a repeat that is no reslap changes nothing."""
    t = _tie_table(tie="reslap")
    t.record.actions += [Slap(0, 200, t=5), Slap(0, 100, t=6), Slap(1, 150, t=7)]
    r = replay(t.record)
    won = [e for e in r.events if isinstance(e, RaceWon)]
    assert won == [RaceWon(1, 3, ((1, 150), (0, 200)))]


def test_split_deals_the_pile_in_seat_order_from_the_jacks_player() -> None:
    t = _tie_table(tie="split")
    t.apply(Slap(0, 200))
    t.apply(Slap(1, 200))
    t.apply(Slap(2, 300))
    ev = t.settle(final=False)
    assert ev == [PileSplit(((0, 2), (1, 1)), ((0, 200), (1, 200), (2, 300)))]
    g = t.game
    assert stack(g, 0)[-2:] == ["2C", "JS"] and stack(g, 1)[-1] == "3D"
    assert g.turn == 1  # left of the first tied player from the Jack's player


def test_split_starts_from_the_jacks_player_not_seat_zero() -> None:
    t = table(4, [["2C"], ["3D"], ["JS"]], tie="split", after_jack="continue")
    flip_all(t, 0, 1, 2)
    t.apply(Slap(1, 200))
    t.apply(Slap(3, 200))
    ev = t.settle()
    assert ev == [PileSplit(((3, 2), (1, 1)), ((3, 200), (1, 200)))]
    assert stack(t.game, 3)[-2:] == ["2C", "JS"] and t.game.turn == 3


def test_split_three_ways_with_a_faster_nontied_player_absent() -> None:
    t = table(4, [["2C"], ["3D"], ["4H"], ["JS"]], tie="split")
    flip_all(t, 0, 1, 2, 3)
    for s in (0, 1, 2):
        t.apply(Slap(s, 250))
    t.apply(Slap(3, 260))
    assert t.settle()[0] == PileSplit(
        ((0, 2), (1, 1), (2, 1)), ((0, 250), (1, 250), (2, 250), (3, 260))
    )


# ---------------------------------------------------------------- time_limit


def test_time_up_most_cards_win_and_the_centre_counts_for_nobody() -> None:
    t = table(3, [["2C"], ["JS"], ["3D"]], time_limit=300)
    flip_all(t, 0, 1)
    t.apply(Slap(1, 200))
    t.settle()
    t.apply(Flip(2, 5))
    ev = t.apply(TimeUp(6))
    assert ev == [TimeIsUp(), GameOver((1,))]
    assert t.game.over and t.game.winners == (1,) and t.game.turn is None
    assert not t.game.needs_settle


def test_time_up_equal_most_is_a_shared_win() -> None:
    t = table(2, time_limit=60)
    flip_all(t, 0, 1)
    assert t.apply(TimeUp(10)) == [TimeIsUp(), GameOver((0, 1))]


def test_time_up_settles_an_open_race_first() -> None:
    t = table(2, [["2C", "3C"], ["JS"]], time_limit=60)
    flip_all(t, 0, 1)
    t.apply(Slap(0, 200))
    ev = t.apply(TimeUp(10))
    assert ev == [RaceWon(0, 2, ((0, 200),)), TimeIsUp(), GameOver((0,))]
    assert replay(t.record).game.snapshot() == t.game.snapshot()


def test_time_up_needs_a_time_limit_and_ends_the_game() -> None:
    t = table(2)
    with pytest.raises(IllegalAction) as err:
        t.apply(TimeUp(5))
    assert err.value.code == "no_time_limit"
    t = table(2, time_limit=60)
    t.apply(TimeUp(5))
    for action in (Flip(0, 6), Slap(0, 100, t=6), TimeUp(7), Settle()):
        with pytest.raises(IllegalAction) as err:
            t.game.apply(action)
        assert err.value.code == "game_over"


def test_time_up_when_settling_ends_the_game_under_until_turn() -> None:
    """A live time_up and its replay agree even when settling the race ends the game."""
    t = Table.new(
        Rules.from_options({"preset": "klatsch-bube", "time_limit": 60}), names(2), seed=1
    )
    g = t.game
    set_position(g, {0: ["2C"], 1: ["JS"]}, centre=all_but("2C", "JS"), bank=0, turn=0)
    g.flip(0)
    g.flip(1)
    g.slap(1, 200)
    ev = g.time_up(5)
    assert ev == [RaceWon(1, 52, ((1, 200),)), Eliminated(0, "turn"), GameOver((1,))]


# -------------------------------------------------------------------- say_it


def _say_it(**options: Any) -> Table:
    t = table(3, [["2C", "9C"], ["3D", "9D"], ["JS", "9S"]], preset="say-it", **options)
    flip_all(t, 0, 1, 2)
    return t


def test_say_it_jack_with_the_call_is_won() -> None:
    t = _say_it()
    t.apply(Slap(0, 200, call=True))
    assert t.settle() == [RaceWon(0, 3, ((0, 200),))]


def test_say_it_jack_without_the_call_is_shared_out_from_the_offenders_left() -> None:
    t = _say_it()
    t.apply(Slap(0, 200))
    t.apply(Slap(1, 250, call=True))
    ev = t.settle()
    assert ev == [Forfeit(0, ((1, 2), (2, 1)), ((0, 200), (1, 250)))]
    g = t.game
    assert stack(g, 1)[-2:] == ["2C", "JS"] and stack(g, 2)[-1] == "3D"
    assert len(g.stacks[0]) == 17 and g.turn == 1  # as after a won Jack: left of the offender


def test_say_it_forfeit_turn_with_after_jack_continue() -> None:
    t = _say_it(after_jack="continue")
    t.apply(Slap(1, 200))
    t.settle()
    assert t.game.turn == 0  # after the Jack's player, Carla


def test_say_it_wrong_slap_even_with_the_call_shares_the_pile() -> None:
    t = table(3, [["2C"], ["3D"], ["4H"]], preset="say-it")
    flip_all(t, 0, 1)
    ev = t.apply(Slap(2, 300, call=True))
    assert ev == [Forfeit(2, ((0, 1), (1, 1)))]
    g = t.game
    assert g.centre == [] and stack(g, 0)[-1] == "2C" and stack(g, 1)[-1] == "3D"
    assert g.turn == 0  # left of the offender
    assert t.apply(Slap(1, 100)) == []  # nothing left to slap


def test_say_it_offender_with_no_cards_is_out() -> None:
    """DECISION: a say-it offender with no cards is out as well."""
    g = Game(Rules.from_options({"preset": "say-it"}), names(3), FULL_DECK)
    set_position(g, {0: ["2C"], 2: []}, bank=1, turn=0)
    g.flip(0)
    ev = g.slap(2, 300, call=True)
    assert ev == [Forfeit(2, ((0, 1), (1, 0))), Eliminated(2, "wrong_slap")]
    assert g.turn == 0 and not g.over
    g.check_invariant()


def test_say_it_ties_need_the_call() -> None:
    t = _say_it(tie="split")
    t.apply(Slap(0, 200, call=True))
    t.apply(Slap(1, 200))
    assert t.settle()[0] == RaceWon(0, 3, ((0, 200), (1, 200)))


# ------------------------------------------------------------------ no slap


def test_nobody_slaps_a_jack_it_is_buried() -> None:
    """DECISION: a Jack nobody slapped stays in the pile; play goes on after its player."""
    t = table(3, [["2C", "4C"], ["JS", "5C"], ["3D", "JD"]])
    flip_all(t, 0, 1)
    assert t.settle() == [NoSlap(parse_card("JS"))]
    g = t.game
    assert g.turn == 2 and not g.race_open and centre(g) == ["2C", "JS"]
    assert t.apply(Slap(2, 100)) == []  # too late for that Jack: ignored
    flip_all(t, 2, 0, 1, 2)  # 3D, 4C, 5C, JD
    t.apply(Slap(0, 210))
    assert t.settle()[0] == RaceWon(0, 6, ((0, 210),))


# ------------------------------------------------------------------- irish


def irish(n: int, stacks: Any = (), **options: Any) -> Table:
    return table(n, stacks, preset=options.pop("preset", "irish-snap"), **options)


def test_irish_calls_run_ace_to_king_and_match() -> None:
    t = irish(2, [["5C", "3C", "5D"], ["2D", "4D"]])
    ev = flip_all(t, 0, 1)
    assert ev == [
        Flipped(0, parse_card("5C"), 0, False),
        Flipped(1, parse_card("2D"), 1, True),
    ]
    assert t.game.race_open and t.game.must_slap() == (0, 1)


def test_irish_last_slapper_picks_up_and_the_call_restarts_left_of_them() -> None:
    t = irish(3, [["AC"]])
    t.apply(Flip(0))
    t.apply(Slap(0, 300))
    t.apply(Slap(1, 250))
    t.apply(Slap(2, 200))
    ev = t.settle()
    assert ev == [PickedUp(0, 1, "last", ((2, 200), (1, 250), (0, 300)))]
    assert t.game.turn == 1 and t.game.next_call == 0


def test_irish_non_slappers_are_later_than_every_slapper() -> None:
    """DECISION: the first non-slapper clockwise from the card's player (included) is last."""
    t = irish(3, [["2C"], ["2D"]])
    flip_all(t, 0, 1)  # A (no), 2 (match)
    t.apply(Slap(1, 900))
    ev = t.settle()
    assert ev[0] == PickedUp(2, 2, "last", ((1, 900), (2, None), (0, None)))
    t = irish(3, [["2C"], ["2D"]])
    flip_all(t, 0, 1)
    assert isinstance(p := t.settle()[0], PickedUp) and p.seat == 1  # the card's player


def test_irish_equal_reactions_first_from_the_cards_player_is_last() -> None:
    t = irish(3, [["2C"], ["2D"]])
    flip_all(t, 0, 1)
    for s in (0, 1, 2):
        t.apply(Slap(s, 250))
    assert isinstance(p := t.settle()[0], PickedUp) and p.seat == 1
    t = irish(3, [["2C"], ["2D"]])
    flip_all(t, 0, 1)
    t.apply(Slap(0, 250))
    t.apply(Slap(2, 250))
    t.apply(Slap(1, 100))
    assert isinstance(p := t.settle()[0], PickedUp) and p.seat == 2


def test_irish_wrong_slap_picks_up() -> None:
    t = irish(3, [["2C"], ["3D"]])
    flip_all(t, 0, 1)
    ev = t.apply(Slap(2, 300))
    assert ev == [WrongSlap(2, "pickup"), PickedUp(2, 2, "wrong")]
    g = t.game
    assert g.turn == 0 and g.next_call == 0 and g.centre == []
    assert t.apply(Slap(2, 300)) == []


def test_irish_slaps_are_counted_once() -> None:
    t = irish(2, [["AC"]])
    t.apply(Flip(0))
    assert t.apply(Slap(1, 100)) == [Slapped(1, 100)]
    assert t.apply(Slap(1, 900)) == []


def test_irish_avoid_last_finishing_order_and_loser() -> None:
    g = Game(Rules.from_options({"preset": "irish-snap"}), names(3), FULL_DECK)
    set_position(g, {0: ["2C"], 1: ["3D"]}, bank=2, turn=0)
    assert g.flip(0) == [Flipped(0, parse_card("2C"), 0, False), Finished(0)]
    assert g.is_out[0] and g.turn == 1
    ev = g.flip(1)
    assert ev == [Flipped(1, parse_card("3D"), 1, False), Finished(1), GameOver((0, 1), 2)]
    assert g.over and g.winners == (0, 1) and g.loser == 2 and g.ranking() == [0, 1, 2]


def test_irish_avoid_last_finished_players_do_not_slap() -> None:
    g = Game(Rules.from_options({"preset": "irish-snap"}), names(3), FULL_DECK)
    set_position(g, {0: ["AC"], 2: ["5D", "6D"]}, bank=1, turn=0)
    assert g.flip(0)[1] == Finished(0)
    assert g.race_open and g.must_slap() == (1, 2)
    with pytest.raises(IllegalAction) as err:
        g.slap(0, 100)
    assert err.value.code == "player_out"
    g.slap(1, 200)
    assert isinstance(p := g.settle()[0], PickedUp) and p.seat == 2


def _first_out() -> Game:
    g = Game(Rules.from_options({"preset": "irish-snap-winner"}), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 2: ["8D", "2D"]}, bank=1, turn=0)
    g.flip(0)  # call A: no match; Anna has no cards but is still in
    assert not g.is_out[0] and g.turn == 1
    return g


def test_irish_first_out_slap_correctly_and_not_last_wins() -> None:
    g = Game(Rules.from_options({"preset": "irish-snap-winner"}), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 1: ["2D", "9H"]}, bank=2, turn=0)
    g.flip(0)  # 5C on call A; Anna is empty
    g.flip(1)  # 2D on call 2: a match
    g.slap(0, 150)
    g.slap(1, 200)
    g.slap(2, 300)
    ev = g.settle()
    assert ev == [
        PickedUp(2, 2, "last", ((0, 150), (1, 200), (2, 300))),
        Finished(0),
        GameOver((0,)),
    ]
    assert g.over and g.winners == (0,) and g.loser is None and g.ranking()[0] == 0


def test_irish_first_out_slapping_last_with_no_cards_picks_up() -> None:
    g = Game(Rules.from_options({"preset": "irish-snap-winner"}), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 1: ["2D", "9H"]}, bank=2, turn=0)
    g.flip(0)
    g.flip(1)
    g.slap(0, 400)
    g.slap(1, 200)
    g.slap(2, 300)
    assert g.settle() == [PickedUp(0, 2, "last", ((1, 200), (2, 300), (0, 400)))]
    assert not g.over and stack(g, 0) == ["5C", "2D"] and g.turn == 1


def test_irish_first_out_wrong_slap_with_no_cards_picks_up() -> None:
    g = Game(Rules.from_options({"preset": "irish-snap-winner"}), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 1: ["3D", "9H"]}, bank=2, turn=0)
    g.flip(0)
    g.flip(1)  # 3D on call 2: no match
    assert g.slap(0, 200) == [WrongSlap(0, "pickup"), PickedUp(0, 2, "wrong")]
    assert not g.over and g.turn == 1


def test_irish_first_out_the_fastest_of_two_empty_players_wins() -> None:
    g = Game(Rules.from_options({"preset": "irish-snap-winner"}), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 1: ["6C"], 2: ["3D"]}, bank=2, turn=0)
    g.flip(0)
    g.flip(1)
    g.flip(2)  # 3D on call 3: match; Anna and Ben are empty
    g.slap(1, 150)
    g.slap(0, 180)
    g.slap(2, 250)
    ev = g.settle()
    assert ev[-2:] == [Finished(1), GameOver((1,))]


# ----------------------------------------------------------- nobody can flip


@pytest.mark.parametrize("preset", ["classic", "klatsch-bube", "irish-snap-winner"])
def test_nobody_can_flip_the_pile_goes_back_to_the_last_flipper(preset: str) -> None:
    """DECISION: every card in the centre: the pile goes face down to the last flipper."""
    g = Game(Rules.from_options({"preset": preset}), names(2), FULL_DECK)
    set_position(g, {0: ["4C"], 1: ["6D"]}, centre=all_but("4C", "6D"), bank=0, turn=0)
    g.flip(0)
    g.flip(1)
    assert g.turn is None and g.needs_settle and not g.race_open
    with pytest.raises(IllegalAction):
        g.flip(0)
    ev = g.settle()
    assert ev == [PileReturned(1, 52)]
    assert len(g.stacks[1]) == 52 and g.turn == 1 and g.next_call == 0
    assert g.stacks[1][-1] == parse_card("6D")
    g.check_invariant()


# ------------------------------------------------------------ slaps ignored


def test_slap_on_an_empty_centre_is_ignored_and_changes_nothing() -> None:
    for preset in ("classic", "say-it", "irish-snap"):
        t = table(3, preset=preset)
        before = t.game.snapshot()
        assert t.apply(Slap(1, 200, t=50)) == []
        assert t.game.snapshot() == before and t.record.actions == []


# ---------------------------------------------------------- illegal actions


BAD: list[tuple[Any, str]] = [
    (Flip(2), "not_your_turn"),
    (Flip(5), "bad_seat"),
    (Flip(-1), "bad_seat"),
    (Flip(True), "bad_seat"),  # type: ignore[arg-type]
    (Flip(0, -1), "bad_time"),
    (Flip(0, 1.5), "bad_time"),  # type: ignore[arg-type]
    (Slap(0, -5), "bad_reaction"),
    (Slap(0, math.nan), "bad_reaction"),
    (Slap(0, math.inf), "bad_reaction"),
    (Slap(0, "fast"), "bad_reaction"),  # type: ignore[arg-type]
    (Slap(0, 100, call="yes"), "bad_call"),  # type: ignore[arg-type]
    (Slap(9, 100), "bad_seat"),
    (TimeUp(20), "no_time_limit"),
    ("flip", "bad_action"),
]


@pytest.mark.parametrize(("action", "code"), BAD)
def test_illegal_actions_raise_and_change_nothing(action: Any, code: str) -> None:
    t = table(3, [["5C"]])
    t.apply(Flip(0))
    before = t.game.snapshot()
    with pytest.raises(IllegalAction) as err:
        t.game.apply(action)
    assert err.value.code == code and isinstance(err.value, ValueError)
    assert t.game.snapshot() == before


def test_time_going_backwards_and_acting_while_out() -> None:
    g = Game(Rules(), names(3), FULL_DECK)
    set_position(g, {0: ["5C"], 2: []}, bank=1, turn=0)
    g.flip(0, 100)
    for action, code in ((Flip(1, 99), "time_backwards"), (Slap(1, 200, t=50), "time_backwards")):
        before = g.snapshot()
        with pytest.raises(IllegalAction) as err:
            g.apply(action)
        assert err.value.code == code and g.snapshot() == before
    g.slap(2, 200, t=100)  # Carla has no card to pay: out
    with pytest.raises(IllegalAction) as err:
        g.slap(2, 200, t=101)
    assert err.value.code == "player_out"


def test_check_players() -> None:
    assert check_players(["a", "b"]) == ("a", "b")
    assert check_players(["Jörg", "😀 Ben"]) == ("Jörg", "😀 Ben")
    for bad in (
        ["a"],
        "ab",
        ["a", "a"],
        ["a", ""],
        ["a", " "],
        ["a", 3],
        ["a", "x" * 41],
        [f"p{i}" for i in range(53)],
        ["a", "\ud800"],  # a lone surrogate (JSON can hold one): no text to show or store
    ):
        with pytest.raises(SlapjackError) as err:
            check_players(bad)  # type: ignore[arg-type]
        assert err.value.code == "bad_players"


def test_copy_is_independent() -> None:
    t = table(3, [["5C"], ["JS"]])
    g = t.game
    c = g.copy()
    g.flip(0)
    g.flip(1)
    g.slap(2, 100)
    assert c.snapshot() != g.snapshot() and c.turn == 0 and c.centre == []
    c.check_invariant()
    g.check_invariant()


def test_ranking_slapjack_still_in_by_stack_then_out_latest_first() -> None:
    g = Game(Rules(), names(4), FULL_DECK)
    set_position(g, {0: ["5C"], 1: [], 2: ["6C", "7C"]}, bank=3, turn=0)
    g.flip(0)
    g.slap(1, 100)  # out: no card
    g.slap(0, 100)  # out: no card
    assert g.out_order == [1, 0] and g.ranking() == [3, 2, 0, 1]


@pytest.mark.parametrize("preset", ["classic", "irish-snap"])
def test_flip_events_are_shared_values_equal_to_fresh_ones(preset: str) -> None:
    rules = Rules.from_options({"preset": preset})
    deck = list(FULL_DECK)
    games = [Game(rules, ["A", "B", "C"], deck) for _ in range(2)]
    for _ in range(12):
        a, b = (g.flip(g.turn or 0, 0) for g in games)
        assert a == b and type(a[0]) is Flipped
        assert a[0] is b[0]  # one event per seat and card (and call), made once
        ev = a[0]
        assert isinstance(ev, Flipped)
        fresh = Flipped(ev.seat, ev.card, ev.call, ev.match)
        assert ev == fresh and repr(ev) == repr(fresh)
        for g in games:
            if g.race_open:
                g.settle(True, 0)


def test_a_deck_of_other_than_plain_ints_keeps_its_own_flip_events() -> None:
    # True is card 1 to a set (True == 1), so it passes as a deck; its flip must
    # show True, not a shared event made for the int 1
    deck: list[Any] = list(FULL_DECK)
    deck[0], deck[1] = deck[1], deck[0]  # seat 0 flips card 1 first
    plain = Game(Rules(), ["A", "B"], deck)
    assert plain.flip(0, 0)[0] == Flipped(0, 1)
    odd = list(deck)
    odd[0] = True
    game = Game(Rules(), ["A", "B"], odd)
    ev = game.flip(0, 0)[0]
    assert isinstance(ev, Flipped) and ev.card is True
