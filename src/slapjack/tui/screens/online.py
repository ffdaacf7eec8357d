"""The online table: the server's game drawn with the local table's widgets."""

from __future__ import annotations

import math
import time
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen

from ..i18n import format_ms, join_names, tr
from ..remote import Notice, RemoteGame
from ..render import (
    Wrapped,
    clock_text,
    game_title,
    headline,
    key_label,
    ranking_table,
    status_text,
    value,
    view_ranking,
)
from ..state import TableState
from ..widgets import (
    CentrePanel,
    EndBody,
    LogPanel,
    ResultPanel,
    SeatsPanel,
    StateWidget,
    TitleBar,
    keys_content,
)
from .dialogs import ConfirmQuit, RulesScreen


def rematch_seats(game: RemoteGame) -> list[int]:
    """The seats that asked for a rematch (``room.rematch`` of the last update)."""
    if game.room is None:
        return []
    names = game.seat_names()
    return [s for s in game.room.rematch if 0 <= s < len(names)]


def rematch_text(game: RemoteGame, lang: str) -> Text:
    """Who asked for a rematch and whom it waits for (every person still here)."""
    asked = rematch_seats(game)
    names = game.seat_names()
    if not asked:
        key = "online.rematch_none" if game.seat is not None else "online.rematch_none_watch"
        return Text(tr(lang, key), style="dim")
    bots = game.seat_bots()
    connected = game.seat_connected()
    waiting = [
        names[s] or "?"
        for s in range(len(names))
        if s not in asked and s not in bots and (s >= len(connected) or connected[s])
    ]
    who = join_names([value(names[s] or "?") for s in asked], lang)
    out = Text(tr(lang, "online.rematch_by", names=who), style="bold yellow")
    if waiting:
        out.append(
            " "
            + tr(lang, "online.rematch_wait", names=join_names([value(n) for n in waiting], lang))
        )
    return out


def rejoin_lines(game: RemoteGame, token: str | None, invite: str, lang: str) -> list[Text]:
    """The seat's token whole, and the command that comes back into the seat."""
    if token is None or game.seat is None:
        return []
    return [
        Text.assemble(
            (tr(lang, "online.your_token", number=game.seat + 1) + " ", "dim"),
            (token, "bold"),
            (" " + tr(lang, "online.copy_hint"), "dim"),
        ),
        Text(tr(lang, "online.back_later"), style="dim"),
        Text(f"slapjack tui --join {invite} --token {token}"),
    ]


def notice_text(notice: Notice, lang: str) -> Text:
    values = dict(notice.values)
    if isinstance(values.get("ms"), float):
        values["ms"] = format_ms(float(values["ms"]), lang)  # type: ignore[arg-type]
    style = "bold red" if notice.bad else "bold"
    return Text(tr(lang, notice.key, **values), style=style)


def status_line(game: RemoteGame, state: TableState | None, lang: str, now_ms: float) -> Text:
    """The line under the table: the latest notice (server error, the
    connection, your slap) while it lasts, else what to do now."""
    notice = game.notice
    if notice is not None and (notice.until is None or now_ms < notice.until):
        return notice_text(notice, lang)
    if not game.welcomed:
        return Text(tr(lang, "online.connecting", code=game.code), style="dim")
    if game.status == "waiting" or state is None:
        if game.starting:
            return Text(tr(lang, "online.starting"), style="bold")
        names = game.seat_names()
        taken = sum(1 for n in names if n)
        key = "online.waiting" if game.seat is not None else "online.waiting_watch"
        return Text(tr(lang, key, taken=taken, seats=len(names)), style="bold")
    view = state.view
    if game.resume_at is not None and now_ms < game.resume_at and not view.over:
        seconds = max(1, math.ceil((game.resume_at - now_ms) / 1000))
        return Text(tr(lang, "online.resuming", seconds=seconds), style="bold reverse yellow")
    if view.over:
        asked = rematch_seats(game)
        if asked and game.seat is not None and game.seat not in asked:
            names = join_names([game.seat_names()[s] or "?" for s in asked], lang)
            return Text(tr(lang, "online.over_asked", names=names), style="bold reverse yellow")
        key = "online.over" if game.seat is not None else "online.over_watch"
        return Text(tr(lang, key), style="bold reverse")
    if game.fixed_tempo and not view.race_open:
        return Text(tr(lang, "online.fixed"), style="dim")
    if view.turn is not None and view.turn == game.seat and not view.race_open:
        return Text(
            tr(lang, "online.turn_you", name=game.name, key=key_label(game.keys[1])),
            style="bold reverse",
        )
    return status_text(state, lang)


