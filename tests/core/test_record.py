"""Records (slapjack-record/1): round trips, replay, Table, and every kind of invalid record."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from slapjack.core import (
    FORMAT,
    Flip,
    Record,
    RecordError,
    Rules,
    Settle,
    Slap,
    Table,
    TimeUp,
    card_name,
    final_position,
    parse_card,
    replay,
    shuffled_deck,
)
from slapjack.core.events import RaceTied, RaceWon

from .driver import Stats, step
from .util import names

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "en-worked-example.json"
P52 = [f"P{i:02d}" for i in range(1, 53)]


def base(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data.pop("meta", None)
    data.update(changes)
    return data


def load(data: Any) -> Record:
    return Record.from_json(json.dumps(data))


def test_round_trip_with_deck_and_with_seed() -> None:
    rng = random.Random(1)
    for kw in ({"seed": 42}, {"deck": shuffled_deck(9)}):
        rules = Rules.from_options({"preset": "klatsch-bube", "time_limit": 60})
        t = Table.new(rules, names(4), meta={"room": "K7Q2PX"}, **kw)  # type: ignore[arg-type]
        stats = Stats()
        for _ in range(400):
            if t.game.over:
                break
            step(t, rng, stats)
        text = t.record.to_json()
        data = json.loads(text)
        assert data["format"] == FORMAT and data["meta"] == {"room": "K7Q2PX"}
        assert ("seed" in data) == ("seed" in kw) and ("deck" in data) != ("seed" in kw)
        again = Record.from_json(text)
        assert again.to_dict() == data
        assert replay(again).game.snapshot() == replay(t.record).game.snapshot()


def test_seed_record_deals_the_pinned_shuffle() -> None:
    r = load({**{k: v for k, v in base().items() if k != "deck"}, "seed": 42})
    assert r.deck == shuffled_deck(42) and r.seed == 42
    assert r.to_dict()["seed"] == 42 and "deck" not in r.to_dict()


def test_defaults_game_and_rules() -> None:
    data = base()
    del data["game"], data["rules"]
    r = load(data)
    assert r.rules == Rules() and r.rules.preset == "classic"
    data["game"] = "irish-snap"
    data["actions"] = [{"t": 0, "flip": "Anna"}]
    assert load(data).rules.preset == "irish-snap"


def test_replay_does_not_change_the_record_and_is_repeatable() -> None:
    r = load(base())
    before = r.to_dict()
    a, b = final_position(replay(r)), final_position(replay(r))
    assert a == b and r.to_dict() == before


def test_replay_without_settling_at_the_end() -> None:
    r = load(base())
    open_race = replay(r, settle_at_end=False).game
    assert open_race.race_open and open_race.needs_settle
    assert not replay(r).game.needs_settle


def test_table_resumes_from_a_record() -> None:
    r = load(base())
    t = Table(r)
    assert t.game.race_open  # the race on Carla's Jack is still open
    t.settle()  # recorded: the live table's decision
    t.apply(Flip(2, 5000))
    assert len(t.record.actions) == 7
    assert t.record.actions[5] == Settle(final=True, t=4400)
    assert replay(t.record).game.snapshot() == t.game.snapshot()
    fresh = Table(load(base()), resume=False)
    assert fresh.game.flips == 0


def test_table_does_not_record_ignored_slaps() -> None:
    t = Table.new(Rules(), names(2), seed=3)
    assert t.apply(Slap(0, 100)) == []
    assert t.record.actions == []


def test_record_new_needs_exactly_one_of_deck_and_seed() -> None:
    with pytest.raises(RecordError):
        Record.new(Rules(), names(2))
    with pytest.raises(RecordError):
        Record.new(Rules(), names(2), seed=1, deck=shuffled_deck(1))
    with pytest.raises(RecordError, match="seed"):
        Record.new(Rules(), names(2), seed=-1)


def test_final_position_shape() -> None:
    pos = final_position(replay(load(base())))
    assert list(pos) == [
        "finished",
        "winners",
        "loser",
        "turn",
        "stacks",
        "centre",
        "out",
        "events",
    ]
    json.dumps(pos)


# --------------------------------------------------------------- invalid records


def _deck() -> list[str]:
    return list(base()["deck"])


INVALID: list[tuple[str, Any, int | None, str]] = [
    ("not an object", [1, 2], None, "a record is a JSON object"),
    ("format", base(format="slapjack-record/2"), None, "format must be 'slapjack-record/1'"),
    ("no format", {k: v for k, v in base().items() if k != "format"}, None, "format must be"),
    ("unknown top field", base(colour="red"), None, "unknown field 'colour'"),
    ("unknown card", base(deck=["ZZ", *_deck()[1:]]), None, "unknown card 'ZZ'"),
    ("duplicate card", base(deck=["5C", *_deck()[:-1]]), None, "duplicate card 5C"),
    ("missing card", base(deck=_deck()[:51]), None, "a deck has 52 cards, this one has 51"),
    ("card not a string", base(deck=[5, *_deck()[1:]]), None, "a card must be a string"),
    ("deck not a list", base(deck="5C KD JS"), None, "deck must be a list"),
    ("deck and seed", base(seed=4), None, "either a deck or a seed"),
    (
        "neither deck nor seed",
        {k: v for k, v in base().items() if k != "deck"},
        None,
        "either a deck or a seed",
    ),
    (
        "bad seed",
        {**{k: v for k, v in base().items() if k != "deck"}, "seed": -3},
        None,
        "seed must be a whole number",
    ),
    (
        "float seed",
        {**{k: v for k, v in base().items() if k != "deck"}, "seed": 1.5},
        None,
        "seed must be a whole number",
    ),
    (
        "unknown option",
        base(rules={"preset": "classic", "colour": "red"}),
        None,
        "unknown option 'colour'",
    ),
    ("unknown preset", base(rules={"preset": "speed"}), None, "unknown preset 'speed'"),
    ("bad option value", base(rules={"tie": "coin"}), None, "bad value 'coin' for tie"),
    (
        "impossible rules",
        base(rules={"say_it": True, "wrong_slap": "pay_pile"}),
        None,
        "say_it replaces wrong_slap",
    ),
    ("rules not an object", base(rules=["classic"]), None, "rules must be an object"),
    ("unknown game", base(game="poker"), None, "unknown game 'poker'"),
    ("game not a string", base(game=3), None, "unknown game"),
    ("game and preset disagree", base(game="irish-snap"), None, "is a slapjack preset"),
    ("players not a list", base(players="Anna"), None, "players must be a list"),
    ("one player", base(players=["Anna"]), None, "2 to 52 players"),
    ("duplicate player", base(players=["Anna", "Ben", "Anna"]), None, "appears twice"),
    ("player not a string", base(players=["Anna", 7, "Carla"]), None, "non-blank string"),
    ("meta not an object", base(meta=[]), None, "meta must be an object"),
    ("actions not a list", base(actions={"t": 0}), None, "actions must be a list"),
    ("action not an object", base(actions=[["flip", "Anna"]]), 0, "an action is an object"),
    ("missing t", base(actions=[{"flip": "Anna"}]), 0, "t must be whole milliseconds"),
    ("t as text", base(actions=[{"t": "0", "flip": "Anna"}]), 0, "t must be whole milliseconds"),
    ("negative t", base(actions=[{"t": -5, "flip": "Anna"}]), 0, "t must be whole milliseconds"),
    (
        "two kinds",
        base(actions=[{"t": 0, "flip": "Anna", "time_up": True}]),
        0,
        "exactly one of flip, slap, settle, time_up",
    ),
    ("no kind", base(actions=[{"t": 0}]), 0, "exactly one of"),
    (
        "unknown action field",
        base(actions=[{"t": 0, "flip": "Anna", "card": "5C"}]),
        0,
        "unknown field 'card'",
    ),
    ("unknown player", base(actions=[{"t": 0, "flip": "Zoe"}]), 0, "unknown player 'Zoe'"),
    ("player as number", base(actions=[{"t": 0, "flip": 0}]), 0, "unknown player 0"),
    (
        "wrong player flipping",
        base(actions=[{"t": 0, "flip": "Anna"}, {"t": 5, "flip": "Carla"}]),
        1,
        "it is Ben's turn, not Carla's",
    ),
    (
        "time going backwards",
        base(actions=[{"t": 10, "flip": "Anna"}, {"t": 5, "flip": "Ben"}]),
        1,
        "time goes backwards",
    ),
    (
        "slap without reaction",
        base(actions=[{"t": 0, "flip": "Anna"}, {"t": 1, "slap": "Ben"}]),
        1,
        "a slap needs reaction_ms",
    ),
    (
        "reaction as text",
        base(actions=[{"t": 0, "flip": "Anna"}, {"t": 1, "slap": "Ben", "reaction_ms": "fast"}]),
        1,
        "reaction_ms",
    ),
    (
        "reaction too large",
        base(actions=[{"t": 0, "flip": "Anna"}, {"t": 1, "slap": "Ben", "reaction_ms": 1e9}]),
        1,
        "reaction_ms must be a number",
    ),
    (
        "call as text",
        base(
            actions=[
                {"t": 0, "flip": "Anna"},
                {"t": 1, "slap": "Ben", "reaction_ms": 200, "call": "yes"},
            ]
        ),
        1,
        "call must be true or false",
    ),
    ("time_up false", base(actions=[{"t": 0, "time_up": False}]), 0, "time_up must be true"),
    (
        "time_up without a limit",
        base(actions=[{"t": 0, "flip": "Anna"}, {"t": 9, "time_up": True}]),
        1,
        "no time limit",
    ),
    (
        "action after the end",
        base(
            rules={"time_limit": 60}, actions=[{"t": 0, "time_up": True}, {"t": 1, "flip": "Anna"}]
        ),
        1,
        "the game is already over",
    ),
]


@pytest.mark.parametrize(
    ("label", "data", "index", "message"), INVALID, ids=[c[0] for c in INVALID]
)
def test_invalid_records(label: str, data: Any, index: int | None, message: str) -> None:
    with pytest.raises(RecordError) as err:
        replay(load(data))
    assert err.value.index == index, str(err.value)
    assert message in str(err.value)
    if index is not None:
        assert str(err.value).startswith(f"action {index}: ")
    assert isinstance(err.value, ValueError)


def test_bad_json() -> None:
    for text in ("{", "", "[1,", b"\xff\xfe{", "[" * 100_000):
        with pytest.raises(RecordError) as err:
            Record.from_json(text)
        assert err.value.code == "bad_json" and err.value.index is None


def test_an_action_by_a_player_who_is_out() -> None:
    deck = [card_name(c) for c in shuffled_deck(5)]
    assert "J" not in deck[0]
    data = {
        "format": FORMAT,
        "players": P52,
        "deck": deck,
        "actions": [
            {"t": 0, "flip": "P01"},
            {"t": 1, "slap": "P01", "reaction_ms": 300},  # a wrong slap with no card to pay: out
            {"t": 2, "slap": "P01", "reaction_ms": 300},
        ],
    }
    with pytest.raises(RecordError) as err:
        replay(load(data))
    assert err.value.index == 2 and err.value.code == "player_out"
    assert str(err.value) == "action 2: P01 is out of the game"


def test_the_first_bad_action_is_named() -> None:
    data = base(
        actions=[{"t": 0, "flip": "Anna"}, {"t": 1, "flip": "Anna"}, {"t": 0, "flip": "Zoe"}]
    )
    record = load({**data, "actions": data["actions"][:2]})
    with pytest.raises(RecordError) as err:
        replay(record)
    assert err.value.index == 1 and err.value.code == "not_your_turn"
    with pytest.raises(RecordError) as err:
        load(data)  # unknown players are found while reading, before any replay
    assert err.value.index == 2


def test_check_mode_checks_the_invariant_every_action() -> None:
    r = load(base())
    assert replay(r, check=True).game.flips == 3


def test_time_up_in_a_record() -> None:
    data = base(rules={"time_limit": 60})
    data["actions"] = [*data["actions"], {"t": 60000, "time_up": True}]
    pos = final_position(replay(load(data)))
    assert pos["finished"] and pos["winners"] == ["Ben"]
    t = Table(load(data))
    assert t.game.over and isinstance(t.record.actions[-1], TimeUp)


# ---------------------------------------------------------------- settle actions


def _flips(*extra: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The English worked example's three flips (Carla's J♠ on top), then ``extra``."""
    flips = [{"t": 0, "flip": "Anna"}, {"t": 2400, "flip": "Ben"}, {"t": 4100, "flip": "Carla"}]
    return base(actions=[*flips, *extra], **changes)


