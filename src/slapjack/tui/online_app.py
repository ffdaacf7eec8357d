"""The terminal game as a client of ``slapjack serve``: ``slapjack tui --join``."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from .config import DEFAULT_KEYS
from .i18n import TEXTS, detect_lang, tr
from .online import OnlineClient, OnlineError, Target, join_room, monotonic_ms
from .remote import Notice, RemoteGame
from .screens.online import OnlineScreen


class OnlineApp(App[None]):
    """Join a room (``name``: take a free seat through the HTTP API; ``token``:
    back into a seat already taken; neither: watch) and play it over the
    room's WebSocket."""

    CSS_PATH = "slapjack.tcss"
    TITLE = "Slapjack"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True)
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        target: Target,
        *,
        name: str | None = None,
        token: str | None = None,
        lang: str | None = None,
        keys: tuple[str, str, str] = DEFAULT_KEYS[0],
        tick_s: float = 0.1,
        reconnect: bool = True,
    ) -> None:
        super().__init__()
        self.target = target
        self.player_name = name
        self.token = token
        self.lang = detect_lang(lang)
        self.tick_s = tick_s
        self.reconnect = reconnect
        self.game = RemoteGame(code=target.code, name=name or "", keys=keys, clock_ms=monotonic_ms)
        self.client: OnlineClient | None = None

    def on_mount(self) -> None:
        self.push_screen(OnlineScreen(self.game, self.lang, tick_s=self.tick_s))
        self.run_worker(self._run(), name="online", exclusive=True)

    async def _run(self) -> None:
        game = self.game
        target = self.target
        if self.token is None and self.player_name:
            game.notice = Notice(
                "online.joining", (("code", target.code), ("server", target.server))
            )
            game.note("online.joining", code=target.code, server=target.server)
            try:
                seat = await join_room(target, self.player_name)
            except OnlineError as exc:
                message = join_error_text(exc, self.lang)
                game.notice = Notice("online.join_failed", (("message", message),), bad=True)
                game.note("online.join_failed", message=message)
                return
            self.token = seat.token
            game.seat = seat.seat
            game.name = seat.name
            game.note("online.token_hint", code=target.code, token=seat.token)
        game.notice = None
        client = OnlineClient(
            target,
            self.token,
            game,
            lang=self.lang,
            clock_ms=game.clock_ms,
            reconnect=self.reconnect,
        )
        self.client = client
        game.send = client.send
        try:
            await client.run()
        finally:
            await client.close()

    async def action_quit(self) -> None:
        self.exit()


def join_error_text(exc: OnlineError, lang: str) -> str:
    """Why a join failed, in the player's language where the code is known."""
    if exc.code == "unreachable":
        return tr(lang, "online.unreachable", error=exc.detail)
    key = f"srv.{exc.code}"
    if key in TEXTS:
        return tr(lang, key, code=exc.code, message=exc.message)
    return exc.message
