"""The Textual app: start screen → table → end screen, and back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from .clock import Clock, TextualClock
from .config import GameConfig, default_seats
from .controller import BotFactory, GameController
from .i18n import detect_lang
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
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    async def action_quit(self) -> None:
        """Ctrl+Q asks first while a game is running."""
        screen = self.screen
        if isinstance(screen, TableScreen) and not screen.controller.game.over:
            screen.action_leave()
            return
        self.exit()