def test_a_recorded_settle_buries_a_jack_nobody_slapped_in_time() -> None:
    # Without the settle, Ben's slap would win the Jack (the window stays open);
    # with it, the window closed at 6600 and the slap comes too late.
    late = {"t": 7000, "slap": "Ben", "reaction_ms": 250}
    open_race = replay(load(_flips(late)))
    assert open_race.game.stacks[1][-1] == parse_card("JS")
    settled = replay(load(_flips({"t": 6600, "settle": True}, late)))
    assert settled.game.centre == [parse_card(c) for c in ("5C", "KD", "JS")]
    assert [e["type"] for e in final_position(settled)["events"]][-1] == "no_slap"


def test_settle_actions_round_trip_and_replay_to_the_live_table() -> None:
    rules = Rules.from_options({"preset": "classic"})
    deck = [parse_card(c) for c in base()["deck"]]
    t = Table.new(rules, ["Anna", "Ben", "Carla"], deck=deck)
    for seat, at in ((0, 0), (1, 2400), (2, 4100)):
        t.apply(Flip(seat, at))
    t.apply(Slap(0, 200.0, t=4400))
    t.apply(Slap(1, 200.0, t=4400))
    assert t.settle(final=False, t=6000)[0] == RaceTied((0, 1), 200.0)
    t.apply(Slap(1, 150.0, t=6300))
    t.apply(Slap(0, 170.0, t=6320))
    assert isinstance(t.settle(final=True, t=7000)[0], RaceWon)
    data = t.record.to_dict()
    assert data["actions"][5] == {"t": 6000, "settle": True, "final": False}
    assert data["actions"][8] == {"t": 7000, "settle": True}
    again = Record.from_json(t.record.to_json())
    assert again.actions == t.record.actions
    assert replay(again).game.snapshot() == t.game.snapshot()


