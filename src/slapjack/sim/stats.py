"""Summing up many simulated games: the figures ``slapjack simulate`` prints and writes."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from slapjack.core import Rules

from .play import GameResult


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0…1) by linear interpolation; 0.0 for no values."""
    if not values:
        return 0.0
    data = sorted(values)
    pos = (len(data) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return float(data[lo] + (data[hi] - data[lo]) * (pos - lo))


@dataclass
class Summary:
    """The figures of a simulation run. Per-seat lists are indexed by seat."""

    rules: Rules
    levels: tuple[str, ...]
    seed: int
    cap: int
    games: int = 0
    finished: int = 0
    capped: int = 0
    time_ups: int = 0
    total_flips: int = 0
    game_flips: list[int] = field(default_factory=list)
    """Flips of every game, in game order (for plots; not written to JSON)."""
    game_finished: list[bool] = field(default_factory=list)
    """Whether each game finished (not capped), in game order (not written to JSON)."""
    durations_ms: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)
    """Finished games in which the seat was among the winners."""
    win_credit: list[float] = field(default_factory=list)
    """Each finished game gives 1 to share among its winners."""
    losses: list[int] = field(default_factory=list)
    """Irish Snap: games the seat lost (the last holding cards)."""
    first_out: list[int] = field(default_factory=list)
    """Irish Snap: games in which the seat got rid of its cards first."""
    jacks: list[int] = field(default_factory=list)
    wrong_slaps: list[int] = field(default_factory=list)
    forfeits: list[int] = field(default_factory=list)
    pickups: list[int] = field(default_factory=list)
    eliminations: list[int] = field(default_factory=list)
    """Slapjack: games in which the seat was put out before the end."""
    ties: int = 0
    splits: int = 0
    no_slaps: int = 0

    def __post_init__(self) -> None:
        n = len(self.levels)
        for name in (
            "wins",
            "losses",
            "first_out",
            "jacks",
            "wrong_slaps",
            "forfeits",
            "pickups",
            "eliminations",
        ):
            if not getattr(self, name):
                setattr(self, name, [0] * n)
        if not self.win_credit:
            self.win_credit = [0.0] * n

    @classmethod
    def of(
        cls, rules: Rules, levels: Sequence[str], seed: int, cap: int, results: Sequence[GameResult]
    ) -> Summary:
        summary = cls(rules, tuple(levels), seed, cap)
        for r in results:
            summary.add(r)
        return summary

    def add(self, r: GameResult) -> None:
        """Count one game (call in game order for reproducible float sums)."""
        n = len(self.levels)
        if len(r.jacks) != n:
            raise ValueError(f"a game of {len(r.jacks)} seats in a summary of {n}")
        self.games += 1
        self.total_flips += r.flips
        self.game_flips.append(r.flips)
        self.game_finished.append(r.finished)
        self.durations_ms.append(r.duration_ms)
        self.capped += r.capped
        self.time_ups += r.time_up
        if r.finished:
            self.finished += 1
            if r.winners:
                share = 1.0 / len(r.winners)
                for s in r.winners:
                    self.wins[s] += 1
                    self.win_credit[s] += share
            if r.loser is not None:
                self.losses[r.loser] += 1
        if self.rules.is_irish:
            if r.out_order:
                self.first_out[r.out_order[0]] += 1
        else:
            for s in r.out_order:
                self.eliminations[s] += 1
        for s in range(n):
            self.jacks[s] += r.jacks[s]
            self.wrong_slaps[s] += r.wrong_slaps[s]
            self.forfeits[s] += r.forfeits[s]
            self.pickups[s] += r.pickups[s]
        self.ties += r.ties
        self.splits += r.splits
        self.no_slaps += r.no_slaps

    # ------------------------------------------------------------ figures

    @property
    def flips_median(self) -> float:
        return float(statistics.median(self.game_flips)) if self.game_flips else 0.0

    @property
    def flips_p90(self) -> float:
        return percentile(self.game_flips, 0.9)

    @property
    def duration_median_ms(self) -> float:
        return float(statistics.median(self.durations_ms)) if self.durations_ms else 0.0

    @property
    def win_share(self) -> list[float]:
        """Each seat's share of the finished games' wins (shared wins split)."""
        if not self.finished:
            return [0.0] * len(self.levels)
        return [c / self.finished for c in self.win_credit]

    @property
    def loss_share(self) -> list[float]:
        """Irish Snap: each seat's share of the finished games it lost."""
        if not self.finished:
            return [0.0] * len(self.levels)
        return [c / self.finished for c in self.losses]

    def by_level(self) -> dict[str, dict[str, float]]:
        """Per bot level: its seats, their total win share and the share per seat."""
        out: dict[str, dict[str, float]] = {}
        for s, level in enumerate(self.levels):
            row = out.setdefault(
                level,
                {"seats": 0, "win_share": 0.0, "jacks": 0, "wrong_slaps": 0, "losses": 0},
            )
            row["seats"] += 1
            # the wins first, then one division: a sum of shares is off by a rounding
            # (1/6 + 4/6 + 1/6 = 0.9999999999999999, shown as "100.0000%")
            row["win_share"] += self.win_credit[s]
            row["jacks"] += self.jacks[s]
            row["wrong_slaps"] += self.wrong_slaps[s]
            row["losses"] += self.losses[s]
        for row in out.values():
            row["win_share"] = row["win_share"] / self.finished if self.finished else 0.0
            row["win_share_per_seat"] = row["win_share"] / row["seats"]
        return out

    def histogram(self, bins: int = 20) -> dict[str, list[int]]:
        """Game lengths in ``bins`` equal bins from 0 to the longest game."""
        top = max(self.game_flips, default=0)
        width = max(1, -(-(top + 1) // bins))
        counts = [0] * bins
        for f in self.game_flips:
            counts[min(f // width, bins - 1)] += 1
        return {"edges": [i * width for i in range(bins + 1)], "counts": counts}

    def to_dict(self) -> dict[str, Any]:
        """The JSON figures (``slapjack simulate --json``)."""
        return {
            "format": "slapjack-sim/1",
            "game": self.rules.game.value,
            "rules": self.rules.to_options(),
            "players": len(self.levels),
            "bots": list(self.levels),
            "seed": self.seed,
            "cap": self.cap,
            "games": self.games,
            "finished": self.finished,
            "capped": self.capped,
            "time_ups": self.time_ups,
            "total_flips": self.total_flips,
            "flips_median": self.flips_median,
            "flips_p90": self.flips_p90,
            "flips_mean": self.total_flips / self.games if self.games else 0.0,
            "duration_median_ms": self.duration_median_ms,
            "wins": list(self.wins),
            "win_share": self.win_share,
            "losses": list(self.losses),
            "loss_share": self.loss_share,
            "first_out": list(self.first_out),
            "jacks": list(self.jacks),
            "wrong_slaps": list(self.wrong_slaps),
            "forfeits": list(self.forfeits),
            "pickups": list(self.pickups),
            "eliminations": list(self.eliminations),
            "ties": self.ties,
            "splits": self.splits,
            "no_slaps": self.no_slaps,
            "by_level": self.by_level(),
            "flips_histogram": self.histogram(),
        }
