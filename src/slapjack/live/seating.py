"""Who plays each seat of a live table, and what its bots do.

A seat is a human's (level ``None``) or a bot's (a level). A human's seat can
be covered by a bot of the cover level while its player is away, and becomes
a bot's for good when its player leaves. :class:`Seating` makes the bots
(seeded per seat from the table's bot seed), asks them for their reactions to
a cue and for their flip delays, and tells the learning ones (``matched``)
what a race gave.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import cast

from slapjack.bots.base import Bot, FastBot, SlapIntent, notice_bots
from slapjack.core import Event, Game, Rules, observe

BotFactory = Callable[[str, int], Bot]
"""``make_bot(level, seed)`` or a stand-in with the same signature."""


def seat_bot_seed(bot_seed: int, seat: int, game_no: int = 0) -> int:
    """The seed of the bot in ``seat`` for game ``game_no`` of a table seeded ``bot_seed``."""
    return bot_seed * 64 + seat * 7 + game_no


def _default_factory(level: str, seed: int) -> Bot:
    from slapjack.bots import make_bot

    return make_bot(level, seed)


_FAST_TYPES: dict[type, bool] = {}


def _fast(bot: Bot) -> FastBot | None:
    """The bot as a :class:`FastBot`, if it is one (the protocol check cached per class)."""
    kind = type(bot)
    known = _FAST_TYPES.get(kind)
    if known is None:
        known = _FAST_TYPES[kind] = isinstance(bot, FastBot)
    return cast(FastBot, bot) if known else None


class Seating:
    """The seats of one table: levels, covered humans, the bots that play.

    ``people``: the seats that stand for people, whom learning bots learn from
    (default: the humans' seats).
    """

    __slots__ = (
        "_bot_seed",
        "_factory",
        "_game_no",
        "_interest",
        "_learners",
        "_people",
        "bots",
        "cover_level",
        "covered",
        "fast",
        "has_humans",
        "levels",
        "rules",
    )

    def __init__(
        self,
        rules: Rules,
        levels: Sequence[str | None],
        *,
        bots: Mapping[int, Bot] | None = None,
        bot_factory: BotFactory | None = None,
        bot_seed: int = 0,
        game_no: int = 0,
        cover_level: str = "casual",
        people: Collection[int] | None = None,
    ) -> None:
        n = len(levels)
        given = dict(bots) if bots else {}
        lv = list(levels)
        fast: list[FastBot | None] = [None] * n
        known_fast = _FAST_TYPES
        for s, bot in given.items():
            if not 0 <= s < n:
                raise ValueError(f"no seat {s} for a bot")
            lv[s] = bot.level
            known = known_fast.get(type(bot))  # (_fast, inline)
            if known is None:
                fast[s] = _fast(bot)
            elif known:
                fast[s] = cast(FastBot, bot)
        self.rules = rules
        self.levels = lv
        self.has_humans = None in lv
        self._people = frozenset(
            people if people is not None else (s for s in range(n) if lv[s] is None)
        )
        self.covered = [False] * n
        self.cover_level = cover_level
        self.bots: dict[int, Bot] = given
        self.fast = fast
        self._factory = bot_factory or _default_factory
        self._bot_seed = bot_seed
        self._game_no = game_no
        self._interest: list[bool | None] | None = None
        self._learners: list[Bot] | None = None
        if len(given) < n:
            for s in range(n):
                if lv[s] is not None and s not in given:
                    self.controller(s)

    # ------------------------------------------------------------- who plays

    def controller(self, seat: int) -> Bot | None:
        """The bot that plays ``seat`` now (made when first needed), or ``None``."""
        bot = self.bots.get(seat)
        if bot is not None:
            return bot
        level = self.levels[seat]
        if level is None:
            if not self.covered[seat]:
                return None
            level = self.cover_level
        bot = self._factory(level, seat_bot_seed(self._bot_seed, seat, self._game_no))
        self.bots[seat] = bot
        self.fast[seat] = _fast(bot)
        self._interest = self._learners = None
        return bot

    def cover(self, seat: int) -> None:
        """A bot of the cover level plays an absent human's seat."""
        if self.levels[seat] is None:
            self.covered[seat] = True
            self.controller(seat)

    def uncover(self, seat: int) -> None:
        if self.covered[seat]:
            self.covered[seat] = False
            self._drop(seat)

    def leave(self, seat: int) -> bool:
        """A human leaves for good: a cover-level bot's seat from now on."""
        if self.levels[seat] is not None:
            return False
        self.covered[seat] = False
        self._drop(seat)
        self.levels[seat] = self.cover_level
        self.controller(seat)
        return True

    def _drop(self, seat: int) -> None:
        if self.bots.pop(seat, None) is not None:
            self.fast[seat] = None
            self._interest = self._learners = None

    def level(self, seat: int) -> str | None:
        level = self.levels[seat]
        if level is None and self.covered[seat]:
            return self.cover_level
        return level

    def humans_out(self, game: Game) -> bool:
        """Whether every human at the table is out (the bots then play out the rest)."""
        levels, is_out = self.levels, game.is_out
        return all(is_out[s] for s in range(game.n) if levels[s] is None)

    # ------------------------------------------------------------- the bots

    def wanted(self, game: Game) -> bool:
        """Could any bot slap the top card? (No bot draws a random number for a
        card it would never slap, so asking none of them changes nothing.)"""
        if not self.bots or game.top is None:
            return False
        top = game.centre[-1]
        call = game.top_call
        # interest[rank * 14 + call + 1] (call 0: none), filled as cards come,
        # forgotten when the bots change
        interest = self._interest
        if interest is None:
            interest = self._interest = [None] * (13 * 14)
        key = (top >> 2) * 14 + (0 if call is None else call + 1)
        wanted = interest[key]
        if wanted is None:
            rank, rules, fast = top >> 2, self.rules, self.fast
            wanted = interest[key] = any(
                fast[s] is None or fast[s].might_slap(rank, call, rules)  # type: ignore[union-attr]
                for s in self.bots
            )
        return wanted

    def reactions(self, game: Game, limit: float) -> list[tuple[float, int, bool]]:
        """Every bot that may slap the shown cue, asked whether and how fast it
        does: ``(reaction, seat, call)``, reactions from 0 to ``limit`` ms."""
        top = game.top
        if top is None:
            return []
        among = game.reslap_among
        rules, call, is_out, fast = self.rules, game.top_call, game.is_out, self.fast
        out: list[tuple[float, int, bool]] = []
        for s, bot in self.bots.items():
            if is_out[s] or (among is not None and s not in among):
                continue
            f = fast[s]
            intent: SlapIntent | None
            if f is not None and among is None:
                intent = f.react_card(top, call, rules)
            else:
                intent = bot.react(observe(game, s))
            if intent is None:
                continue
            reaction = float(intent.reaction_ms)
            if 0.0 <= reaction <= limit:  # also drops nan
                out.append((reaction, s, bool(intent.call)))
        return out

    def flip_delay(self, game: Game, seat: int) -> float | None:
        """How long the bot on ``seat`` takes to flip (ms), ``None`` for a human."""
        bot = self.bots.get(seat)
        if bot is None:
            return None
        f = self.fast[seat]
        raw = f.next_flip_delay_ms() if f is not None else bot.flip_delay_ms(observe(game, seat))
        delay = float(raw)
        return delay if delay >= 0.0 else 0.0  # also nan

    def notice(self, events: list[Event], game: Game, people: list[int]) -> None:
        """Tell the bots that learn from the table what a race gave."""
        learners = self._learners
        if learners is None:
            learners = self._learners = [
                b for b in self.bots.values() if getattr(b, "notice", None) is not None
            ]
        if learners:
            notice_bots(learners, events, people)

    def racing_people(self, game: Game) -> list[int]:
        """The seats played by people (not by a covering bot) still in the game."""
        is_out, covered = game.is_out, self.covered
        return [s for s in self._people if not is_out[s] and not covered[s]]
