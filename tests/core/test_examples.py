"""The records in examples/: each replays to its hand-checked final position."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from slapjack.core import Record, final_position, option_choices, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RECORDS = sorted(p for p in EXAMPLES.rglob("*.json") if not p.name.endswith(".expected.json"))


def position(name: str) -> dict[str, Any]:
    record = Record.from_json((EXAMPLES / name).read_text(encoding="utf-8"))
    return final_position(replay(record, check=True))


def sizes(pos: dict[str, Any]) -> dict[str, int]:
    return {name: len(cards) for name, cards in pos["stacks"].items()}


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_example_replays_to_its_expected_position(path: Path) -> None:
    record = Record.from_json(path.read_text(encoding="utf-8"))
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text(encoding="utf-8"))
    assert final_position(replay(record, check=True)) == expected
    # a record survives a round trip through its own JSON form
    again = Record.from_json(record.to_json())
    assert final_position(replay(again)) == expected


def test_every_option_value_has_an_example() -> None:
    names = {p.stem for p in (EXAMPLES / "options").glob("*.json")}
    for option in ("after_jack", "wrong_slap", "empty_stack", "tie", "irish_goal"):
        for value in option_choices(option):
            assert f"{option}-{value}" in names
    assert {"say_it-true", "say_it-false", "time_limit-300"} <= names
    assert len(RECORDS) >= 16


# Hand-checked facts of each example, stated from the rules (not from the engine).


def test_en_worked_example_facts() -> None:
    pos = position("en-worked-example.json")
    assert pos["stacks"]["Ben"][-3:] == ["5C", "KD", "JS"]
    assert sizes(pos) == {"Anna": 17, "Ben": 19, "Carla": 16}
    assert pos["turn"] == "Carla" and pos["centre"] == [] and not pos["finished"]


def test_de_short_worked_example_facts() -> None:
    pos = position("de-short-worked-example.json")
    assert pos["stacks"]["Ben"][-4:] == ["8H", "QS", "3C", "JD"]
    assert pos["events"][8]["card"] == "5S" and pos["events"][8]["seat"] == "Ben"
    assert pos["centre"] == ["7D", "5S", "2C", "9H"]  # 7D: Clara's penalty, face down
    assert sizes(pos) == {"Anna": 15, "Ben": 19, "Clara": 14} and pos["turn"] == "Ben"


@pytest.mark.parametrize(
    ("value", "turn", "centre"), [("left_of_winner", "Ben", ["4C"]), ("continue", "Dora", ["3D"])]
)
def test_after_jack_facts(value: str, turn: str, centre: list[str]) -> None:
    pos = position(f"options/after_jack-{value}.json")
    assert pos["stacks"]["Dora"][-2:] == ["2C", "JS"] and pos["turn"] == turn
    assert pos["centre"] == centre


def test_wrong_slap_facts() -> None:
    pos = position("options/wrong_slap-pay_player.json")
    assert pos["stacks"]["Anna"][-1] == "8H" and pos["stacks"]["Ben"][-1] == "7D"
    assert pos["centre"] == ["5C", "6D"] and sizes(pos) == {"Anna": 18, "Ben": 16, "Carla": 16}
    pos = position("options/wrong_slap-pay_pile.json")
    assert pos["stacks"]["Anna"][-3:] == ["8H", "5C", "JS"] and pos["turn"] == "Ben"
    assert sizes(pos) == {"Anna": 20, "Ben": 16, "Carla": 16}


def test_empty_stack_facts() -> None:
    pos = position("options/empty_stack-next_jack.json")
    assert pos["stacks"]["P01"] == ["5C", "JS"] and pos["stacks"]["P04"] == ["6C", "JD"]
    assert pos["out"] == ["P02", "P03"] and pos["turn"] == "P05"
    assert [e["reason"] for e in pos["events"] if e["type"] == "eliminated"] == ["lost_jack"] * 2
    pos = position("options/empty_stack-until_turn.json")
    assert pos["stacks"]["P01"] == ["5C", "JS"] and pos["stacks"]["P03"] == []
    assert pos["out"] == ["P02"] and pos["turn"] == "P04" and pos["centre"] == ["JD"]


def test_tie_facts() -> None:
    pos = position("options/tie-reslap.json")
    assert [e["reaction_ms"] for e in pos["events"] if e["type"] == "race_tied"] == [200, 180]
    assert pos["stacks"]["Ben"][-3:] == ["2C", "3D", "JS"] and pos["turn"] == "Anna"
    pos = position("options/tie-split.json")
    assert pos["stacks"]["Dora"][-2:] == ["2C", "JS"] and pos["stacks"]["Anna"][-1] == "3D"
    assert pos["turn"] == "Ben"


def test_time_limit_facts() -> None:
    pos = position("options/time_limit-300.json")
    assert pos["finished"] and pos["winners"] == ["Ben"] and pos["turn"] is None
    assert sizes(pos) == {"Anna": 17, "Ben": 18, "Carla": 17}
    pos = position("options/time_limit-300-shared.json")
    assert pos["winners"] == ["Anna", "Ben"] and pos["centre"] == ["2C", "3D"]


def test_say_it_facts() -> None:
    pos = position("options/say_it-true.json")
    assert pos["stacks"]["Ben"][-2:] == ["2C", "JS"] and pos["stacks"]["Carla"][-1] == "3D"
    assert pos["stacks"]["Anna"][-1] == "9D" and pos["turn"] == "Anna" and pos["centre"] == []
    pos = position("options/say_it-false.json")
    assert pos["stacks"]["Anna"][-3:] == ["2C", "3D", "JS"] and pos["stacks"]["Ben"][-1] == "9S"
    assert pos["turn"] == "Carla" and pos["centre"] == ["9D"]


def test_irish_goal_facts() -> None:
    pos = position("options/irish_goal-avoid_last.json")
    players = [f"P{i:02d}" for i in range(1, 53)]
    assert pos["finished"] and pos["winners"] == players[:51] == pos["out"]
    assert pos["loser"] == "P52" and pos["stacks"]["P52"] == ["AS"] and len(pos["centre"]) == 51
    pos = position("options/irish_goal-first_out.json")
    assert pos["finished"] and pos["winners"] == ["P01"] and pos["loser"] is None
    assert pos["stacks"]["P04"][-2:] == ["5C", "2D"] and pos["stacks"]["P01"] == []
