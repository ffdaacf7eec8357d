"""Party mode on a phone held sideways (844x390): the seats' names show whole,
the bots' usual names in English and German included; only a name too long
for two lines is cut, with an ellipsis."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Pages, Server, open_page, wait_for

pytestmark = pytest.mark.browser

SIDEWAYS = {"width": 844, "height": 390}

# For each seat: its name element's text, whether it is cut (its text is
# wider or taller than the box that shows it), and the seat's box.
NAMES = """() => [...document.querySelectorAll('#table .seat')].map((seat) => {
  const who = seat.querySelector('.who');
  const r = seat.getBoundingClientRect();
  return {
    text: who.textContent,
    cut: who.scrollWidth > who.clientWidth + 0.5 || who.scrollHeight > who.clientHeight + 0.5,
    ellipsis: getComputedStyle(who).textOverflow === 'ellipsis' || getComputedStyle(who).webkitLineClamp !== 'none',
    box: [r.left, r.top, r.right, r.bottom],
  };
})"""


def start_party(
    pages: Pages, players: list[str], bots: int, level: str, locale: str = "en-GB"
) -> Any:
    ctx = pages.context(viewport=SIDEWAYS, is_mobile=True, has_touch=True, locale=locale)
    page = pages.page(ctx)
    open_page(page, "/party")
    page.locator("#count").select_option(str(len(players)))
    for i, name in enumerate(players):
        page.locator("#players .party-player").nth(i).locator("input.name").fill(name)
    page.locator("#bots").select_option(str(bots))
    page.locator("#bot-level").select_option(level)
    page.locator("#tempo").fill("0.8")
    page.locator("#start").click()
    page.locator("#table .seat").nth(len(players) + bots - 1).wait_for()
    wait_for(lambda: page.locator("#table .seat.me").count() == len(players))
    page.wait_for_timeout(300)  # the seats' sizes settle (fonts, resize observer)
    return page


def overlap(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


@pytest.mark.parametrize(
    ("players", "bots", "level", "locale", "bot_names"),
    [
        (3, 1, "beginner", "en-GB", ["Beginner bot 4"]),
        (2, 2, "matched", "en-GB", ["Matched bot 3", "Matched bot 4"]),
        (3, 1, "casual", "en-GB", ["Casual bot 4"]),
        (2, 2, "matched", "de-DE", ["Bot 3 (ebenbürtig)", "Bot 4 (ebenbürtig)"]),
        (3, 1, "beginner", "de-DE", ["Bot 4 (Anfänger)"]),
    ],
)
def test_bot_and_player_names_show_whole_sideways(
    server: Server,
    pages: Pages,
    shot: Any,
    players: int,
    bots: int,
    level: str,
    locale: str,
    bot_names: list[str],
) -> None:
    names = ["Player 1", "Player 2", "Player 3", "Player 4"][:players]
    page = start_party(pages, names, bots, level, locale)
    seats = page.evaluate(NAMES)
    shot(page, f"party-names-{players}p{bots}b-{level}-{locale}")
    assert [s["text"] for s in seats] == names + bot_names
    for s in seats:
        assert not s["cut"], (s, seats)
    # Wider seats still leave each its own place.
    for i, a in enumerate(seats):
        for b in seats[i + 1 :]:
            assert not overlap(a["box"], b["box"]), (a, b)


def test_a_truly_long_name_is_cut_with_an_ellipsis(server: Server, pages: Pages, shot: Any) -> None:
    long_name = "Maximiliana Wolkenstein"  # 23 characters: the name field allows 24
    page = start_party(pages, [long_name, "Ida"], 2, "beginner")
    shot(page, "party-names-long")
    seats = {s["text"]: s for s in page.evaluate(NAMES)}
    assert not seats["Ida"]["cut"]
    assert not seats["Beginner bot 3"]["cut"]
    long_seat = seats[long_name]
    # Either it fits in two lines, or it is cut visibly (an ellipsis), never
    # spilling out of its seat.
    assert long_seat["ellipsis"] or not long_seat["cut"]
    width = long_seat["box"][2] - long_seat["box"][0]
    assert width <= 152, long_seat
