"""The replay's table at a laptop's and a phone's sizes, polished: a crowded
table held sideways keeps a pile near four seats' size (Irish Snap's calls
once left it 36 px wide at ten seats), an upright phone shows the controls
without scrolling under ten long names, four seats' boxes sit inside the
felt's wooden rim, and a name's words never break where they fit whole
(the font shrinks first; 14 letters always fit)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import ARTIFACTS, Pages, Server, bot_game, open_page, serve_process, store_games
from .test_history_layout import LONG_NAMES

pytestmark = pytest.mark.browser

NAMES_20 = [name[:20] for name in LONG_NAMES]
NAMES_14 = [
    "Maximilianowsk",
    "Wolkensteinerw",
    "Gwendolynmmmww",
    "Bartholomewwww",
    "Konstantinowww",
    "Mwajumawanjiku",
    "Wunderwuzzimmm",
    "Rosamundewwwww",
    "Ottokarbrahmsw",
    "Wilhelminamaue",
]
"""Names of one word of 14 wide letters: never broken, at any size."""
GAMES = {
    "four": (LONG_NAMES[:4], "classic"),
    "long8": (LONG_NAMES[:8], "classic"),
    "long10": (LONG_NAMES[:10], "classic"),
    "irish4": (LONG_NAMES[:4], "irish-snap"),
    "irish6": (LONG_NAMES[:6], "irish-snap"),
    "irish10": (LONG_NAMES[:10], "irish-snap"),
    "twenty7": (NAMES_20[:7], "classic"),
    "twenty10": (NAMES_20[:10], "classic"),
    "fourteen4": (NAMES_14[:4], "classic"),
    "fourteen10": (NAMES_14[:10], "classic"),
}


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, int]]]:
    data = tmp_path_factory.mktemp("replay-fit")
    ids = store_games(data, {key: bot_game(*game) for key, game in GAMES.items()})
    with serve_process(data) as live:
        yield live, ids


MEASURE = r"""() => {
  const vh = document.documentElement.clientHeight;
  const felt = document.querySelector('#table'), f = felt.getBoundingClientRect();
  const style = getComputedStyle(felt);
  const px = (v, of) => (v.endsWith('%') ? (parseFloat(v) / 100) * of : parseFloat(v));
  const [x0, y0 = x0] = style.borderTopLeftRadius.split(' ');
  const rx = Math.min(px(x0, f.width), f.width / 2) - 14, ry = Math.min(px(y0, f.height), f.height / 2) - 14;
  // in the felt inside its wooden rim (14 px: app.css's inset box-shadow)
  const inside = (x, y) => {
    const l = f.left + 14, r = f.right - 14, t = f.top + 14, b = f.bottom - 14;
    if (x < l - 0.5 || x > r + 0.5 || y < t - 0.5 || y > b + 0.5) return false;
    const dx = x < l + rx ? l + rx - x : x > r - rx ? x - (r - rx) : 0;
    const dy = y < t + ry ? t + ry - y : y > b - ry ? y - (b - ry) : 0;
    return !dx || !dy || Math.hypot(dx / rx, dy / ry) <= 1.01;
  };
  const seats = [...felt.querySelectorAll('.seat')];
  const onRim = seats.filter((el) => {
    const r = el.getBoundingClientRect();
    return ![[r.left, r.top], [r.right, r.top], [r.right, r.bottom], [r.left, r.bottom]].every(([x, y]) => inside(x, y));
  }).map((el) => el.dataset.place + ': ' + el.querySelector('.who').textContent);
  // a word (or one side of its hyphen) on more than one line
  const broken = [];
  for (const who of felt.querySelectorAll('.seat .who')) {
    const walk = document.createTreeWalker(who, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      for (const m of node.data.matchAll(/[^\s-]+-?/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
  }
  const bottom = (sel) => document.querySelector(sel).getBoundingClientRect().bottom;
  return {
    vh, pile: document.querySelector('#table .pile').getBoundingClientRect().width, onRim, broken,
    controls: Object.fromEntries(['#first', '#play', '#next', '#last', '#scrub', '#pos'].map((s) => [s, bottom(s)])),
  };
}"""


def _pages(browser: Any, server: Server, width: int, height: int) -> tuple[Pages, Any]:
    pages = Pages(browser, server.url)
    return pages, pages.page(pages.screen(width, height, reduced_motion="reduce"))


def _at(page: Any, game_id: int, shot: str) -> dict[str, Any]:
    """The replay of ``game_id`` twelve steps on, measured (and a screenshot)."""
    open_page(page, f"/replay/{game_id}")
    page.locator("#table .pile").wait_for(state="attached")
    for _ in range(12):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => !!document.querySelector('#table .pile .card.top')")
    page.wait_for_timeout(150)  # the seats laid out (after a frame)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"replay-fit-{shot}.png"))
    m: dict[str, Any] = page.evaluate(MEASURE)
    return m


def _done(pages: Pages) -> None:
    for ctx in pages.contexts:
        ctx.close()
    assert not pages.unexpected_errors(), pages.unexpected_errors()


@pytest.mark.parametrize(("width", "height"), [(844, 390), (740, 360)])
def test_a_crowded_table_held_sideways_keeps_a_large_pile(
    browser: Any, games: tuple[Server, dict[str, int]], width: int, height: int
) -> None:
    """Eight or ten seats with the longest names: the pile 9/10 of four
    seats' or more (it was 5/6); Irish Snap's pile 4/5 of four seats' or more
    (with three or more seats a side its calls go over the pile's count: side
    by side they were wider than the room between the seats, a pile 36 px
    wide)."""
    server, ids = games
    pages, page = _pages(browser, server, width, height)
    try:
        size = f"{width}x{height}"
        four = _at(page, ids["four"], f"four-{size}")["pile"]
        irish_four = _at(page, ids["irish4"], f"irish4-{size}")["pile"]
        piles = {key: _at(page, ids[key], f"{key}-{size}")["pile"] for key in ("long8", "long10")}
        irish = {key: _at(page, ids[key], f"{key}-{size}")["pile"] for key in ("irish6", "irish10")}
    finally:
        _done(pages)
    for key, pile in piles.items():
        assert pile >= 0.9 * four, f"{key}: the pile is {pile:.0f} px, four seats' {four:.0f}"
    for key, pile in irish.items():
        assert pile >= 0.8 * irish_four, (
            f"{key}: the pile is {pile:.0f} px, four seats' {irish_four:.0f}"
        )


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 740)])
def test_an_upright_phone_shows_the_controls_under_many_seats(
    browser: Any, games: tuple[Server, dict[str, int]], width: int, height: int
) -> None:
    """Seven and ten seats with names of 20 letters, ten of 24: the replay's
    buttons, its slider and its step count on the screen without scrolling."""
    server, ids = games
    pages, page = _pages(browser, server, width, height)
    try:
        at = {
            key: _at(page, ids[key], f"{key}-{width}x{height}")
            for key in ("twenty7", "twenty10", "long10")
        }
    finally:
        _done(pages)
    for key, m in at.items():
        for sel, bottom in m["controls"].items():
            assert bottom <= m["vh"] + 0.5, (
                f"{key}: {sel} below the screen: {bottom:.0f} > {m['vh']}"
            )


SIZES = [(1366, 768), (1280, 720), (844, 390), (740, 360), (390, 844), (360, 740)]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_seats_inside_the_rim_and_names_whole(
    browser: Any, games: tuple[Server, dict[str, int]], width: int, height: int
) -> None:
    """Four seats with names of 24 letters (a laptop, a phone held sideways):
    every seat's box inside the felt's wooden rim, not over it. Names of one
    word of 14 letters, four seats and ten, and the names of 24 letters
    (words with spaces or a hyphen): no word broken, at every size (the
    name's font shrinks first)."""
    server, ids = games
    pages, page = _pages(browser, server, width, height)
    size = f"{width}x{height}"
    try:
        four = _at(page, ids["four"], f"four-{size}")
        names = {key: _at(page, ids[key], f"{key}-{size}") for key in ("fourteen4", "fourteen10")}
    finally:
        _done(pages)
    problems = [f"{key}: words broken: {m['broken']}" for key, m in names.items() if m["broken"]]
    if four["broken"]:
        problems.append(f"four: words broken: {four['broken']}")
    if width > height and four["onRim"]:
        problems.append(f"over the felt's rim: {four['onRim']}")
    assert not problems, problems
