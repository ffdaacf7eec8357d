"""The history and replay pages at a laptop's and a phone's sizes.

The replay, the phone both ways up: nothing runs off the side (the head once
pushed the download 500 px off a phone's screen), the title and the download
stay whole, the table, the controls and the step's words fit on the screen,
and no seat covers the pile, another seat or the pile's count; every seat's
name is whole at every size (a quarter of the width cut both casual bots to
"Casual b…" on an upright phone, where the four seats now go two by two, and
a sixth of it on a laptop and a phone held sideways, where the pile's count
went over the pile and its side column's width to the seats); the pile is
in the felt's middle (that column beside it once kept it 50 px to the left)
and no smaller than it was before (PILE_BEFORE); a race's hands and their
times are under the step's words, whole (the felt's side column once cut
them). The history: on a phone each game is a card with its values named
and its buttons in view (the table of six columns once scrolled sideways
and hid them).

Every other count of seats a room allows, 2 to 10 (and 4 again), each
seat's name as long as a room allows (24 letters): on a laptop and a phone
held sideways each name whole in its seat and inside the felt, no seat on
another, on the pile's box or its count, the pile in the felt's middle and
as large as four seats' (rules made for four seats cut these names at
every other count, and with five or more a seat lay on the pile's count; a
phone cut them with four too); on an upright phone the same, in a band of
seats that grows the felt downwards.

The finished games are bot games with long names, stored in the server's
SQLite file before the server starts."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from slapjack.core.game import MIN_PLAYERS
from slapjack.protocol import MAX_PLAYER_NAME, MAX_SEATS

from .conftest import ARTIFACTS, Pages, Server, bot_game, open_page, serve_process, store_games

NAMES = ["Casual bot Annabelle", "Casual bot Bernhard", "Pro bot Chiara-Maria", "Pro bot Dominik"]
VIEWPORTS = [
    pytest.param(1366, 768, False, "en-GB", id="laptop-1366x768"),
    pytest.param(1280, 720, False, "en-GB", id="laptop-1280x720"),
    pytest.param(390, 844, True, "en-GB", id="phone-390x844"),
    pytest.param(360, 740, True, "en-GB", id="phone-360x740"),
    pytest.param(844, 390, True, "en-GB", id="phone-sideways-844x390"),
    pytest.param(360, 740, True, "de-DE", id="phone-360x740-de"),
    pytest.param(740, 360, True, "de-DE", id="phone-sideways-740x360-de"),
]
PILE_BEFORE = {
    (1366, 768): 287,
    (1280, 720): 243,
    (390, 844): 104,
    (360, 740): 83,
    (844, 390): 162,
    (740, 360): 118,
}
"""The pile's width (px) at each size before the seats took its side column's
width (measured in Chromium): the seats' room never comes out of the pile's."""
IN_VIEW = ["#table", "#first", "#play", "#next", "#last", "#scrub", "#pos", "#step-events li"]
"""What must be on the screen without scrolling (the keys' hint may be below)."""

MEASURE = """(inView) => {
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const one = (sel) => document.querySelector(sel);
  const cut = (el) => el.scrollWidth > el.clientWidth + 1;
  const meta = one('#replay-meta');
  const over = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  // the seats, the pile's top card and the pile's count: none over another
  const seats = [...document.querySelectorAll('#table .seat')];
  const things = seats.map((el) => [el.querySelector('.who').textContent, el.getBoundingClientRect()]);
  const top = one('#table .pile .card.top');
  if (top) things.push(['the top card', top.getBoundingClientRect()]);
  const count = one('#table .pile-info');
  if (count.textContent) things.push(["the pile's count", count.getBoundingClientRect()]);
  const overlaps = [];
  things.forEach(([a, ra], i) => things.slice(i + 1).forEach(([b, rb]) => over(ra, rb) && overlaps.push([a, b])));
  const felt = one('#table').getBoundingClientRect(), pile = one('#table .pile').getBoundingClientRect();
  // the felt's rounded edge: its corners' radii (px or % of its box)
  const radii = (() => {
    const style = getComputedStyle(one('#table'));
    const px = (v, size) => (v.endsWith('%') ? (parseFloat(v) / 100) * size : parseFloat(v));
    return ['TopLeft', 'TopRight', 'BottomRight', 'BottomLeft'].map((c) => {
      const [x, y = x] = style[`border${c}Radius`].split(' ');
      return [Math.min(px(x, felt.width), felt.width / 2), Math.min(px(y, felt.height), felt.height / 2)];
    });
  })();
  const inFelt = (r, f) => [[r.left, r.top, 0], [r.right, r.top, 1], [r.right, r.bottom, 2], [r.left, r.bottom, 3]]
    .every(([x, y, c]) => {
      const [rx, ry] = radii[c];
      const dx = c === 0 || c === 3 ? f.left + rx - x : x - (f.right - rx);
      const dy = c < 2 ? f.top + ry - y : y - (f.bottom - ry);
      if (x < f.left - 1 || x > f.right + 1 || y < f.top - 1 || y > f.bottom + 1) return false;
      if (dx <= 0 || dy <= 0) return true;
      return Math.hypot(dx / rx, dy / ry) <= 1 + 1 / Math.min(rx, ry);
    });
  return {
    vw, vh, scrollWidth: document.documentElement.scrollWidth,
    head: Object.fromEntries(['#replay-title', '#download', '#replay-meta'].map((s) => [s, box(one(s))])),
    inView: Object.fromEntries(inView.map((s) => [s, one(s) ? box(one(s)) : null])),
    titleCut: cut(one('#replay-title')), downloadCut: cut(one('#download')),
    metaCut: cut(meta), metaText: meta.textContent, metaTitle: meta.title,
    pileShown: !!top, overlaps,
    pileWidth: pile.width, pileOffCentre: (pile.left + pile.right) / 2 - (felt.left + felt.right) / 2,
    namesCut: [...document.querySelectorAll('#table .seat .who')].filter(cut).map((el) => el.textContent),
    // a seat or the count over the pile's box (not only its top card: the
    // fan's lower cards lie over a seat they reach), a seat's content out of
    // its box, a name cut by the felt's rounded edge (it clips what is out)
    overPile: things.filter(([a, r]) => a !== 'the top card' && over(r, pile)).map(([a]) => a),
    spilt: seats.filter((el) => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1
      || el.querySelector('.who').scrollHeight > el.querySelector('.who').clientHeight + 1)
      .map((el) => el.querySelector('.who').textContent),
    clipped: seats.map((el) => el.querySelector('.who')).filter((el) => !inFelt(el.getBoundingClientRect(), felt))
      .map((el) => el.textContent),
    seats: seats.map((el) => box(el)),
  };
}"""


LONG_NAMES = [
    "Annabelle-Marie Wagemann",
    "Wilhelmina M. Mauersberg",
    "Maximilian Wolkensteiner",
    "Gwendolyn MacWhirter-Row",
    "Bartholomew Westinghouse",
    "Konstantin Wienerwaldweg",
    "Mwajuma Wanjiku-Mwangime",
    "Wunderwuzzi_Mammutbaum99",
    "Rosamunde Wittgensteiner",
    "Ottokar M. W. Brahmsberg",
]
"""A table's longest names (a room's limit, wide letters, one without a space)."""
SEAT_COUNTS = range(MIN_PLAYERS, MAX_SEATS + 1)
"""Every table a room allows (4 again, with the longest names)."""


@pytest.fixture(scope="module")
def stored_games(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Server, int, dict[int, int]]]:
    """A server whose history holds the four bots' finished game (its id) and
    one game for each count of seats (their ids by count)."""
    assert len(LONG_NAMES) == MAX_SEATS and {len(name) for name in LONG_NAMES} == {MAX_PLAYER_NAME}
    data = tmp_path_factory.mktemp("replay-layout")
    # the four bots' game (key 0), and one for each count of seats
    records = {0: bot_game(NAMES)} | {n: bot_game(LONG_NAMES[:n]) for n in SEAT_COUNTS}
    by_seats = store_games(data, records)
    game_id = by_seats.pop(0)
    with serve_process(data) as live:
        yield live, game_id, by_seats


