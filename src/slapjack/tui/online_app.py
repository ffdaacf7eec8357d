"""The terminal game as a client of ``slapjack serve``: ``slapjack tui --join``."""

from __future__ import annotations

from .app import BaseApp
from .config import DEFAULT_KEYS
from .i18n import detect_lang, has, tr
from .online import (
    OnlineClient,
    OnlineError,
    Seat,
    SeatStore,
    Target,
    join_room,
    monotonic_ms,
)
from .remote import Notice, RemoteGame
from .screens.online import OnlineScreen


class OnlineApp(BaseApp):
    """Join a room (``name``: take a free seat through the HTTP API, or the seat
    ``seats`` saved for this room and name; ``token``: back into a seat
    already taken; neither: watch) and play it over the room's WebSocket."""

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
        seats: SeatStore | None = None,
        seat: Seat | None = None,
        saved: bool = False,
    ) -> None:
        super().__init__()
        self.target = target
        self.player_name = name
        self.token = token
        self.lang = detect_lang(lang)
        self.too_small_note = "too_small.online"
        self.tick_s = tick_s
        self.reconnect = reconnect
        self.seats = seats
        self.joined = seat
        """A seat taken before the app opened (``slapjack tui --join`` joins first)."""
        self.joined_saved = saved
        self.game = RemoteGame(code=target.code, name=name or "", keys=keys, clock_ms=monotonic_ms)
        self.client: OnlineClient | None = None
        if seat is not None:
            self._take(seat)

    def on_mount(self) -> None:
        self.push_screen(OnlineScreen(self.game, self.lang, tick_s=self.tick_s))
        self.run_worker(self._run(), name="online", exclusive=True)

    async def _run(self) -> None:
        game = self.game
        target = self.target
        from_store = False
        if self.joined is not None:
            from_store = self.joined_saved
            self._take(self.joined)
            if from_store:
                game.note("online.rejoining", number=self.joined.seat + 1, who=self.joined.name)
            else:
                game.note("online.token_hint", code=target.invite, token=self.joined.token)
                if self.seats is not None:
                    game.note("online.seat_saved", code=target.code)
        elif self.token is None and self.player_name:
            saved = self.seats.get(target, self.player_name) if self.seats else None
            if saved is not None:
                from_store = True
                self._take(saved)
                game.note("online.rejoining", number=saved.seat + 1, who=saved.name)
            elif not await self._join(self.player_name):
                return
        while True:
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
            if client.close_code == 4001 and from_store and self.player_name:
                # the saved seat is gone (an old room, a new server): take a new one
                from_store = False
                if self.seats is not None:
                    self.seats.forget(target)
                game.note("online.saved_gone")
                if await self._join(self.player_name):
                    continue
            return

    def _take(self, seat: Seat) -> None:
        self.token = seat.token
        self.game.seat = seat.seat
        self.game.name = seat.name

    async def _join(self, name: str) -> bool:
        """Take a free seat; on failure say why and return ``False``."""
        game = self.game
        target = self.target
        game.notice = Notice("online.joining", (("code", target.code), ("server", target.server)))
        game.note("online.joining", code=target.code, server=target.server)
        try:
            seat = await join_room(target, name)
        except OnlineError as exc:
            message = join_error_text(exc, self.lang)
            game.notice = Notice("online.join_failed", (("message", message),), bad=True)
            game.note("online.join_failed", message=message)
            return False
        self._take(seat)
        game.note("online.token_hint", code=target.invite, token=seat.token)
        if self.seats is not None:
            self.seats.save(target, seat, asked=name)
            game.note("online.seat_saved", code=target.code)
        return True

    async def action_quit(self) -> None:
        self.exit()


def join_error_text(exc: OnlineError, lang: str) -> str:
    """Why a join failed, in the player's language where the code is known."""
    if exc.code == "unreachable":
        return tr(lang, "online.unreachable", error=exc.detail)
    key = f"error.{exc.code}"
    if has(key):
        return tr(lang, key, code=exc.code, message=exc.message)
    return exc.message
