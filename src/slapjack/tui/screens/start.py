"""The start screen: game, preset, every option, 2–10 seats (human with keys or a bot)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from slapjack.core import PRESETS, Rules, RulesError
from slapjack.core.rules import IRISH_ONLY, MAX_TIME_LIMIT_S, OPTION_NAMES, option_choices
from slapjack.texts import game_label, option_help, preset_label

from ..config import (
    BOT_LEVELS,
    DEFAULT_KEYS,
    DEFAULT_NAMES,
    MAX_SEATS,
    MIN_SEATS,
    ConfigError,
    GameConfig,
    SeatSpec,
)
from ..i18n import tr
from .dialogs import RulesScreen

if TYPE_CHECKING:
    from ..app import SlapjackApp

HUMAN = "human"
MAX_TURN_S = 600


def _presets_of(game: str) -> list[str]:
    return [name for name, rules in PRESETS.items() if rules.game.value == game]


class FormSelect(Select[Any]):
    """A drop-down of the form: Enter starts the game (as on every field of the
    form); Space or the arrow keys open the list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,space,up", "show_overlay", "Show menu", show=False),
        Binding("enter", "submit", show=False),
    ]

    class Submitted(Message):
        """Enter on a closed drop-down."""

    def action_submit(self) -> None:
        self.post_message(self.Submitted())


class KeyInput(Input):
    """A one-key field: the key typed replaces the one there (no need to empty
    it first); Backspace or Delete empties it."""

    def __init__(self, value: str, *, id: str) -> None:
        super().__init__(value, max_length=1, compact=True, classes="seat-key", id=id)

    async def _on_key(self, event: events.Key) -> None:
        char = event.character
        if event.key in ("backspace", "delete"):
            event.stop()
            event.prevent_default()
            self.value = ""
            return
        if char and char.isprintable() and len(char) == 1 and event.key not in ("tab", "enter"):
            event.stop()
            event.prevent_default()
            self.value = char.upper()
            self.cursor_position = 1
            return
        await super()._on_key(event)


