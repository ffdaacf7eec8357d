"""Typed errors raised by the rules engine.

Every error is a :class:`ValueError` subclass, so callers that only care about
"bad input" can catch ``ValueError``; callers that care can catch the precise
type and read its ``code``.
"""

from __future__ import annotations


class SlapjackError(ValueError):
    """Base class of every error the project raises: the engine's on bad input,
    and the live table's, the server's, the store's and the cluster's, each with
    a stable ``code`` (what a client is told) and its ``message``."""

    code: str = "error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class CardError(SlapjackError):
    """A card or a deck could not be parsed or is not a full 52-card deck."""

    code = "bad_card"


class RulesError(SlapjackError):
    """An unknown option, a bad option value or an impossible combination."""

    code = "bad_rules"


class IllegalAction(SlapjackError):
    """An action the current state does not allow; the state is unchanged."""

    code = "illegal_action"


class RecordError(SlapjackError):
    """An invalid game record. ``index`` names the action, if any."""

    code = "bad_record"

    def __init__(self, message: str, *, index: int | None = None, code: str | None = None) -> None:
        where = f"action {index}: " if index is not None else ""
        super().__init__(where + message, code=code)
        self.index = index
        self.detail = message
