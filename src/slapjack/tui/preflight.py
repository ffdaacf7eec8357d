"""Before the online terminal game opens: is the server there, is the room
there, is a seat free? ``slapjack tui --join`` asks here first, so a refusal is
one line on the terminal (and exit status 2), not an empty full-screen table.

Nothing here knows Textual; it talks to the room's HTTP API
(``docs/protocol.md``: ``GET /api/rooms/{code}``, ``POST /api/rooms/{code}/join``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from slapjack.core import SlapjackError

from .online import Seat, SeatStore, Target

TIMEOUT_S: Final = 10.0


class PreflightError(SlapjackError):
    """Why the online game cannot start, in one line (with what to do instead)."""

    code = "preflight"


@dataclass(frozen=True, slots=True)
class Ready:
    """What the app starts with: the room's info and, for a player, the seat
    (just taken, or the one saved for this room and name)."""

    room: dict[str, Any]
    seat: Seat | None = None
    saved: bool = False
    """The seat came from the saved seats (``SeatStore``), not a new join."""


def _refusal(target: Target, status: int, code: str, message: str) -> PreflightError:
    room = f"room {target.code} on {target.server}"
    if code == "unknown_room":
        return PreflightError(
            f"there is no {room}: check the code (a room closes once everyone has left)"
        )
    if code == "room_full":
        return PreflightError(f"{room} is full or its game has started; watch it with --watch")
    if code == "room_closed":
        return PreflightError(f"{room} is closed")
    if code == "bad_name":
        return PreflightError(f"the server refused the name: {message} (--name NAME)")
    if code in ("rate_limited", "server_full"):
        return PreflightError(f"{target.server} is busy: {message}; try again in a moment")
    return PreflightError(f"{room}: {message or f'HTTP {status}'} ({code})")


async def _call(target: Target, method: str, path: str, body: Any = None) -> dict[str, Any]:
    import httpx

    url = f"{target.server}/api/rooms/{quote(target.code)}{path}"
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT_S) as http:
            response = await http.request(method, url, json=body)
    except httpx.HTTPError as exc:
        why = str(exc) or type(exc).__name__
        raise PreflightError(
            f"cannot reach {target.server}: {why} (is 'slapjack serve' running there? "
            "--server URL names another)"
        ) from None
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.status_code != 200:
        code = message = ""
        if isinstance(data, dict):
            code = str(data.get("code") or "")
            message = str(data.get("message") or "")
        raise _refusal(
            target, response.status_code, code or f"http_{response.status_code}", message
        )
    if not isinstance(data, dict):
        raise PreflightError(f"{target.server} does not answer as a slapjack server")
    return data


async def preflight(
    target: Target,
    *,
    name: str | None = None,
    store: SeatStore | None = None,
) -> Ready:
    """Check the room, and for a player (``name``) take a seat: the one saved
    for this room and name (whether the room still knows its token, the app
    finds out), else a free one. Back into a seat with a token, or watching,
    only needs the room. Raises :class:`PreflightError` with the line to show."""
    room = await _call(target, "GET", "")
    if name is None:
        return Ready(room)
    saved = store.get(target, name) if store is not None else None
    if saved is not None:
        return Ready(room, saved, saved=True)
    data = await _call(target, "POST", "/join", {"name": name})
    try:
        seat = Seat(str(data["code"]), int(data["seat"]), str(data["token"]), str(data["name"]))
    except (KeyError, TypeError, ValueError):
        raise PreflightError(f"{target.server} answered the join with no seat") from None
    if store is not None:
        store.save(target, seat, asked=name)
    return Ready(room, seat)
