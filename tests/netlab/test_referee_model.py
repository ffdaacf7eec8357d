"""``bench/referee_model.py``: the referee in a model network, small and whole."""

from __future__ import annotations

import re
from types import ModuleType

import pytest

from slapjack.netlab import referee_model


def load() -> ModuleType:
    return referee_model


def test_the_model_prints_honest_accuracy_and_the_forger_per_seat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = load()
    args = ["--scenarios", "mixed", "--rooms", "8", "--races", "40", "--display", "0,17"]
    assert model.main(args) == 0
    out = capsys.readouterr().out
    honest = [float(x) for x in re.findall(r"fastest wins ([\d.]+) %", out)]
    assert len(honest) == 2 and all(share > 95.0 for share in honest), out
    held_after = [float(x) for x in re.findall(r"held after a median of ([\d.]+) races", out)]
    assert len(held_after) == 8 and max(held_after) < 40, out  # every seat's forger is found
    within = [int(x) for x in re.findall(r"9 in 10 within (\d+)\)", out)]
    assert len(within) == 8 and all(w >= m for w, m in zip(within, held_after, strict=True))
    wins = [float(x) for x in re.findall(r"forger −30 ms wins ([\d.]+) % in all", out)]
    assert len(wins) == 2 and all(share < 35.0 for share in wins), out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scenarios", "moon"], "unknown scenario 'moon'"),
        (["--set", "nonsense=1"], "expected NAME=VALUE"),
        (["--set", "floor_q"], "expected NAME=VALUE"),
        (["--set", "floor_q=much"], "floor_q takes a float"),
        (["--set", "floor_q=0.9"], "floor_q"),
        (["--set", "use_stamps=maybe"], "use_stamps takes a bool"),
    ],
)
def test_the_model_refuses_bad_arguments(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    model = load()
    with pytest.raises(SystemExit) as exc:
        model.main(args)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_settings_reach_the_referee(capsys: pytest.CaptureFixture[str]) -> None:
    """With the shift tests' thresholds out of reach, a small forger on the
    4G seat is found later (or not at all) than with the defaults."""
    model = load()
    base = ["--scenarios", "mixed", "--rooms", "8", "--races", "40"]

    def seat3(extra: list[str]) -> float:
        assert model.main(base + extra) == 0
        out = capsys.readouterr().out
        return float(re.findall(r"held after a median of ([\d.]+) races", out)[3])

    config = model.fair_config(["floor_q=0", "shift_z=99", "use_stamps=false"])
    assert config.floor_q == 0.0 and config.shift_z == 99.0 and config.use_stamps is False
    assert seat3(["--set", "shift_z=99", "--set", "floor_z=99"]) > seat3([])
