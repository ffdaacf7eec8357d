"""The wire protocol (docs/protocol.md) in one place: every message in both
directions as a typed, validated model, the HTTP bodies, one :class:`ErrorCode`
enum, :data:`PROTOCOL_VERSION`, and the encoders the server builds its frames
with.

* :mod:`.to_server`: what a client sends on the WebSocket (``hello``, ``flip``,
  ``slap``, ``call``, ``pong``, ``rematch``, ``leave``, ``start``);
* :mod:`.to_client`: what the server sends (``welcome``, ``update`` with its
  view, events and room status, ``ping``, ``error``) and the client's decoder;
* :mod:`.bodies`: the HTTP bodies of the room API;
* :mod:`.codes`: :class:`ErrorCode`; :mod:`.names`: player and room names;
* :mod:`.encode`: the server's frame builders (the update frame's fast path).

Built on pydantic (chosen by measurement: ``bench/protocol.py``,
docs/benchmarks.md). Imports only :mod:`slapjack.core`, the standard library
and pydantic.
"""

from __future__ import annotations

from .base import (
    BOT_LEVELS,
    MAX_FRAME_BYTES,
    MAX_FRAME_ID,
    MAX_SEATS,
    PROTOCOL_VERSION,
    BotLevel,
    FrameId,
    Strict,
    frame_id,
)
from .bodies import (
    CreateRoom,
    ErrorBody,
    Invite,
    Joined,
    JoinRoom,
    PlayNow,
    Practice,
    RoomCreated,
    RoomInfo,
    RoomPage,
    SeatInfo,
)
from .codes import WS_CODES, ErrorCode
from .encode import (
    dumps,
    encode,
    error_frame,
    events_json,
    ping_frame,
    seat_view,
    update_body,
    update_frame,
    view_json,
    view_parts,
    welcome_frame,
)
from .names import MAX_PLAYER_NAME, MAX_ROOM_NAME, NAME_FORM, Name, RoomName, clean_name
from .options import options_body
from .to_client import (
    CLOSE_MOVED,
    EVENT_MODELS,
    SERVER_MESSAGE,
    SERVER_MESSAGES,
    ErrorFrame,
    EventModel,
    FrameError,
    Moved,
    Ping,
    RoomStatus,
    ServerMessage,
    Timers,
    UnknownEvent,
    Update,
    ViewFrame,
    Welcome,
    decode_event,
    decode_server_frame,
    decode_view,
)
from .to_server import (
    CLIENT_MESSAGE,
    CLIENT_MESSAGES,
    CallMsg,
    ClientMessage,
    FlipMsg,
    Hello,
    LeaveMsg,
    Pong,
    RematchMsg,
    SlapMsg,
    StartMsg,
    Token,
    answer_id,
    refusal,
)

__all__ = [
    "BOT_LEVELS",
    "CLIENT_MESSAGE",
    "CLIENT_MESSAGES",
    "CLOSE_MOVED",
    "EVENT_MODELS",
    "MAX_FRAME_BYTES",
    "MAX_FRAME_ID",
    "MAX_PLAYER_NAME",
    "MAX_ROOM_NAME",
    "MAX_SEATS",
    "NAME_FORM",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGE",
    "SERVER_MESSAGES",
    "WS_CODES",
    "BotLevel",
    "CallMsg",
    "ClientMessage",
    "CreateRoom",
    "ErrorBody",
    "ErrorCode",
    "ErrorFrame",
    "EventModel",
    "FlipMsg",
    "FrameError",
    "FrameId",
    "Hello",
    "Invite",
    "JoinRoom",
    "Joined",
    "LeaveMsg",
    "Moved",
    "Name",
    "Ping",
    "PlayNow",
    "Pong",
    "Practice",
    "RematchMsg",
    "RoomCreated",
    "RoomInfo",
    "RoomName",
    "RoomPage",
    "RoomStatus",
    "SeatInfo",
    "ServerMessage",
    "SlapMsg",
    "StartMsg",
    "Strict",
    "Timers",
    "Token",
    "UnknownEvent",
    "Update",
    "ViewFrame",
    "Welcome",
    "answer_id",
    "clean_name",
    "decode_event",
    "decode_server_frame",
    "decode_view",
    "dumps",
    "encode",
    "error_frame",
    "events_json",
    "frame_id",
    "options_body",
    "ping_frame",
    "refusal",
    "seat_view",
    "update_body",
    "update_frame",
    "view_json",
    "view_parts",
    "welcome_frame",
]
