"""Many games: seeds, reproducibility across processes, configuration errors."""

from __future__ import annotations

import pytest

from slapjack.bots import UnknownBotLevel
from slapjack.core import Rules
from slapjack.sim import SimConfig, SimulationError, game_seed, levels_of, simulate

MIXED = ("pro", "casual", "casual", "beginner")


def test_game_seeds_are_stable_and_distinct() -> None:
    assert game_seed(7, 0) == game_seed(7, 0)
    seeds = {game_seed(7, i) for i in range(1000)} | {game_seed(8, i) for i in range(1000)}
    assert len(seeds) == 2000
    assert all(0 <= s < 2**64 for s in seeds)


def test_reproducible_whatever_the_number_of_jobs() -> None:
    config = SimConfig(Rules.from_options({"preset": "say-it"}), MIXED, seed=7)
    one = simulate(config, 40, jobs=1)
    two = simulate(config, 40, jobs=2, chunk=3)
    assert one == two
    assert [r.index for r in two] == list(range(40))
    other_seed = simulate(SimConfig(config.rules, MIXED, seed=8), 40, jobs=1)
    assert [r.flips for r in other_seed] != [r.flips for r in one]


def test_progress_counts_every_game() -> None:
    seen: list[int] = []
    config = SimConfig(Rules(), ("casual", "pro"), seed=1)
    results = simulate(config, 25, jobs=1, chunk=4, progress=seen.append)
    assert sum(seen) == 25 == len(results)
    assert simulate(config, 0, jobs=1) == []


def test_invariant_checked_in_bulk() -> None:
    config = SimConfig(
        Rules.from_options({"preset": "irish-snap-winner"}), MIXED, seed=5, check=True
    )
    results = simulate(config, 30, jobs=1)
    assert all(r.finished or r.capped for r in results)


def test_levels_of() -> None:
    assert levels_of("pro, casual", 2) == ("pro", "casual")
    assert levels_of(["pro", "pro", "beginner"], 3) == ("pro", "pro", "beginner")
    with pytest.raises(SimulationError, match="4 players need 4 bot levels, got 3"):
        levels_of("pro,casual,casual", 4)
    with pytest.raises(UnknownBotLevel):
        levels_of("pro,wizard", 2)


@pytest.mark.parametrize(
    ("levels", "kwargs"),
    [
        (("casual",), {}),
        (("casual",) * 53, {}),
        (("casual", "god"), {}),
        (MIXED, {"cap": 0}),
        (MIXED, {"seed": "7"}),
        (MIXED, {"window_ms": -1.0}),
        (MIXED, {"names": ("a", "a", "b", "c")}),
        (MIXED, {"names": ("a", "b")}),
    ],
)
def test_bad_configurations_are_typed_errors(
    levels: tuple[str, ...], kwargs: dict[str, object]
) -> None:
    with pytest.raises(ValueError) as info:
        SimConfig(Rules(), levels, **kwargs)  # type: ignore[arg-type]
    assert hasattr(info.value, "code")


@pytest.mark.parametrize("kwargs", [{"jobs": 0}, {"jobs": True}])
def test_bad_run_arguments(kwargs: dict[str, object]) -> None:
    config = SimConfig(Rules(), ("casual", "pro"))
    with pytest.raises(SimulationError):
        simulate(config, 3, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(SimulationError):
        simulate(config, -1)


@pytest.mark.slow
def test_soak_every_preset_with_the_invariant_checked() -> None:
    """The long version of test_invariant_checked_in_bulk: 600 checked games per preset."""
    from slapjack.core import PRESETS

    for preset in PRESETS:
        config = SimConfig(Rules.from_options({"preset": preset}), MIXED, seed=99, check=True)
        results = simulate(config, 600, jobs=2)
        assert all(r.finished or r.capped for r in results)
        assert sum(r.flips for r in results) > 600 * 40