class StartScreen(Screen[None]):
    """A form. Its widgets hold only the form's values; Start reads them into a
    :class:`GameConfig` (or shows why it cannot)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "rules", show=False),
        Binding("escape", "quit_app", show=False),
    ]
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [
        (0, "-narrow"),
        (140, "-wide"),
    ]

    def __init__(self, config: GameConfig, lang: str) -> None:
        super().__init__()
        self.config = config
        self.lang = lang
        # The preset whose values the options show: the Select reports its
        # first value when it mounts, which must not reset the config's overrides.
        self._preset = config.rules.preset

    @property
    def slapjack_app(self) -> SlapjackApp:
        from ..app import SlapjackApp

        app = self.app
        assert isinstance(app, SlapjackApp)
        return app

    # ----------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        lang = self.lang
        rules = self.config.rules
        helps = option_help(lang)
        game = rules.game.value
        yield Static(f" ♠ {tr(lang, 'title')} — {tr(lang, 'new_game')}", id="start-title")
        with VerticalScroll(id="form"), Horizontal(id="groups"):
            with Vertical(id="rules-group", classes="group"):
                with Horizontal(classes="row"):
                    yield Label(tr(lang, "game"), classes="label")
                    yield FormSelect(
                        [(game_label(g, lang), g) for g in ("slapjack", "irish-snap")],
                        value=game,
                        allow_blank=False,
                        compact=True,
                        id="game",
                    )
                with Horizontal(classes="row"):
                    yield Label(tr(lang, "preset"), classes="label")
                    yield FormSelect(
                        [(preset_label(p, lang), p) for p in _presets_of(game)],
                        value=rules.preset,
                        allow_blank=False,
                        compact=True,
                        id="preset",
                    )
                for name in OPTION_NAMES:
                    classes = "row option " + ("irish" if name in IRISH_ONLY else "slapjack")
                    with Horizontal(classes=classes, id=f"row-{name}"):
                        yield Label(self._option_label(name, helps), classes="label")
                        yield self._option_widget(name, getattr(rules, name))
            with Vertical(id="seats-group", classes="group"):
                with Horizontal(classes="row"):
                    yield Label(tr(lang, "turn_timer"), classes="label")
                    yield Input(
                        str(round(self.config.timing.turn_ms / 1000)),
                        type="integer",
                        compact=True,
                        id="turn",
                    )
                with Horizontal(classes="row"):
                    yield Label(tr(lang, "seats"), classes="label")
                    yield FormSelect(
                        [(str(n), n) for n in range(MIN_SEATS, MAX_SEATS + 1)],
                        value=len(self.config.seats),
                        allow_blank=False,
                        compact=True,
                        id="seat-count",
                    )
                with Horizontal(classes="seat-row seat-head"):
                    for key, cls in (
                        ("col.seat", "seat-no"),
                        ("col.name", "seat-name"),
                        ("col.player", "seat-kind"),
                        ("col.slap", "seat-key"),
                        ("col.flip", "seat-key"),
                        ("col.call", "seat-key"),
                    ):
                        yield Label(tr(lang, key), classes=cls)
                with Vertical(id="seat-rows"):
                    for i in range(MAX_SEATS):
                        yield from self._seat_row(i)
        yield Static("", id="error")
        with Horizontal(id="start-bar"):
            yield Button(tr(lang, "start"), id="start", variant="primary", compact=True)
            yield Button(tr(lang, "rules_button"), id="rules", compact=True)
            yield Label(tr(lang, "start_hint"), id="start-hint")

    def _option_label(self, name: str, helps: dict[str, dict[str, Any]]) -> str:
        """An option's label; the time limit's says its unit, as the turn timer's
        does ("Time limit (s, 0 = off)"): the field is a number of seconds."""
        if name == "time_limit":
            return tr(self.lang, "time_limit")
        return str(helps[name]["label"])

    def _option_widget(self, name: str, value: Any) -> Select[Any] | Input:
        lang = self.lang
        wid = f"opt-{name}"
        if name == "time_limit":
            return Input(str(value), type="integer", compact=True, id=wid)
        if name == "say_it":
            return FormSelect(
                [(tr(lang, "no"), False), (tr(lang, "yes"), True)],
                value=bool(value),
                allow_blank=False,
                compact=True,
                id=wid,
            )
        return FormSelect(
            [(tr(lang, f"opt.{name}.{v}"), v) for v in option_choices(name)],
            value=value.value,
            allow_blank=False,
            compact=True,
            id=wid,
        )

    def _seat_row(self, i: int) -> ComposeResult:
        lang = self.lang
        seats = self.config.seats
        spec = seats[i] if i < len(seats) else SeatSpec(DEFAULT_NAMES[i], "casual")
        slap, flip, call = DEFAULT_KEYS[i]
        if spec.is_human:
            slap, flip, call = spec.slap_key, spec.flip_key, spec.call_key
        kinds = [(tr(lang, "human"), HUMAN)] + [(tr(lang, f"bot.{b}"), b) for b in BOT_LEVELS]
        with Horizontal(classes="seat-row", id=f"seat-{i}"):
            yield Label(f"{i + 1}", classes="seat-no")
            yield Input(spec.name, max_length=40, compact=True, classes="seat-name", id=f"name-{i}")
            yield FormSelect(
                kinds,
                value=spec.bot or HUMAN,
                allow_blank=False,
                compact=True,
                classes="seat-kind",
                id=f"kind-{i}",
            )
            for kind, key in (("slap", slap), ("flip", flip), ("call", call)):
                yield KeyInput(key.upper(), id=f"{kind}-{i}")

    def on_mount(self) -> None:
        self.query_one("#form").can_focus = False  # Tab goes from field to field
        self.query_one("#rules-group").border_title = tr(self.lang, "group.rules")
        self.query_one("#seats-group").border_title = tr(self.lang, "group.seats")
        self._show_game(self.config.rules.game.value)
        self._show_seats(len(self.config.seats))
        self._update_say_it()
        for i in range(MAX_SEATS):
            self._update_kind(i)
        self.query_one("#start", Button).focus()

    # ----------------------------------------------------------------- events

    def _select(self, wid: str) -> Select[Any]:
        return self.query_one(f"#{wid}", Select)

    def _input(self, wid: str) -> Input:
        return self.query_one(f"#{wid}", Input)

    def _show_game(self, game: str) -> None:
        irish = game == "irish-snap"
        for row in self.query(".option.irish"):
            row.display = irish
        for row in self.query(".option.slapjack"):
            row.display = not irish

    def _show_seats(self, count: int) -> None:
        for i in range(MAX_SEATS):
            self.query_one(f"#seat-{i}").display = i < count

    def _update_say_it(self) -> None:
        say_it = self._select("opt-say_it").value is True
        self._select("opt-wrong_slap").disabled = say_it
        for i in range(MAX_SEATS):
            self._input(f"call-{i}").disabled = not say_it or self._is_bot(i)

    def _is_bot(self, i: int) -> bool:
        return self._select(f"kind-{i}").value != HUMAN

    def _update_kind(self, i: int) -> None:
        bot = self._is_bot(i)
        say_it = self._select("opt-say_it").value is True
        for kind in ("slap", "flip", "call"):
            self._input(f"{kind}-{i}").disabled = bot or (kind == "call" and not say_it)

    @on(Select.Changed, "#game")
    def _game_changed(self, event: Select.Changed) -> None:
        game = str(event.value)
        preset = self._select("preset")
        presets = _presets_of(game)
        if preset.value not in presets:
            preset.set_options([(preset_label(p, self.lang), p) for p in presets])
            preset.value = presets[0]
        self._show_game(game)

    @on(Select.Changed, "#preset")
    def _preset_changed(self, event: Select.Changed) -> None:
        name = event.value
        if not isinstance(name, str) or name not in PRESETS or name == self._preset:
            return
        self._preset = name
        rules = PRESETS[name]
        for option in rules.option_values():
            value = getattr(rules, option)
            if option == "time_limit":
                self._input("opt-time_limit").value = str(value)
            elif option == "say_it":
                self._select("opt-say_it").value = bool(value)
            else:
                self._select(f"opt-{option}").value = value.value
        self._update_say_it()

    @on(Select.Changed, "#opt-say_it")
    def _say_it_changed(self) -> None:
        self._update_say_it()

    @on(Select.Changed, "#seat-count")
    def _seats_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self._show_seats(event.value)

    @on(Select.Changed, ".seat-kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        wid = event.select.id or ""
        if wid.startswith("kind-"):
            self._update_kind(int(wid.removeprefix("kind-")))

    @on(Button.Pressed, "#start")
    @on(Input.Submitted)
    @on(FormSelect.Submitted)
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#rules")
    def _rules_pressed(self) -> None:
        self.action_rules()

    # ---------------------------------------------------------------- actions

    def read_rules(self) -> Rules:
        """The rules the form describes (raises :class:`ConfigError`)."""
        preset = self._select("preset").value
        if not isinstance(preset, str):
            raise ConfigError("err.rules", message="no preset")
        base = PRESETS[preset]
        wanted = base.option_values()
        options: dict[str, Any] = {"preset": preset}
        say_it = self._select("opt-say_it").value is True
        for name in OPTION_NAMES:
            if name not in wanted:
                continue
            if name == "time_limit":
                value: Any = self._read_int(
                    "opt-time_limit", tr(self.lang, "time_limit"), 0, MAX_TIME_LIMIT_S
                )
            elif name == "say_it":
                value = say_it
            else:
                if name == "wrong_slap" and say_it:
                    continue
                value = self._select(f"opt-{name}").value
            if value != wanted[name]:
                options[name] = value
        try:
            return Rules.from_options(options)
        except RulesError as exc:
            raise ConfigError("err.rules", message=exc.message) from None

    def _read_int(self, wid: str, what: str, low: int, high: int) -> int:
        text = self._input(wid).value.strip()
        try:
            value = int(text)
        except ValueError:
            raise ConfigError("err.number", what=what, low=low, high=high) from None
        if not low <= value <= high:
            raise ConfigError("err.number", what=what, low=low, high=high)
        return value

    def read_config(self) -> GameConfig:
        """The game the form describes, validated (raises :class:`ConfigError`)."""
        rules = self.read_rules()
        count = self._select("seat-count").value
        if not isinstance(count, int):
            raise ConfigError("err.seats")
        seats: list[SeatSpec] = []
        for i in range(count):
            name = self._input(f"name-{i}").value.strip()
            kind = self._select(f"kind-{i}").value
            if kind == HUMAN:
                keys = [self._input(f"{k}-{i}").value.lower() for k in ("slap", "flip", "call")]
                seats.append(SeatSpec(name, None, *keys))
            else:
                seats.append(SeatSpec(name, str(kind)))
        turn_s = self._read_int("turn", tr(self.lang, "turn_timer"), 0, MAX_TURN_S)
        timing = replace(self.config.timing, turn_ms=turn_s * 1000.0)
        return replace(self.config, rules=rules, seats=tuple(seats), timing=timing).validate()

    def action_start(self) -> None:
        error = self.query_one("#error", Static)
        try:
            config = self.read_config()
        except ConfigError as exc:
            error.update(exc.text(self.lang))
            error.add_class("shown")
            return
        error.update("")
        error.remove_class("shown")
        self.slapjack_app.start_game(config)

    def action_rules(self) -> None:
        try:
            rules = self.read_rules()
        except ConfigError:
            preset = self._select("preset").value
            rules = PRESETS[preset] if isinstance(preset, str) else self.config.rules
        self.app.push_screen(RulesScreen(rules, self.lang))

    def action_quit_app(self) -> None:
        self.app.exit()
