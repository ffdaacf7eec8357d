"""The client's own logic, run in the browser: it agrees with the engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

from slapjack.core import Flip, Rules, Slap, Table, spectate

from .conftest import Pages, Server, open_page

pytestmark = pytest.mark.browser


def played(preset: str, n: int, seed: int, steps: int) -> Table:
    """A table after ``steps`` random inputs: flips on turn, slaps on Jacks and at random."""
    rng = random.Random(seed)
    table = Table.new(
        Rules.from_options({"preset": preset}), [f"P{i}" for i in range(n)], seed=seed
    )
    game = table.game
    t = 0
    for _ in range(steps):
        if game.over:
            break
        t += 100
        if game.race_open:
            for s in rng.sample(range(n), rng.randint(1, n)):
                if not game.is_out[s]:
                    table.apply(Slap(s, rng.uniform(120, 600), True, t))
            table.settle(final=True)
        elif game.needs_settle:
            table.settle(final=True)
        elif rng.random() < 0.05:
            s = rng.randrange(n)
            if not game.is_out[s]:
                table.apply(Slap(s, 300.0, False, t))
        elif game.turn is not None:
            table.apply(Flip(game.turn, t))
    return table


def test_the_end_ranking_matches_the_engine(server: Server, pages: Pages) -> None:
    page = pages.page()
    open_page(page, "/rules")
    cases: list[tuple[dict[str, Any], list[int]]] = []
    for preset in ("classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"):
        for seed in range(6):
            table = played(preset, 2 + seed % 4, seed, 150 + 400 * (seed % 3))
            view = spectate(table.game).to_dict()
            cases.append((view, table.game.ranking()))
    assert any(view["over"] for view, _ in cases)
    got = page.evaluate(
        """async (views) => {
          const { ranking } = await import('/static/js/table.js');
          return views.map((v) => ranking(v));
        }""",
        [view for view, _ in cases],
    )
    assert got == [expected for _, expected in cases]


def test_the_reaction_clock_stamps_after_the_paint(server: Server, pages: Pages) -> None:
    page = pages.page()
    open_page(page, "/rules")
    out = page.evaluate(
        """async () => {
          const { ReactionClock } = await import('/static/js/connection.js');
          const clock = new ReactionClock();
          const before = clock.slapFields(performance.now());
          const drawn = performance.now();
          clock.cardDrawn(7);
          const early = clock.shownAt;
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 30)));
          const first = clock.shownAt;
          clock.cardDrawn(7);  // the same card again: no new stamp
          await new Promise((r) => setTimeout(r, 30));
          const same = clock.shownAt;
          const input = performance.now();
          const fields = clock.slapFields(input);
          clock.cardDrawn(7, 1);  // a reslap round on the same card: a new stamp
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 30)));
          return { before, drawn, early, first, same, fields, input, round: clock.shownAt };
        }"""
    )
    assert out["before"] is None  # no card shown yet: no slap
    assert out["early"] is None  # not stamped before the frame is painted
    assert out["first"] > out["drawn"]
    assert out["same"] == out["first"]
    fields = out["fields"]
    assert fields["flip_id"] == 7 and fields["shown_at"] == out["first"]
    assert fields["input_at"] == out["input"]
    assert abs(fields["reaction_ms"] - (out["input"] - out["first"])) < 0.01
    assert out["round"] > out["first"]
