"""The table: where the game is played."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen

from ..controller import GameController
from ..state import TableState
from ..widgets import (
    CentrePanel,
    KeysBar,
    LogPanel,
    ResultPanel,
    SeatsPanel,
    StatusLine,
    TitleBar,
)
from .dialogs import ConfirmQuit, RulesScreen, save_record

if TYPE_CHECKING:
    from ..app import SlapjackApp


class TableScreen(Screen[None]):
    """Draws the controller's state and turns keys into flips, slaps and calls.

    Every player key is one character (case does not matter); Space flips for
    the human on turn. Reaction times start when the card is on screen: after
    each new card the screen tells the controller, once the refresh that draws
    it is done (``call_after_refresh``).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", show=False),
        Binding("question_mark", "rules", show=False),
        Binding("s,S", "save", show=False),
    ]

    state: reactive[TableState | None] = reactive(None)
    now_ms: reactive[float] = reactive(0.0)

    def __init__(
        self,
        controller: GameController,
        lang: str,
        *,
        save_dir: Path | str = ".",
        tick_s: float = 0.1,
    ) -> None:
        super().__init__()
        self.controller = controller
        self.lang = lang
        self.save_dir = Path(save_dir)
        self.tick_s = tick_s
        self._keys: dict[str, tuple[str, int]] = {}
        for seat, spec in enumerate(controller.seats):
            if not spec.is_human:
                continue
            for kind, key in (
                ("slap", spec.slap_key),
                ("flip", spec.flip_key),
                ("call", spec.call_key),
            ):
                if key and (kind != "call" or controller.config.rules.say_it):
                    self._keys.setdefault(key.lower(), (kind, seat))
        self._ended = False
        controller.on_change = self._on_change

    @property
    def slapjack_app(self) -> SlapjackApp:
        from ..app import SlapjackApp

        app = self.app
        assert isinstance(app, SlapjackApp)
        return app

    def compose(self) -> ComposeResult:
        lang = self.lang
        state = TableScreen.state
        timed = (TableScreen.state, TableScreen.now_ms)  # the two with countdowns
        yield TitleBar(lang, id="titlebar").data_bind(*timed)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield SeatsPanel(lang, id="seats").data_bind(*timed)
                yield LogPanel(lang, id="log").data_bind(state)
            with Vertical(id="table"):
                yield CentrePanel(lang, id="centre").data_bind(state)
                yield ResultPanel(lang, id="result").data_bind(state)
        yield StatusLine(lang, id="status").data_bind(state)
        yield KeysBar(lang, id="keys").data_bind(state)

    def on_mount(self) -> None:
        self.state = self.controller.state
        self.now_ms = self.controller.now_ms()
        if self.tick_s > 0:
            self.set_interval(self.tick_s, self._tick)
        self.controller.start()

    def on_unmount(self) -> None:
        self.controller.stop()

    def _tick(self) -> None:
        self.now_ms = self.controller.now_ms()

    def _on_change(self, state: TableState) -> None:
        self.now_ms = self.controller.now_ms()
        self.state = state

    def watch_state(self, state: TableState | None) -> None:
        if state is None:
            return
        if state.view.over:
            if not self._ended:
                self._ended = True
                self.app.call_later(self.slapjack_app.show_end, self.controller)
            return
        if not state.shown:
            # the reaction clock starts once the card is actually on screen
            self.call_after_refresh(self.controller.shown, state.cue)

    def on_key(self, event: events.Key) -> None:
        controller = self.controller
        if controller.game.over or controller.paused:
            return
        if event.key == "space":
            event.stop()
            controller.flip(None)
            return
        char = (event.character or "").lower()
        action = self._keys.get(char) if char else None
        if action is None:
            return
        event.stop()
        kind, seat = action
        at = controller.clock.event_time(event.time)
        if kind == "slap":
            controller.slap(seat, at)
        elif kind == "flip":
            controller.flip(seat)
        else:
            controller.call(seat, at)

    def on_screen_suspend(self) -> None:
        """A dialog (or the too-small notice) covers the table: the game waits."""
        self.controller.pause()

    def on_screen_resume(self) -> None:
        if self.is_mounted and not self.controller.game.over:
            self.controller.resume()

    def action_save(self) -> None:
        save_record(self, self.controller, self.save_dir, self.lang, log=True)

    def action_rules(self) -> None:
        self.controller.pause()
        self.app.push_screen(
            RulesScreen(self.controller.config.rules, self.lang),
            lambda _result: self.controller.resume(),
        )

    def action_leave(self) -> None:
        """Ask before quitting a game that is not over."""
        if self.controller.game.over:
            self.app.exit()
            return
        self.controller.pause()

        def done(quit_now: bool | None) -> None:
            if quit_now:
                self.controller.stop()
                self.app.exit()
            else:
                self.controller.resume()

        self.app.push_screen(ConfirmQuit(self.lang), done)
