"""Every error code the server sends: in an ``error`` frame on the WebSocket
and in the ``{"code", "message"}`` body of an HTTP error (docs/protocol.md,
"Error codes"). One list: the server's refusals, the live table's and the
engine's refusals of an action, the rules' and the store's errors that reach an
answer. A test scans the server, the engine, the live table and the store for
codes and checks that each is here; another that each is documented."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Final

from pydantic import Field


class ErrorCode(StrEnum):
    """An error's ``code``. A ``StrEnum``: each member is its wire string."""

    # -- a frame refused at the edge (the socket) ---------------------------
    BAD_JSON = "bad_json"
    """Not JSON (a frame, or an HTTP body: malformed, not UTF-8, nested too deeply)."""
    BAD_MESSAGE = "bad_message"
    """Not a valid message: an unknown ``type``, a field missing, unknown or of
    the wrong type, a binary frame, a frame before ``hello``, a second
    ``hello``, ``rematch`` before the end, ``start`` after the start."""
    TOO_LARGE = "too_large"
    """A frame above ``MAX_FRAME_BYTES``."""
    RATE_LIMITED = "rate_limited"
    """Too many frames a second (the socket is then closed, 1008), or too many
    HTTP requests from one address (429)."""
    TOO_MANY_SOCKETS = "too_many_sockets"
    """One socket too many from one address (then closed, 1008)."""

    # -- the room refuses -----------------------------------------------------
    ROOM_CLOSED = "room_closed"
    """No such room on the socket, or the room closed (then 4004)."""
    BAD_TOKEN = "bad_token"
    """A token of no seat (at ``hello``: then closed, 4001), or not this seat's."""
    SPECTATOR = "spectator"
    """A spectator's socket sent an action."""
    ROOM_FULL = "room_full"
    """No seat is free, or the game has started (join: 409)."""
    NOT_STARTED = "not_started"
    """An action before the game started."""
    STALE_FLIP = "stale_flip"
    """A ``flip_id`` that is not the current number of flips."""

    # -- the live table's and the engine's refusals of an action --------------
    NOT_YOUR_TURN = "not_your_turn"
    """A flip out of turn, or any flip in a fixed-tempo room."""
    GAME_OVER = "game_over"
    """The game is over (also: a stored record with actions after its end)."""
    NOT_SETTLED = "not_settled"
    """A flip while a slap race is open."""
    PLAYER_OUT = "player_out"
    """The seat is out of the game."""
    BAD_ACTION = "bad_action"
    BAD_CALL = "bad_call"
    BAD_REACTION = "bad_reaction"
    BAD_SEAT = "bad_seat"
    BAD_TIME = "bad_time"
    TIME_BACKWARDS = "time_backwards"
    NO_TIME_LIMIT = "no_time_limit"
    ILLEGAL_ACTION = "illegal_action"
    """Any other action the engine refuses."""
    REFUSED = "refused"
    """Any other input the live table refuses."""

    # -- HTTP ---------------------------------------------------------------------
    BAD_CONTENT_TYPE = "bad_content_type"
    """A body sent as anything but JSON (400)."""
    BAD_REQUEST = "bad_request"
    """JSON that does not validate, or a bad query parameter (422)."""
    BAD_NAME = "bad_name"
    """A player or room name refused (422)."""
    NOT_FOUND = "not_found"
    """No such route (404)."""
    METHOD_NOT_ALLOWED = "method_not_allowed"
    """A route without that method (405)."""
    INTERNAL_ERROR = "internal_error"
    """The server failed (500)."""
    SERVER_FULL = "server_full"
    """Every room of the server is in use (503)."""
    CLUSTER_UNAVAILABLE = "cluster_unavailable"
    """Scale-out: Redis, or the node that runs the room, does not answer right
    now; new rooms and joins wait (503 with ``Retry-After``)."""
    NO_NODE_AVAILABLE = "no_node_available"
    """Scale-out: no live node takes new rooms (all draining or gone; 503)."""
    ROOM_MOVING = "room_moving"
    """Scale-out: the room's node died or drains and another node is taking
    it over (503 with ``Retry-After``: ask again in a moment)."""
    UNKNOWN_ROOM = "unknown_room"
    UNKNOWN_GAME = "unknown_game"
    """No finished game with this id, or (creating a room) no such game kind."""
    UNKNOWN_LANG = "unknown_lang"
    NO_PAGE = "no_page"
    """A client page is missing from the server's files (404)."""

    # -- rules (creating a room, a rules text) ----------------------------------
    UNKNOWN_PRESET = "unknown_preset"
    UNKNOWN_OPTION = "unknown_option"
    BAD_OPTION = "bad_option"
    IMPOSSIBLE_COMBINATION = "impossible_combination"
    BAD_RULES = "bad_rules"

    # -- stored records and the store (history, replay) --------------------------
    BAD_RECORD = "bad_record"
    BAD_FORMAT = "bad_format"
    BAD_SEED = "bad_seed"
    BAD_CARD = "bad_card"
    BAD_PLAYERS = "bad_players"
    UNKNOWN_PLAYER = "unknown_player"
    BAD_INPUT = "bad_input"
    CORRUPT_ROW = "corrupt_row"
    STORE_UNAVAILABLE = "store_unavailable"
    STORE_CLOSED = "store_closed"
    STORE_ERROR = "store_error"


WS_CODES: Final = frozenset(
    {
        ErrorCode.BAD_JSON,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.TOO_LARGE,
        ErrorCode.RATE_LIMITED,
        ErrorCode.TOO_MANY_SOCKETS,
        ErrorCode.ROOM_CLOSED,
        ErrorCode.BAD_TOKEN,
        ErrorCode.SPECTATOR,
        ErrorCode.NOT_STARTED,
        ErrorCode.STALE_FLIP,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.GAME_OVER,
        ErrorCode.NOT_SETTLED,
        ErrorCode.PLAYER_OUT,
        ErrorCode.BAD_ACTION,
        ErrorCode.BAD_CALL,
        ErrorCode.BAD_REACTION,
        ErrorCode.BAD_SEAT,
        ErrorCode.BAD_TIME,
        ErrorCode.TIME_BACKWARDS,
        ErrorCode.NO_TIME_LIMIT,
        ErrorCode.ILLEGAL_ACTION,
        ErrorCode.REFUSED,
        ErrorCode.STORE_UNAVAILABLE,
    }
)
"""The codes an ``error`` frame on the WebSocket may carry (the rest are HTTP's)."""

HTTP_STATUS_CODE: Final = re.compile(r"^http_[1-5][0-9][0-9]$")
HttpStatusCode = Annotated[str, Field(pattern=HTTP_STATUS_CODE.pattern)]
"""``http_<status>``: an HTTP error the web framework raises that has no code of its own."""
