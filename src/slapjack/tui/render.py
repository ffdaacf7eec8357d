"""Pure drawing functions: a :class:`TableState` (or parts of it) in, Rich text out.

Nothing here keeps state or reads a clock; widgets call these with the state
they were given and the time they were told.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.align import Align
from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from slapjack.core import Rules, View, is_red, rank_of
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
from slapjack.texts import game_label, preset_label

from .config import FALSE_START_MS, SeatSpec
from .controller import LogItem, Note, TableState
from .i18n import (
    card_label,
    card_long_name,
    cards_text,
    format_ms,
    join_names,
    rank_label,
    suit_symbol,
    tr,
)

RED: Final = "bold red"
BLACK: Final = "bold"
CARD_SMALL: Final = (11, 7)
CARD_LARGE: Final = (15, 11)


def card_style(card: int) -> str:
    return RED if is_red(card) else BLACK


def card_text(card: int, lang: str) -> Text:
    """``J♠`` / ``10♥`` in its colour."""
    return Text(card_label(card, lang), style=card_style(card))


_GLYPHS: Final[dict[str, tuple[str, str, str]]] = {
    "A": ("▄▀▄", "█▀█", "▀ ▀"),
    "2": ("▀▀█", "█▀▀", "▀▀▀"),
    "3": ("▀▀█", " ▀█", "▀▀▀"),
    "4": ("█ █", "▀▀█", "  ▀"),
    "5": ("█▀▀", "▀▀█", "▀▀▀"),
    "6": ("█▀▀", "█▀█", "▀▀▀"),
    "7": ("▀▀█", "  █", "  ▀"),
    "8": ("█▀█", "█▀█", "▀▀▀"),
    "9": ("█▀█", "▀▀█", "▀▀▀"),
    "1": ("▀█ ", " █ ", "▀▀▀"),
    "0": ("█▀█", "█ █", "▀▀▀"),
    "J": ("  █", "▄ █", "▀▀▀"),
    "Q": ("█▀█", "█ █", "▀▀▄"),
    "K": ("█ █", "█▀▄", "▀ ▀"),
    "B": ("█▀▄", "█▀▄", "▀▀ "),
    "D": ("█▀▄", "█ █", "▀▀ "),
}


def big_rank(rank: str) -> tuple[str, str, str]:
    """The rank in a three-line block font (``10`` is two glyphs)."""
    glyphs = [_GLYPHS[ch] for ch in rank]
    return (
        " ".join(g[0] for g in glyphs),
        " ".join(g[1] for g in glyphs),
        " ".join(g[2] for g in glyphs),
    )


def card_art(card: int | None, lang: str, *, large: bool = False) -> Text:
    """The top card drawn as a box: rank and suit in the corners and, on the
    large card, the rank in big letters. ``None`` draws an empty place. Red
    suits are red; the suit symbols tell the suits apart without colour."""
    width, height = CARD_LARGE if large else CARD_SMALL
    inner = width - 2
    if card is None:
        lines = ["╭" + "┄" * inner + "╮"]
        lines += ["┆" + " " * inner + "┆" for _ in range(height - 2)]
        lines.append("╰" + "┄" * inner + "╯")
        return Text("\n".join(lines), style="dim")
    rank = rank_label(rank_of(card), lang)
    suit = suit_symbol(card)
    style = card_style(card)
    rows: list[str] = [" " * inner for _ in range(height - 2)]

    def put(row: int, col: int, text: str) -> None:
        line = rows[row]
        rows[row] = line[:col] + text + line[col + len(text) :]

    put(0, 1, rank)
    put(1, 1, suit)
    put(height - 3, inner - 1 - len(rank), rank)
    put(height - 4, inner - 2, suit)
    middle = (height - 2) // 2
    if large:
        glyph = big_rank(rank)
        left = (inner - len(glyph[0])) // 2
        for k, line in enumerate(glyph):
            put(middle - 1 + k, left, line)
        put(middle - 2, inner // 2, suit)
        put(middle + 2, inner // 2, suit)
    else:
        put(middle, inner // 2, suit)
    out = Text()
    out.append("╭" + "─" * inner + "╮\n", style=style)
    for row in rows:
        out.append("│", style=style)
        out.append(row, style=style)
        out.append("│\n", style=style)
    out.append("╰" + "─" * inner + "╯", style=style)
    return out


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


def seats_table(state: TableState, lang: str, now_ms: float) -> RichTable:
    """One row per seat: turn marker, name, key or bot level, cards, status."""
    view = state.view
    grid = RichTable.grid(padding=(0, 1), expand=True)
    grid.add_column(width=1)
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(no_wrap=True)
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(no_wrap=True, min_width=5)
    finished = set(view.out_order) if view.rules.is_irish else set()
    for i, seat in enumerate(state.seats):
        on_turn = view.turn == i and not view.over
        marker = Text("▶", style="bold reverse") if on_turn else Text(" ")
        name = Text(seat.name, style="bold" if on_turn else "")
        label = Text(
            seat_label(seat, lang, say_it=view.rules.say_it),
            style="cyan" if seat.is_human else "dim",
        )
        cards = Text(str(view.stack_sizes[i]))
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
        elif view.stack_sizes[i] == 0:
            status = Text(tr(lang, "empty"), style="italic")
        grid.add_row(marker, name, label, cards, status)
    return grid


def game_title(rules: Rules, lang: str) -> str:
    """``Slapjack · Classic``, ``Irish Snap``, ``Irish Snap with a winner``."""
    game = game_label(rules.game, lang)
    preset = preset_label(rules.preset, lang)
    title = preset if preset.startswith(game) else f"{game} · {preset}"
    return title + (" *" if rules.overrides else "")


def centre_group(view: View, lang: str, *, large: bool = False) -> RenderableType:
    """The Irish Snap call, the top card, the face-up cards under it, the pile
    size (each line centred)."""
    parts: list[Text] = []
    if view.rules.is_irish:
        if view.top_call is not None:
            call = tr(lang, "call_now", rank=rank_label(view.top_call, lang))
            parts.append(Text(f" {call} ", style="bold reverse"))
        elif view.next_call is not None:
            parts.append(Text(tr(lang, "next_call", rank=rank_label(view.next_call, lang))))
    parts.append(card_art(view.top, lang, large=large))
    under = Text()
    for card in view.centre_top[:-1]:
        under.append(card_label(card, lang), style=card_style(card))
        under.append(" ")
    parts.append(under)
    if view.top is not None:
        parts.append(Text(card_long_name(view.top, lang), style="italic"))
    if view.centre_size == 0:
        parts.append(Text(tr(lang, "pile_empty"), style="dim"))
    elif view.centre_face_down:
        parts.append(
            Text(tr(lang, "pile_hidden", count=view.centre_size, hidden=view.centre_face_down))
        )
    else:
        parts.append(Text(tr(lang, "pile", count=view.centre_size)))
    return Group(*(Align.center(part) for part in parts))


def reaction_label(ms: float | None, lang: str) -> str:
    """``212 ms``, ``—`` (no slap), ``62 ms (guess)`` for a slap under the
    anticipation floor (stored with :data:`FALSE_START_MS` added)."""
    if ms is not None and ms >= FALSE_START_MS:
        return f"{format_ms(ms - FALSE_START_MS, lang)} ({tr(lang, 'guess')})"
    return format_ms(ms, lang)


def reactions_text(
    reactions: Sequence[tuple[int, float | None]], names: Sequence[str], lang: str
) -> Text:
    """``Ben 212 ms · Anna 263 ms``: the winner first, bold."""
    out = Text()
    for k, (seat, ms) in enumerate(reactions):
        if k:
            out.append(" · ", style="dim")
        out.append(f"{names[seat]} {reaction_label(ms, lang)}", style="bold" if k == 0 else "")
    return out


def _shares(shares: Sequence[tuple[int, int]], names: Sequence[str]) -> str:
    return ", ".join(f"{names[s]} {n}" for s, n in shares)


def item_text(item: LogItem, state: TableState, lang: str) -> Text:
    """One log line (also used for the result banner)."""
    view = state.view
    names = view.players
    if isinstance(item, Note):
        return _note_text(item, state, lang)
    if isinstance(item, Flipped):
        card = card_text(item.card, lang)
        if item.call is None:
            return Text.assemble(
                *_split(tr(lang, "ev.flipped", name=names[item.seat], card="\0"), card)
            )
        call = rank_label(item.call, lang)
        return Text.assemble(
            *_split(tr(lang, "ev.flipped_call", name=names[item.seat], card="\0", call=call), card)
        )
    if isinstance(item, Slapped):
        key = "ev.slapped_call" if item.call and view.rules.say_it else "ev.slapped"
        return Text(tr(lang, key, name=names[item.seat], ms=reaction_label(item.reaction_ms, lang)))
    if isinstance(item, WrongSlap):
        key = f"ev.wrong.{item.penalty}"
        if item.penalty == "pay_player" and item.to == item.seat:
            key = "ev.wrong.pay_player_self"
        to = names[item.to] if item.to is not None else ""
        return Text(tr(lang, key, name=names[item.seat], to=to), style="bold magenta")
    if isinstance(item, RaceWon):
        return Text(
            tr(lang, "ev.race_won", name=names[item.winner], cards=cards_text(item.cards, lang)),
            style="bold green",
        )
    if isinstance(item, RaceTied):
        return Text(
            tr(
                lang,
                "ev.race_tied",
                ms=reaction_label(item.reaction_ms, lang),
                names=join_names([names[s] for s in item.seats], lang),
            ),
            style="bold yellow",
        )
    if isinstance(item, PileSplit):
        return Text(
            tr(lang, "ev.pile_split", shares=_shares(item.shares, names)), style="bold green"
        )
    if isinstance(item, Forfeit):
        return Text(
            tr(lang, "ev.forfeit", name=names[item.seat], shares=_shares(item.shares, names)),
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
                cards=cards_text(item.cards, lang),
            ),
            style="bold magenta",
        )
    if isinstance(item, PileReturned):
        return Text(tr(lang, "ev.pile_returned", name=names[item.seat], cards=item.cards))
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
            tr(lang, "ev.game_over", names=join_names([names[s] for s in item.winners], lang)),
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
        title = game_title(view.rules, lang)
        return Text(tr(lang, "game_start", title=title, count=len(view.players)), style="dim")
    if "seat" in values:
        seat = values.pop("seat")
        values["name"] = view.players[seat] if isinstance(seat, int) else seat
    ms = values.get("ms")
    if isinstance(ms, float):
        values["ms"] = format_ms(ms, lang)
    return Text(tr(lang, note.key, **values), style="italic")


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
    if view.turn is None:
        return Text(tr(lang, "waiting"), style="dim")
    seat = state.seats[view.turn]
    if seat.is_human and seat.slap_key:
        if seat.flip_key:
            key = key_label(seat.flip_key)
            return Text(tr(lang, "turn_keys", name=seat.name, key=key), style="bold")
        return Text(tr(lang, "turn_space", name=seat.name), style="bold")
    return Text(tr(lang, "turn_of", name=seat.name), style="dim")
