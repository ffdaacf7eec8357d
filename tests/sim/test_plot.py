"""The simulator's plot: per cent, labels, legends for what is drawn, the length axis."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from slapjack.core import Rules
from slapjack.sim import SimConfig, Summary, simulate
from slapjack.sim.plot import CLIP_QUANTILE, draw_summary, plot_summary, share_label

LEVELS = ("pro", "casual", "casual", "beginner")


def summary_of(
    flips: list[int], finished: list[bool], credit: list[float], rules: Rules | None = None
) -> Summary:
    done = sum(finished)
    return Summary(
        rules or Rules(),
        LEVELS[: len(credit)],
        seed=3,
        cap=5000,
        games=len(flips),
        finished=done,
        capped=len(flips) - done,
        game_flips=flips,
        game_finished=finished,
        win_credit=credit,
    )


def axes(summary: Summary) -> tuple[Any, Any]:
    left, right = draw_summary(summary).axes
    return left, right


def legend(ax: Any) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_share_labels() -> None:
    assert share_label(96.6) == "96.6%" and share_label(3.44) == "3.4%"
    assert share_label(0.01) == "0.01%" and share_label(0.001) == "0.001%"
    assert share_label(0.0125) == "0.013%" and share_label(0) == "0%"
    assert share_label(99.98) == "99.98%" and share_label(100) == "100%"


def test_a_real_run_in_percent_with_every_bar_labelled() -> None:
    config = SimConfig(Rules(), LEVELS, seed=3)
    summary = Summary.of(config.rules, LEVELS, 3, config.cap, simulate(config, 200, jobs=1))
    left, right = axes(summary)
    heights = [bar.get_height() for bar in right.patches]
    assert sum(heights) == pytest.approx(100.0)  # per cent, not shares of 1
    labels = [t.get_text() for t in right.texts]
    assert labels == [share_label(100 * s) for s in summary.win_share]
    assert all(t.get_text().endswith("%") for t in right.get_yticklabels())
    assert max(t for t in right.get_yticks()) <= 100
    assert legend(right) == ["even share: 25.0%"]
    entries = legend(left)
    assert entries[:2] == ["finished: 200 games", f"median: {summary.flips_median:g} flips"]
    # games past the axis' end (its 99.5th percentile), if any, are one entry
    assert len(entries) <= 3
    assert all(re.fullmatch(r"\d+ games? longer than \d+ flips", e) for e in entries[2:])
    left_share = sum(bar.get_height() for bar in left.patches)
    assert left_share == pytest.approx(100.0)  # the histogram is in per cent of the games too


def test_a_tiny_share_is_labelled() -> None:
    flips = [60] * 10_000
    credit = [9_998.0, 1.0, 1.0, 0.0]
    _, right = axes(summary_of(flips, [True] * 10_000, credit))
    labels = [t.get_text() for t in right.texts]
    assert labels == ["99.98%", "0.01%", "0.01%", "0%"]
    tiny = right.patches[1]
    assert tiny.get_height() == pytest.approx(0.01)
    assert tiny.get_linewidth() > 0  # drawn with an edge, not only a fill of height 0.01


def test_capped_games_are_in_the_legend_only_when_there_are_some() -> None:
    flips = [50 + i % 100 for i in range(400)]
    left, _ = axes(summary_of(flips, [True] * 400, [100.0] * 4))
    assert not any("capped" in t for t in legend(left))
    finished = [i % 50 != 0 for i in range(400)]
    left, _ = axes(summary_of(flips, finished, [92.0] * 4))
    assert "capped: 8 games (2.0%)" in legend(left)
    assert "finished: 392 games" in legend(left)


def test_a_long_tail_is_clipped_and_said() -> None:
    flips = [50 + i % 150 for i in range(2000)] + [4000, 4500, 5000]
    finished = [True] * 2002 + [False]
    left, _ = axes(summary_of(flips, finished, [500.0] * 4))
    end = sorted(flips)[int((len(flips) - 1) * CLIP_QUANTILE)]
    assert left.get_xlim()[1] < 300  # not out to 5000
    assert f"clipped at the 99.5th percentile, {end:,} flips" in left.get_xlabel()
    assert f"3 games longer than {end:,} flips (1 capped)" in legend(left)
    assert any(t.get_text() == f"> {end:,}" for t in left.texts)


def test_no_clipping_without_a_long_tail() -> None:
    flips = [50 + i % 150 for i in range(2000)]
    left, _ = axes(summary_of(flips, [True] * 2000, [500.0] * 4))
    assert "clipped" not in left.get_xlabel()
    assert not any("longer than" in t for t in legend(left))
    assert left.get_xlim()[1] >= 199


def test_no_finished_games() -> None:
    left, right = axes(summary_of([40] * 10, [False] * 10, [0.0] * 4))
    assert "no finished games" in [t.get_text() for t in right.texts]
    assert legend(left)[0] == "capped: 10 games (100%)"


@pytest.mark.parametrize(
    ("suffix", "magic"), [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")]
)
def test_the_format_follows_the_name(tmp_path: Path, suffix: str, magic: bytes) -> None:
    summary = summary_of([60, 70, 80], [True] * 3, [3.0, 0.0, 0.0, 0.0])
    path = tmp_path / f"plot{suffix.upper()}"
    plot_summary(summary, path)
    assert path.read_bytes().startswith(magic)
    stream = io.BytesIO()
    plot_summary(summary, stream, fmt=suffix[1:])
    assert stream.getvalue().startswith(magic)


def test_the_svg_has_no_date_so_runs_compare_equal(tmp_path: Path) -> None:
    summary = summary_of([60, 70, 80], [True] * 3, [3.0, 0.0, 0.0, 0.0])
    plot_summary(summary, tmp_path / "a.svg")
    assert "<dc:date>" not in (tmp_path / "a.svg").read_text()


def test_bad_formats() -> None:
    summary = summary_of([60], [True], [1.0, 0.0])
    with pytest.raises(ValueError, match="must end in"):
        plot_summary(summary, Path("plot.txt"))
    with pytest.raises(ValueError, match="unknown plot format"):
        plot_summary(summary, io.BytesIO(), fmt="gif")
    with pytest.raises(ValueError, match="needs fmt"):
        plot_summary(summary, io.BytesIO())