def lobby_text(game: RemoteGame, lang: str, rejoin: list[Text] | None = None) -> RenderableType:
    """While the room waits: who sits where (and how to come back to the seat)."""
    names = game.seat_names()
    bots = game.seat_bots()
    connected = game.seat_connected()
    out = Text()
    title = game.room_name or tr(lang, "online.title", code=game.code)
    if game.rules is not None:
        title = f"{title} · {game_title(game.rules, lang)}"
    out.append(title + "\n\n", style="bold")
    for i, name in enumerate(names):
        out.append(f" {i + 1:>2}  ", style="dim")
        level = bots.get(i)
        if not name:
            out.append(tr(lang, "online.seat_free"), style="italic dim")
        else:
            out.append(name, style="bold" if i == game.seat else "")
            if level:
                out.append(f"  ({tr(lang, f'level.{level}')})", style="dim")
            elif i == game.seat:
                out.append(f"  ({tr(lang, 'online.seat_you')})", style="cyan")
            elif i < len(connected) and not connected[i]:
                out.append(f"  ({tr(lang, 'online.seat_away')})", style="dim")
        out.append("\n")
    if not rejoin:
        return out
    return Group(out, Wrapped([Text(), *rejoin], indent=4))


class OnlineTitle(TitleBar):
    """The game and preset, the room code, the time-limit countdown."""

    code: str = ""

    def render(self) -> RenderableType:
        state = self.state
        left = " "
        if state is not None:
            left += game_title(state.view.rules, self.lang) + " · "
        left += tr(self.lang, "online.title", code=self.code)
        right = ""
        if state is not None and state.end_ms is not None:
            right = tr(self.lang, "time_left", clock=clock_text(state.end_ms - self.now_ms)) + " "
        gap = max(1, self.size.width - len(left) - len(right))
        return Text(left + " " * gap + right, style="bold")


class Line(StateWidget):
    """A line of text the screen computes (the status line, the keys)."""

    text: reactive[Text] = reactive(Text)

    def render(self) -> RenderableType:
        return self.text


class Lobby(StateWidget):
    text: reactive[RenderableType] = reactive(Text)

    def render(self) -> RenderableType:
        return self.text


class Results(StateWidget):
    """The end of an online game: who won, the ranking, who asked for a
    rematch, the way back into the seat (in an :class:`EndBody`, which
    scrolls it where the terminal is too low: ten seats at 80×24)."""

    text: reactive[RenderableType] = reactive(Text)

    def render(self) -> RenderableType:
        return self.text


def results_group(game: RemoteGame, state: TableState, lang: str, rejoin: list[Text]) -> Group:
    """The headline, the ranking, the rematch line, the way back into the
    seat: one blank line between each (as on the local end screen)."""
    view = state.view
    parts: list[RenderableType] = [
        headline(state, lang),
        Text(),
        ranking_table(state, view_ranking(view), lang),
        Text(),
        rematch_text(game, lang),
    ]
    if rejoin:
        parts += [Text(), Wrapped(rejoin, indent=4)]
    return Group(*parts)


