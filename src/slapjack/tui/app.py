"""The Textual app: start screen → table → end screen, and back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType

from .clock import Clock, TextualClock
from .config import GameConfig, default_seats
from .controller import BotFactory, GameController
from .i18n import detect_lang
from .screens.dialogs import MIN_SIZE, TooSmall
from .screens.end import EndScreen
from .screens.start import StartScreen
from .screens.table import TableScreen


class BaseApp(App[None]):
    """What the local and the online terminal game share: style, title, Ctrl+Q."""

    CSS_PATH = "slapjack.tcss"
    TITLE = "Slapjack"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True)
    ]
    ENABLE_COMMAND_PALETTE = False
    lang = "en"
    too_small_note = "too_small.quit"
    """What the too-small notice says about the game meanwhile (an i18n key)."""

    def on_ready(self) -> None:
        self.check_size(self.size.width, self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self.check_size(event.size.width, event.size.height)

    def check_size(self, width: int, height: int) -> None:
        """Below :data:`MIN_SIZE` a notice covers the screen (a local game
        pauses under it); it goes when the terminal is large enough."""
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        shown = [s for s in self.screen_stack if isinstance(s, TooSmall)]
        if small and not shown:
            self.push_screen(TooSmall(self.lang, note=self.too_small_note))
        elif small:
            shown[-1].show_size(width, height)
        elif shown and isinstance(self.screen, TooSmall):
            self.pop_screen()


class SlapjackApp(BaseApp):
    """Slapjack and Irish Snap in the terminal.

    ``config`` pre-fills the start screen (or, with ``skip_setup``, starts at
    once). Tests pass a :class:`~slapjack.tui.clock.ManualClock` as ``clock``
    and their own ``bot_factory``; ``tick_s`` is how often countdowns redraw.
    """

    def __init__(
        self,
        config: GameConfig | None = None,
        *,
        lang: str | None = None,
        clock: Clock | None = None,
        bot_factory: BotFactory | None = None,
        save_dir: Path | str = ".",
        skip_setup: bool = False,
        tick_s: float = 0.1,
    ) -> None:
        super().__init__()
        self.lang = detect_lang(lang)
        self.too_small_note = "too_small.paused"
        self.config = config or GameConfig(seats=default_seats())
        self.clock: Clock = clock or TextualClock(self)
        self.bot_factory = bot_factory
        self.save_dir = Path(save_dir)
        self.skip_setup = skip_setup
        self.tick_s = tick_s
        self.controller: GameController | None = None
        self.games_started = 0

    def on_mount(self) -> None:
        if self.skip_setup:
            self.start_game(self.config)
        else:
            self.push_screen(StartScreen(self.config, self.lang))

    def start_game(self, config: GameConfig) -> None:
        """Deal and show the table (replacing whatever screen is showing)."""
        self.config = config
        controller = GameController(config, self.clock, bot_factory=self.bot_factory)
        self.controller = controller
        self.games_started += 1
        screen = TableScreen(controller, self.lang, save_dir=self.save_dir, tick_s=self.tick_s)
        self._show(screen)

    def show_end(self, controller: GameController) -> None:
        if controller is not self.controller:
            return
        self._show(EndScreen(controller, self.lang, save_dir=str(self.save_dir)))

    def play_again(self) -> None:
        """Same seats and rules, the next deal: seed + 1 if a seed was given, the
        same stacked deck if one was, else a new random seed."""
        config = self.config
        if config.seed is not None:
            config = replace(config, seed=(config.seed + 1) % 2**64)
        self.start_game(config)

    def show_setup(self) -> None:
        self._show(StartScreen(self.config, self.lang))

    def _show(self, screen: TableScreen | EndScreen | StartScreen) -> None:
        cover = isinstance(self.screen, TooSmall)
        if cover:
            self.pop_screen()
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        if cover:
            self.push_screen(TooSmall(self.lang, note=self.too_small_note))

    async def action_quit(self) -> None:
        """Ctrl+Q asks first while a game is running."""
        screen = self.screen
        if isinstance(screen, TableScreen) and not screen.controller.game.over:
            screen.action_leave()
            return
        self.exit()
