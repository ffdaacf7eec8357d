"""Views: what a seat may see, never a face-down card."""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slapjack.core import (
    FULL_DECK,
    Flip,
    Game,
    Rules,
    Slap,
    SlapjackError,
    Table,
    View,
    card_name,
    event_to_dict,
    observe,
    replay,
    spectate,
)
from slapjack.core.view import VIEW_KEYS, VISIBLE_CENTRE

from .driver import Stats, random_action, step
from .util import assert_views_hide_face_down, names, set_position, table

PRESETS = ["classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"]


@pytest.mark.parametrize("preset", PRESETS)
def test_views_never_show_a_face_down_card_in_a_playout(preset: str) -> None:
    """After every action, every seat's view and the spectator's: only face-up centre cards."""
    rng = random.Random(PRESETS.index(preset))
    rules = Rules.from_options({"preset": preset})
    stats = Stats()
    hidden_seen = 0
    while stats.actions < 1500:
        t = Table.new(rules, names(rng.randrange(2, 7)), seed=rng.randrange(2**32))
        while not t.game.over:
            step(t, rng, stats)
            assert_views_hide_face_down(t.game)
            hidden_seen += t.game.centre_hidden
    if preset == "klatsch-bube":
        assert hidden_seen > 0  # pay_pile penalty cards were face down in the centre


def test_view_contents() -> None:
    t = table(3, [["5C", "6C"], ["KD"], ["JS"]])
    for seat in (0, 1, 2):
        t.apply(Flip(seat))
    t.apply(Slap(1, 200))
    v = observe(t.game, 2)
    assert v.seat == 2 and v.my_stack == 16 and v.stack_sizes == (17, 16, 16)
    assert v.centre_size == 3 and v.centre_face_down == 0
    assert [card_name(c) for c in v.centre_top] == ["5C", "KD", "JS"]
    assert v.top == FULL_DECK[43] and v.race_open and v.turn is None
    assert v.slapped == (1,) and v.last_flipper == 2 and v.flips == 3
    assert v.top_call is None and v.next_call is None and not v.is_match
    d = v.to_dict()
    assert d["centre_top"] == ["5C", "KD", "JS"] and d["stacks"] == [17, 16, 16]
    assert d["rules"] == {"preset": "classic"} and d["game"] == "slapjack"
    json.dumps(d)
    s = spectate(t.game)
    assert s.seat is None and s.my_stack == 0 and s.centre_top == v.centre_top


def test_view_lists_at_most_five_face_up_cards() -> None:
    t = table(2)
    for k in range(8):
        t.apply(Flip(k % 2))
    v = observe(t.game, 0)
    assert len(v.centre_top) == VISIBLE_CENTRE and v.centre_size == 8
    assert v.centre_top == tuple(t.game.centre[-5:])


def test_view_hides_the_pay_pile_penalty_card() -> None:
    t = table(3, [["5C"], ["6D"], ["8H"]], wrong_slap="pay_pile")
    t.apply(Flip(0))
    t.apply(Slap(2, 300))
    for seat in (0, 1, 2, None):
        v = observe(t.game, seat)
        assert v.centre_size == 2 and v.centre_face_down == 1
        assert [card_name(c) for c in v.centre_top] == ["5C"]
        assert "8H" not in json.dumps(v.to_dict())
    assert_views_hide_face_down(t.game)


def test_view_when_only_face_down_cards_are_left() -> None:
    g = Game(Rules(), names(2), FULL_DECK)
    set_position(g, {}, centre=["2C", "3C"], hidden=2, bank=0, turn=0)
    v = observe(g, 1)
    assert v.centre_top == () and v.top is None and v.centre_face_down == 2


def test_irish_view_shows_the_call() -> None:
    t = table(2, [["AC"]], preset="irish-snap")
    v0 = observe(t.game, 0)
    assert v0.next_call == 0 and v0.top_call is None
    t.apply(Flip(0))
    v = observe(t.game, 1)
    assert v.top_call == 0 and v.next_call == 1 and v.is_match and v.race_open
    assert v.to_dict()["top_call"] == "A" and v.to_dict()["next_call"] == "2"


def test_observe_bad_seat() -> None:
    t = table(2)
    for bad in (-1, 2):
        with pytest.raises(ValueError):
            observe(t.game, bad)


CARD_NAMES = {card_name(c) for c in FULL_DECK}


