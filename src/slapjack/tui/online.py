"""The terminal game's network side: join a room of ``slapjack serve`` and talk
its WebSocket protocol (``docs/protocol.md``). Nothing here knows Textual.

* :func:`parse_target` turns ``--join CODE --server URL`` (or a whole invite
  link, ``http://host:port/r/CODE``) into a :class:`Target`.
* :func:`join_room` takes a free seat through ``POST /api/rooms/{code}/join``.
* :class:`OnlineClient` keeps one WebSocket to ``/ws/{code}``: it says hello
  with the seat token, answers every ``ping`` at once with a ``pong`` on the
  client's clock (the fair referee's clock sync), hands every other frame to a
  :class:`FrameHandler`, sends actions, and reconnects with the token after a
  network failure.
* Every frame is decoded with the protocol's models (:mod:`slapjack.protocol`);
  an ``update``'s view and events become the engine's :class:`~slapjack.core.View`
  and events (``View.from_dict``, ``event_from_dict``), so the terminal's
  drawing code shows the server's table as it shows a local one.

Times: the client's clock is ``time.monotonic()`` in milliseconds, the clock
Textual stamps key events with, so ``shown_at``, ``input_at`` and every
pong's ``client_time`` are on one clock, as the referee expects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import re
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol
from urllib.parse import quote, urlsplit

from pydantic import ValidationError

from slapjack.core import SlapjackError
from slapjack.protocol import (
    CLIENT_MESSAGE,
    CLOSE_MOVED,
    PROTOCOL_VERSION,
    ErrorBody,
    ErrorFrame,
    FrameError,
    Joined,
    Moved,
    Ping,
    Update,
    Welcome,
    decode_event,
    decode_server_frame,
    decode_view,
)

log = logging.getLogger(__name__)

DEFAULT_SERVER: Final = "http://127.0.0.1:8000"
RETRY_FIRST_S: Final = 0.3
RETRY_MAX_S: Final = 5.0
MAX_FRAME_CHARS: Final = 1 << 22
SENT_KEPT: Final = 200

_CODE: Final = re.compile(r"^[A-Za-z0-9]{1,32}$")
_INVITE: Final = re.compile(r"/r/([A-Za-z0-9]+)/?$")


def monotonic_ms() -> float:
    """The client's clock: ``time.monotonic()`` in milliseconds."""
    return time.monotonic() * 1000.0


class OnlineError(SlapjackError):
    """Something the user should read: a bad target, a refused join, no server.

    ``code`` is the server's error code where there is one (``room_full``,
    ``unknown_room``, …) or the client's own (``bad_target``, ``unreachable``).
    """

    code = "online"

    def __init__(self, message: str, *, code: str = "online", detail: str = "") -> None:
        super().__init__(message, code=code)
        self.detail = detail or message


# ------------------------------------------------------------------ the target


@dataclass(frozen=True, slots=True)
class Target:
    """A room on a server: ``server`` is ``http(s)://host:port`` (no path)."""

    server: str
    code: str

    @property
    def ws_url(self) -> str:
        parts = urlsplit(self.server)
        scheme = "wss" if parts.scheme == "https" else "ws"
        prefix = parts.path.rstrip("/")  # a node behind a proxy: https://host/n/a
        return f"{scheme}://{parts.netloc}{prefix}/ws/{quote(self.code)}"

    @property
    def invite(self) -> str:
        return f"{self.server}/r/{self.code}"


def _server_base(url: str) -> str:
    raw = url.strip()
    if "://" not in raw:
        raw = "http://" + raw
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
        raise OnlineError(f"not a server address: {url!r}", code="bad_target")
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return f"{scheme}://{parts.netloc}"


def parse_target(join: str, server: str | None = None) -> Target:
    """``--join`` is a room code (``K7Q2PX``) or an invite link
    (``http://host:port/r/K7Q2PX``, as the web game shows it); ``--server`` is
    the server of a bare code (default ``http://127.0.0.1:8000``). A link's
    own server wins over ``--server``."""
    text = join.strip()
    if "/" in text:
        raw = text if "://" in text else "http://" + text
        parts = urlsplit(raw)
        match = _INVITE.search(parts.path)
        if match is None or not parts.netloc:
            raise OnlineError(
                f"not a room code or invite link: {join!r} (expected CODE or http://host:port/r/CODE)",
                code="bad_target",
            )
        return Target(_server_base(f"{parts.scheme}://{parts.netloc}"), match.group(1).upper())
    if not _CODE.match(text):
        raise OnlineError(f"not a room code: {join!r}", code="bad_target")
    return Target(_server_base(server or DEFAULT_SERVER), text.upper())


