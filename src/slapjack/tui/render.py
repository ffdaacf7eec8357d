"""Pure drawing functions: a :class:`TableState` (or parts of it) in, Rich text out.

Nothing here keeps state or reads a clock; widgets call these with the state
they were given and the time they were told.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from rich import box
from rich.align import Align
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table as RichTable
from rich.text import Text

from slapjack.core import Rules, View
from slapjack.core.events import (
    Eliminated,
    Finished,
    Flipped,
    Forfeit,
    GameOver,
    NoSlap,
    PickedUp,
    PileReturned,
    PileSplit,
    RaceTied,
    RaceWon,
    Slapped,
    TimeIsUp,
    WrongSlap,
)
from slapjack.core.rules import IrishGoal
from slapjack.core.timing import is_false_start, measured_reaction
from slapjack.texts import game_label, preset_label

from .cards import MAX_UNDER, PEEK, card_size, card_text, pile_art
from .config import FALSE_START_MS, SeatSpec
from .i18n import (
    card_long_name,
    cards_text,
    format_ms,
    join_names,
    rank_label,
    tr,
)
from .state import LogItem, Note, TableState

NBSP: Final = "\u00a0"
"""Joins the words of one value (a name, ``212 ms``, ``3 cards``): lines break
between values, never inside one (see :func:`wrap_text`)."""


def value(text: object) -> str:
    """``text`` as one unbreakable value (its spaces become no-break spaces)."""
    return str(text).replace(" ", NBSP)


def wrap_text(text: Text, width: int, indent: int = 2) -> list[Text]:
    """``text`` in lines of at most ``width`` cells, broken only at plain
    spaces (a value joined by :data:`NBSP` stays whole), later lines indented
    by ``indent``; the no-break spaces come out as plain ones. A single word
    longer than a line is cut with an ellipsis."""
    width = max(1, width)
    plain = text.plain
    words = [(m.start(), m.end()) for m in re.finditer(r"[^ ]+", plain)]
    if not words:
        return [Text()]
    lines: list[Text] = []
    first, last = words[0]
    for start, end in words[1:]:
        room = width - (indent if lines else 0)
        if cell_len(plain[first:end]) <= room:
            last = end
            continue
        lines.append(_line(text, first, last, room, indent if lines else 0))
        first, last = start, end
    room = width - (indent if lines else 0)
    lines.append(_line(text, first, last, room, indent if lines else 0))
    return lines


def _line(text: Text, start: int, end: int, room: int, indent: int) -> Text:
    line = text[start:end]
    line.plain = line.plain.replace(NBSP, " ")  # the same length: the styles stay
    if line.cell_len > room:
        line.truncate(max(1, room), overflow="ellipsis")
    if indent:
        line = Text(" " * indent) + line
    return line


class Wrapped:
    """Lines of text that wrap to the width they are given with :func:`wrap_text`."""

    def __init__(self, lines: Sequence[Text], indent: int = 2) -> None:
        self.lines = list(lines)
        self.indent = indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        out: list[Text] = []
        for line in self.lines:
            out.extend(wrap_text(line, options.max_width, self.indent))
        yield Text("\n").join(out)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((line.cell_len for line in self.lines), default=0)
        return Measurement(min(widest, 8), widest)


def key_label(key: str) -> str:
    return key.upper() if key else ""


def seat_label(seat: SeatSpec, lang: str, *, say_it: bool = False) -> str:
    """``[A]`` beside a human (``[A+Q]`` with the call key in say-it), the level
    beside a bot."""
    if seat.bot is not None:
        return tr(lang, f"level.{seat.bot}")
    if not seat.slap_key:
        return tr(lang, "online.remote")  # a person at another screen (online play)
    if say_it and seat.call_key:
        return f"[{key_label(seat.slap_key)}+{key_label(seat.call_key)}]"
    return f"[{key_label(seat.slap_key)}]"


BAR_CELLS: Final = 13
"""The stack bar: one cell for every four cards (eighths in between)."""
_EIGHTHS: Final = " ▏▎▍▌▋▊▉"


def stack_bar(count: int, total: int = 52, cells: int = BAR_CELLS) -> str:
    """``count`` of ``total`` cards as a bar of ``cells`` cells."""
    eighths = round(count * cells * 8 / max(1, total))
    full, part = divmod(min(eighths, cells * 8), 8)
    bar = "█" * full + (_EIGHTHS[part] if part else "")
    return bar.ljust(cells)


def seats_table(state: TableState, lang: str, now_ms: float, width: int = 0) -> RichTable:
    """One row per seat: turn marker, name, key or bot level, cards (with a bar
    when ``width`` leaves room for one), status (turn timer, ✓ slapped, out,
    empty)."""
    view = state.view
    labels = [seat_label(s, lang, say_it=view.rules.say_it) for s in state.seats]
    names = max((cell_len(s.name) for s in state.seats), default=4)
    needed = 1 + min(names, 24) + max(map(cell_len, labels), default=0) + 2 + 6 + 4
    bar = width >= needed + BAR_CELLS + 1
    grid = RichTable.grid(padding=(0, 1), expand=False)
    grid.add_column(width=1, no_wrap=True)
    grid.add_column(no_wrap=True, overflow="ellipsis", max_width=24)
    grid.add_column(no_wrap=True, overflow="ellipsis")
    grid.add_column(justify="right", no_wrap=True, min_width=2)
    if bar:
        grid.add_column(no_wrap=True, width=BAR_CELLS)
    grid.add_column(no_wrap=True, min_width=5)
    finished = set(view.out_order) if view.rules.is_irish else set()
    for i, seat in enumerate(state.seats):
        on_turn = view.turn == i and not view.over
        marker = Text("▶", style="bold reverse") if on_turn else Text(" ")
        name = Text(seat.name, style="bold" if on_turn else "")
        label = Text(labels[i], style="cyan" if seat.is_human else "dim")
        count = view.stack_sizes[i]
        cards = Text(str(count), style="bold" if on_turn else "")
        status = Text()
        if view.out[i]:
            word = "safe" if i in finished and i != view.loser else "out"
            status = Text("✗ " + tr(lang, word), style="dim")
            name.stylize("dim strike" if word == "out" else "dim")
        elif i in view.slapped:
            status = Text("✓", style="bold yellow")
        elif on_turn and state.turn_deadline_ms is not None and seat.is_human:
            left = max(0.0, state.turn_deadline_ms - now_ms) / 1000.0
            status = Text(f"{left:.1f}s", style="bold" if left > 1.5 else "bold red")
        elif count == 0:
            status = Text(tr(lang, "empty"), style="italic")
        row: list[Text] = [marker, name, label, cards]
        if bar:
            row.append(Text(stack_bar(count), style="green" if on_turn else "grey50"))
        row.append(status)
        grid.add_row(*row)
    return grid


def game_title(rules: Rules, lang: str, *, as_value: bool = False) -> str:
    """``Slapjack · Classic``, ``Irish Snap``, ``Irish Snap: first out wins``;
    ``Slapjack · Classic (changed)`` once an option differs from the preset's
    (a bare mark such as ``*`` would leave a player guessing). ``as_value``
    keeps the title together where a line in the log breaks (before
    "(changed)", not inside ``Slapjack · Classic``): ``game · preset`` is one
    :func:`value`; a preset named after its game is the game's name as one
    value and the rest in words, which break like any others (the German
    ``Irish Snap: Wer zuerst fertig ist, gewinnt`` is wider than the log at
    80×24: as one value it was cut off)."""
    game = game_label(rules.game, lang)
    preset = preset_label(rules.preset, lang)
    if preset.startswith(game):
        title = value(game) + preset[len(game) :] if as_value else preset
    else:
        title = f"{game} · {preset}"
        if as_value:
            title = value(title)
    return tr(lang, "title_changed", title=title) if rules.overrides else title


def race_live(state: TableState) -> bool:
    """A race on the top card is open and the card is on screen. Only then is
    it shown: a race mark drawn before the card would tell a Jack (or a
    match) before the card itself does."""
    view = state.view
    return view.race_open and state.shown and not view.over and view.top is not None


def pile_line(view: View, lang: str) -> str:
    """``Pile: 3`` (with the face-down cards under it), for the pile panel's
    lower border; nothing while the pile is empty (the panel says so under
    the empty place, see :func:`centre_group`)."""
    if view.centre_size == 0:
        return ""
    if view.centre_face_down:
        return tr(lang, "pile_hidden", count=view.centre_size, hidden=view.centre_face_down)
    return tr(lang, "pile", count=view.centre_size)


def centre_group(state: TableState, lang: str, width: int, height: int) -> RenderableType:
    """The Irish Snap call, the pile (the top card as large as ``width`` ×
    ``height`` allows, the cards under it fanned out), the top card in words,
    who has slapped while a race is open (each line centred)."""
    view = state.view
    head: list[Text] = []
    if view.rules.is_irish:
        if view.top_call is not None:
            call = tr(lang, "call_now", rank=rank_label(view.top_call, lang))
            head.append(Text(f" {call} ", style="bold reverse"))
        elif view.next_call is not None:
            head.append(Text(tr(lang, "next_call", rank=rank_label(view.next_call, lang))))
    foot: list[Text] = []
    if view.top is not None:
        foot.append(Text(card_long_name(view.top, lang), style="italic"))
    else:
        foot.append(Text(tr(lang, "pile_empty"), style="dim"))
    if race_live(state):
        names = [view.players[s] for s in view.slapped]
        if view.reslap_among is not None:
            among = join_names([view.players[s] for s in view.reslap_among], lang)
            foot.append(Text(tr(lang, "race.reslap", names=among), style="bold yellow"))
        elif names:
            foot.append(
                Text(tr(lang, "race.slapped", names=join_names(names, lang)), style="bold yellow")
            )
        else:
            foot.append(Text(tr(lang, "race.open"), style="bold yellow"))
    room = max(1, height - len(head) - len(foot) - 1)
    size = card_size(width, room)
    under = max(0, min(MAX_UNDER, (width - size[0]) // PEEK))
    parts: list[RenderableType] = [*head, pile_art(view, lang, size, under), *foot]
    gap = max(0, room - size[1]) // 3
    return Group(*([Text()] * gap), *(Align.center(part) for part in parts))


def reaction_label(ms: float | None, lang: str) -> str:
    """``212 ms``, ``—`` (no slap), ``62 ms (guess)`` for a slap under the
    anticipation floor (stored with :data:`FALSE_START_MS` added)."""
    if ms is not None and ms >= FALSE_START_MS:
        return f"{format_ms(ms - FALSE_START_MS, lang)} ({tr(lang, 'guess')})"
    return format_ms(ms, lang)


def reactions_text(
    reactions: Sequence[tuple[int, float | None]], names: Sequence[str], lang: str
) -> Text:
    """``Ben 212 ms · Anna 263 ms``: the winner first, bold; each name and its
    time one value (a line never breaks between them)."""
    out = Text()
    for k, (seat, ms) in enumerate(reactions):
        if k:
            out.append(" · ", style="dim")
        out.append(
            value(f"{names[seat]} {reaction_label(ms, lang)}"), style="bold" if k == 0 else ""
        )
    return out


def _shares(shares: Sequence[tuple[int, int]], names: Sequence[str]) -> str:
    return ", ".join(value(f"{names[s]} {n}") for s, n in shares)


def _names(seats: Sequence[int], names: Sequence[str], lang: str) -> str:
    return join_names([value(names[s]) for s in seats], lang)


def display_log(items: Sequence[LogItem]) -> list[LogItem]:
    """The log as it is shown: the slaps of a race in the order the race was
    decided (fastest first, as the result's reaction times rank them; online
    slaps arrive in any order), and without the separate false-start notes
    (the slap's own line says it was a guess)."""
    out: list[LogItem] = []
    run: list[Slapped] = []

    def flush(after: LogItem | None) -> None:
        ranked = getattr(after, "reactions", ()) or ()
        place = {seat: k for k, (seat, _ms) in enumerate(ranked)}
        run.sort(key=lambda s: (place.get(s.seat, len(place)), s.reaction_ms))
        out.extend(run)
        run.clear()

    for item in items:
        if isinstance(item, Note) and item.key == "false_start":
            continue
        if isinstance(item, Slapped):
            run.append(item)
            continue
        if run:
            flush(item)
        out.append(item)
    if run:
        flush(None)
    return out


def item_text(item: LogItem, state: TableState, lang: str) -> Text:
    """One event (or note) as a sentence, for the log and the result panel;
    every value in it (a name, a time, a number of cards) is one unbreakable word."""
    view = state.view
    names = [value(n) for n in view.players]
    if isinstance(item, Note):
        return _note_text(item, state, lang)
    if isinstance(item, Flipped):
        card = card_text(item.card, lang)
        if item.call is None:
            template = tr(lang, "ev.flipped", name=names[item.seat], card="\0")
        else:
            key = "ev.flipped_match" if item.match else "ev.flipped_call"
            call = rank_label(item.call, lang)
            template = tr(lang, key, name=names[item.seat], card="\0", call=call)
        out = Text.assemble(*_split(template, card))
        if item.match:
            out.stylize("bold")
        return out
    if isinstance(item, Slapped):
        guess = is_false_start(item.reaction_ms)
        key = "ev.slapped_call" if item.call and view.rules.say_it else "ev.slapped"
        ms = format_ms(measured_reaction(item.reaction_ms) if guess else item.reaction_ms, lang)
        text = Text(
            tr(lang, key + ("_guess" if guess else ""), name=names[item.seat], ms=value(ms))
        )
        if guess:
            text.stylize("magenta")
        return text
    if isinstance(item, WrongSlap):
        key = f"ev.wrong.{item.penalty}"
        if item.penalty == "pay_player" and item.to == item.seat:
            key = "ev.wrong.pay_player_self"
        to = names[item.to] if item.to is not None else ""
        return Text(tr(lang, key, name=names[item.seat], to=to), style="bold magenta")
    if isinstance(item, RaceWon):
        return Text(
            tr(
                lang,
                "ev.race_won",
                name=names[item.winner],
                cards=value(cards_text(item.cards, lang)),
            ),
            style="bold green",
        )
    if isinstance(item, RaceTied):
        return Text(
            tr(
                lang,
                "ev.race_tied",
                ms=value(reaction_label(item.reaction_ms, lang)),
                names=_names(item.seats, view.players, lang),
            ),
            style="bold yellow",
        )
    if isinstance(item, PileSplit):
        return Text(
            tr(lang, "ev.pile_split", shares=_shares(item.shares, view.players)),
            style="bold green",
        )
    if isinstance(item, Forfeit):
        return Text(
            tr(
                lang,
                "ev.forfeit",
                name=names[item.seat],
                shares=_shares(item.shares, view.players),
            ),
            style="bold magenta",
        )
    if isinstance(item, NoSlap):
        card = card_text(item.card, lang) if item.card >= 0 else Text("?")
        return Text.assemble(*_split(tr(lang, "ev.no_slap", card="\0"), card))
    if isinstance(item, PickedUp):
        return Text(
            tr(
                lang,
                f"ev.picked_up.{item.reason}",
                name=names[item.seat],
                cards=value(cards_text(item.cards, lang)),
            ),
            style="bold magenta",
        )
    if isinstance(item, PileReturned):
        return Text(
            tr(
                lang,
                "ev.pile_returned",
                name=names[item.seat],
                cards=value(cards_text(item.cards, lang)),
            )
        )
    if isinstance(item, Eliminated):
        return Text(tr(lang, f"ev.out.{item.reason}", name=names[item.seat]), style="bold")
    if isinstance(item, Finished):
        wins = view.rules.is_irish and view.rules.irish_goal is IrishGoal.FIRST_OUT
        return Text(
            tr(lang, "ev.finished_win" if wins else "ev.finished", name=names[item.seat]),
            style="bold",
        )
    if isinstance(item, TimeIsUp):
        return Text(tr(lang, "ev.time_up"), style="bold")
    if isinstance(item, GameOver):
        if item.loser is not None:
            return Text(
                tr(lang, "ev.game_over_loser", name=names[item.loser]), style="bold reverse"
            )
        return Text(
            tr(lang, "ev.game_over", names=_names(item.winners, view.players, lang)),
            style="bold reverse",
        )
    return Text(str(item))  # pragma: no cover - every event type is handled above


def _split(template: str, inner: Text) -> list[Text | str]:
    """Put a styled ``inner`` where the template has ``\\0``."""
    before, _, after = template.partition("\0")
    return [before, inner, after]


def _note_text(note: Note, state: TableState, lang: str) -> Text:
    values = dict(note.values)
    view = state.view
    if note.key == "game_start":
        title = game_title(view.rules, lang, as_value=True)
        count = len(view.players)
        return Text(tr(lang, "game_start", title=title, count=count), style="dim")
    if "seat" in values:
        seat = values.pop("seat")
        values["name"] = view.players[seat] if isinstance(seat, int) else seat
    ms = values.get("ms")
    if isinstance(ms, float):
        values["ms"] = format_ms(ms, lang)
    return Text(tr(lang, note.key, **{k: value(v) for k, v in values.items()}), style="italic")


def view_ranking(view: View) -> list[int]:
    """Seats from first to last place, from what a view shows (an online
    game's end screen; the same order as :meth:`slapjack.core.Game.ranking`)."""
    n = len(view.players)
    stacks = view.stack_sizes
    if view.rules.is_irish:
        if view.rules.irish_goal is IrishGoal.FIRST_OUT:
            rest = sorted(
                (s for s in range(n) if s not in view.winners), key=lambda s: (stacks[s], s)
            )
            return [*view.winners, *rest]
        holders = sorted((s for s in range(n) if not view.out[s]), key=lambda s: (stacks[s], s))
        return [*view.out_order, *holders]
    still_in = sorted(
        (s for s in range(n) if not view.out[s]),
        key=lambda s: (s not in view.winners, -stacks[s], s),
    )
    return [*still_in, *reversed(view.out_order)]


def clock_text(ms: float) -> str:
    """``2:05`` for 125 000 ms (rounded up: the clock never shows 0:00 early)."""
    seconds = max(0, int(-(-ms // 1000)))
    return f"{seconds // 60}:{seconds % 60:02d}"


def status_text(state: TableState, lang: str) -> Text:
    """The line under the table: whose turn and with which keys, or the reslap cue."""
    view = state.view
    if view.over:
        return Text()
    if view.race_open and view.reslap_among is not None:
        names = join_names([view.players[s] for s in view.reslap_among], lang)
        return Text(tr(lang, "reslap_now", names=names), style="bold reverse yellow")
    if race_live(state):
        keys = [
            f"{seat.name} [{key_label(seat.slap_key)}]"
            for i, seat in enumerate(state.seats)
            if seat.is_human and seat.slap_key and i not in view.slapped and not view.out[i]
        ]
        if keys:
            return Text(tr(lang, "race.status", keys=" · ".join(keys)), style="bold yellow")
        return Text(tr(lang, "race.status_none"), style="yellow")
    if view.turn is None:
        return Text(tr(lang, "waiting"), style="dim")
    seat = state.seats[view.turn]
    if seat.is_human and seat.slap_key:
        if seat.flip_key:
            key = key_label(seat.flip_key)
            return Text(tr(lang, "turn_keys", name=seat.name, key=key), style="bold")
        return Text(tr(lang, "turn_space", name=seat.name), style="bold")
    return Text(tr(lang, "turn_of", name=seat.name), style="dim")


def headline(state: TableState, lang: str) -> Text:
    view = state.view
    names = view.players
    winners = [names[s] for s in view.winners]
    if view.rules.is_irish and view.loser is not None:
        return Text(tr(lang, "end.loser", name=names[view.loser]), style="bold")
    if len(winners) > 1:
        return Text(tr(lang, "end.winners", names=join_names(winners, lang)), style="bold")
    return Text(tr(lang, "end.winner", names=join_names(winners, lang)), style="bold")


def ranking_table(state: TableState, ranking: Sequence[int], lang: str) -> RichTable:
    """Place, name, cards, Jacks won (pick-ups in Irish Snap), fastest reaction,
    wrong slaps; the winners in bold green. No empty edge rows above and below
    (the box's top and bottom edges): the screens put one blank line around it."""
    view = state.view
    irish = view.rules.is_irish
    table = RichTable(
        box=box.SIMPLE_HEAD, header_style="bold", show_edge=False, pad_edge=False, expand=False
    )
    table.add_column(tr(lang, "end.place"), justify="right")
    table.add_column(tr(lang, "col.name"), no_wrap=True, max_width=24, overflow="ellipsis")
    table.add_column(tr(lang, "end.cards"), justify="right")
    table.add_column(tr(lang, "end.pickups" if irish else "end.jacks"), justify="right")
    table.add_column(tr(lang, "end.fastest"), justify="right", no_wrap=True)
    table.add_column(tr(lang, "end.wrong"), justify="right")
    winners = set(view.winners)
    for place, seat in enumerate(ranking, 1):
        stats = state.stats[seat]
        style = "bold green" if seat in winners else ("dim" if seat == view.loser else "")
        table.add_row(
            f"{place}.",
            view.players[seat],
            str(view.stack_sizes[seat]),
            str(stats.pickups if irish else stats.jacks),
            format_ms(stats.fastest, lang),
            str(stats.wrong),
            style=style,
        )
    return table