@pytest.fixture(scope="module")
def replay_server(stored_games: tuple[Server, int, dict[int, int]]) -> tuple[Server, int]:
    """The server and the four bots' game."""
    return stored_games[0], stored_games[1]


@contextlib.contextmanager
def page_at(
    browser: Any, server: Server, size: tuple[int, int], phone: bool, locale: str, shot: str
) -> Iterator[Any]:
    """A page of ``server`` at ``size`` (a phone's: touch, twice the pixels) in
    ``locale``; a screenshot ``test-artifacts/<shot>-WxH-<locale>.png`` when the
    test is done with it, and no script error on it."""
    pages = Pages(browser, server.url)
    kw: dict[str, Any] = {"viewport": {"width": size[0], "height": size[1]}, "locale": locale}
    if phone:
        kw.update(device_scale_factor=2, is_mobile=True, has_touch=True)
    page = pages.page(**kw)
    try:
        yield page
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{shot}-{size[0]}x{size[1]}-{locale}.png"))
    finally:
        for ctx in pages.contexts:
            ctx.close()
    assert not pages.unexpected_errors(), pages.unexpected_errors()


@pytest.mark.parametrize(("width", "height", "phone", "locale"), VIEWPORTS)
def test_the_replay_fits_the_screen(
    browser: Any,
    replay_server: tuple[Server, int],
    width: int,
    height: int,
    phone: bool,
    locale: str,
) -> None:
    server, game_id = replay_server
    with page_at(browser, server, (width, height), phone, locale, "replay") as page:
        open_page(page, f"/replay/{game_id}")
        page.locator("#table .pile").wait_for(state="attached")
        for _ in range(12):  # a few cards on the pile, one player on turn
            page.keyboard.press("ArrowRight")
        page.wait_for_function("() => !!document.querySelector('#table .pile .card.top')")
        page.wait_for_timeout(400)  # the last card comes to rest
        m = page.evaluate(MEASURE, IN_VIEW)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"replay-mid-{width}x{height}-{locale}.png"))
        for _ in range(200):  # on to the first race's end: who won, and the hands' times
            if page.locator("#replay-race .reactions li").count():
                break
            page.keyboard.press("ArrowRight")
        race = page.evaluate(RACE_MEASURE)
        at_race = page.evaluate(MEASURE, IN_VIEW)  # each seat with its time
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"replay-race-{width}x{height}-{locale}.png"))
        page.keyboard.press("End")  # the last race, three lines of words above its hands
        last = page.evaluate(RACE_MEASURE)
    vw, vh = m["vw"], m["vh"]
    assert m["scrollWidth"] <= vw, f"the page scrolls sideways: {m['scrollWidth']} > {vw}"
    for sel, (left, _top, right, _bottom) in m["head"].items():
        assert left >= 0 and right <= vw + 0.5, f"{sel} runs off the side: {left}..{right} of {vw}"
    assert not m["titleCut"] and not m["downloadCut"], m
    assert NAMES[-1] in m["metaText"]
    assert m["metaTitle"] == m["metaText"], "the game's line is whole in its title"
    if not phone or width < height:
        assert not m["metaCut"], "the game's line wraps whole"
    for sel, rect in m["inView"].items():
        assert rect is not None, f"{sel} is missing"
        left, top, right, bottom = rect
        assert left >= 0 and right <= vw + 0.5, f"{sel} off the side: {rect} in {vw}x{vh}"
        assert top >= 0 and bottom <= vh + 0.5, f"{sel} below the screen: {rect} in {vw}x{vh}"
    assert m["pileShown"]
    for at in (m, at_race):
        assert not at["overlaps"], f"one over another: {at['overlaps']}"
        assert not at["namesCut"], f"seat names cut: {at['namesCut']}"
    before = PILE_BEFORE[width, height]
    assert m["pileWidth"] >= before, f"the pile is {m['pileWidth']:.0f} px wide, was {before}"
    assert abs(m["pileOffCentre"]) <= 3, f"the pile is {m['pileOffCentre']:.0f} px off the middle"
    # the race's result is under the step's words, not in the felt's narrow
    # side column (where it wrapped a word a line and cut the names)
    assert race["inFelt"] == last["inFelt"] == 0
    assert race["hands"] and last["hands"][0][0].startswith(NAMES[-1]), last
    for text, cut, (left, top, right, _bottom) in race["hands"] + last["hands"]:
        assert not cut, f"{text!r} is cut"
        assert left >= 0 and right <= vw + 0.5 and top >= 0, (text, left, right, top)
    # in view at a race's step (a phone held sideways: the fastest; the rest
    # may be below, as the keys' hint is, and each seat's badge shows its time)
    in_view = race["hands"][:1] if phone and width > height else race["hands"]
    for text, _cut, (_left, _top, _right, bottom) in in_view:
        assert bottom <= vh + 0.5, f"{text!r} below the screen: {bottom} > {vh}"