# ------------------------------------------------------------------- HTTP API


@dataclass(frozen=True, slots=True)
class Seat:
    """What ``POST /api/rooms/{code}/join`` answered (``Joined``)."""

    code: str
    seat: int
    token: str
    name: str


def _http_error(response: Any, target: Target) -> OnlineError:
    """The server's ``ErrorBody`` as an :class:`OnlineError` (``http_error``
    when the answer is not one, e.g. from a proxy)."""
    try:
        body = ErrorBody.model_validate_json(response.content)
    except ValidationError:
        return OnlineError(f"HTTP {response.status_code}", code="http_error")
    return OnlineError(body.message or response.reason_phrase, code=str(body.code))


async def _api(target: Target, method: str, path: str, *, timeout: float, body: Any = None) -> Any:
    """One call to the room's HTTP API (``/api/rooms/{code}{path}``): its JSON
    answer, or an :class:`OnlineError` that says what went wrong."""
    import httpx

    url = f"{target.server}/api/rooms/{quote(target.code)}{path}"
    try:
        async with httpx.AsyncClient(timeout=timeout) as http:
            response = await http.request(method, url, json=body)
    except httpx.HTTPError as exc:
        raise OnlineError(
            f"cannot reach {target.server}: {exc}", code="unreachable", detail=str(exc)
        ) from None
    if response.status_code != 200:
        raise _http_error(response, target)
    try:
        return response.json()
    except ValueError:
        raise OnlineError("the server's answer is not JSON", code="bad_answer") from None


async def join_room(target: Target, name: str, *, timeout: float = 10.0) -> Seat:
    """Take a free seat in the room as ``name`` (the server may add a number)."""
    data = await _api(target, "POST", "/join", timeout=timeout, body={"name": name})
    try:
        joined = Joined.model_validate(data)
    except ValidationError:
        raise OnlineError("the server's answer to join is not a seat", code="bad_answer") from None
    return Seat(joined.code, joined.seat, joined.token, joined.name)


# ------------------------------------------------------------ saved seats


