"""Plots of a simulation run (matplotlib through its Agg canvas: no display needed).

Two panels: how long the games were (share of games per length, the median, a
length axis that ends at a high percentile when a few games are much longer,
those drawn as one hatched bar), and each seat's share of the wins (or, Irish
Snap avoid_last, of the losses) in per cent, every bar labelled with its value so
that a bar too small to see still reads. The legends name only what is drawn.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from slapjack.core import IrishGoal

from .stats import Summary, percentile

if TYPE_CHECKING:  # matplotlib is imported when a plot is drawn, not with the CLI
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".pdf")
"""The files ``--plot`` writes, chosen by the name's ending."""

CLIP_QUANTILE = 0.995
"""The length axis ends at this quantile of the game lengths ..."""
LONG_TAIL = 1.25
"""... when the longest game is more than this times longer (a long, thin tail)."""

BINS = 40
FINISHED_COLOUR = "#3b73b9"
CAPPED_COLOUR = "#e08a2c"
LONGER_COLOUR = "#9a9a9a"
SHARE_COLOUR = "#3b73b9"
SHARE_EDGE = "#1d3f6b"


def share_label(percent: float) -> str:
    """``96.6%``, ``3.4%``, ``0.01%``, ``99.98%``, ``0%``, ``100%``: a share that is
    not 0 or 100 never reads as one (small ones keep two significant digits)."""
    if percent in (0, 100):
        return f"{percent:.0f}%"
    if percent < 0.1:
        return f"{percent:.2g}%"
    for digits in (1, 2, 3, 4):
        text = f"{percent:.{digits}f}"
        if float(text) != 100:
            break
    return f"{text}%"


def length_axis_end(flips: list[int]) -> tuple[float, bool]:
    """Where the length axis ends, and whether that clips the longest games."""
    top = float(max(flips))
    end = percentile(flips, CLIP_QUANTILE)
    if top > end * LONG_TAIL and top - end >= 10:
        return end, True
    return top, False


def _games(k: int) -> str:
    return f"{k:,} game" if k == 1 else f"{k:,} games"


def _lengths(ax: Axes, summary: Summary) -> None:
    from matplotlib.ticker import PercentFormatter

    flips = summary.game_flips
    n = len(flips)
    ax.set_title(f"Game length ({_games(summary.games)})")
    ax.set_ylabel("share of games")
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    if not n:
        ax.text(0.5, 0.5, "no games", ha="center", va="center", transform=ax.transAxes)
        return
    end, clipped = length_axis_end(flips)
    low = min(flips)
    # Whole flips: bins of a whole number of flips, centred on them, at most BINS.
    width = max(1, math.ceil((end - low + 1) / BINS))
    count = max(1, math.ceil((end - low + 1) / width))
    edges = [low - 0.5 + i * width for i in range(count + 1)]
    each = 100.0 / n
    pairs = list(zip(flips, summary.game_finished, strict=True))
    series: list[tuple[list[int], str, str]] = []
    for done, name, colour in (
        (True, "finished", FINISHED_COLOUR),
        (False, "capped", CAPPED_COLOUR),
    ):
        inside = [f for f, d in pairs if d is done and f <= end]
        total = sum(1 for _, d in pairs if d is done)
        if total:
            share = f" ({share_label(100 * total / n)})" if not done else ""
            series.append((inside, f"{name}: {_games(total)}{share}", colour))
    drawn = [s for s in series if s[0]]
    if drawn:
        ax.hist(
            [s[0] for s in drawn],
            bins=edges,
            stacked=True,
            weights=[[each] * len(s[0]) for s in drawn],
            label=[s[1] for s in drawn],
            color=[s[2] for s in drawn],
        )
    for values, label, colour in series:
        if not values:  # every game of this kind is beyond the axis: still in the legend
            ax.bar([], [], color=colour, label=label)
    if clipped:
        longer = [f for f in flips if f > end]
        capped = sum(1 for f, d in pairs if f > end and not d)
        x = end + 1.5 * width
        what = f"{_games(len(longer))} longer than {end:,.0f} flips"
        if capped:
            what += f" ({capped:,} capped)"
        ax.bar(
            x,
            each * len(longer),
            width=width,
            color="white",
            edgecolor=LONGER_COLOUR,
            hatch="///",
            label=what,
        )
        ax.annotate(
            f"> {end:,.0f}",
            (x, each * len(longer)),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            fontsize=8,
            color="#555555",
        )
    median = summary.flips_median
    ax.axvline(
        median, color="black", linestyle="--", linewidth=1, label=f"median: {median:,g} flips"
    )
    xlabel = "flips per game"
    if clipped:
        xlabel += f" (axis clipped at the {100 * CLIP_QUANTILE:g}th percentile, {end:,.0f} flips)"
    ax.set_xlabel(xlabel)
    ax.set_xlim(left=max(0.0, low - 2 * width))
    ax.legend(fontsize=9)


