"""Cards: names, symbols, parsing and full-deck checks."""

from __future__ import annotations

import pytest

from slapjack.core import (
    DECK_SIZE,
    FULL_DECK,
    JACK,
    CardError,
    card_name,
    card_symbol,
    is_jack,
    is_red,
    parse_card,
    parse_deck,
    rank_of,
    suit_of,
)
from slapjack.core.cards import check_deck, rank_name


def test_names_round_trip_for_every_card() -> None:
    names = [card_name(c) for c in FULL_DECK]
    assert len(set(names)) == DECK_SIZE
    assert names[:5] == ["AC", "AD", "AH", "AS", "2C"]
    assert names[-1] == "KS"
    assert all(parse_card(n) == c for c, n in zip(FULL_DECK, names, strict=True))


def test_parse_is_lenient_about_case_and_spaces() -> None:
    assert parse_card(" js ") == parse_card("JS") == JACK * 4 + 3
    assert card_name(parse_card("10h")) == "10H"


@pytest.mark.parametrize("bad", ["", "1H", "11H", "JX", "T", "JOKER", "10", "HJ", "J S"])
def test_unknown_cards(bad: str) -> None:
    with pytest.raises(CardError) as err:
        parse_card(bad)
    assert err.value.code == "bad_card" and repr(bad) in str(err.value)


@pytest.mark.parametrize("bad", [None, 10, 3.0, ["JS"]])
def test_cards_must_be_strings(bad: object) -> None:
    with pytest.raises(CardError):
        parse_card(bad)  # type: ignore[arg-type]


def test_card_name_out_of_range() -> None:
    for bad in (-1, 52):
        with pytest.raises(CardError):
            card_name(bad)


def test_properties() -> None:
    jh = parse_card("JH")
    assert is_jack(jh) and is_red(jh) and rank_of(jh) == JACK and suit_of(jh) == 2
    assert not is_jack(parse_card("QS")) and not is_red(parse_card("QS"))
    assert is_red(parse_card("2D")) and not is_red(parse_card("2C"))
    assert card_symbol(parse_card("10H")) == "10♥" and card_symbol(parse_card("AS")) == "A♠"
    assert [rank_name(r) for r in (0, 9, 10, 12)] == ["A", "10", "J", "K"]
    assert sum(is_jack(c) for c in FULL_DECK) == 4


def test_parse_deck_full() -> None:
    names = [card_name(c) for c in reversed(FULL_DECK)]
    assert parse_deck(names) == tuple(reversed(FULL_DECK))


def test_parse_deck_missing_duplicate_unknown() -> None:
    names = [card_name(c) for c in FULL_DECK]
    with pytest.raises(CardError, match="52 cards, this one has 51"):
        parse_deck(names[:-1])
    with pytest.raises(CardError, match="duplicate card AC"):
        parse_deck(["AC", *names[:-1]])
    with pytest.raises(CardError, match="unknown card 'ZZ'"):
        parse_deck(["ZZ", *names[1:]])
    with pytest.raises(CardError, match="53"):
        check_deck([*FULL_DECK, 0])


def test_check_deck_takes_any_full_deck_and_names_what_is_wrong_with_the_rest() -> None:
    # a full deck in any order passes at once (one set comparison) ...
    deck = list(reversed(FULL_DECK))
    assert check_deck(deck) == tuple(deck)
    assert check_deck(tuple(FULL_DECK)) == FULL_DECK
    # ... anything else gets the card-by-card check and its error
    with pytest.raises(CardError, match="duplicate card 2C"):
        check_deck([4, *FULL_DECK[:-1]])
    with pytest.raises(TypeError):  # an unhashable card, after the cards before it
        check_deck([[0], *FULL_DECK[1:]])
    with pytest.raises(CardError, match="duplicate card AC"):  # the duplicate comes first
        check_deck([0, 0, [1], *FULL_DECK[3:]])
