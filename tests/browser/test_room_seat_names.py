"""An online room's seats show each name whole on its line, at a laptop's
size and on a phone held upright: a long name's font shrinks to fit (as the
party's and the replay's seats do, with ``fitNames``), where it was cut
("Christopher …"). A name is measured once, not again with every update."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Pages, Server, open_page, wait_for

pytestmark = pytest.mark.browser

LAPTOP = (1366, 768)
PHONE = (390, 844)

# How often the page measured a text on a canvas (fitNames does), and how
# many updates it has drawn.
COUNT = """
  window.__measured = 0;
  window.__rendered = 0;
  const measure = CanvasRenderingContext2D.prototype.measureText;
  CanvasRenderingContext2D.prototype.measureText = function (text) {
    window.__measured += 1;
    return measure.call(this, text);
  };
  document.addEventListener('sj:rendered', () => { window.__rendered += 1; });
"""

# Each seat the felt shows: its name's text, whether it is cut (its text is
# wider than the box that shows it), its font size and its seat's.
SEATS = """() => [...document.querySelectorAll('#table .seat')]
  .filter((seat) => seat.getClientRects().length)
  .map((seat) => {
    const who = seat.querySelector('.who');
    return {
      text: who.textContent,
      cut: who.scrollWidth > who.clientWidth + 0.5,
      font: parseFloat(getComputedStyle(who).fontSize),
      seatFont: parseFloat(getComputedStyle(seat).fontSize),
      offline: seat.classList.contains('offline'),
    };
  })"""


def sit(pages: Pages, code: str, name: str, size: tuple[int, int], locale: str) -> Any:
    ctx = pages.screen(*size, locale=locale)
    ctx.add_init_script(COUNT)
    page = pages.page(ctx)
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill(name)
    page.locator("#join-btn").click()
    page.locator("#game").wait_for()
    return page


def check(page: Any, names: set[str], where: str) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = page.evaluate(SEATS)
    assert names <= {s["text"] for s in seats}, (where, seats)
    for s in seats:
        assert not s["cut"], (where, s)
        # shrunk within reason: at least 9 px, and seven tenths of the seat's
        assert s["font"] >= max(9.0, 0.69 * s["seatFont"]), (where, s)
    return seats


@pytest.mark.parametrize(
    ("locale", "bots"),
    [
        ("en-GB", ["Casual bot 3", "Casual bot 4"]),
        ("de-DE", ["Bot 3 (gemütlich)", "Bot 4 (gemütlich)"]),
    ],
    ids=["en", "de"],
)
def test_long_names_show_whole_in_a_rooms_seats(
    server: Server, pages: Pages, shot: Any, locale: str, bots: list[str]
) -> None:
    """Two people with names of 14 letters, one at a laptop (her seat says
    "you" beside her name), one at a phone, and two bots: each page shows
    every name whole, in a font shrunk no more than it must; once drawn, the
    names are not measured again while the game goes on; a name still fits
    beside the "away" of a seat whose player left."""
    code = server.hook_room(
        {"seats": 4, "bots": {"2": "casual", "3": "casual"}, "public": False},
        timing={"bot_pace": 0.3, "turn_ms": 500.0},
    )
    laptop = sit(pages, code, "Christopher Ab", LAPTOP, locale)
    phone = sit(pages, code, "Maximilianusss", PHONE, locale)
    names = {"Christopher Ab", "Maximilianusss", *bots}
    for page in (laptop, phone):
        page.locator("#table .seat").nth(3).wait_for()
        wait_for(lambda page=page: page.evaluate("window.__rendered") >= 2)
    page_names = {laptop: names, phone: names - {"Maximilianusss"}}  # (a phone hides its own seat)
    for page, size in ((laptop, LAPTOP), (phone, PHONE)):
        shot(page, f"room-seat-names-{locale}-{size[0]}x{size[1]}")
        check(page, page_names[page], f"{size}")
    # The game goes on (the bots' flips, the turn timers flipping for the
    # people): the names are not measured again.
    measured = {
        page: page.evaluate("[window.__measured, window.__rendered]") for page in page_names
    }
    wait_for(lambda: laptop.evaluate("window.__rendered") >= measured[laptop][1] + 10, timeout=20)
    for page, (before, rendered) in measured.items():
        after, now = page.evaluate("[window.__measured, window.__rendered]")
        assert before > 0 and now > rendered and after == before, (before, after, rendered, now)
        check(page, page_names[page], "later")
    # The phone's player leaves (her page closes): the laptop's table marks
    # her seat "away", her name fits beside it.
    phone.context.close()
    wait_for(lambda: any(s["offline"] for s in laptop.evaluate(SEATS)), timeout=10)
    seats = check(laptop, names, "away")
    assert [s["text"] for s in seats if s["offline"]] == ["Maximilianusss"], seats
    shot(laptop, f"room-seat-names-away-{locale}-{LAPTOP[0]}x{LAPTOP[1]}")