class OnlineScreen(Screen[None]):
    """Draws a :class:`RemoteGame` and turns keys into its actions.

    Space or the flip key flips on your turn, the slap key slaps (its event
    time is the slap's ``input_at``), the call key calls in say-it; Enter
    starts a waiting room now, R asks for a rematch after the end, ? shows the
    rules, Esc leaves. A new card's ``shown_at`` is stamped after the refresh
    that draws it (``call_after_refresh``), as at the local table.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", show=False),
        Binding("question_mark", "rules", show=False),
    ]

    state: reactive[TableState | None] = reactive(None)
    now_ms: reactive[float] = reactive(0.0)
    line: reactive[Text] = reactive(Text)
    keys_text: reactive[RenderableType] = reactive(Text)
    lobby: reactive[RenderableType] = reactive(Text)
    results: reactive[RenderableType] = reactive(Text)

    def __init__(self, game: RemoteGame, lang: str, *, tick_s: float = 0.1) -> None:
        super().__init__()
        self.game = game
        self.lang = lang
        self.tick_s = tick_s
        self._shape: int | None = None
        game.on_change = self._on_change

    def compose(self) -> ComposeResult:
        lang = self.lang
        state = OnlineScreen.state
        timed = (OnlineScreen.state, OnlineScreen.now_ms)
        title = OnlineTitle(lang, id="titlebar").data_bind(*timed)
        title.code = self.game.code
        yield title
        yield Lobby(lang, id="lobby").data_bind(text=OnlineScreen.lobby)
        with Center(id="results-box"), EndBody(id="results"):
            yield Results(lang, id="results-text").data_bind(text=OnlineScreen.results)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield SeatsPanel(lang, id="seats").data_bind(*timed)
                yield LogPanel(lang, id="log").data_bind(state)
            with Vertical(id="table"):
                yield CentrePanel(lang, id="centre").data_bind(state)
                yield ResultPanel(lang, id="result").data_bind(state)
        yield Line(lang, id="status").data_bind(text=OnlineScreen.line)
        yield Line(lang, id="keys").data_bind(text=OnlineScreen.keys_text)

    def on_mount(self) -> None:
        self.query_one("#results").border_title = tr(self.lang, "end.title")
        if self.tick_s > 0:
            self.set_interval(self.tick_s, self._tick)
        self._on_change(self.game)

    def _tick(self) -> None:
        self.now_ms = self.game.now_ms()
        self.line = status_line(self.game, self.state, self.lang, self.now_ms)

    def _on_change(self, game: RemoteGame) -> None:
        if not self.is_mounted:
            return  # on_mount draws the game as it is then
        self.now_ms = game.now_ms()
        self.state = game.state
        self.line = status_line(game, game.state, self.lang, self.now_ms)
        self.keys_text = self._keys_text()
        rejoin = self.rejoin()
        self.lobby = lobby_text(game, self.lang, rejoin) if game.state is None else Text()
        over = game.state is not None and game.state.view.over
        if over and game.state is not None:
            self.results = results_group(game, game.state, self.lang, rejoin)
        self._show_lobby(game.state is None, over)
        self.call_after_refresh(self._focus_results, over)
        shape = None if game.state is None else len(game.state.seats)
        if shape != self._shape:
            # the seats panel is as high as its rows: lay it out again
            self._shape = shape
            for seats in self.query("#seats"):  # none while the app closes
                seats.refresh(layout=True)

    def rejoin(self) -> list[Text]:
        """The token and the command back into the seat (for a player)."""
        app = self.app
        token = getattr(app, "token", None)
        target = getattr(app, "target", None)
        invite = target.invite if target is not None else self.game.code
        return rejoin_lines(self.game, token if isinstance(token, str) else None, invite, self.lang)

    def _show_lobby(self, lobby: bool, over: bool = False) -> None:
        parts: list[tuple[str, bool]] = [
            ("#lobby", lobby),
            ("#main", not lobby and not over),
            ("#results-box", over),
        ]
        for selector, shown in parts:
            # query, not query_one: a frame can arrive while the app is closing
            # and its widgets are gone; that must not end the network worker
            for widget in self.query(selector):
                widget.display = shown

    def _focus_results(self, over: bool) -> None:
        """The focus on the results while they scroll (the arrows, Page Up/Down,
        Home and End scroll them then, with no Tab first); off them once they
        are gone (a rematch)."""
        for body in self.query(EndBody):  # none while the app closes
            if over and self.focused is None and body.allow_focus():
                body.focus()
            elif not over and self.focused is body:
                self.set_focus(None)

    def watch_state(self, state: TableState | None) -> None:
        if state is not None and not state.shown:
            # the reaction clock starts once the card is actually on screen
            self.call_after_refresh(self.game.shown, state.cue)

    def _keys_text(self) -> RenderableType:
        game = self.game
        lang = self.lang
        keys: list[tuple[str, str]] = []

        def key(k: str, what: str) -> None:
            keys.append((k, what))

        if game.seat is not None:
            if game.status == "waiting":
                key("Enter", tr(lang, "b.start_now"))
            elif game.over:
                key("R", tr(lang, "b.rematch"))
            else:
                slap, flip, call = (key_label(k) for k in game.keys)
                key(f"{tr(lang, 'key.space')}/{flip}", tr(lang, "b.flip"))
                key(slap, tr(lang, "b.slap"))
                if game.say_it:
                    key(call, tr(lang, "b.call"))
        if self.rejoin():
            key("T", tr(lang, "b.copy_token"))
        key("?", tr(lang, "b.rules"))
        key("Esc", tr(lang, "b.quit"))
        return keys_content(keys)

    def on_key(self, event: events.Key) -> None:
        game = self.game
        if event.key == "space":
            event.stop()
            game.flip()
            return
        if event.key == "enter":
            event.stop()
            game.start_now()
            return
        char = (event.character or "").lower()
        if not char:
            return
        slap, flip, call = (k.lower() for k in game.keys)
        if char == slap:
            event.stop()
            game.slap(event_time_ms(event.time))
        elif char == flip:
            event.stop()
            game.flip()
        elif char == call:
            event.stop()
            game.call()
        elif char == "r":
            event.stop()
            game.rematch()
        elif char == "t":
            event.stop()
            self.copy_token()

    def copy_token(self) -> None:
        """T: the seat's token to the clipboard (the terminal's, by OSC 52)."""
        token = getattr(self.app, "token", None)
        if not isinstance(token, str) or self.game.seat is None:
            return
        self.app.copy_to_clipboard(token)
        self.notify(token, title=tr(self.lang, "online.copied"), timeout=6)

    def action_rules(self) -> None:
        if self.game.rules is not None:
            self.app.push_screen(RulesScreen(self.game.rules, self.lang))

    def action_leave(self) -> None:
        """Ask before leaving a game in progress (a bot covers the seat)."""
        game = self.game
        if game.seat is None or not game.playing or game.over or game.connection != "open":
            self.app.exit()
            return

        def done(quit_now: bool | None) -> None:
            if quit_now:
                self.app.exit()

        self.app.push_screen(
            ConfirmQuit(self.lang, detail=tr(self.lang, "online.quit_detail")), done
        )


def event_time_ms(stamp: float) -> float:
    """A key event's time on the client's clock (ms): Textual stamps events
    with ``time.monotonic()``; a stamp that is not recent is not ours."""
    now = time.monotonic()
    return (stamp if 0.0 <= now - stamp < 5.0 else now) * 1000.0
