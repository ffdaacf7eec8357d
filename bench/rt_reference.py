"""The reaction-time figures the bot levels are calibrated on (docs/bots.md).

    .venv/bin/python bench/rt_reference.py PATH/TO/mental-chrono-data_raw.csv

The data set is the "Mental Chronometry" data of M. Franke's *An Introduction
to Data Analysis* (github.com/michael-franke/intro-data-analysis,
``data_sets/mental-chrono-data_raw.csv``): an online replication of Donders'
subtraction experiment, 50 people on Prolific, in their browsers, pressing the
space bar for a shape (simple reaction), for one of two shapes (go/no-go), or F
or J for one shape or the other (discrimination). It is not part of this
repository; pass the file's path.

Per block it prints, over the correct main trials: the median of the people's
median reactions with quartiles and range, the errors, and an ex-Gaussian fit
to the vincentized distribution (Ratcliff 1979: the average over people of each
person's 5th, 10th, ..., 95th percentile), fitted by least squares on those
quantiles.
"""

from __future__ import annotations

import csv
import math
import statistics
import sys
from collections import defaultdict

from slapjack.bots import ExGaussian

BLOCKS = {"reaction": "simple", "goNoGo": "go/no-go", "discrimination": "discrimination"}
PROBS = [i / 20 for i in range(1, 20)]


def quantile(sorted_values: list[float], p: float) -> float:
    pos = (len(sorted_values) - 1) * p
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def exg_quantile(model: ExGaussian, p: float) -> float:
    lo, hi = model.mu - 8 * model.sigma, model.mu + 8 * model.sigma + 20 * model.tau
    for _ in range(50):
        mid = (lo + hi) / 2
        if model.cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def fit(vincent: list[float]) -> tuple[ExGaussian, float]:
    """Least squares on the quantiles: a coarse grid, then a pattern search."""

    def err(mu: float, sigma: float, tau: float) -> float:
        if sigma <= 0 or tau <= 0:
            return math.inf
        m = ExGaussian(mu, sigma, tau, floor=-math.inf)
        return sum((exg_quantile(m, p) - q) ** 2 for p, q in zip(PROBS, vincent, strict=True))

    mean = statistics.fmean(vincent)
    best = min(
        (err(mean - t, s, t), mean - t, s, t) for s in range(5, 101, 5) for t in range(5, 201, 5)
    )
    e, mu, sigma, tau = best
    for step in (4.0, 2.0, 1.0, 0.5):
        improved = True
        while improved:
            improved = False
            for dm in (-step, 0.0, step):
                for ds in (-step, 0.0, step):
                    for dt in (-step, 0.0, step):
                        cand = err(mu + dm, sigma + ds, tau + dt)
                        if cand < e - 1e-9:
                            e, mu, sigma, tau, improved = cand, mu + dm, sigma + ds, tau + dt, True
    return ExGaussian(mu, sigma, tau, floor=-math.inf), math.sqrt(e / len(PROBS))


def main(path: str) -> None:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    trials: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    errors: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        block, _, stage = r["trial_type"].partition("_")
        if stage != "main" or block not in BLOCKS:
            continue
        counts[block] += 1
        if r["correctness"] != "correct":
            errors[block] += 1
            continue
        if block == "goNoGo" and r["response"] != "space":
            continue  # a correct no-go: no reaction time
        trials[block][r["submission_id"]].append(float(r["RT"]))
    people = {r["submission_id"] for r in rows}
    ages = sorted(int(r["age"]) for r in {r["submission_id"]: r for r in rows}.values())
    print(f"{len(people)} people, ages {ages[0]}-{ages[-1]} (median {statistics.median(ages)})")
    medians_of: dict[str, dict[str, float]] = {}
    for block, label in BLOCKS.items():
        per_person = trials[block]
        medians = sorted(statistics.median(v) for v in per_person.values())
        medians_of[block] = {p: statistics.median(v) for p, v in per_person.items()}
        vincent = [
            statistics.fmean(quantile(sorted(v), p) for v in per_person.values()) for p in PROBS
        ]
        model, rmse = fit(vincent)
        q = [quantile(medians, p) for p in (0.1, 0.25, 0.5, 0.75, 0.9)]
        print(
            f"{label}: {sum(len(v) for v in per_person.values())} correct RTs;"
            f" people's medians: median {q[2]:.0f}, quartiles {q[1]:.0f}-{q[3]:.0f},"
            f" 10th/90th {q[0]:.0f}/{q[4]:.0f}, range {medians[0]:.0f}-{medians[-1]:.0f};"
            f" errors {errors[block]} of {counts[block]} trials;"
            f" ex-Gaussian mu {model.mu:.0f} sigma {model.sigma:.0f} tau {model.tau:.0f}"
            f" (median {model.median:.0f}, rmse {rmse:.1f} ms)"
        )
    diffs = [
        medians_of["goNoGo"][p] - medians_of["reaction"][p]
        for p in medians_of["goNoGo"]
        if p in medians_of["reaction"]
    ]
    print(f"go/no-go minus simple, per person: median {statistics.median(diffs):.0f} ms")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
