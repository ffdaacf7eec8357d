"""``slapjack simulate`` at a terminal, as a person sees it: the progress bar, no PNG."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from slapjack.sim.run import MAX_CHUNK

from .terminal import run_in_terminal

EXE = Path(sys.executable).with_name("slapjack")


def test_the_progress_bar_on_a_terminal() -> None:
    """In a real pseudo-terminal: a bar with the count, games/s, elapsed and ETA
    that moves in steps of at most MAX_CHUNK games, then one summary line."""
    out = run_in_terminal(
        [str(EXE), "simulate", "-g", "3000", "-j", "1", "-s", "1"],
        columns=120,
    )
    counts = sorted({int(m) for m in re.findall(r"(\d+)/3000", out)})
    assert len(counts) >= 3, out[-2000:]
    assert all(c % MAX_CHUNK == 0 for c in counts), counts  # not in steps of 375 (3000 // 8)
    assert "games/s" in out and "elapsed" in out and "ETA" in out
    assert re.search(r"simulated 3,000 games in \d+\.\d s \([\d,]+ games/s, 1 process\)", out)


def test_no_png_onto_a_terminal() -> None:
    out = run_in_terminal([str(EXE), "simulate", "-g", "5", "-j", "1", "--plot", "-"])
    assert "slapjack simulate: --plot -: not writing a PNG to the terminal; redirect it" in out
    assert "PNG" in out and "\x89PNG" not in out