RACE_MEASURE = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    inFelt: document.querySelectorAll('#table .race').length,
    hands: [...document.querySelectorAll('#replay-race .reactions li')].map(
      (li) => [li.textContent, li.scrollWidth > li.clientWidth + 1, box(li)]),
  };
}"""


@pytest.fixture(scope="module")
def replay_pages(browser: Any, stored_games: tuple[Server, int, dict[int, int]]) -> Iterator[Any]:
    """``get(width, height, phone, locale)``: one page at that size for every
    seat count's test (and its ``Pages``, which keeps its script errors)."""
    made: dict[tuple[int, int, bool, str], tuple[Pages, Any]] = {}

    def get(width: int, height: int, phone: bool, locale: str) -> tuple[Pages, Any]:
        key = (width, height, phone, locale)
        if key not in made:
            pages = Pages(browser, stored_games[0].url)
            # (no card in flight: the pile is measured where it rests)
            kw: dict[str, Any] = {
                "viewport": {"width": width, "height": height},
                "locale": locale,
                "reduced_motion": "reduce",
            }
            if phone:
                kw.update(device_scale_factor=2, is_mobile=True, has_touch=True)
            made[key] = pages, pages.page(**kw)
        return made[key]

    yield get
    for pages, _page in made.values():
        for ctx in pages.contexts:
            ctx.close()


