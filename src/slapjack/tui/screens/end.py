"""The end screen: the ranking and what to do next."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from slapjack.core.events import GameOver

from ..controller import GameController
from ..i18n import tr
from ..render import Wrapped, headline, item_text, ranking_table
from ..widgets import EndBody
from .dialogs import save_record

if TYPE_CHECKING:
    from ..app import SlapjackApp

KEY_GRACE_S: Final = 0.8
"""How long the end screen takes no key after it opens. It opens the instant
the last race is decided, while the players' hands are still on their keys:
a slap or a call pressed just too late (Q is seat 1's call key, N seat 6's
flip key, Enter a flip key too) would otherwise quit, or leave the results
before anyone has read them. Mouse clicks are deliberate and count at once."""


class EndScreen(Screen[None]):
    """Enter plays again with the same seats, N goes back to the set-up, S saves
    the record, Esc or Q quits: each key from :data:`KEY_GRACE_S` after the
    screen opened (the "play again" button takes the focus, and so Enter, then).
    Enter on another button presses that one; anywhere else (the ranking, when
    it scrolls and Shift+Tab gave it the focus) it plays again."""

    AUTO_FOCUS = ""  # (None would take the app's, which focuses the first button at once)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "again", show=False),
        Binding("n,N", "setup", show=False),
        Binding("s,S", "save", show=False),
        Binding("escape", "quit_app", show=False),
        Binding("q,Q", "quit_app", show=False),
    ]

    def __init__(self, controller: GameController, lang: str, *, save_dir: str = ".") -> None:
        super().__init__()
        self.controller = controller
        self.lang = lang
        self.save_dir = save_dir
        self.keys_from = controller.clock.now() + KEY_GRACE_S
        """When keys start to count, on the game's clock (:data:`KEY_GRACE_S`
        after the screen was made)."""

    @property
    def slapjack_app(self) -> SlapjackApp:
        from ..app import SlapjackApp

        app = self.app
        assert isinstance(app, SlapjackApp)
        return app

    def compose(self) -> ComposeResult:
        lang = self.lang
        state = self.controller.state
        with Vertical(id="end-box"):
            yield Static(tr(lang, "end.title"), id="end-title")
            yield Static(headline(state, lang), id="end-headline")
            with EndBody(id="end-body"):
                ranking = self.controller.game.ranking()
                yield Static(ranking_table(state, ranking, lang), id="end-ranking")
                last = [
                    item_text(item, state, lang)
                    for item in state.banner
                    if not isinstance(item, GameOver)  # the headline says it
                ]
                yield Static(Wrapped(last), id="end-last")
            yield Static("", id="end-saved")
            with Horizontal(id="end-buttons"):
                yield Button(tr(lang, "b.play_again"), id="again", variant="primary", compact=True)
                yield Button(tr(lang, "b.new_setup"), id="setup", compact=True)
                yield Button(tr(lang, "b.save"), id="save", compact=True)
                yield Button(tr(lang, "b.quit"), id="quit", compact=True)
            yield Static(tr(lang, "end.hint"), id="end-hint")

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit_body)
        wait = self.keys_from - self.controller.clock.now()
        if wait > 0:
            self.controller.clock.call_later(wait, self._focus_again)
        else:
            self._focus_again()

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit_body)

    def fit_body(self) -> None:
        """Give the ranking and the last result at most the rows the rest of the
        box leaves, so that the buttons and the hint stay on screen; they scroll
        when the terminal is too low (ten seats at 80×24)."""
        box = self.query_one("#end-box")
        body = self.query_one(EndBody)
        others = sum(
            child.outer_size.height + child.styles.margin.height
            for child in box.children
            if child is not body and child.display
        )
        room = self.size.height - box.styles.gutter.height - others
        body.styles.max_height = max(room, 3)

    def _focus_again(self) -> None:
        if self.is_current:  # (not if a click already left the screen)
            self.query_one("#again", Button).focus()

    def keys_count(self) -> bool:
        """Whether a key counts yet (see :data:`KEY_GRACE_S`)."""
        return self.controller.clock.now() >= self.keys_from

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        action = {
            "again": self.slapjack_app.play_again,
            "setup": self.slapjack_app.show_setup,
            "save": self._save,
            "quit": self.app.exit,
        }.get(event.button.id or "")
        if action is not None:
            action()

    def action_again(self) -> None:
        if self.keys_count():
            self.slapjack_app.play_again()

    def action_setup(self) -> None:
        if self.keys_count():
            self.slapjack_app.show_setup()

    def action_save(self) -> None:
        if self.keys_count():
            self._save()

    def action_quit_app(self) -> None:
        if self.keys_count():
            self.app.exit()

    def _save(self) -> None:
        path = save_record(self, self.controller, self.save_dir, self.lang, log=False)
        if path is not None:
            saved = self.query_one("#end-saved", Static)
            saved.update(Text(tr(self.lang, "saved", path=path.name), style="bold green"))
            saved.add_class("shown")
            self.call_after_refresh(self.fit_body)
