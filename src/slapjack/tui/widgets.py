"""The table's widgets. Each one draws the :class:`TableState` it is bound to
(``data_bind`` from the table screen) and keeps nothing else."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from .i18n import tr
from .render import (
    Wrapped,
    centre_group,
    clock_text,
    display_log,
    game_title,
    item_text,
    pile_line,
    race_live,
    reactions_text,
    seats_table,
    status_text,
    wrap_text,
)
from .state import TableState


class EndBody(VerticalScroll):
    """The results at the end of a game (the local end screen's ranking and
    last result, an online game's results): they scroll where the terminal is
    too low for them (ten seats at 80×24). A tab stop (arrows, Page Up/Down,
    Home, End scroll it) only while it has more than it shows."""

    def allow_focus(self) -> bool:
        return self.allow_vertical_scroll


class StateWidget(Widget):
    """A widget drawn from the bound ``state`` (and ``now_ms`` for countdowns)."""

    state: reactive[TableState | None] = reactive(None)
    now_ms: reactive[float] = reactive(0.0)

    def __init__(self, lang: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lang = lang


def title_line(left: str, right: str, width: int) -> Text:
    """``left`` and ``right`` at the two ends of a line ``width`` wide."""
    gap = max(1, width - len(left) - len(right))
    return Text(left + " " * gap + right, style="bold", no_wrap=True, overflow="ellipsis")


class TitleBar(StateWidget):
    """Game, preset and seed on the left; the time-limit countdown on the right."""

    def render(self) -> RenderableType:
        state = self.state
        if state is None:
            return ""
        left = " ♠ " + game_title(state.view.rules, self.lang)
        if state.seed is not None:
            left += " · " + tr(self.lang, "seed", seed=state.seed)
        right = ""
        if state.end_ms is not None:
            right = tr(self.lang, "time_left", clock=clock_text(state.end_ms - self.now_ms)) + " "
        return title_line(left, right, self.size.width)


class SeatsPanel(StateWidget):
    """Every seat in a row: its key or bot level, its cards, its state."""

    def on_mount(self) -> None:
        self.border_title = tr(self.lang, "players")

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        return seats_table(self.state, self.lang, self.now_ms, self.content_size.width)


class CentrePanel(StateWidget):
    """The pile with the top card as large as the panel allows, the Irish Snap
    call; while a race is open (and its card is on screen) a heavy border and
    who has slapped."""

    def on_mount(self) -> None:
        self.border_title = tr(self.lang, "table")

    def watch_state(self, state: TableState | None) -> None:
        live = state is not None and race_live(state)
        self.set_class(live, "-race")
        title = tr(self.lang, "race.title" if live else "table")
        self.border_title = f" {title} " if live else title
        self.border_subtitle = pile_line(state.view, self.lang) if state is not None else ""

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        size = self.content_size
        return centre_group(self.state, self.lang, size.width, size.height)


class ResultPanel(StateWidget):
    """The latest result (who won the race, penalties) and the reaction times,
    as high as its lines."""

    def on_mount(self) -> None:
        self.border_title = tr(self.lang, "result")

    def watch_state(self) -> None:
        self.refresh(layout=True)  # as high as its lines: a new result may have more

    def render(self) -> RenderableType:
        state = self.state
        if state is None:
            return ""
        lines = [item_text(item, state, self.lang) for item in state.banner]
        if state.reactions:
            lines.append(reactions_text(state.reactions, state.view.players, self.lang))
        if not lines:
            key = "no_result_irish" if state.view.rules.is_irish else "no_result"
            lines.append(Text(tr(self.lang, key), style="dim italic"))
        return Wrapped(lines)


def log_lines(lines: Sequence[Text], width: int, height: int) -> list[Text]:
    """The last ``height`` lines of ``lines`` wrapped to ``width`` (newest last)."""
    out: list[Text] = []
    for line in reversed(lines):
        out[:0] = wrap_text(line, width)
        if len(out) >= height:
            break
    return out[-height:] if height > 0 else []


class LogPanel(StateWidget):
    """The newest events at the bottom, as many as fit, each a sentence that
    wraps between words (a value never breaks)."""

    def on_mount(self) -> None:
        self.border_title = tr(self.lang, "log")

    def render(self) -> RenderableType:
        state = self.state
        if state is None:
            return ""
        height = max(1, self.content_size.height)
        width = max(1, self.content_size.width)
        items = display_log(state.log[-(height + 20) :])
        texts = [item_text(item, state, self.lang) for item in items]
        return Text("\n").join(log_lines(texts, width, height))


class StatusLine(StateWidget):
    """Whose turn it is and with which key, or the reslap cue."""

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        return status_text(self.state, self.lang)


def keys_content(keys: Sequence[tuple[str, str]]) -> Content:
    """The key bar: each key in the accent colour, then what it does."""
    parts: list[Content] = []
    for key, what in keys:
        parts.append(Content.styled(f" {key} ", "bold $footer-key-foreground"))
        parts.append(Content(f"{what} "))
    return Content.assemble(*parts)


class KeysBar(StateWidget):
    """The app's keys (and, in say-it, the call keys)."""

    def render(self) -> Content:
        state = self.state
        lang = self.lang
        keys = [(tr(lang, "key.space"), tr(lang, "b.flip"))]
        if state is not None and state.view.rules.say_it:
            keys.append(("A+Q", tr(lang, "call_hint")))
        keys += [("?", tr(lang, "b.rules")), ("S", tr(lang, "b.save")), ("Esc", tr(lang, "b.quit"))]
        return keys_content(keys)
