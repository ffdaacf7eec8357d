"""Load the benchmarks in ``bench/`` (scripts, not a package) for their tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def load_bench(script: str) -> ModuleType:
    """``bench/<script>.py`` as a module (loaded once)."""
    name = f"slapjack_bench_{script}"
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, BENCH_DIR / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load() -> ModuleType:
    """``bench/fairness.py``, the benchmark harness of the end-to-end tests."""
    return load_bench("fairness")