STEP = """(most) => {
  for (let i = 0; i < most && !document.querySelector('#replay-race .reactions li'); i++) {
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
  }
}"""
"""Up to ``most`` steps on, in the page (one call, not a key press each), no
further than a race's end."""
PILE_FOUR = {
    (1366, 768): 295,
    (1280, 720): 244,
    (390, 844): 104,
    (360, 740): 83,
    (844, 390): 180,
    (740, 360): 149,
}
"""The pile's width (px) with four seats at each size (measured in Chromium):
no other count's is smaller, but for eight seats or more on a phone held
sideways (PILE_CROWDED): the head's and the foot's names on two lines, and
three or four seats a side, leave it 5/6 of that or more (127 of 149 px,
159 of 180)."""
PILE_CROWDED = {(844, 390): 155, (740, 360): 125}


@pytest.mark.parametrize("seats", SEAT_COUNTS)
@pytest.mark.parametrize(("width", "height", "phone", "locale"), VIEWPORTS)
def test_every_table_fits(
    replay_pages: Any,
    stored_games: tuple[Server, int, dict[int, int]],
    seats: int,
    width: int,
    height: int,
    phone: bool,
    locale: str,
) -> None:
    """Every count of seats a room allows, each with a name of the longest a
    room allows: each name whole and inside the felt, no seat on another, on
    the pile (its box: the fan's lower cards) or on its count, every seat on
    the screen, the pile in the felt's middle and as large as four seats'
    (the same size all through the game); on a laptop and a phone held
    sideways the table, the controls and the step's words on the screen as
    with four seats (on an upright phone the band of seats grows the felt
    downwards, and the controls may be below); a race's hands whole."""
    pages, page = replay_pages(width, height, phone, locale)
    open_page(page, f"/replay/{stored_games[2][seats]}")
    page.locator("#table .pile").wait_for(state="attached")
    page.evaluate(STEP, 12)  # a few cards on the pile, one player on turn
    page.wait_for_function("() => !!document.querySelector('#table .pile .card.top')")
    page.wait_for_timeout(100)  # the seats laid out (after a frame)
    m = page.evaluate(MEASURE, IN_VIEW)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"replay-seats{seats}-{width}x{height}-{locale}.png"))
    page.evaluate(STEP, 200)  # on to the first race's end: each seat with its time
    page.wait_for_timeout(100)
    at_race = page.evaluate(MEASURE, IN_VIEW)
    race = page.evaluate(RACE_MEASURE)
    errors = pages.unexpected_errors()
    pages.errors.clear()
    assert not errors, errors
    vw, vh = m["vw"], m["vh"]
    assert m["scrollWidth"] <= vw, f"the page scrolls sideways: {m['scrollWidth']} > {vw}"
    assert m["pileShown"]
    for at in (m, at_race):
        assert not at["namesCut"], f"seat names cut: {at['namesCut']}"
        assert not at["spilt"], f"out of their seat: {at['spilt']}"
        assert not at["clipped"], f"cut by the felt's edge: {at['clipped']}"
        assert not at["overlaps"], f"one over another: {at['overlaps']}"
        assert not at["overPile"], f"over the pile: {at['overPile']}"
        for left, top, right, bottom in at["seats"]:
            assert left >= 0 and right <= vw + 0.5, f"a seat off the side: {left}..{right} of {vw}"
            assert top >= 0 and bottom <= vh + 0.5, (
                f"a seat off the screen: {top}..{bottom} of {vh}"
            )
    if not phone or width > height:
        for sel, rect in m["inView"].items():
            assert rect is not None, f"{sel} is missing"
            left, top, right, bottom = rect
            assert left >= 0 and right <= vw + 0.5, f"{sel} off the side: {rect} in {vw}x{vh}"
            assert top >= 0 and bottom <= vh + 0.5, f"{sel} below the screen: {rect} in {vw}x{vh}"
    assert abs(m["pileOffCentre"]) <= 3, f"the pile is {m['pileOffCentre']:.0f} px off the middle"
    least = (
        PILE_CROWDED[width, height]
        if seats >= 8 and (width, height) in PILE_CROWDED
        else PILE_FOUR[width, height]
    )
    assert m["pileWidth"] >= least - 1, (
        f"the pile is {m['pileWidth']:.0f} px wide, four seats' {least}"
    )
    assert abs(at_race["pileWidth"] - m["pileWidth"]) < 0.5, "the pile changed its size"
    for text, cut, (left, _top, right, _bottom) in race["hands"]:
        assert not cut, f"{text!r} is cut"
        assert left >= 0 and right <= vw + 0.5, f"{text!r} off the side: {left}..{right} of {vw}"


