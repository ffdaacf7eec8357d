"""The simulator: bot-only games in bulk, reproducible from a seed, and their figures."""

from __future__ import annotations

from .play import DEFAULT_CAP, DEFAULT_WINDOW_MS, GameResult, SimulationError, play_game
from .run import SimConfig, game_seed, levels_of, play_indexed, run_range, simulate
from .stats import Summary, percentile

__all__ = [
    "DEFAULT_CAP",
    "DEFAULT_WINDOW_MS",
    "GameResult",
    "SimConfig",
    "SimulationError",
    "Summary",
    "game_seed",
    "levels_of",
    "percentile",
    "play_game",
    "play_indexed",
    "run_range",
    "simulate",
]
