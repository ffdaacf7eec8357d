"""Rules: the two games, every house-rule option, and the presets.

Option names and values are exactly those of the project's RULES.md, so a
record's ``rules`` object reads the same as the rulebook discussion.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any, Final

from .errors import RulesError


class GameKind(StrEnum):
    """Which game is played on the table."""

    SLAPJACK = "slapjack"
    """Slap the Jacks; the first hand wins the pile; collect all the cards."""
    IRISH_SNAP = "irish-snap"
    """Slap when the card matches the call; the last hand picks up; get rid of your cards."""


class AfterJack(StrEnum):
    """Who flips after a won Jack."""

    LEFT_OF_WINNER = "left_of_winner"
    """The player to the winner's left (EN, DE-long)."""
    CONTINUE = "continue"
    """Whoever was next after the Jack's player (DE-short)."""


class WrongSlap(StrEnum):
    """What a slap on a card that is not a Jack costs."""

    PAY_PLAYER = "pay_player"
    """Your top card goes under the stack of the card's player (EN, DE-long)."""
    PAY_PILE = "pay_pile"
    """Your top card goes face down under the centre pile (DE-short)."""


class EmptyStack(StrEnum):
    """What happens to a player whose stack runs out."""

    NEXT_JACK = "next_jack"
    """Still in: win the next Jack to come back; lose it or slap wrongly and you are out."""
    UNTIL_TURN = "until_turn"
    """Out when your next turn comes, unless you first win a Jack."""


class Tie(StrEnum):
    """An exact tie for the fastest slap on a Jack."""

    RESLAP = "reslap"
    """The tied players slap again; the fastest of them wins."""
    SPLIT = "split"
    """The pile is dealt out among the tied players."""


class IrishGoal(StrEnum):
    """How Irish Snap is won."""

    AVOID_LAST = "avoid_last"
    """Empty your stack to be safe; the last player holding cards loses."""
    FIRST_OUT = "first_out"
    """Empty your stack, then slap one more match correctly and not last: first to do so wins."""


SLAPJACK_ONLY: Final = frozenset(
    {"after_jack", "wrong_slap", "empty_stack", "tie", "say_it", "time_limit"}
)
IRISH_ONLY: Final = frozenset({"irish_goal"})
OPTION_NAMES: Final = (
    "after_jack",
    "wrong_slap",
    "empty_stack",
    "tie",
    "time_limit",
    "say_it",
    "irish_goal",
)

MAX_TIME_LIMIT_S: Final = 24 * 3600


