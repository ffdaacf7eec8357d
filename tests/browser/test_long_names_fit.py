"""Long names read whole where players meet them.

- Your own seat: a name of 24 letters beside the "you" tag ended in "…" at
  the smallest size. The tag now sits on the seat's top edge, the seat is
  wider where the felt has room, and a name that would still be smaller
  than 11 px takes two lines.
- An upright phone's band of five or more other seats: each seat had a
  fifth of the width or less, and the bots' names shrank to 9 px and were
  cut ("Be…"). Now they take two lines, the seats in as many rows as the
  names need (five to a row at most), at 11 px or more; the pile is still
  uncovered.
- A phone's end screen: a long first word of a name pushed the place number
  ("1.") onto a line of its own above it; it now stays beside that word.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Pages, Server, open_page, table_state, wait_for
from .test_layout import CHECKER, layout_report, play, screenshot_at_rest

pytestmark = pytest.mark.browser

LONG = "Christopher Maximilianus"  # 24 letters, the longest name a player may take
BOTS = ["beginner", "casual", "pro"]

# Each seat the felt shows: its name, whether the name is cut (its text is
# wider or higher than its box, or ends in an ellipsis), its font, how many
# lines it takes, and its box and the "you" tag's.
SEATS = """() => [...document.querySelectorAll('#table .seat')]
  .filter((seat) => seat.getClientRects().length)
  .map((seat) => {
    const who = seat.querySelector('.who');
    const style = getComputedStyle(who);
    const range = document.createRange();
    range.selectNodeContents(who);
    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0.5)
      .map((r) => Math.round(r.top))).size;
    const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
      return [r.left, r.top, r.right, r.bottom]; };
    return {
      text: who.textContent,
      cut: who.scrollWidth > who.clientWidth + 0.5 || who.scrollHeight > who.clientHeight + 0.5,
      font: parseFloat(style.fontSize),
      lines,
      me: seat.classList.contains('me'),
      seat: box(seat),
      who: box(who),
      tag: box(seat.querySelector('.tag.you')),
      felt: box(document.getElementById('table')),
    };
  })"""


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def room(server: Server, seats: int, **create: Any) -> str:
    bots = {str(s): BOTS[(s - 1) % 3] for s in range(1, seats)}
    return server.hook_room(
        {"seats": seats, "bots": bots, "public": False, **create},
        timing={"bot_pace": 0.3, "turn_ms": 600.0},
    )


def sit(pages: Pages, code: str, name: str, size: tuple[int, int], locale: str = "en-GB") -> Any:
    ctx = pages.screen(*size, locale=locale)
    page = pages.page(ctx)
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill(name)
    page.locator("#join-btn").click()
    page.locator("#game").wait_for()
    wait_for(lambda: table_state(page)["flip"] is not None)
    page.wait_for_timeout(300)  # the names fitted (a frame after the first drawing)
    return page


# ----------------------------------------------------------------- your seat


@pytest.mark.parametrize("seats", [4, 10])
@pytest.mark.parametrize(
    "size", [(1366, 768), (1280, 720), (844, 390), (390, 844)], ids=lambda s: f"{s[0]}x{s[1]}"
)
def test_your_own_long_name_reads_whole_beside_you(
    server: Server, pages: Pages, shot: Any, size: tuple[int, int], seats: int
) -> None:
    """A name of 24 letters in your own seat: whole (not "Christopher Maxi…"),
    at 11 px or more, the "you" tag shown and not on it, the seat inside the
    felt and on no other; on a laptop on one line (at 1366x768 it was cut at
    9.9 px), on a phone held sideways on two at most. An upright phone does
    not show your seat on the felt (your stack under it stands for it):
    nothing of it to cut there."""
    page = sit(pages, room(server, seats), LONG, size)
    shot(page, f"own-name-{seats}-{size[0]}x{size[1]}")
    seats_shown = page.evaluate(SEATS)
    mine = [s for s in seats_shown if s["me"]]
    if size == (390, 844):
        assert mine == [], mine
        assert page.locator("#my-stack").is_visible()
        return
    assert len(mine) == 1, seats_shown
    me = mine[0]
    assert me["text"] == LONG
    assert not me["cut"], me
    assert me["font"] >= 10.9 and me["lines"] <= 2, me
    if size[1] > 700:  # a laptop: on one line, in a font like the others'
        assert me["lines"] == 1 and me["font"] >= 12, me
    assert me["tag"] is not None and not overlap(me["tag"], me["who"]), me
    felt = me["felt"]
    assert felt[0] <= me["seat"][0] and me["seat"][2] <= felt[2], me
    assert felt[1] <= me["tag"][1] and me["seat"][3] <= felt[3], me
    # It leaves the other seats alone.
    for other in seats_shown:
        if not other["me"]:
            assert not overlap(other["seat"], me["seat"]), (other, me)


# ------------------------------------------------------- a crowded phone band


CROWDED = [
    # (seats, size, locale, the least font a name may take)
    *[(n, size, "en-GB", 10.9) for n in (6, 8, 10) for size in ((390, 844), (360, 640))],
    # German bots' names are longer ("Bot 3 (gemütlich)"): on a tall phone
    # ten seats go in three rows; on a small one five to a row are too narrow
    # for "(gemütlich)" at 11 px in any font: it shrinks, whole.
    (6, (360, 640), "de-DE", 10.9),
    (10, (390, 844), "de-DE", 10.9),
    (10, (360, 640), "de-DE", 8),
]


@pytest.mark.parametrize(
    ("seats", "size", "locale", "least"),
    CROWDED,
    ids=[f"{n}-{w}x{h}-{loc[:2]}" for n, (w, h), loc, _ in CROWDED],
)
def test_a_crowded_phone_band_shows_the_bots_names_whole(
    server: Server, pages: Pages, seats: int, size: tuple[int, int], locale: str, least: float
) -> None:
    """Five to nine other seats on an upright phone: every bot's name whole,
    on two lines at most, at 11 px or more (with five or more in one row each
    had a fifth of the band's width or less, and the names were cut to "Be…"
    at 9 px); the seats in rows, none on another, inside the felt; through a
    game's updates nothing covers the pile, no seat's word or reaction time
    is cut (test_layout's checks)."""
    ctx = pages.screen(*size, locale=locale)
    ctx.add_init_script(CHECKER)
    page = pages.page(ctx)
    open_page(page, f"/r/{room(server, seats)}")
    page.locator("#join-name").fill("Anna")
    page.locator("#join-btn").click()
    page.locator("#game").wait_for()
    play(page, 16, True)
    page.wait_for_timeout(450)
    screenshot_at_rest(page, f"crowded-band-{seats}-{size[0]}x{size[1]}-{locale[:2]}")
    report = layout_report(page)
    assert report["problems"] == [], report["problems"]
    assert report["covers"] >= 10, report
    shown = page.evaluate(SEATS)
    assert len(shown) == seats - 1, shown
    for s in shown:
        assert not s["cut"], s
        assert s["lines"] <= 2, s
        assert s["font"] >= least, s
        felt = s["felt"]
        assert felt[0] <= s["seat"][0] and s["seat"][2] <= felt[2], s
        assert felt[1] <= s["seat"][1] and s["seat"][3] <= felt[3], s
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            assert not overlap(a["seat"], b["seat"]), (a, b)


# ------------------------------------------------------------ the end screen

# Each ranking row on the end screen, its cells top-aligned (so that their
# first lines are level): the top of the name's first word, of the row's
# first figure, the name's left edge and the row's; the place as the page
# shows it (a column, or before the name: its ::before); and the width of
# the place ("10.") in its font.
END_ROWS = """() => {
  for (const cell of document.querySelectorAll('#ranking tr > *')) cell.style.verticalAlign = 'top';
  const ruler = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('#ranking tr')].map((tr, i) => {
    const th = tr.querySelector('th');
    const text = th.querySelector('.name').firstChild;
    const word = document.createRange();
    word.setStart(text, 0);
    word.setEnd(text, (text.data.indexOf(' ') + 1 || text.data.length + 1) - 1);
    const figure = document.createRange();
    figure.selectNodeContents(tr.querySelector('td:not(.place)'));
    const before = getComputedStyle(th, '::before');
    const place = tr.querySelector('td.place');
    ruler.font = `400 ${before.fontSize} ${before.fontFamily}`;
    return {
      name: th.textContent,
      wordTop: word.getClientRects()[0].top,
      figureTop: figure.getClientRects()[0].top,
      nameLeft: word.getClientRects()[0].left,
      rowLeft: th.getBoundingClientRect().left,
      placeColumn: !!place && place.getClientRects().length > 0,
      before: before.content.includes('counter') || /\\d/.test(before.content),
      placeWidth: ruler.measureText(`${i + 1}.`).width,
    };
  });
}"""

FIRST_WORD = "Konstantinopolitanus Ab"  # a first word of 20 letters


@pytest.mark.parametrize("seats", [4, 10])
@pytest.mark.parametrize("size", [(390, 844), (360, 640)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_end_screen_keeps_the_place_beside_a_long_first_word(
    server: Server, pages: Pages, shot: Any, size: tuple[int, int], seats: int
) -> None:
    """A phone's end screen numbers the rows before the names (no place
    column): the number stays on the first line of its row, before the
    name's first word however long (it stood alone above
    "Konstantinopolitanus"), and the table fits the panel."""
    code = room(server, seats, time_limit=4)
    page = sit(pages, code, FIRST_WORD, size)
    wait_for(lambda: bool(table_state(page)["endShown"]), timeout=30)
    page.wait_for_timeout(300)
    shot(page, f"end-first-word-{seats}-{size[0]}x{size[1]}")
    fits = page.locator("#end .end").evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    assert fits
    rows = page.evaluate(END_ROWS)
    assert len(rows) == seats
    assert any(r["name"].startswith(FIRST_WORD) for r in rows), rows
    for r in rows:
        assert not r["placeColumn"] and r["before"], r
        assert abs(r["wordTop"] - r["figureTop"]) < 2, r  # the name starts on the row's first line
        assert r["nameLeft"] - r["rowLeft"] >= r["placeWidth"], r  # beside the number, not on it