def _shares(ax: Axes, summary: Summary) -> None:
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    rules = summary.rules
    if rules.is_irish and rules.irish_goal is IrishGoal.AVOID_LAST:
        shares, what = summary.loss_share, "Loss share (the last holding cards)"
    else:
        shares, what = summary.win_share, "Win share (shared wins split)"
    n = len(shares)
    percents = [100 * s for s in shares]
    many = n > 8
    labels = [f"{s + 1} {lv}" if many else f"{s + 1}\n{lv}" for s, lv in enumerate(summary.levels)]
    bars = ax.bar(range(n), percents, color=SHARE_COLOUR, edgecolor=SHARE_EDGE, linewidth=0.8)
    ax.set_xticks(range(n), labels, rotation=90 if many else 0, fontsize=7 if many else 10)
    ax.bar_label(
        bars,
        labels=[share_label(p) for p in percents],
        padding=2,
        fontsize=6 if many else 9,
        rotation=90 if many else 0,
    )
    even = 100 / n
    ax.axhline(
        even, color="grey", linestyle=":", linewidth=1, label=f"even share: {share_label(even)}"
    )
    top = max([*percents, even])
    # The legend goes to the side with the lower bars, and above their labels.
    first, second = max(percents[: (n + 1) // 2]), max(percents[n // 2 :])
    side, below = ("upper left", first) if first < second else ("upper right", second)
    ylim = max(top * (1.3 if many else 1.15), below / 0.78, even / 0.78)
    ax.set_ylim(0, min(ylim, 128))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
    ax.set_yticks([t for t in ax.get_yticks() if 0 <= t <= min(100, ylim)])
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.set_xlabel("seat and bot level")
    done = summary.finished
    ax.set_ylabel(f"share of the {done:,} finished {'game' if done == 1 else 'games'}")
    ax.set_title(what)
    if not summary.finished:
        ax.text(0.5, 0.5, "no finished games", ha="center", va="center", transform=ax.transAxes)
    ax.legend(fontsize=9, loc=side)


def draw_summary(summary: Summary) -> Figure:
    """The figure: game lengths on the left, win (or loss) shares on the right."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 5), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    _lengths(left, summary)
    _shares(right, summary)
    rules = summary.rules
    opts = ", ".join(f"{k}={v}" for k, v in rules.to_options().items())
    fig.suptitle(f"{rules.game.value} ({opts}), seed {summary.seed}")
    return fig


def plot_summary(
    summary: Summary, target: Path | str | IO[bytes], *, fmt: str | None = None
) -> None:
    """Draw :func:`draw_summary` into ``target``: a path (the format from its
    ending, :data:`FORMATS`) or a binary file with ``fmt`` (``png``, ``svg``, ``pdf``)."""
    if fmt is None:
        if not isinstance(target, (str, Path)):
            raise ValueError("writing the plot to a file object needs fmt")
        suffix = Path(target).suffix.lower()
        if suffix not in FORMATS:
            raise ValueError(f"the plot file must end in {', '.join(FORMATS)}: {target}")
        fmt = suffix[1:]
    fmt = fmt.lower().lstrip(".")
    if f".{fmt}" not in FORMATS:
        raise ValueError(f"unknown plot format {fmt!r}; formats: {', '.join(FORMATS)}")
    metadata: dict[str, Any] = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(fmt, {})
    draw_summary(summary).savefig(target, format=fmt, dpi=110, metadata=metadata)
