"""Rules: presets, option values, overrides and impossible combinations."""

from __future__ import annotations

from typing import Any

import pytest

from slapjack.core import (
    PRESETS,
    AfterJack,
    EmptyStack,
    GameKind,
    IrishGoal,
    Rules,
    RulesError,
    Tie,
    WrongSlap,
    option_choices,
)


def test_presets_are_the_documented_option_sets() -> None:
    assert set(PRESETS) == {"classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"}
    classic = Rules.from_options({"preset": "classic"})
    assert (classic.after_jack, classic.wrong_slap, classic.empty_stack, classic.tie) == (
        AfterJack.LEFT_OF_WINNER,
        WrongSlap.PAY_PLAYER,
        EmptyStack.NEXT_JACK,
        Tie.RESLAP,
    )
    assert not classic.say_it and classic.time_limit == 0 and classic.game is GameKind.SLAPJACK
    kb = Rules.from_options({"preset": "klatsch-bube"})
    assert (kb.after_jack, kb.wrong_slap, kb.empty_stack, kb.tie) == (
        AfterJack.CONTINUE,
        WrongSlap.PAY_PILE,
        EmptyStack.UNTIL_TURN,
        Tie.SPLIT,
    )
    say = Rules.from_options({"preset": "say-it"})
    assert say.say_it and say.option_values() == {**classic.option_values(), "say_it": True}
    irish = Rules.from_options({}, game="irish-snap")
    assert irish.is_irish and irish.preset == "irish-snap"
    assert irish.irish_goal is IrishGoal.AVOID_LAST
    winner = Rules.from_options({"preset": "irish-snap-winner"})
    assert winner.is_irish and winner.irish_goal is IrishGoal.FIRST_OUT
    assert Rules.from_options(None) == classic == Rules()


ALL_VALUES: list[tuple[str, Any, str]] = [
    *(
        (name, value, "classic")
        for name in ("after_jack", "wrong_slap", "empty_stack", "tie")
        for value in option_choices(name)
    ),
    ("time_limit", 0, "classic"),
    ("time_limit", 300, "classic"),
    ("time_limit", 86400, "klatsch-bube"),
    ("say_it", True, "classic"),
    ("say_it", False, "say-it"),
    ("irish_goal", "avoid_last", "irish-snap-winner"),
    ("irish_goal", "first_out", "irish-snap"),
]


@pytest.mark.parametrize(("name", "value", "preset"), ALL_VALUES)
def test_every_option_value_overrides_a_preset(name: str, value: Any, preset: str) -> None:
    rules = Rules.from_options({"preset": preset, name: value})
    got = getattr(rules, name)
    assert (got.value if hasattr(got, "value") else got) == value
    assert rules.preset == preset and name in rules.overrides
    assert Rules.from_options(rules.to_options()) == rules
    assert rules.option_values()[name] == value


def test_option_choices() -> None:
    assert option_choices("after_jack") == ("left_of_winner", "continue")
    assert option_choices("wrong_slap") == ("pay_player", "pay_pile")
    assert option_choices("empty_stack") == ("next_jack", "until_turn")
    assert option_choices("tie") == ("reslap", "split")
    assert option_choices("irish_goal") == ("avoid_last", "first_out")
    assert option_choices("say_it") == () == option_choices("time_limit")


def test_to_options_lists_only_differences() -> None:
    assert Rules().to_options() == {"preset": "classic"}
    r = Rules.from_options({"preset": "klatsch-bube", "tie": "reslap", "after_jack": "continue"})
    assert r.to_options() == {"preset": "klatsch-bube", "tie": "reslap"}
    assert r.with_options(time_limit=60).to_options() == {
        "preset": "klatsch-bube",
        "tie": "reslap",
        "time_limit": 60,
    }


def test_option_values_only_the_games_own() -> None:
    assert set(Rules().option_values()) == {
        "after_jack",
        "wrong_slap",
        "empty_stack",
        "tie",
        "time_limit",
        "say_it",
    }
    assert Rules.from_options({"preset": "irish-snap"}).option_values() == {
        "irish_goal": "avoid_last"
    }


BAD: list[tuple[dict[str, Any], str | None, str, str]] = [
    ({"preset": "speed"}, None, "unknown_preset", "unknown preset 'speed'"),
    ({"preset": 3}, None, "bad_option", "preset must be a string"),
    ({"colour": "red"}, None, "unknown_option", "unknown option 'colour'"),
    ({"tie": "coin"}, None, "bad_option", "allowed: reslap, split"),
    ({"after_jack": None}, None, "bad_option", "after_jack"),
    ({"say_it": "yes"}, None, "bad_option", "say_it must be true or false"),
    ({"time_limit": -1}, None, "bad_option", "time_limit"),
    ({"time_limit": 86401}, None, "bad_option", "time_limit"),
    ({"time_limit": 2.5}, None, "bad_option", "time_limit"),
    ({"time_limit": True}, None, "bad_option", "time_limit"),
    ({"irish_goal": "first_out"}, None, "impossible_combination", "Irish Snap option"),
    (
        {"preset": "klatsch-bube", "irish_goal": "avoid_last"},
        None,
        "impossible_combination",
        "Irish Snap option",
    ),
    ({"preset": "irish-snap", "tie": "split"}, None, "impossible_combination", "Slapjack option"),
    ({"after_jack": "continue"}, "irish-snap", "impossible_combination", "Slapjack option"),
    (
        {"preset": "irish-snap-winner", "say_it": True},
        None,
        "impossible_combination",
        "Slapjack option",
    ),
    ({"preset": "irish-snap", "time_limit": 60}, None, "impossible_combination", "Slapjack option"),
    (
        {"say_it": True, "wrong_slap": "pay_pile"},
        None,
        "impossible_combination",
        "say_it replaces wrong_slap",
    ),
    ({"say_it": True, "wrong_slap": "pay_player"}, None, "impossible_combination", "say_it"),
    ({"preset": "say-it", "wrong_slap": "pay_pile"}, None, "impossible_combination", "say_it"),
    ({"preset": "classic"}, "irish-snap", "impossible_combination", "not irish-snap"),
    ({"preset": "irish-snap"}, "slapjack", "impossible_combination", "not slapjack"),
    ({}, "poker", "unknown_game", "unknown game 'poker'"),
]


@pytest.mark.parametrize(("options", "game", "code", "message"), BAD)
def test_bad_rules_are_rejected(
    options: dict[str, Any], game: str | None, code: str, message: str
) -> None:
    with pytest.raises(RulesError) as err:
        Rules.from_options(options, game=game)
    assert err.value.code == code and isinstance(err.value, ValueError)
    assert message in str(err.value)


def test_say_it_preset_turned_off_may_set_wrong_slap() -> None:
    r = Rules.from_options({"preset": "say-it", "say_it": False, "wrong_slap": "pay_pile"})
    assert not r.say_it and r.wrong_slap is WrongSlap.PAY_PILE


def test_with_options_validates() -> None:
    with pytest.raises(RulesError):
        Rules().with_options(irish_goal="first_out")
    assert Rules().with_options(say_it=True).say_it


def test_preset_rules() -> None:
    assert Rules.preset_rules("say-it") is PRESETS["say-it"]
    with pytest.raises(RulesError):
        Rules.preset_rules("nope")