def _strings(obj: object) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list | tuple):
        return [s for v in obj for s in _strings(v)]
    return []


def test_events_never_name_a_face_down_card() -> None:
    """Penalty cards and won piles move face down: events give counts, never those cards."""
    rng = random.Random(3)
    kinds: set[str] = set()
    tables: list[Table] = []
    for preset in PRESETS:
        stats = Stats()
        while stats.actions < 1500:
            t = Table.new(Rules.from_options({"preset": preset}), names(4), seed=rng.randrange(99))
            while not t.game.over:
                step(t, rng, stats)
            tables.append(t)
    for t in tables:
        for e in replay(t.record).events:
            d = event_to_dict(e, t.game.players)
            kinds.add(d["type"])
            cards = [s for s in _strings(d) if s in CARD_NAMES]
            assert cards == ([d["card"]] if d["type"] in ("flipped", "no_slap") else []), d
    assert {"wrong_slap", "race_won", "picked_up", "forfeit", "pile_split"} <= kinds


# -------------------------------------------------------------- from JSON


@settings(max_examples=25, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    split=st.booleans(),
    n=st.integers(2, 10),
    seed=st.integers(0, 2**32),
)
def test_every_view_of_a_random_game_comes_back(
    preset: str, split: bool, n: int, seed: int
) -> None:
    """After every action of a random game: each seat's view and the
    spectator's, through JSON and ``View.from_dict``, are the view itself."""
    options: dict[str, object] = {"preset": preset}
    if split and not preset.startswith("irish"):
        options["tie"] = "split"
    rules = Rules.from_options(options)
    rng = random.Random(seed)
    t = Table.new(rules, names(n), seed=seed)
    checked = 0
    for _ in range(400):
        game = t.game
        for seat in (None, *range(n)):
            view = observe(game, seat)
            data = json.loads(json.dumps(view.to_dict()))
            assert View.from_dict(data) == view
            checked += 1
        if game.over:
            break
        action = random_action(game, rng, game.t + rng.choice((0, 5, 300)), 0.02)
        with contextlib.suppress(SlapjackError):
            t.settle(final=action[1]) if isinstance(action, tuple) else t.apply(action)
    assert checked > n


def _a_view_dict() -> dict[str, object]:
    t = table(3, [["JS"], ["JH"], ["2C"]], preset="irish-snap")
    t.apply(Flip(0, 0))
    data: dict[str, object] = json.loads(json.dumps(observe(t.game, 1).to_dict()))
    assert list(data) == list(VIEW_KEYS)
    return data


@pytest.mark.parametrize(
    ("key", "value", "where"),
    [
        ("seat", 5, "view.seat"),
        ("seat", True, "view.seat"),
        ("turn", "1", "view.turn"),
        ("stacks", [1], "view.stacks"),
        ("stacks", [1.0, 2], "view.stacks"),
        ("out", [0, 0], "view.out"),
        ("centre_top", ["js"], "view.centre_top"),
        ("centre_top", ["JS"] * 6, "view.centre_top"),
        ("top_call", "Joker", "view.top_call"),
        ("race_open", 1, "view.race_open"),
        ("reslap_among", [0, 9], "view.reslap_among"),
        ("flips", -1, "view.flips"),
        ("rules", {"preset": "nope"}, "view.rules"),
        ("rules", {"preset": "classic"}, "view.rules"),
        ("rules", 5, "view.rules"),
        ("game", "poker", "view.game"),
        ("players", ["A", 2], "view.players"),
    ],
)
def test_a_bad_view_is_refused_naming_the_field(key: str, value: object, where: str) -> None:
    data = _a_view_dict()
    assert View.from_dict(data).seat == 1
    data[key] = value
    with pytest.raises(SlapjackError) as info:
        View.from_dict(data)
    assert info.value.code == "bad_view"
    assert info.value.message.startswith(where), info.value.message


def test_a_view_needs_exactly_its_keys() -> None:
    data = _a_view_dict()
    with pytest.raises(SlapjackError, match="unknown field 'flip_id'"):
        View.from_dict({**data, "flip_id": 1})
    del data["version"]
    with pytest.raises(SlapjackError, match="missing 'version'"):
        View.from_dict(data)
    with pytest.raises(SlapjackError, match="an object"):
        View.from_dict([1, 2])  # type: ignore[arg-type]
