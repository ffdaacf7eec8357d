"""The cards of the terminal game: a card's face in text, drawn large in
half-block glyphs at one of several sizes, and the centre pile fanned out."""

from __future__ import annotations

from typing import Final

from rich.text import Text

from slapjack.core import View, is_red, rank_of

from .i18n import card_label, rank_label, suit_symbol

RED: Final = "bold red"
BLACK: Final = "bold"
CARD_SIZES: Final = ((11, 7), (15, 11), (21, 15), (27, 19), (33, 23), (41, 29))
"""The top card's sizes (width, height in cells), smallest first; the table
draws the largest that fits (a card's sides are about 5:7, a cell 1:2)."""
CARD_SMALL: Final = CARD_SIZES[0]
CARD_LARGE: Final = CARD_SIZES[1]
PEEK: Final = 4
"""How much of each face-up card under the top one shows (its left edge and rank)."""
MAX_UNDER: Final = 4


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
_HALF: Final = {" ": (0, 0), "▀": (1, 0), "▄": (0, 1), "█": (1, 1)}
_CELL: Final = {v: k for k, v in _HALF.items()}


def big_rank(rank: str, scale: int = 1) -> tuple[str, ...]:
    """The rank in a block font of half-block pixels, ``3 * scale`` lines high
    (``10`` is two glyphs)."""
    glyphs = [_GLYPHS[ch] for ch in rank]
    rows = tuple(" ".join(g[k] for g in glyphs) for k in range(3))
    if scale == 1:
        return rows
    # each cell is two pixels, top and bottom: scale the pixels, pack them again
    pixels = [[_HALF[ch][half] for ch in row] for row in rows for half in (0, 1)]
    big = [[p for p in line for _ in range(scale)] for line in pixels for _ in range(scale)]
    return tuple(
        "".join(_CELL[(top, bottom)] for top, bottom in zip(big[k], big[k + 1], strict=True))
        for k in range(0, len(big), 2)
    )


class Canvas:
    """A grid of styled cells to draw overlapping cards on."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.cells = [[(" ", "")] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, style: str = "") -> None:
        if not 0 <= y < self.height:
            return
        row = self.cells[y]
        for k, ch in enumerate(text):
            if 0 <= x + k < self.width:
                row[x + k] = (ch, style)

    def text(self) -> Text:
        out = Text()
        for y, row in enumerate(self.cells):
            if y:
                out.append("\n")
            run, style = "", row[0][1] if row else ""
            for ch, st in row:
                if st != style:
                    out.append(run, style=style or None)
                    run, style = "", st
                run += ch
            out.append(run, style=style or None)
        return out


def _glyph_scale(width: int, height: int) -> int:
    if height < CARD_LARGE[1]:
        return 0
    return max(1, min((height - 8) // 3, (width - 4) // 7, 4))


def draw_card(
    canvas: Canvas, x: int, y: int, card: int | None, lang: str, size: tuple[int, int]
) -> None:
    """A card face at ``(x, y)``: rank and suit in the corners and, from the
    second size on, the rank in big letters between two suits. ``None`` draws
    an empty place. Red suits are red; the suit symbols tell the suits apart
    without colour."""
    width, height = size
    inner = width - 2
    if card is None:
        canvas.put(x, y, "╭" + "┄" * inner + "╮", "dim")
        for k in range(1, height - 1):
            canvas.put(x, y + k, "┆" + " " * inner + "┆", "dim")
        canvas.put(x, y + height - 1, "╰" + "┄" * inner + "╯", "dim")
        return
    rank = rank_label(rank_of(card), lang)
    suit = suit_symbol(card)
    style = card_style(card)
    canvas.put(x, y, "╭" + "─" * inner + "╮", style)
    for k in range(1, height - 1):
        canvas.put(x, y + k, "│" + " " * inner + "│", style)
    canvas.put(x, y + height - 1, "╰" + "─" * inner + "╯", style)
    left, top = x + 1, y + 1
    rows = height - 2
    canvas.put(left + 1, top, rank, style)
    canvas.put(left + 1, top + 1, suit, style)
    canvas.put(left + inner - 1 - len(rank), top + rows - 1, rank, style)
    canvas.put(left + inner - 2, top + rows - 2, suit, style)
    scale = _glyph_scale(width, height)
    if not scale:
        canvas.put(left + inner // 2, top + rows // 2, suit, style)
        return
    glyph = big_rank(rank, scale)
    first = (rows - len(glyph)) // 2
    col = (inner - len(glyph[0])) // 2
    for k, line in enumerate(glyph):
        for j, ch in enumerate(line):
            if ch != " ":
                canvas.put(left + col + j, top + first + k, ch, style)
    canvas.put(left + inner // 2, top + first - 1, suit, style)
    canvas.put(left + inner // 2, top + first + len(glyph), suit, style)


def draw_back(canvas: Canvas, x: int, y: int, size: tuple[int, int]) -> None:
    """A face-down card (penalty cards under the pile)."""
    width, height = size
    inner = width - 2
    canvas.put(x, y, "╭" + "─" * inner + "╮", "blue")
    for k in range(1, height - 1):
        canvas.put(x, y + k, "│" + "▚" * inner + "│", "blue")
    canvas.put(x, y + height - 1, "╰" + "─" * inner + "╯", "blue")


def card_art(
    card: int | None, lang: str, *, large: bool = False, size: tuple[int, int] | None = None
) -> Text:
    """The card alone as text (``size``, else the small or the large size)."""
    width, height = size or (CARD_LARGE if large else CARD_SMALL)
    canvas = Canvas(width, height)
    draw_card(canvas, 0, 0, card, lang, (width, height))
    return canvas.text()


def pile_art(view: View, lang: str, size: tuple[int, int], under: int = MAX_UNDER) -> Text:
    """The top card with the face-up cards under it fanned out to its left
    (their ranks show) and, when penalty cards lie face down under the pile,
    a card back at the far left."""
    width, height = size
    below = list(view.centre_top[:-1])[-under:] if under > 0 else []
    back = view.centre_face_down > 0 and view.top is not None
    peeks = len(below) + (1 if back else 0)
    canvas = Canvas(width + PEEK * peeks, height)
    x = 0
    if back:
        draw_back(canvas, x, 0, size)
        x += PEEK
    for card in below:
        draw_card(canvas, x, 0, card, lang, size)
        x += PEEK
    draw_card(canvas, x, 0, view.top, lang, size)
    return canvas.text()


def card_size(width: int, height: int) -> tuple[int, int]:
    """The largest card size that fits ``width`` × ``height`` cells (the smallest
    when none does)."""
    fitting = [s for s in CARD_SIZES if s[0] <= width and s[1] <= height]
    return fitting[-1] if fitting else CARD_SIZES[0]
