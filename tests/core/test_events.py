"""Events to JSON and back: ``event_from_dict`` is the inverse of ``event_to_dict``."""

from __future__ import annotations

import dataclasses
import json
import random
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slapjack.core import Rules, SlapjackError, Table, event_to_dict
from slapjack.core.events import EVENT_TYPES, Event, event_from_dict

from .driver import random_action
from .util import names

PRESETS = ["classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"]
OPTIONS: list[dict[str, Any]] = [{}, {"tie": "split"}, {"tie": "reslap"}, {"time_limit": 60}]


def json_round(data: Any) -> Any:
    return json.loads(json.dumps(data))


def played_events(preset: str, options: dict[str, Any], n: int, seed: int) -> list[Event]:
    """Every event of one random game (legal and illegal actions, as the engine tests play)."""
    if preset.startswith("irish"):
        options = {k: v for k, v in options.items() if k not in ("tie", "time_limit")}
    rules = Rules.from_options({"preset": preset, **options})
    rng = random.Random(seed)
    table = Table.new(rules, names(n), seed=seed)
    events: list[Event] = []
    for _ in range(3000):
        game = table.game
        if game.over:
            break
        action = random_action(game, rng, game.t + rng.choice((0, 1, 5, 300)), 0.02)
        try:
            if isinstance(action, tuple):
                events += table.settle(final=action[1])
            else:
                events += table.apply(action)
        except SlapjackError:
            continue
    return events


@settings(max_examples=25, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    options=st.sampled_from(OPTIONS),
    n=st.integers(2, 10),
    seed=st.integers(0, 2**32),
)
def test_every_event_of_a_random_game_comes_back(
    preset: str, options: dict[str, Any], n: int, seed: int
) -> None:
    events = played_events(preset, options, n, seed)
    assert events
    players = tuple(names(n))
    for event in events:
        assert event_from_dict(json_round(event_to_dict(event)), n) == event
        named = json_round(event_to_dict(event, players))
        assert event_from_dict(named, players) == event


def test_every_event_type_has_its_name() -> None:
    assert set(EVENT_TYPES.values()) == set(typing.get_args(Event))
    for kind, cls in EVENT_TYPES.items():
        values = {f.name: SAMPLES[f.name] for f in dataclasses.fields(cls)}
        if cls.__name__ == "Slapped":
            values["call"] = True  # the say-it call, not a rank
        if cls.__name__ == "PickedUp":
            values["reason"] = "last"
        sample = cls(**values)
        assert event_to_dict(sample)["type"] == kind
        assert event_from_dict(json_round(event_to_dict(sample))) == sample


SAMPLES: dict[str, Any] = {
    "seat": 1,
    "card": 40,
    "call": None,
    "match": False,
    "reaction_ms": 212.5,
    "penalty": "pay_player",
    "to": 0,
    "winner": 1,
    "cards": 3,
    "reactions": ((1, 212.5), (0, 300.0)),
    "seats": (0, 1),
    "shares": ((0, 2), (1, 1)),
    "reason": "lost_jack",
    "winners": (1,),
    "loser": None,
}


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"type": "flipped", "seat": 0, "card": "js", "call": None, "match": False}, "card"),
        ({"type": "flipped", "seat": 0, "card": "JS", "call": "Z", "match": False}, "call"),
        ({"type": "flipped", "seat": 0, "card": "JS", "call": None, "match": 0}, "match"),
        ({"type": "flipped", "seat": True, "card": "JS", "call": None, "match": False}, "seat"),
        ({"type": "flipped", "seat": "0", "card": "JS", "call": None, "match": False}, "seat"),
        ({"type": "flipped", "seat": 0, "card": "JS", "call": None}, "match"),
        ({"type": "flipped", "seat": 0, "card": "JS", "call": None, "match": False, "x": 1}, "x"),
        ({"type": "slapped", "seat": 0, "reaction_ms": "5", "call": False}, "reaction_ms"),
        ({"type": "slapped", "seat": 0, "reaction_ms": float("nan"), "call": False}, "reaction"),
        ({"type": "slapped", "seat": 0, "reaction_ms": 5, "call": "true"}, "call"),
        ({"type": "race_won", "winner": 7, "cards": 1, "reactions": []}, "winner"),
        ({"type": "race_won", "winner": 0, "cards": -1, "reactions": []}, "cards"),
        ({"type": "race_won", "winner": 0, "cards": 1, "reactions": [[0]]}, "reactions"),
        ({"type": "race_won", "winner": 0, "cards": 1, "reactions": [[0, None]]}, "reactions"),
        ({"type": "wrong_slap", "seat": 0, "penalty": "jail", "to": None}, "penalty"),
        ({"type": "eliminated", "seat": 0, "reason": "last"}, "reason"),
        ({"type": "pile_split", "shares": [[0, 1.5]], "reactions": []}, "shares"),
        ({"type": "a_new_kind_of_event"}, "type"),
        ({"seat": 0}, "type"),
    ],
)
def test_a_bad_event_is_refused_naming_the_field(data: dict[str, Any], where: str) -> None:
    with pytest.raises(SlapjackError) as info:
        event_from_dict(data, 3)
    assert info.value.code == "bad_event"
    assert where in info.value.message


def test_named_seats_must_be_players() -> None:
    players = ("Anna", "Ben")
    data = {"type": "finished", "seat": "Carla"}
    with pytest.raises(SlapjackError, match=r"finished\.seat"):
        event_from_dict(data, players)
    assert event_from_dict({"type": "finished", "seat": "Ben"}, players) == EVENT_TYPES["finished"](
        1
    )
    # picked_up reactions may be null (a seat that did not slap)
    picked = {
        "type": "picked_up",
        "seat": 0,
        "cards": 4,
        "reason": "last",
        "reactions": [[1, None]],
    }
    assert event_from_dict(picked, 2) == EVENT_TYPES["picked_up"](0, 4, "last", ((1, None),))
