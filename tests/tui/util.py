"""Helpers for the terminal game's tests: stacked decks, scripted bots, a manual clock."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from textual.app import App
from textual.pilot import Pilot

from slapjack.bots import SlapIntent
from slapjack.core import FULL_DECK, Card, Rules, View, card_name, is_jack, parse_card
from slapjack.tui import GameConfig, ManualClock, SeatSpec, SlapjackApp, Timing
from slapjack.tui.config import DEFAULT_KEYS
from slapjack.tui.controller import GameController
from slapjack.tui.i18n import tr

FAST = Timing(
    slap_window_ms=600.0,
    jack_timeout_ms=3000.0,
    irish_timeout_ms=2500.0,
    call_window_ms=500.0,
    turn_ms=5000.0,
    pause_ms=0.0,
)
"""Real-length windows (time is manual in these tests) but no pause after results."""


def deck(*first: str) -> tuple[Card, ...]:
    """A full deck that starts with ``first`` (the first card goes to seat 0, who
    flips first); the rest follow in rank order (Aces … Tens before the Jacks)."""
    head = [parse_card(n) for n in first]
    return tuple(head + [c for c in FULL_DECK if c not in head])


@dataclass
class ScriptedBot:
    """A bot that does exactly what the test says.

    ``cards`` maps card names to a reaction (slap that card, right or wrong);
    ``jack_ms`` slaps every Jack (Slapjack) or match (Irish Snap); reslap rounds
    take ``reslap_ms`` in turn. ``call`` goes with every slap (say-it).
    """

    jack_ms: float | None = None
    cards: Mapping[str, float] = field(default_factory=dict)
    reslap_ms: list[float] = field(default_factory=list)
    flip_ms: float = 100.0
    call: bool = True
    level: str = "scripted"
    seen: list[str] = field(default_factory=list)

    def react(self, view: View) -> SlapIntent | None:
        top = view.top
        if top is None:
            return None
        self.seen.append(card_name(top))
        if view.reslap_among is not None:
            return SlapIntent(self.reslap_ms.pop(0), self.call) if self.reslap_ms else None
        if card_name(top) in self.cards:
            return SlapIntent(self.cards[card_name(top)], self.call)
        hit = view.is_match if view.rules.is_irish else is_jack(top)
        if hit and self.jack_ms is not None:
            return SlapIntent(self.jack_ms, self.call)
        return None

    def flip_delay_ms(self, view: View) -> float:
        return self.flip_ms


def human(i: int, name: str) -> SeatSpec:
    return SeatSpec(name, None, *DEFAULT_KEYS[i])


def config(
    seats: Sequence[SeatSpec],
    cards: tuple[Card, ...],
    *,
    preset: str = "classic",
    timing: Timing = FAST,
    **options: object,
) -> GameConfig:
    rules = Rules.from_options({"preset": preset, **options})
    return GameConfig(rules=rules, seats=tuple(seats), deck=cards, timing=timing)


def make_app(
    cfg: GameConfig,
    bots: Mapping[str, ScriptedBot] | None = None,
    *,
    lang: str = "en",
    save_dir: Path | str = ".",
    skip_setup: bool = True,
) -> tuple[SlapjackApp, ManualClock]:
    """The app on a manual clock, bots by level (``"casual"`` → a scripted bot)."""
    clock = ManualClock()
    table = dict(bots or {})

    def factory(level: str, seed: int) -> ScriptedBot:
        return table[level]

    app = SlapjackApp(
        cfg,
        lang=lang,
        clock=clock,
        bot_factory=factory,
        save_dir=save_dir,
        skip_setup=skip_setup,
        tick_s=0,
    )
    return app, clock


def ctl(app: SlapjackApp) -> GameController:
    assert app.controller is not None
    return app.controller


async def idle(pilot: Pilot[None]) -> None:
    """Let the app draw and run what waits for the refresh (the reaction clock)."""
    await pilot.pause()
    await pilot.pause()


async def advance(pilot: Pilot[None], clock: ManualClock, ms: float) -> None:
    """Move the manual clock inside the app's event loop, then let it draw."""
    pilot.app.call_later(clock.advance_ms, ms)
    await idle(pilot)


def screen_text(app: SlapjackApp) -> str:
    """Everything on screen as plain text, line by line (what a player reads)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


def blank_rows_between(text: str, above: str, below: str) -> int:
    """How many rows of ``text`` (a :func:`screen_text`) are empty, borders
    aside, between the row with ``above`` and the first row after it with
    ``below``."""
    rows = text.splitlines()
    top = next(i for i, row in enumerate(rows) if above in row)
    bottom = next(i for i, row in enumerate(rows) if i > top and below in row)
    return sum(1 for row in rows[top + 1 : bottom] if not row.strip(" │"))


def assert_pile_empty_said_once(app: App[None], lang: str) -> None:
    """ "The pile is empty" stands once on screen, inside the pile panel (not
    also on its lower border)."""
    text = screen_text(app)
    empty = tr(lang, "pile_empty")
    assert text.count(empty) == 1, text
    centre = app.screen.query_one("#centre").content_region
    row = next(i for i, line in enumerate(text.splitlines()) if empty in line)
    assert centre.y <= row < centre.bottom  # in the panel, not on its border
