"""Frames as the server writes them: compact JSON text, UTF-8 as it is (no
``\\u`` escapes for letters), keys in the order of the models in
:mod:`slapjack.protocol.to_client`.

The update frame is the server's hot path (one per socket per change), so it
is built in parts: the events and the room status are encoded once per
change, a view once per seat (spectators share one), and each socket's frame
is its own ``seq`` in front of that shared body::

    events = events_json(evs)
    room = dumps(room.status_dict())
    body = update_body(events, view_json(observe(game, seat), game.flips), room)
    text = update_frame(conn.next_seq(), body)

``bench/protocol.py`` measures this against the models' own encoder; a test
checks that both give the same frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any, Final

import orjson
from pydantic import BaseModel
from pydantic_core import to_json

from slapjack.core import Event, View, card_name, event_to_dict
from slapjack.core.cards import rank_name
from slapjack.core.events import EVENT_TYPES

from .base import PROTOCOL_VERSION
from .bodies import RoomInfo


def _model(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: Any) -> str:
    """``value`` (dicts, lists, str, numbers, ``None``, models) as compact JSON text.

    orjson: three times faster than ``pydantic_core.to_json`` on the update's
    parts (docs/benchmarks.md, "One process on one core"), the same text for them;
    values orjson refuses (integers beyond 64 bits, say) go to ``to_json``;
    NaN and the infinities, which no frame carries, become ``null`` (JSON has
    no such numbers; ``to_json`` wrote ``NaN``)."""
    try:
        return orjson.dumps(value, default=_model).decode()
    except orjson.JSONEncodeError:
        return to_json(value).decode()


def encode(message: BaseModel) -> str:
    """A frame or a body from its model."""
    return message.model_dump_json()


_PLAIN, _CARD, _CALL, _SEATS, _PAIRS = range(5)
_FIELD_KINDS: Final = {
    "card": _CARD,
    "call": _CALL,
    "winners": _SEATS,
    "seats": _SEATS,
    "shares": _PAIRS,
    "reactions": _PAIRS,
}
_EVENT_PLANS: Final[dict[type, tuple[str, tuple[tuple[str, int], ...]]]] = {
    cls: (name, tuple((f.name, _FIELD_KINDS.get(f.name, _PLAIN)) for f in fields(cls)))
    for name, cls in EVENT_TYPES.items()
}
"""Each event class's ``type`` and its fields with how :func:`event_to_dict`
writes each (without player names: seats stay numbers)."""


def event_dict(event: Event) -> dict[str, Any]:
    """``event_to_dict(event)``, the same dict, read field by field from a plan
    made once per class instead of through ``dataclasses.asdict`` (which copies
    every value and is most of ``event_to_dict``'s cost: 7–8 µs an event
    against about 1.5). A class without a plan goes to ``event_to_dict``; a
    test holds the two to the same text through whole games."""
    plan = _EVENT_PLANS.get(type(event))
    if plan is None:
        return event_to_dict(event)
    name, keys = plan
    out: dict[str, Any] = {"type": name}
    for key, kind in keys:
        value = getattr(event, key)
        if kind == _PLAIN:
            out[key] = value
        elif kind == _CARD:
            out[key] = card_name(value)
        elif kind == _CALL:
            out[key] = (
                rank_name(value)
                if isinstance(value, int) and not isinstance(value, bool)
                else value
            )
        elif kind == _SEATS:
            out[key] = list(value)
        else:
            out[key] = [[s, v] for s, v in value]
    return out


def events_json(events: Sequence[Event]) -> str:
    """``update.events``: the engine's events as JSON (once per change)."""
    return dumps([event_dict(e) for e in events])


def view_json(view: View, flip_id: int) -> str:
    """``update.view``: a seat's view and the ``flip_id`` to act on (the view of
    an update before the game is ``null``)."""
    data = view.to_dict()
    data["flip_id"] = flip_id
    return dumps(data)


def view_head(view: View) -> str:
    """The text of an encoded view up to its ``seat``'s value: the game, its
    rules and its players (:meth:`View.head_dict`), the same for every view of
    one game, so a room encodes it once per game (``view_parts``' ``head``)."""
    return dumps(view.head_dict())[:-1] + ',"seat":'


def view_parts(view: View, flip_id: int, head: str | None = None) -> tuple[str, str]:
    """``view`` encoded once for every seat of its table: the text before and
    after the value of its ``seat`` (:func:`seat_view` puts one in). Every
    seat sees the same public facts (:func:`slapjack.core.observe`), so a
    room encodes one view per change, not one per seat; a test holds
    ``seat_view(view_parts(observe(game, None), f), s)`` to
    ``view_json(observe(game, s), f)`` for every seat through whole games.
    ``head``: this game's :func:`view_head`, if the caller kept it."""
    tail = view.tail_dict()
    tail["flip_id"] = flip_id
    return view_head(view) if head is None else head, "," + dumps(tail)[1:]


def seat_view(parts: tuple[str, str], seat: int | None) -> str:
    """``update.view`` of ``seat`` (``None``: a spectator) from :func:`view_parts`."""
    return f"{parts[0]}{'null' if seat is None else int(seat)}{parts[1]}"


def update_body(events: str, view: str, room: str) -> str:
    """Everything of an update frame after its ``seq``, from the encoded parts
    (:func:`events_json`, :func:`view_json`, ``dumps(status)``)."""
    return f',"events":{events},"view":{view},"room":{room}}}'


def update_frame(seq: int, body: str) -> str:
    """One socket's ``update`` frame: its ``seq`` and the shared :func:`update_body`."""
    return f'{{"type":"update","seq":{seq}{body}'


def error_frame(
    code: str, message: str, answer: int | str | None = None, *, with_id: bool = True
) -> str:
    """An ``error`` frame; ``answer`` is the ``id`` of the frame it answers.
    ``with_id=False``: no ``id`` at all (the ``room_closed`` of a room that closes)."""
    if not with_id:
        return dumps({"type": "error", "code": code, "message": message})
    return dumps({"type": "error", "code": code, "message": message, "id": answer})


def ping_frame(ping_id: int, server_time: float) -> str:
    """A clock-sync ``ping`` stamped with the server's clock (ms)."""
    return dumps({"type": "ping", "id": ping_id, "server_time": server_time})


def welcome_frame(
    room: RoomInfo, seat: int | None, name: str | None, answer: int | str | None = None
) -> str:
    """The ``welcome`` for a socket bound to ``seat`` (``None``: a spectator's)."""
    return dumps(
        {
            "type": "welcome",
            "v": PROTOCOL_VERSION,
            "room": room,
            "seat": seat,
            "name": name,
            "id": answer,
        }
    )
