"""Rules: the two games, every house-rule option, and the presets.

Option names and values are exactly those of the project's RULES.md, so a
record's ``rules`` object reads the same as the rulebook discussion.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
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


MAX_TIME_LIMIT_S: Final = 24 * 3600


class OptionKind(StrEnum):
    """What values an option takes."""

    CHOICE = "choice"
    """One of the named values of its enum."""
    BOOL = "bool"
    """``true`` or ``false``."""
    SECONDS = "seconds"
    """Whole seconds in a range; 0 means off."""


@dataclass(frozen=True, slots=True)
class Option:
    """One house-rule option: the one place its name, values and game are kept.

    Parsing and validation (:meth:`Rules.from_options`), the rules texts
    (``slapjack.texts``), ``slapjack rules``, the terminal game's start screen
    and the browser's create form (through ``GET /api/options``) all derive from
    :data:`OPTIONS`. A preset's value of an option is the preset's
    :class:`Rules` field of the same name (:func:`option_default`). Its words
    (label, one-line help, a line per value) are the catalogue's entries under
    the option's name in ``slapjack.texts``.
    """

    name: str
    kind: OptionKind
    game: GameKind
    enum: type[StrEnum] | None = None
    maximum: int = 0
    """For ``SECONDS``: the largest value."""

    @property
    def values(self) -> tuple[str, ...]:
        """The allowed values as text (``CHOICE``, ``BOOL``); empty for ``SECONDS``."""
        if self.enum is not None:
            return tuple(m.value for m in self.enum)
        return ("false", "true") if self.kind is OptionKind.BOOL else ()

    def parse(self, value: Any) -> Any:
        """``value`` as the :class:`Rules` field takes it; :class:`RulesError` if it is bad."""
        name = self.name
        if self.enum is not None:
            try:
                return self.enum(value)
            except ValueError:
                allowed = ", ".join(self.values)
                raise RulesError(
                    f"bad value {value!r} for {name}; allowed: {allowed}", code="bad_option"
                ) from None
        if self.kind is OptionKind.BOOL:
            if not isinstance(value, bool):
                raise RulesError(f"{name} must be true or false, got {value!r}", code="bad_option")
            return value
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= self.maximum:
            raise RulesError(
                f"{name} must be whole seconds from 0 (off) to {self.maximum}, got {value!r}",
                code="bad_option",
            )
        return value

    def text(self, value: Any) -> Any:
        """A field value in its record form (an enum's value, a bool, seconds)."""
        return value.value if isinstance(value, StrEnum) else value


_SLAPJACK, _IRISH = GameKind.SLAPJACK, GameKind.IRISH_SNAP
OPTIONS: Final[tuple[Option, ...]] = (
    Option("after_jack", OptionKind.CHOICE, _SLAPJACK, AfterJack),
    Option("wrong_slap", OptionKind.CHOICE, _SLAPJACK, WrongSlap),
    Option("empty_stack", OptionKind.CHOICE, _SLAPJACK, EmptyStack),
    Option("tie", OptionKind.CHOICE, _SLAPJACK, Tie),
    Option("time_limit", OptionKind.SECONDS, _SLAPJACK, maximum=MAX_TIME_LIMIT_S),
    Option("say_it", OptionKind.BOOL, _SLAPJACK),
    Option("irish_goal", OptionKind.CHOICE, _IRISH, IrishGoal),
)
"""Every house-rule option, in the order forms and texts show them."""
OPTION: Final[dict[str, Option]] = {o.name: o for o in OPTIONS}
OPTION_NAMES: Final = tuple(OPTION)
SLAPJACK_ONLY: Final = frozenset(o.name for o in OPTIONS if o.game is _SLAPJACK)
IRISH_ONLY: Final = frozenset(o.name for o in OPTIONS if o.game is _IRISH)


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
            changes[name] = OPTION[name].parse(value)
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
        for option in OPTIONS:
            value = getattr(self, option.name)
            if value != getattr(base, option.name):
                out[option.name] = option.text(value)
        return out

    def option_values(self) -> dict[str, Any]:
        """Every option that means something in this game, with its value."""
        return {o.name: o.text(getattr(self, o.name)) for o in OPTIONS if o.game is self.game}


def option_choices(name: str) -> tuple[str, ...]:
    """The allowed text values of an enumerated option (empty for say_it/time_limit)."""
    option = OPTION[name]
    return option.values if option.kind is OptionKind.CHOICE else ()


def option_default(name: str, preset: str) -> Any:
    """What ``preset`` sets option ``name`` to, in its record form."""
    return OPTION[name].text(getattr(PRESETS[preset], name))


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
