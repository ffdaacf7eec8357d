"""The replay viewer's steps are exactly the engine's replay, cut into steps."""

from __future__ import annotations

import contextlib
import json
import random

import pytest

from slapjack.core import (
    Flip,
    IllegalAction,
    Record,
    RecordError,
    Rules,
    Slap,
    Table,
    TimeUp,
    event_to_dict,
    replay,
    spectate,
)
from slapjack.web.replay import replay_steps

CASES = [
    ("classic", {}),
    ("klatsch-bube", {}),
    ("say-it", {}),
    ("classic", {"tie": "reslap", "time_limit": 20}),
    ("irish-snap", {}),
    ("irish-snap-winner", {}),
]


def random_record(preset: str, extra: dict[str, object], n: int, seed: int) -> Record:
    """A game driven by random (legal and illegal) inputs, the way a room drives one."""
    rng = random.Random(seed)
    rules = Rules.from_options({"preset": preset, **extra})
    table = Table.new(rules, [f"P{i}" for i in range(n)], seed=seed)
    game = table.game
    t = 0
    for _ in range(600):
        if game.over:
            break
        t += rng.randint(20, 400)
        if rules.time_limit and t >= rules.time_limit * 1000:
            table.apply(TimeUp(t))
            break
        if game.race_open or rng.random() < 0.3:
            seat = rng.randrange(n)
            reaction = float(rng.choice([150, 150, rng.uniform(100, 700)]))
            with contextlib.suppress(IllegalAction):
                table.apply(Slap(seat, reaction, rng.random() < 0.7, t))
            if game.race_open and rng.random() < 0.4:
                table.settle(final=rng.random() < 0.5)
            continue
        if game.needs_settle:
            table.settle(final=True)
            if game.over:
                break
        if game.turn is not None:
            table.apply(Flip(game.turn, t))
    return table.record


@pytest.mark.parametrize(("preset", "extra"), CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_steps_equal_the_engine_replay(preset: str, extra: dict[str, object], seed: int) -> None:
    record = Record.from_json(random_record(preset, extra, 2 + seed, seed).to_json())
    out = replay_steps(record)
    steps = out["steps"]
    assert out["truncated"] is False
    expected = replay(record)
    assert steps[0]["action"] is None and steps[0]["view"]["flips"] == 0
    events = [e for step in steps for e in step["events"]]
    assert events == [event_to_dict(e) for e in expected.events]
    final = spectate(expected.game).to_dict()
    final["flip_id"] = expected.game.flips
    assert steps[-1]["view"] == final
    actions = [s["action"] for s in steps[1:] if not s["action"].get("implicit")]
    assert actions == record.to_dict()["actions"]
    # Each step shows only face-up cards: never more than the pile's face-up part.
    for step in steps:
        view = step["view"]
        assert view["seat"] is None
        assert len(view["centre_top"]) <= view["centre_size"] - view["centre_face_down"]
    json.dumps(out)  # all JSON


def test_a_bad_record_is_a_record_error() -> None:
    record = random_record("classic", {}, 3, 9)
    data = record.to_dict()
    data["actions"].insert(0, {"t": 0, "flip": "P1"})  # P1 is not on turn
    with pytest.raises(RecordError):
        replay_steps(Record.from_dict(data))
