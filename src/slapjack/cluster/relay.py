"""The relay: JSON messages published on named channels, received by every subscriber.

A node that holds a player's socket but not the room publishes the player's
input on ``room:{code}:in``; the owner subscribes to it. The owner publishes
what it sends (per-seat frames, spectator frames) on ``room:{code}:out``;
every node holding a socket of that room subscribes and forwards.

Delivery is what Redis pub/sub gives: in order per publisher and channel, at
most once, only to subscribers connected at the moment. A frame missed by a
node that was reconnecting is repaired by the next update (every update
carries the whole view); see docs/storage.md.
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

from .errors import BadClusterInput
from .lease import MAX_NAME

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES: Final = 1_000_000


def check_channel(name: Any) -> str:
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME * 2:
        raise BadClusterInput(f"a channel is 1 to {MAX_NAME * 2} characters, got {name!r}")
    if any(c.isspace() for c in name) or not name.isprintable() or "*" in name:
        raise BadClusterInput(f"a channel has no spaces, control characters or '*': {name!r}")
    return name


def encode(message: Any) -> str:
    if not isinstance(message, Mapping):
        raise BadClusterInput(f"a message is a JSON object, got {type(message).__name__}")
    try:
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise BadClusterInput(f"a message is not JSON: {exc}") from None
    if len(text.encode()) > MAX_MESSAGE_BYTES:
        raise BadClusterInput(f"a message is larger than {MAX_MESSAGE_BYTES} bytes")
    return text


def decode(data: str | bytes) -> dict[str, Any] | None:
    """A received message, or None (logged) if it is not a JSON object."""
    try:
        value = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        log.warning("relay: dropped a message that is not JSON")
        return None
    if not isinstance(value, dict):
        log.warning("relay: dropped a message that is not a JSON object")
        return None
    return value


class Subscription(ABC):
    """Received messages as ``(channel, message)``; use ``async with`` and ``async for``."""

    def __init__(self, channels: tuple[str, ...]) -> None:
        self.channels = channels
        self.dropped = 0

    @abstractmethod
    async def __aenter__(self) -> Subscription: ...

    @abstractmethod
    async def __aexit__(self, *exc: object) -> None: ...

    @abstractmethod
    async def get(self) -> tuple[str, dict[str, Any]]:
        """Wait for the next well-formed message."""

    def __aiter__(self) -> AsyncIterator[tuple[str, dict[str, Any]]]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[tuple[str, dict[str, Any]]]:
        while True:
            yield await self.get()


class Relay(ABC):
    """Publish JSON objects on channels; subscribe to channels."""

    @abstractmethod
    async def publish(self, channel: str, message: Mapping[str, Any]) -> int:
        """Send ``message``; returns how many subscribers received it."""

    @abstractmethod
    def subscribe(self, *channels: str) -> Subscription: ...

    async def close(self) -> None:  # noqa: B027 - an optional hook
        """Release backend resources."""


def room_in(code: str) -> str:
    """The channel a room's owner reads player input from."""
    return f"room:{code}:in"


def room_out(code: str) -> str:
    """The channel a room's owner publishes its outgoing frames on."""
    return f"room:{code}:out"
