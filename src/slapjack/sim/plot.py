"""Plots of a simulation run (matplotlib through its Agg canvas: no display needed)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from slapjack.core import IrishGoal

from .stats import Summary

FORMATS = (".png", ".svg", ".pdf")


def plot_summary(summary: Summary, path: Path) -> None:
    """Draw the distribution of game length and the win (or loss) shares into ``path``."""
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"the plot file must end in {', '.join(FORMATS)}: {path}")
    fig = Figure(figsize=(11, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    pairs = list(zip(summary.game_flips, summary.game_finished, strict=True))
    finished = [f for f, done in pairs if done]
    capped = [f for f, done in pairs if not done]
    left.hist([finished, capped], bins=40, stacked=True, label=["finished", "capped"])
    left.axvline(summary.flips_median, color="black", linestyle="--", linewidth=1, label="median")
    left.set_xlabel("flips per game")
    left.set_ylabel("games")
    left.set_title(f"Game length ({summary.games} games)")
    left.legend()
    labels = [f"{s + 1}\n{lv}" for s, lv in enumerate(summary.levels)]
    rules = summary.rules
    if rules.is_irish and rules.irish_goal is IrishGoal.AVOID_LAST:
        shares, what = summary.loss_share, "Loss share (the last holding cards)"
    else:
        shares, what = summary.win_share, "Win share (shared wins split)"
    right.bar(range(len(shares)), shares, tick_label=labels)
    right.axhline(1 / len(shares), color="grey", linestyle=":", linewidth=1, label="even share")
    right.set_xlabel("seat and bot level")
    right.set_ylabel("share of finished games")
    right.set_ylim(0, 1)
    right.set_title(what)
    right.legend()
    fig.suptitle(f"{rules.game.value}, preset {rules.preset}, seed {summary.seed}")
    fig.savefig(path)
