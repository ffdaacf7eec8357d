"""The server's refusals: every one a :class:`~slapjack.core.SlapjackError`
with a ``code`` the client is told (docs/protocol.md, error codes)."""

from __future__ import annotations

from slapjack.core import SlapjackError


class RoomError(SlapjackError):
    """A request a room refuses (full, closed, bad token…); ``code`` names it."""
