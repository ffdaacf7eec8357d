"""Server → client: the frames the server sends on ``/ws/{code}`` (``welcome``,
``update``, ``ping``, ``error``, ``moved``), with the view and the events of an update.

These models describe and check the wire exactly: a client decodes a frame with
:func:`decode_server_frame` (or :data:`SERVER_MESSAGE`), then turns the view
and the events into the engine's own objects with :meth:`ViewFrame.to_view`
and :meth:`EventModel.to_event` (``View.from_dict``, ``event_from_dict``).
The server builds its frames with :mod:`slapjack.protocol.encode`; a test
decodes every frame a real game sends with these models."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, TypeAdapter, ValidationError, model_validator
from pydantic_core import PydanticSerializationError, to_json

from slapjack.core import Event, SlapjackError, View
from slapjack.core.events import EVENT_TYPES, event_from_dict

from .base import PROTOCOL_VERSION, BotLevel, Count, FrameId, Seat, Strict
from .bodies import GameName, RoomCode, RoomInfo, RoomStatusName
from .codes import ErrorCode

CardName = Annotated[str, Field(pattern=r"^(A|[2-9]|10|J|Q|K)[CDHS]$")]
"""A face-up card, rank then suit: ``"10H"``, ``"JS"``, ``"AC"``."""
RankName = Annotated[str, Field(pattern=r"^(A|[2-9]|10|J|Q|K)$")]
"""A rank alone: ``"J"``, ``"10"``."""
SeatKey = Annotated[str, Field(pattern=r"^[0-9]$")]
"""A seat number as an object key (``"2"``)."""
Ms = Annotated[float, Field(allow_inf_nan=False)]
"""Milliseconds (a reaction, or a time on the server's clock)."""
OptionValue = str | int | bool
"""A rules option's value: ``"reslap"``, ``30``, ``true``."""


# ------------------------------------------------------------------ the view


class ViewFrame(Strict):
    """``update.view``: ``View.to_dict()`` of the socket's seat, plus ``flip_id``."""

    game: GameName
    rules: dict[str, OptionValue]
    players: list[str]
    seat: Seat | None
    stacks: list[Count]
    out: list[bool]
    out_order: list[Seat]
    turn: Seat | None
    centre_size: Count
    centre_face_down: Count
    centre_top: Annotated[list[CardName], Field(max_length=5)]
    top_call: RankName | None
    next_call: RankName | None
    race_open: bool
    reslap_among: list[Seat] | None
    slapped: list[Seat]
    last_flipper: Seat | None
    over: bool
    winners: list[Seat]
    loser: Seat | None
    flips: Count
    version: Count
    flip_id: Count
    """The ``flip_id`` to send with ``flip``, ``slap`` and ``call`` (equals ``flips``)."""

    @model_validator(mode="after")
    def _flip_id_is_flips(self) -> ViewFrame:
        if self.flip_id != self.flips:
            raise ValueError(f"flip_id {self.flip_id} is not flips {self.flips}")
        return self

    def to_view(self) -> View:
        """The engine's :class:`~slapjack.core.View` (``SlapjackError``
        ``bad_view`` if the view does not hold together: a seat out of range…)."""
        return View.from_dict(self.model_dump(mode="json", exclude={"flip_id"}))


# ------------------------------------------------------------------ events

Pair = tuple[Seat, Ms]
"""``[seat, ms]`` (a reaction) or ``[seat, cards]`` (a share)."""


class _EventBase(Strict):
    def to_event(self, players: int | None = None) -> Event:
        """The engine's event; ``players``: the number of seats (``SlapjackError``
        ``bad_event`` for a seat out of range)."""
        return event_from_dict(self.model_dump(mode="json"), players)


class FlippedEvent(_EventBase):
    type: Literal["flipped"]
    seat: Seat
    card: CardName
    call: RankName | None
    match: bool


class SlappedEvent(_EventBase):
    type: Literal["slapped"]
    seat: Seat
    reaction_ms: Ms
    call: bool


class WrongSlapEvent(_EventBase):
    type: Literal["wrong_slap"]
    seat: Seat
    penalty: Literal["pay_player", "pay_pile", "pickup", "forfeit", "none"]
    to: Seat | None


class RaceWonEvent(_EventBase):
    type: Literal["race_won"]
    winner: Seat
    cards: Count
    reactions: list[Pair]


class RaceTiedEvent(_EventBase):
    type: Literal["race_tied"]
    seats: list[Seat]
    reaction_ms: Ms


class PileSplitEvent(_EventBase):
    type: Literal["pile_split"]
    shares: list[tuple[Seat, Count]]
    reactions: list[Pair]


class ForfeitEvent(_EventBase):
    type: Literal["forfeit"]
    seat: Seat
    shares: list[tuple[Seat, Count]]
    reactions: list[Pair]


class NoSlapEvent(_EventBase):
    type: Literal["no_slap"]
    card: CardName


class PickedUpEvent(_EventBase):
    type: Literal["picked_up"]
    seat: Seat
    cards: Count
    reason: Literal["last", "wrong"]
    reactions: list[tuple[Seat, Ms | None]]


class PileReturnedEvent(_EventBase):
    type: Literal["pile_returned"]
    seat: Seat
    cards: Count


class EliminatedEvent(_EventBase):
    type: Literal["eliminated"]
    seat: Seat
    reason: Literal["no_cards", "lost_jack", "turn", "wrong_slap"]


class FinishedEvent(_EventBase):
    type: Literal["finished"]
    seat: Seat


class TimeIsUpEvent(_EventBase):
    type: Literal["time_is_up"]


class GameOverEvent(_EventBase):
    type: Literal["game_over"]
    winners: list[Seat]
    loser: Seat | None


class UnknownEvent(Strict, extra="allow"):
    """An event type this client does not know (a newer server's): a client
    skips it. Our server never sends one (the round-trip test checks)."""

    type: str

    def to_event(self, players: int | None = None) -> None:
        return None


EVENT_MODELS: dict[str, type[_EventBase]] = {
    m.model_fields["type"].annotation.__args__[0]: m  # type: ignore[union-attr]
    for m in (
        FlippedEvent,
        SlappedEvent,
        WrongSlapEvent,
        RaceWonEvent,
        RaceTiedEvent,
        PileSplitEvent,
        ForfeitEvent,
        NoSlapEvent,
        PickedUpEvent,
        PileReturnedEvent,
        EliminatedEvent,
        FinishedEvent,
        TimeIsUpEvent,
        GameOverEvent,
    )
}
"""Every event model by its ``type``: the engine's events, one for one."""
assert set(EVENT_MODELS) == set(EVENT_TYPES), "an engine event without its model"


def _event_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if isinstance(kind, str) and kind in EVENT_MODELS else "unknown"


EventModel = Annotated[
    Annotated[FlippedEvent, Tag("flipped")]
    | Annotated[SlappedEvent, Tag("slapped")]
    | Annotated[WrongSlapEvent, Tag("wrong_slap")]
    | Annotated[RaceWonEvent, Tag("race_won")]
    | Annotated[RaceTiedEvent, Tag("race_tied")]
    | Annotated[PileSplitEvent, Tag("pile_split")]
    | Annotated[ForfeitEvent, Tag("forfeit")]
    | Annotated[NoSlapEvent, Tag("no_slap")]
    | Annotated[PickedUpEvent, Tag("picked_up")]
    | Annotated[PileReturnedEvent, Tag("pile_returned")]
    | Annotated[EliminatedEvent, Tag("eliminated")]
    | Annotated[FinishedEvent, Tag("finished")]
    | Annotated[TimeIsUpEvent, Tag("time_is_up")]
    | Annotated[GameOverEvent, Tag("game_over")]
    | Annotated[UnknownEvent, Tag("unknown")],
    Discriminator(_event_tag),
]
"""One event of ``update.events``, by its ``type``."""


# ------------------------------------------------------------------ room status


class Timers(Strict):
    """When each of the room's timers runs out (server clock, ms), or null."""

    start: Ms | None
    turn: Ms | None
    race: Ms | None
    deadlock: Ms | None
    time_limit: Ms | None
    resume: Ms | None = None
    """A game rebuilt after a restart or a takeover goes on (absent from older servers)."""


class RoomStatus(Strict):
    """``update.room``: the room around the game (``Room.status_dict()``)."""

    code: RoomCode
    status: RoomStatusName
    game_no: Count
    now: Ms
    """The server's clock when the frame was made (the clock of ``ping.server_time``)."""
    timers: Timers
    grace: dict[SeatKey, Ms]
    """Per absent human seat: when a bot starts covering it."""
    names: list[str | None]
    connected: list[bool]
    bots: dict[SeatKey, BotLevel]
    """Bot seats and covered seats, with their level."""
    covered: list[Seat]
    rematch: list[Seat]
    spectators: Count
    game_id: Count | None
    """The finished game's id in the history, once stored."""


# ------------------------------------------------------------------ the frames


class Welcome(Strict):
    """The answer to ``hello`` (and, with ``seat`` null, to ``leave``)."""

    type: Literal["welcome"] = "welcome"
    v: Literal[1] = PROTOCOL_VERSION
    room: RoomInfo
    seat: Seat | None
    name: str | None
    id: FrameId | None = None
    """The ``id`` of the ``hello`` (or ``leave``) it answers."""


class Update(Strict):
    """After every change; ``seq`` counts up by one per socket."""

    type: Literal["update"] = "update"
    seq: Annotated[int, Field(ge=1)]
    events: list[EventModel]
    view: ViewFrame | None
    """The seat's view; null while the room waits for players."""
    room: RoomStatus


class Ping(Strict):
    """Clock sync: answer with ``pong`` at once."""

    type: Literal["ping"] = "ping"
    id: Annotated[int, Field(ge=0, le=2**53)]
    server_time: Ms


class ErrorFrame(Strict):
    """Bad input: nothing changed."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    id: FrameId | None = None
    """The ``id`` of the frame it answers (null if that had none or an invalid
    one; absent from the ``room_closed`` sent when a room closes)."""


CLOSE_MOVED = 4010
"""Close code after a ``moved`` frame: reconnect where it says (not a final close)."""


class Moved(Strict):
    """The room runs on another node (scale-out, docs/deploy.md): reconnect to
    ``ws`` with the same token after ``retry_ms`` (plus a random jitter of up
    to as much again). ``ws`` null: the room is being taken over (its node
    died, or is draining): retry the same address, or any node, after
    ``retry_ms``. The socket is then closed with :data:`CLOSE_MOVED`."""

    type: Literal["moved"] = "moved"
    code: RoomCode
    node: str | None
    """The owner's node id (null while nobody owns it yet)."""
    url: str | None
    """The owner's public address (``https://host/n/a``), null as for ``ws``."""
    ws: str | None
    """The WebSocket URL to reconnect to (``wss://host/n/a/ws/CODE``)."""
    retry_ms: Annotated[int, Field(ge=0, le=60_000)] = 0
    reason: Literal["elsewhere", "takeover", "stopped", "unavailable"] = "elsewhere"
    """``elsewhere``: another node owns it; ``takeover``: its owner is gone and
    another node is taking it over; ``stopped``: this node gave the room up
    (another node fenced it off, or it drained); ``unavailable``: the cluster
    cannot say where it runs right now (Redis down)."""


ServerMessage = Annotated[Welcome | Update | Ping | ErrorFrame | Moved, Field(discriminator="type")]
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
"""Validates a server frame: ``SERVER_MESSAGE.validate_json(text)``."""
SERVER_MESSAGES: tuple[type[Strict], ...] = (Welcome, Update, Ping, ErrorFrame, Moved)


class FrameError(SlapjackError):
    """A frame from the server that is not one of the protocol's: ``what``
    says how (``not JSON``, ``unknown frame type 'x'``, ``view.rules: …``)."""

    code = "bad_frame"


def decode_server_frame(text: str | bytes) -> Welcome | Update | Ping | ErrorFrame | Moved:
    """One frame the server sent, validated; :class:`FrameError` otherwise.
    The message names the first bad field without the frame's type
    (``view.stacks.0: Input should be a valid integer``)."""
    try:
        return SERVER_MESSAGE.validate_json(text)
    except ValidationError as exc:
        raise FrameError(_describe(exc, drop_type=True)) from None


def decode_view(data: ViewFrame | Mapping[str, Any]) -> View:
    """The engine's :class:`~slapjack.core.View` from ``update.view`` (its model,
    or the JSON object); :class:`FrameError` (``view.…``) if it is not one."""
    try:
        frame = data if isinstance(data, ViewFrame) else ViewFrame.model_validate_json(_json(data))
        return frame.to_view()
    except ValidationError as exc:
        raise FrameError(_describe(exc, prefix="view")) from None
    except SlapjackError as exc:
        raise FrameError(exc.message) from None


_EVENT: TypeAdapter[EventModel] = TypeAdapter(EventModel)


def _json(data: Any) -> bytes:
    """A decoded JSON value as JSON again: validated as the wire's text is (an
    array is a pair, in strict mode a Python list is not a tuple)."""
    try:
        return to_json(data)
    except PydanticSerializationError as exc:
        raise FrameError(f"not JSON data: {exc}") from None


def decode_event(data: Any, players: int | None = None) -> Event | None:
    """The engine's event from one of ``update.events`` (its model, or the JSON
    object); ``players``: the number of seats, to check seat numbers against.
    ``None`` for an event type this client does not know (a newer server's);
    :class:`FrameError` for a known type in a wrong shape."""
    try:
        event = (
            data
            if isinstance(data, _EventBase | UnknownEvent)
            else _EVENT.validate_json(_json(data))
        )
        return event.to_event(players)
    except ValidationError as exc:
        raise FrameError(_describe(exc, prefix="event")) from None
    except SlapjackError as exc:
        raise FrameError(exc.message) from None


def _describe(exc: ValidationError, *, drop_type: bool = False, prefix: str = "") -> str:
    """The first error of ``exc`` in words: where (``view.stacks.0``) and what.
    ``drop_type``: the first step of the location is a frame's type (not shown)."""
    first = exc.errors()[0]
    kind = first["type"]
    loc = [str(p) for p in first["loc"]]
    if kind == "json_invalid":
        return "not JSON"
    if not loc:
        if kind in ("dict_type", "model_type", "model_attributes_type"):
            text = "not an object"
        elif kind == "union_tag_invalid":
            tag = str((first.get("ctx") or {}).get("tag", ""))
            text = f"unknown frame type {tag[:40]!r}"
        elif kind == "union_tag_not_found":
            text = "a frame without a type"
        else:
            text = first["msg"]
        return f"{prefix}: {text}" if prefix else text
    if drop_type:
        loc = loc[1:] or loc
    where = ".".join([prefix, *loc] if prefix else loc)
    return f"{where}: {first['msg']}"[:200]