HISTORY_MEASURE = """() => {
  const vw = document.documentElement.clientWidth;
  const row = document.querySelector('#games tr');
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    vw, scrollWidth: document.documentElement.scrollWidth,
    headShown: getComputedStyle(document.querySelector('.games thead')).position !== 'absolute',
    labels: [...row.querySelectorAll('td[data-label]')].map(
      (td) => [td.dataset.label, getComputedStyle(td, '::before').content]),
    buttons: [...row.querySelectorAll('a.btn')].map((a) => [a.textContent, box(a)]),
  };
}"""


@pytest.mark.parametrize(
    ("width", "height", "phone", "locale"),
    [
        pytest.param(1366, 768, False, "en-GB", id="laptop"),
        pytest.param(390, 844, True, "en-GB", id="phone-390x844"),
        pytest.param(360, 740, True, "de-DE", id="phone-360x740-de"),
    ],
)
def test_the_history_fits_the_screen(
    browser: Any,
    replay_server: tuple[Server, int],
    width: int,
    height: int,
    phone: bool,
    locale: str,
) -> None:
    server, _game_id = replay_server
    with page_at(browser, server, (width, height), phone, locale, "history") as page:
        open_page(page, "/history")
        page.locator("#games tr").first.wait_for()
        m = page.evaluate(HISTORY_MEASURE)
    vw = m["vw"]
    assert m["scrollWidth"] <= vw, f"the page scrolls sideways: {m['scrollWidth']} > {vw}"
    assert len(m["buttons"]) == 2, m["buttons"]  # the replay and the download
    for text, (left, _top, right, _bottom) in m["buttons"]:
        assert left >= 0 and right <= vw + 0.5, f"{text!r} off the side: {left}..{right} of {vw}"
    assert len(m["labels"]) == 5
    if phone:
        assert not m["headShown"]
        for label, before in m["labels"]:  # every value named in the card
            assert label and label in before, (label, before)
    else:
        assert m["headShown"]  # a table with its column heads
        assert all(before in ("none", "normal") for _label, before in m["labels"])
