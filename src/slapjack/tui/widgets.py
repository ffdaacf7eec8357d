"""The table's widgets. Each one draws the :class:`TableState` it is bound to
(``data_bind`` from the table screen) and keeps nothing else."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from .controller import TableState
from .i18n import tr
from .render import (
    CARD_LARGE,
    centre_group,
    clock_text,
    game_title,
    item_text,
    reactions_text,
    seats_table,
    status_text,
)


class StateWidget(Widget):
    """A widget drawn from the bound ``state`` (and ``now_ms`` for countdowns)."""

    state: reactive[TableState | None] = reactive(None)
    now_ms: reactive[float] = reactive(0.0)

    def __init__(self, lang: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lang = lang


class TitleBar(StateWidget):
    """Game, preset and seed on the left; the time-limit countdown on the right."""

    def render(self) -> RenderableType:
        state = self.state
        if state is None:
            return ""
        left = " " + game_title(state.view.rules, self.lang)
        if state.seed is not None:
            left += f" · seed {state.seed}"
        right = ""
        if state.end_ms is not None:
            right = tr(self.lang, "time_left", clock=clock_text(state.end_ms - self.now_ms)) + " "
        gap = max(1, self.size.width - len(left) - len(right))
        return Text(left + " " * gap + right, style="bold")


class SeatsPanel(StateWidget):
    def on_mount(self) -> None:
        self.border_title = tr(self.lang, "players")

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        return seats_table(self.state, self.lang, self.now_ms)


class CentrePanel(StateWidget):
    """The top card large, the cards under it, the pile, the Irish Snap call."""

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        width, height = CARD_LARGE
        large = self.size.width >= width + 2 and self.size.height >= height + 5
        return centre_group(self.state.view, self.lang, large=large)


class ResultPanel(StateWidget):
    """The latest result (who won the race, penalties) and the reaction times."""

    def on_mount(self) -> None:
        self.border_title = tr(self.lang, "result")

    def render(self) -> RenderableType:
        state = self.state
        if state is None:
            return ""
        lines: list[RenderableType] = [item_text(item, state, self.lang) for item in state.banner]
        if state.reactions:
            lines.append(reactions_text(state.reactions, state.view.players, self.lang))
        return Group(*lines)


class LogPanel(StateWidget):
    """The newest events at the bottom, as many as fit."""

    def on_mount(self) -> None:
        self.border_title = tr(self.lang, "log")

    def render(self) -> RenderableType:
        state = self.state
        if state is None:
            return ""
        height = max(1, self.content_size.height)
        width = max(1, self.content_size.width)
        items = state.log[-height:]
        text = Text("\n").join(item_text(item, state, self.lang) for item in items)
        lines = text.wrap(self.app.console, width, overflow="fold")
        return Text("\n").join(lines[-height:])


class StatusLine(StateWidget):
    """Whose turn it is and with which key, or the reslap cue."""

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        return status_text(self.state, self.lang)


class KeysBar(StateWidget):
    """The app's keys (and, in say-it, the call keys)."""

    def render(self) -> RenderableType:
        state = self.state
        lang = self.lang
        out = Text()

        def key(k: str, what: str) -> None:
            out.append(f" {k} ", style="reverse")
            out.append(f" {what} ")

        key(tr(lang, "key.space"), tr(lang, "b.flip"))
        if state is not None and state.view.rules.say_it:
            key("A+Q", tr(lang, "call_hint"))
        key("?", tr(lang, "b.rules"))
        key("S", tr(lang, "b.save"))
        key("Esc", tr(lang, "b.quit"))
        return out