@dataclass(frozen=True, slots=True)
class Rules:
    """A complete, validated rule set. Build one with :meth:`from_options`."""

    game: GameKind = GameKind.SLAPJACK
    preset: str = "classic"
    after_jack: AfterJack = AfterJack.LEFT_OF_WINNER
    wrong_slap: WrongSlap = WrongSlap.PAY_PLAYER
    empty_stack: EmptyStack = EmptyStack.NEXT_JACK
    tie: Tie = Tie.RESLAP
    time_limit: int = 0
    """Seconds; 0 means no time limit."""
    say_it: bool = False
    irish_goal: IrishGoal = IrishGoal.AVOID_LAST
    overrides: frozenset[str] = field(default=frozenset(), compare=False)

    @property
    def is_irish(self) -> bool:
        return self.game is GameKind.IRISH_SNAP

    @classmethod
    def preset_rules(cls, name: str) -> Rules:
        """The rules of a preset, with no overrides."""
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesError(
                f"unknown preset {name!r}; presets: {', '.join(PRESETS)}", code="unknown_preset"
            ) from None

    @classmethod
    def from_options(
        cls, options: Mapping[str, Any] | None = None, game: str | None = None
    ) -> Rules:
        """Build rules from a preset name plus overrides, as in a record's ``rules`` object.

        ``game`` selects the default preset (``classic`` or ``irish-snap``) and
        must agree with the preset. Unknown options, bad values and impossible
        combinations raise :class:`RulesError`.
        """
        opts = dict(options or {})
        try:
            kind = GameKind(game) if game is not None else None
        except ValueError:
            raise RulesError(
                f"unknown game {game!r}; games: slapjack, irish-snap", code="unknown_game"
            ) from None
        preset_name = opts.pop("preset", None)
        if preset_name is None:
            preset_name = "irish-snap" if kind is GameKind.IRISH_SNAP else "classic"
        if not isinstance(preset_name, str):
            raise RulesError("preset must be a string", code="bad_option")
        base = cls.preset_rules(preset_name)
        if kind is not None and base.game is not kind:
            raise RulesError(
                f"preset {preset_name!r} is a {base.game.value} preset, not {kind.value}",
                code="impossible_combination",
            )
        changes: dict[str, Any] = {}
        for name, value in opts.items():
            if name not in OPTION_NAMES:
                raise RulesError(
                    f"unknown option {name!r}; options: {', '.join(OPTION_NAMES)}",
                    code="unknown_option",
                )
            changes[name] = _parse_value(name, value)
        if base.game is GameKind.IRISH_SNAP:
            bad = sorted(SLAPJACK_ONLY & changes.keys())
            if bad:
                raise RulesError(
                    f"option {bad[0]!r} is a Slapjack option and has no meaning in Irish Snap",
                    code="impossible_combination",
                )
        else:
            bad = sorted(IRISH_ONLY & changes.keys())
            if bad:
                raise RulesError(
                    f"option {bad[0]!r} is an Irish Snap option and has no meaning in Slapjack",
                    code="impossible_combination",
                )
        rules = replace(base, overrides=frozenset(changes), **changes)
        if rules.say_it and "wrong_slap" in changes:
            raise RulesError(
                "say_it replaces wrong_slap (a wrong slap shares the pile out), "
                "so the two cannot be set together",
                code="impossible_combination",
            )
        return rules

    def with_options(self, **options: Any) -> Rules:
        """These rules with more overrides, validated as :meth:`from_options` does."""
        merged = self.to_options()
        merged.update(options)
        return Rules.from_options(merged)

    def to_options(self) -> dict[str, Any]:
        """The record form: ``{"preset": …}`` plus every option that differs from it."""
        base = PRESETS[self.preset]
        out: dict[str, Any] = {"preset": self.preset}
        for f in fields(self):
            if f.name in ("game", "preset", "overrides"):
                continue
            value = getattr(self, f.name)
            if value != getattr(base, f.name):
                out[f.name] = value.value if isinstance(value, StrEnum) else value
        return out

    def option_values(self) -> dict[str, Any]:
        """Every option that means something in this game, with its value."""
        names = IRISH_ONLY if self.is_irish else SLAPJACK_ONLY
        out: dict[str, Any] = {}
        for name in OPTION_NAMES:
            if name in names:
                value = getattr(self, name)
                out[name] = value.value if isinstance(value, StrEnum) else value
        return out


_ENUMS: Final[dict[str, type[StrEnum]]] = {
    "after_jack": AfterJack,
    "wrong_slap": WrongSlap,
    "empty_stack": EmptyStack,
    "tie": Tie,
    "irish_goal": IrishGoal,
}


def _parse_value(name: str, value: Any) -> Any:
    enum = _ENUMS.get(name)
    if enum is not None:
        try:
            return enum(value)
        except ValueError:
            allowed = ", ".join(m.value for m in enum)
            raise RulesError(
                f"bad value {value!r} for {name}; allowed: {allowed}", code="bad_option"
            ) from None
    if name == "say_it":
        if not isinstance(value, bool):
            raise RulesError(f"say_it must be true or false, got {value!r}", code="bad_option")
        return value
    # time_limit: whole seconds, 0 = off
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIME_LIMIT_S:
        raise RulesError(
            f"time_limit must be whole seconds from 0 (off) to {MAX_TIME_LIMIT_S}, got {value!r}",
            code="bad_option",
        )
    return value


def option_choices(name: str) -> tuple[str, ...]:
    """The allowed text values of an enumerated option (empty for say_it/time_limit)."""
    enum = _ENUMS.get(name)
    return tuple(m.value for m in enum) if enum is not None else ()


_CLASSIC: Final = Rules()
PRESETS: Final[dict[str, Rules]] = {
    "classic": _CLASSIC,
    "klatsch-bube": replace(
        _CLASSIC,
        preset="klatsch-bube",
        after_jack=AfterJack.CONTINUE,
        wrong_slap=WrongSlap.PAY_PILE,
        empty_stack=EmptyStack.UNTIL_TURN,
        tie=Tie.SPLIT,
    ),
    "say-it": replace(_CLASSIC, preset="say-it", say_it=True),
    "irish-snap": Rules(game=GameKind.IRISH_SNAP, preset="irish-snap"),
    "irish-snap-winner": Rules(
        game=GameKind.IRISH_SNAP, preset="irish-snap-winner", irish_goal=IrishGoal.FIRST_OUT
    ),
}