def default_seat_file() -> Path:
    """``$XDG_STATE_HOME/slapjack/seats.json`` (``~/.local/state/…``)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "slapjack" / "seats.json"


class SeatStore:
    """The seats this terminal holds, by server and room (as the web game keeps
    them in the browser): ``slapjack tui --join CODE`` again takes the same
    seat back. The file is private to the user (mode 0600); entries older than
    :attr:`keep_days` are dropped. A file that cannot be read or written is
    treated as empty (playing never depends on it)."""

    keep_days: float = 7.0

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_seat_file()

    @staticmethod
    def _key(target: Target) -> str:
        return f"{target.server} {target.code}"

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            log.debug("cannot save seats to %s", self.path, exc_info=True)

    def get(self, target: Target, name: str | None = None) -> Seat | None:
        """The seat saved for the room; with ``name``, only if it was taken
        under that name (two people on one machine keep their own seats)."""
        entry = self._load().get(self._key(target))
        if not isinstance(entry, dict):
            return None
        try:
            if time.time() - float(entry.get("at", 0)) > self.keep_days * 86400:
                return None
            seat = Seat(target.code, int(entry["seat"]), str(entry["token"]), str(entry["name"]))
        except (KeyError, TypeError, ValueError):
            return None
        if name is not None and name not in (seat.name, entry.get("asked")):
            return None
        return seat

    def save(self, target: Target, seat: Seat, asked: str | None = None) -> None:
        """Keep ``seat`` (``asked``: the name asked for, if the server changed it)."""
        data = self._load()
        now = time.time()
        data = {
            k: v
            for k, v in data.items()
            if isinstance(v, dict)
            and isinstance(v.get("at"), int | float)
            and now - v["at"] <= self.keep_days * 86400
        }
        data[self._key(target)] = {
            "seat": seat.seat,
            "token": seat.token,
            "name": seat.name,
            "asked": asked or seat.name,
            "at": now,
        }
        self._write(data)

    def forget(self, target: Target) -> None:
        data = self._load()
        if data.pop(self._key(target), None) is not None:
            self._write(data)


# -------------------------------------------------------------- frame decoding

view_from_dict = decode_view
"""The engine's :class:`View` from an update's ``view`` (the protocol's
``ViewFrame``: ``View.to_dict()`` plus ``flip_id``); :class:`FrameError` if not."""
event_from_dict = decode_event
"""The engine's event from one of an update's ``events`` (``players``: the seat
count); ``None`` for an event type this client does not know (a newer
server's); :class:`FrameError` for a known type in a wrong shape."""


# ------------------------------------------------------------------ the socket


class FrameHandler(Protocol):
    """What the client tells about the connection (all on the event loop).
    Frames arrive decoded and validated (:mod:`slapjack.protocol`)."""

    def on_welcome(self, msg: Welcome) -> None: ...

    def on_update(self, msg: Update) -> None: ...

    def on_server_error(self, msg: ErrorFrame) -> None:
        """A typed ``error`` frame: the server refused something; nothing changed."""
        ...

    def on_bad_frame(self, what: str) -> None:
        """A frame that is not JSON, has an unknown ``type`` or a wrong shape."""
        ...

    def on_status(self, status: str, detail: Mapping[str, Any]) -> None:
        """``connecting``, ``open``, ``closed`` (will retry: ``retry_s``,
        ``attempt``, ``code``, ``error``) or ``gone`` (final: ``code``, ``reason``)."""
        ...


def moved_delay(retry_ms: int, rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait before following a ``moved``: its ``retry_ms`` plus a
    random jitter of up to as much again (at least 20 ms), so the clients of
    a room that moved do not all arrive at the same instant."""
    base = max(0.02, retry_ms / 1000.0)
    return base * (1.0 + rand())


FINAL_CLOSE_CODES: Final = frozenset({1008})
"""Besides 4000–4999 (the server's own: 4001 bad token, 4004 no such room):
closes after which a reconnect would only be closed again."""


class OnlineClient:
    """One WebSocket to a room, reconnected with the same token after a
    network failure (back-off 0.3 s doubling to 5 s) until :meth:`close`."""

    def __init__(
        self,
        target: Target,
        token: str | None,
        handler: FrameHandler,
        *,
        lang: str = "en",
        clock_ms: Callable[[], float] = monotonic_ms,
        reconnect: bool = True,
        open_timeout: float = 10.0,
    ) -> None:
        self.target = target
        self.token = token
        self.handler = handler
        self.lang = lang
        self.clock_ms = clock_ms
        self.reconnect = reconnect
        self.open_timeout = open_timeout
        self.pongs = 0
        self.sent: deque[dict[str, Any]] = deque(maxlen=SENT_KEPT)
        """The latest action frames sent (not pongs), newest last (tests read it)."""
        self._ws: Any = None
        self._queue: asyncio.Queue[str] | None = None
        self._closing = False
        self._attempt = 0
        self.gone = False
        self.close_code: int | None = None
        """The close code of a final close (4001: a token of no seat)."""
        self.servers: list[str] = [target.server]
        """Every server this client was sent to (the first: where it started);
        when the current one cannot be reached, the next one is asked, and
        any node of a cluster sends it on to the room's owner."""
        self.moves = 0
        self._moved: Moved | None = None

    @property
    def connected(self) -> bool:
        return self._ws is not None

    async def run(self) -> None:
        """Connect, read until the socket closes, reconnect; returns after
        :meth:`close` or a final close (bad token, room closed, flood)."""
        import websockets

        while not self._closing:
            self.handler.on_status("connecting", {"attempt": self._attempt})
            code: int | None = None
            reason = ""
            error = ""
            try:
                async with websockets.connect(
                    self.target.ws_url,
                    open_timeout=self.open_timeout,
                    max_size=MAX_FRAME_CHARS,
                    compression=None,
                ) as ws:
                    await self._serve(ws)
                    code = ws.close_code
                    reason = ws.close_reason or ""
            except (
                OSError,
                TimeoutError,
                websockets.InvalidHandshake,
                websockets.InvalidURI,
            ) as exc:
                error = str(exc) or type(exc).__name__
            except websockets.ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                reason = exc.rcvd.reason if exc.rcvd is not None else ""
            finally:
                self._ws = None
                self._queue = None
            if self._closing:
                return
            moved, self._moved = self._moved, None
            if moved is not None or code == CLOSE_MOVED:
                self._follow(moved)
                retry = moved.retry_ms if moved is not None else 0
                await asyncio.sleep(moved_delay(retry))
                continue
            if error and len(self.servers) > 1:  # the node is gone: ask another one
                nxt = self.servers[(self.servers.index(self.target.server) + 1) % len(self.servers)]
                self.target = Target(nxt, self.target.code)
            if code is not None and (code in FINAL_CLOSE_CODES or 4000 <= code < 5000):
                self.gone = True
                self.close_code = code
                self.handler.on_status("gone", {"code": code, "reason": reason})
                return
            if not self.reconnect:
                self.gone = True
                self.handler.on_status("gone", {"code": code, "reason": reason or error})
                return
            delay = min(RETRY_MAX_S, RETRY_FIRST_S * 2**self._attempt)
            self._attempt += 1
            self.handler.on_status(
                "closed",
                {"code": code, "error": error, "retry_s": delay, "attempt": self._attempt},
            )
            await asyncio.sleep(delay)

    def _follow(self, moved: Moved | None) -> None:
        """After a ``moved``: its owner becomes the target (none named: the same
        address again, or, after a failed connect, the next known one)."""
        self.moves += 1
        if moved is None or moved.url is None:
            return
        server = moved.url.rstrip("/")
        if server not in self.servers:
            self.servers.append(server)
        self.target = Target(server, self.target.code)
        self._attempt = 0

    async def _serve(self, ws: Any) -> None:
        import websockets

        queue: asyncio.Queue[str] = asyncio.Queue()
        self._ws = ws
        self._queue = queue
        try:
            await ws.send(self._frame("hello", token=self.token, lang=self.lang))
        except websockets.ConnectionClosed:
            # A node that does not run the room says ``moved`` and closes at
            # once, without waiting for our hello: when that close came first,
            # the frame is still to be read below (and followed), not lost.
            pass
        else:
            self.handler.on_status("open", {})
        writer = asyncio.create_task(self._write(ws, queue))
        try:
            async for text in ws:
                if isinstance(text, bytes):
                    self.handler.on_bad_frame("binary frame")
                    continue
                await self._receive(ws, text)
        except websockets.ConnectionClosed:
            pass
        finally:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    async def _write(self, ws: Any, queue: asyncio.Queue[str]) -> None:
        import websockets

        while True:
            text = await queue.get()
            try:
                await ws.send(text)
            except websockets.ConnectionClosed:
                return

    async def _receive(self, ws: Any, text: str) -> None:
        try:
            msg = decode_server_frame(text)
        except FrameError as exc:
            self.handler.on_bad_frame(exc.message)
            return
        if isinstance(msg, Ping):
            # at once, before anything else: the server measures this round trip
            await ws.send(self._frame("pong", id=msg.id, client_time=round(self.clock_ms(), 3)))
            self.pongs += 1
            return
        try:
            if isinstance(msg, Welcome):
                self._attempt = 0  # the room took us: the next drop starts the back-off anew
                self.handler.on_welcome(msg)
            elif isinstance(msg, Update):
                self.handler.on_update(msg)
            elif isinstance(msg, Moved):
                self._moved = msg  # followed when the server closes the socket (4010)
            else:
                self.handler.on_server_error(msg)
        except Exception as exc:
            # a frame this client cannot make sense of must not end the game
            log.debug("frame %.200r: %r", text, exc, exc_info=True)
            try:
                self.handler.on_bad_frame(f"{msg.type}: {type(exc).__name__}")
            except Exception:  # the screen is gone (the app is closing): nothing to show
                log.debug("cannot show a bad frame", exc_info=True)

    def _frame(self, kind: str, **values: Any) -> str:
        """A client frame, built and checked by the protocol's model (a field the
        server would refuse raises ``ValidationError`` here, before it is sent)."""
        frame = CLIENT_MESSAGE.validate_python({"v": PROTOCOL_VERSION, "type": kind, **values})
        return frame.model_dump_json(exclude_unset=True)

    def send(self, kind: str, **values: Any) -> bool:
        """Queue a frame (``flip``, ``slap``, …); the seat token is added.
        ``False`` when not connected (the action is dropped, as a click on a
        dead page would be), or when the server would refuse the frame (no
        token: a spectator's; a field out of range), which is logged."""
        queue = self._queue
        if queue is None or self._ws is None:
            return False
        try:
            text = self._frame(kind, token=self.token, **values)
        except ValidationError as exc:
            log.warning("not sent: a %s frame the server would refuse: %s", kind, exc)
            return False
        self.sent.append({"type": kind, "token": self.token, **values})
        queue.put_nowait(text)
        return True

    async def close(self) -> None:
        """Close the socket and stop reconnecting."""
        self._closing = True
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
