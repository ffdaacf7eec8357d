"""``bench/referee_model.py``: the referee in a model network, small and whole."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

MODEL = Path(__file__).resolve().parents[2] / "bench" / "referee_model.py"


def load() -> object:
    spec = importlib.util.spec_from_file_location("slapjack_bench_referee_model", MODEL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_model_prints_honest_accuracy_and_the_forger_per_seat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = load()
    args = ["--scenarios", "mixed", "--rooms", "8", "--races", "40", "--display", "0,17"]
    assert model.main(args) == 0  # type: ignore[attr-defined]
    out = capsys.readouterr().out
    honest = [float(x) for x in re.findall(r"fastest wins ([\d.]+) %", out)]
    assert len(honest) == 2 and all(share > 95.0 for share in honest), out
    held_after = [float(x) for x in re.findall(r"held after a median of ([\d.]+) races", out)]
    assert len(held_after) == 8 and max(held_after) < 40, out  # every seat's forger is found
    wins = [float(x) for x in re.findall(r"forger −30 ms wins ([\d.]+) % in all", out)]
    assert len(wins) == 2 and all(share < 35.0 for share in wins), out


def test_the_model_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    model = load()
    with pytest.raises(SystemExit) as exc:
        model.main(["--scenarios", "moon"])  # type: ignore[attr-defined]
    assert exc.value.code == 2
    assert "unknown scenario 'moon'" in capsys.readouterr().err
