"""Dialogs over the table: the quit confirmation and the rules."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown, Static

from slapjack.core import Rules
from slapjack.texts import rules_text

from ..i18n import tr


class ConfirmQuit(ModalScreen[bool]):
    """ "Quit this game?" Y (J in German) quits, N or Esc goes back to the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", show=False),
        Binding("j", "answer(True)", show=False),
        Binding("n", "answer(False)", show=False),
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
        Binding("q", "close", show=False),
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
