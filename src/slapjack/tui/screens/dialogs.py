"""Dialogs over the table: the quit confirmation and the rules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Markdown, Static

from slapjack.core import Rules
from slapjack.texts import rules_text

from ..i18n import tr

if TYPE_CHECKING:
    from ..controller import GameController

SAVED_SECONDS = 8.0
"""How long the "saved" note stays in the corner."""


def save_record(
    screen: Screen[None], controller: GameController, folder: Path | str, lang: str, *, log: bool
) -> Path | None:
    """Write the game's record into ``folder`` and say so in a note in the
    corner (the whole file name, a line of its own), or why it failed; with
    ``log`` a failure goes to the log too (the controller logs a success)."""
    try:
        path = controller.save(folder)
    except OSError as exc:
        message = tr(lang, "save_failed", error=exc.strerror or str(exc))
        if log:
            controller.note("save_failed", error=exc.strerror or str(exc))
        screen.notify(message, title=tr(lang, "saved.title_failed"), severity="error")
        return None
    screen.notify(
        tr(lang, "saved.toast", path=str(path)),
        title=tr(lang, "saved.title"),
        timeout=SAVED_SECONDS,
    )
    return path


class ConfirmQuit(ModalScreen[bool]):
    """ "Quit this game?" Y (J in German) quits, N or Esc goes back to the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,Y", "answer(True)", show=False),
        Binding("j,J", "answer(True)", show=False),
        Binding("n,N", "answer(False)", show=False),
        Binding("escape", "answer(False)", show=False),
    ]

    def __init__(self, lang: str, *, detail: str | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.detail = detail

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="dialog"):
            yield Static(tr(lang, "quit.question"), id="dialog-title")
            yield Static(self.detail or tr(lang, "quit.detail"), id="dialog-text")
            with Horizontal(id="dialog-buttons"):
                yield Button(tr(lang, "quit.no"), id="no", variant="primary", compact=True)
                yield Button(tr(lang, "quit.yes"), id="yes", variant="error", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, quit_now: bool) -> None:
        self.dismiss(quit_now)


class RulesScreen(ModalScreen[None]):
    """The rules of the game being set up or played, in the app's language."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", show=False),
        Binding("question_mark", "close", show=False),
        Binding("q,Q", "close", show=False),
    ]

    def __init__(self, rules: Rules, lang: str) -> None:
        super().__init__()
        self.rules = rules
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="rules-box"):
            with VerticalScroll(id="rules-scroll"):
                yield Markdown(rules_text(self.rules, self.lang), id="rules-text")
            yield Static(tr(self.lang, "rules.close"), id="rules-hint")

    def on_mount(self) -> None:
        self.query_one("#rules-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)


MIN_SIZE = (80, 24)
"""The smallest terminal the game is laid out for (columns, rows)."""


class TooSmall(ModalScreen[None]):
    """Shown over everything while the terminal is smaller than :data:`MIN_SIZE`;
    the app closes it when the terminal is large enough again."""

    def __init__(self, lang: str, *, note: str = "too_small.quit") -> None:
        super().__init__()
        self.lang = lang
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="small-box"):
            yield Static("", id="small-text")

    def on_mount(self) -> None:
        self.show_size(self.app.size.width, self.app.size.height)

    def show_size(self, width: int, height: int) -> None:
        lang = self.lang
        low_w, low_h = MIN_SIZE
        text = "\n\n".join(
            (
                tr(
                    lang, "too_small", width=width, height=height, min_width=low_w, min_height=low_h
                ),
                tr(lang, "too_small.hint"),
                tr(lang, self.note),
            )
        )
        for widget in self.query("#small-text"):
            assert isinstance(widget, Static)
            widget.update(text)