def test_a_settle_that_changes_nothing_is_not_recorded() -> None:
    t = Table.new(Rules(), names(2), seed=3)
    assert t.settle() == []
    t.apply(Flip(0, 10))
    if not t.game.race_open:
        assert t.settle(t=20) == []
        assert t.record.actions == [Flip(0, 10)]
        assert t.game.t == 10  # nothing settled: the time stays


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"t": 1, "settle": 1}, "settle must be true"),
        ({"t": 1, "settle": False}, "settle must be true"),
        ({"t": 1, "settle": True, "final": "no"}, "final must be true or false"),
        ({"t": 1, "settle": True, "seat": "Anna"}, "unknown field 'seat' in a settle action"),
        ({"t": 1, "settle": True, "flip": "Anna"}, "exactly one of"),
    ],
)
def test_bad_settle_actions(action: dict[str, Any], message: str) -> None:
    with pytest.raises(RecordError, match=message) as info:
        load(base(actions=[action]))
    assert info.value.index == 0


# An ignored slap's time counts: a later action may not go back before it.
IGNORED_SLAPS = {
    "on an empty centre": [{"t": 5000, "slap": "Anna", "reaction_ms": 200}],
    "a repeat on the same card": [
        {"t": 0, "flip": "Anna"},
        {"t": 300, "slap": "Ben", "reaction_ms": 250},
        {"t": 5000, "slap": "Ben", "reaction_ms": 250},
    ],
    "on a settled Jack": [
        {"t": 0, "flip": "Anna"},
        {"t": 2400, "flip": "Ben"},
        {"t": 4100, "flip": "Carla"},
        {"t": 4300, "settle": True},
        {"t": 5000, "slap": "Ben", "reaction_ms": 250},
    ],
    "by a player outside the reslap round": [
        {"t": 0, "flip": "Anna"},
        {"t": 2400, "flip": "Ben"},
        {"t": 4100, "flip": "Carla"},
        {"t": 4400, "slap": "Anna", "reaction_ms": 200},
        {"t": 4400, "slap": "Ben", "reaction_ms": 200},
        {"t": 4500, "slap": "Carla", "reaction_ms": 300},
        {"t": 4600, "settle": True, "final": False},
        {"t": 5000, "slap": "Carla", "reaction_ms": 150},
    ],
}


@pytest.mark.parametrize("kind", sorted(IGNORED_SLAPS))
@pytest.mark.parametrize(
    "earlier", [{"t": 1000, "flip": "Anna"}, {"t": 1000, "time_up": True}], ids=["flip", "time_up"]
)
def test_time_cannot_go_back_after_an_ignored_slap(kind: str, earlier: dict[str, Any]) -> None:
    actions = [*IGNORED_SLAPS[kind], earlier]
    data = base(actions=actions, rules={"preset": "classic", "time_limit": 60})
    replay(load(base(actions=actions[:-1], rules=data["rules"])))  # valid up to there
    with pytest.raises(RecordError, match=r"time goes backwards \(1000 ms after 5000 ms\)") as info:
        replay(load(data))
    assert info.value.index == len(actions) - 1
    assert info.value.code == "time_backwards"
