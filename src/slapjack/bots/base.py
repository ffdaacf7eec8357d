"""The interface every bot implements. Bots decide only from ``observe()``."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from slapjack.core import Card, Rules, SlapjackError, View
from slapjack.core.events import Event


@dataclass(frozen=True, slots=True)
class SlapIntent:
    """A bot's decision to slap ``reaction_ms`` after the card was shown."""

    reaction_ms: float
    call: bool = False


class Bot(Protocol):
    """A player model. ``react`` is called once for every newly shown top card
    (right after a flip) and once when a reslap round opens for its seat."""

    level: str

    def react(self, view: View) -> SlapIntent | None:
        """Slap the top card of ``view`` after some reaction time, or not at all."""
        ...

    def flip_delay_ms(self, view: View) -> float:
        """How long after its turn comes the bot flips."""
        ...


@runtime_checkable
class FastBot(Bot, Protocol):
    """A bot with a fast path for the simulator and the benchmark.

    The fast path gives the bot a *subset* of what :func:`~slapjack.core.observe`
    gives: the face-up top card (``view.top``), the rank called with it
    (``view.top_call``) and the rules (``view.rules``). It must decide exactly as
    :meth:`Bot.react` would on a view with those values, no reslap round open and
    its own seat still in, drawing the same random numbers in the same order, so
    a game played through either path is the same game (a test checks this).
    """

    def might_slap(self, rank: int, call: int | None, rules: Rules) -> bool:
        """Could this bot slap a top card of ``rank`` (shown with ``call``)?

        Pure (no random draw). When it is false, :meth:`react_card` must return
        ``None`` without drawing, so callers may skip it.
        """
        ...

    def react_card(self, top: Card, call: int | None, rules: Rules) -> SlapIntent | None:
        """``react`` for a newly shown ``top`` card, decided from the card alone."""
        ...

    def next_flip_delay_ms(self) -> float:
        """``flip_delay_ms`` for bots whose flip delay does not depend on the view."""
        ...


@runtime_checkable
class Noticing(Protocol):
    """The optional hook of a bot that learns from what happens at the table.

    Whoever drives the bots calls :meth:`notice` with every batch of events the
    game produced (or at least every batch that settles a race), and the seats
    played by people. A bot without the hook is never called, so drivers may
    skip the work for it. ``notice`` must not draw random numbers that
    :meth:`Bot.react` would otherwise draw; it only changes the bot's own state.
    """

    def notice(self, events: Sequence[Event], people: Collection[int]) -> None:
        """Learn from ``events``; ``people`` are the seats played by people."""
        ...


def notice_bots(bots: Iterable[object], events: Sequence[Event], people: Iterable[int]) -> None:
    """Pass ``events`` to every bot in ``bots`` that has a ``notice`` hook.

    ``people`` are the seats played by people (not by a bot covering for them).
    Bots without the hook cost one attribute look-up; no events, nothing at all.
    """
    if not events:
        return
    seats: frozenset[int] | None = None
    for bot in bots:
        hook = getattr(bot, "notice", None)
        if hook is None:
            continue
        if seats is None:
            seats = frozenset(people)
        hook(events, seats)


class BotError(SlapjackError):
    """A bot could not be made as asked."""

    code = "bad_bot"


class UnknownBotLevel(BotError):
    """``make_bot`` was given a level it does not know."""

    code = "unknown_bot_level"
