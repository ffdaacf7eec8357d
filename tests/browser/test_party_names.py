"""Party mode: the seats' names show whole, on a phone held sideways (844x390)
the bots' usual names in English and German included, and at every size a
party is played at with the longest names it can have; names saved from an
earlier party that nobody typed follow the page's language."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Pages, Server, open_page, table_state, wait_for

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


def test_a_long_name_reads_whole_in_a_narrow_seat(server: Server, pages: Pages, shot: Any) -> None:
    long_name = "Maximiliana Wolkenstein"  # 23 characters: the name field allows 24
    page = start_party(pages, [long_name, "Ida"], 2, "beginner")
    shot(page, "party-names-long")
    seats = {s["text"]: s for s in page.evaluate(NAMES)}
    assert not seats["Ida"]["cut"]
    assert not seats["Beginner bot 3"]["cut"]
    long_seat = seats[long_name]
    # Whole (once it was cut with an ellipsis after two lines): the seat grows
    # higher for it, not wider.
    assert not long_seat["cut"] and not long_seat["ellipsis"], long_seat
    width = long_seat["box"][2] - long_seat["box"][0]
    assert width <= 152, long_seat


# A party's table at every size the players use, each seat's name whole: the
# widest bot names of each language and long typed names, as long as the name
# field takes (checked in the page: its maxlength, the server's
# MAX_PLAYER_NAME), with and without spaces.
LONG_NAMES = [
    "Bartholomäus Wolkenstein",
    "Anna-Katharina Schreiber",
    "SchnellsteHandDesWestens",
    "Maximiliana Oberhollenz",
]
# The level whose bots have the widest name: "Beginner bot 4", "Bot 4 (ebenbürtig)".
WIDEST_BOTS = {"en-GB": "beginner", "de-DE": "matched"}
# (players, bots): the party of the report (a bot in the middle of the top
# edge, between two players' seats on a phone held upright), bots at both ends,
# and four players with a bot (the top edge full).
TABLES = [(3, 1), (2, 2), (4, 1)]
SCREENS = [(360, 740), (390, 844), (740, 360), (844, 390), (1366, 768)]

# Each seat's name: its text, whether it is cut (wider or taller than the box
# that shows it), its lines, whether something else is on top of any line's
# ends (another seat, a corner, or the felt's rounded rim clipping it); the
# boxes of the seat, the felt, the pile, the pile's count and the controls.
SEAT_NAMES = """() => {
  // Every card where it comes to rest (one flying in from the seat that
  // turned it passes over that seat).
  for (const a of document.getAnimations()) {
    if (Number.isFinite(a.effect.getComputedTiming().endTime)) a.finish();
  }
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const lineBoxes = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return [...range.getClientRects()].filter((r) => r.width > 0);
  };
  const seats = [...document.querySelectorAll('#table .seat')].map((seat) => {
    const who = seat.querySelector('.who');
    const lines = lineBoxes(who);
    const hidden = [];
    for (const r of lines) {
      for (const x of [r.left + 1, r.right - 1]) {
        const at = document.elementFromPoint(x, r.top + r.height / 2);
        if (!at || !seat.contains(at)) hidden.push([x, at ? at.outerHTML.slice(0, 80) : null]);
      }
    }
    return {
      text: who.textContent,
      cut: who.scrollWidth > who.clientWidth + 0.5 || who.scrollHeight > who.clientHeight + 0.5,
      lines: new Set(lines.map((r) => Math.round(r.top))).size,
      hidden,
      name: box(who),
      box: box(seat),
    };
  });
  const info = document.querySelector('#table .pile-info');
  // The players' names in their touch corners, whole as well.
  const corners = [...document.querySelectorAll('#zones .zone')].map((zone) => {
    const name = zone.querySelector('.zone-name');
    const r = name.getBoundingClientRect(), z = zone.getBoundingClientRect();
    return {
      text: name.textContent,
      cut: name.scrollWidth > name.clientWidth + 0.5 || r.left < z.left - 0.5 || r.right > z.right + 0.5 ||
        r.bottom > z.bottom + 0.5,
    };
  });
  return {
    seats,
    corners,
    felt: box(document.getElementById('table')),
    pile: box(document.querySelector('#table .pile')),
    count: lineBoxes(info).map((r) => [r.left, r.top, r.right, r.bottom]),
    controls: Object.fromEntries(
      [...document.querySelectorAll('#zones .zone, #party-exit, #party-hint, #party-race')].map(
        (el, i) => [el.id || `zone${i}`, box(el)],
      ),
    ),
  };
}"""


def inside(a: list[float], b: list[float]) -> bool:
    return a[0] >= b[0] - 0.5 and a[1] >= b[1] - 0.5 and a[2] <= b[2] + 0.5 and a[3] <= b[3] + 0.5


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_every_seat_shows_its_whole_name(
    server: Server, pages: Pages, shot: Any, locale: str, width: int, height: int
) -> None:
    """Every seat's name reads whole, on one line or wrapped, the seat as
    large as it needs, with the longest names a party can have; no seat
    covers the pile, its count, another seat or the controls, and none is cut
    by the felt's rim. (On a phone held upright in German the bot at the top
    edge read "Bot 4 (gem…"; a long typed name was cut everywhere.)"""
    ctx = pages.screen(width, height, locale=locale)
    page = pages.page(ctx)
    open_page(page, "/party")
    limit = int(
        page.locator("#players .party-player input.name").first.get_attribute("maxlength") or 0
    )
    assert limit == 24 and all(len(n) <= limit for n in LONG_NAMES)
    assert max(len(n) for n in LONG_NAMES) == limit
    for players, bots in TABLES:
        names = LONG_NAMES[:players]
        page.locator("#count").select_option(str(players))
        for i, name in enumerate(names):
            page.locator("#players .party-player").nth(i).locator("input.name").fill(name)
        page.locator("#bots").select_option(str(bots))
        page.locator("#bot-level").select_option(WIDEST_BOTS[locale])
        page.locator("#tempo").fill("3")
        page.locator("#start").click()
        page.locator("#table .seat").nth(players + bots - 1).wait_for()
        wait_for(lambda players=players: page.locator("#table .seat.me").count() == players)
        page.wait_for_timeout(400)  # the seats' sizes settle (fonts, resize observer)
        pictured = players == 3 and width in (360, 1366)
        if pictured:  # a picture during the game: a card on the pile
            wait_for(lambda: (table_state(page)["flip"] or 0) >= 1, timeout=20)
        found = page.evaluate(SEAT_NAMES)
        seats = found["seats"]
        label = f"{width}x{height} {locale} {players}p{bots}b"
        if pictured:
            shot(page, f"party-seat-names-{width}x{height}-{locale}")
        assert [s["text"] for s in seats][:players] == names, label
        assert len(seats) == players + bots, label
        for s in seats:
            assert not s["cut"], (label, s)
            assert not s["hidden"], (label, s)
            assert inside(s["name"], s["box"]), (label, s)
            assert inside(s["box"], found["felt"]), (label, s, found["felt"])
            assert not overlap(s["box"], found["pile"]), (label, s, found["pile"])
            for line in found["count"]:
                assert not overlap(s["box"], line), (label, s, found["count"])
            for name, control in found["controls"].items():
                assert not overlap(s["box"], control), (label, s, name, control)
        for i, a in enumerate(seats):
            for b in seats[i + 1 :]:
                assert not overlap(a["box"], b["box"]), (label, a, b)
        assert [c["text"] for c in found["corners"]] == names, label
        for corner in found["corners"]:
            assert not corner["cut"], (label, corner)
        page.locator("#party-exit").click()
        page.locator("#party-exit").click()
        page.locator("#setup").wait_for(state="visible")
        page.locator("body[data-ready='1']").wait_for(state="attached")


def saved_names(page: Any) -> list[str]:
    return [
        page.locator("#players .party-player input.name").nth(i).input_value()
        for i in range(page.locator("#players .party-player").count())
    ]


def test_saved_default_names_follow_the_language(server: Server, pages: Pages) -> None:
    """Names this browser kept from an earlier party in English ("Player 1")
    that are just a slot's default name in some language were never typed:
    in German they read "Person 1", and back in English "Player 1" again. A
    name someone typed stays, even one that looks like another slot's default."""
    page = pages.page(pages.context(locale="de-DE"))
    open_page(page, "/party")
    earlier = {
        "players": [
            {"name": "Player 1", "key": "a"},
            {"name": "Ida", "key": "l"},
            {"name": "Player 3", "key": "v"},
            {"name": "Player 2", "key": "p"},
        ],
        "preset": "classic",
        "bots": 1,
        "level": "casual",
        "tempo": 0.8,
    }
    page.evaluate("(s) => localStorage.setItem('slapjack.party', JSON.stringify(s))", earlier)
    page.reload()
    page.locator("body[data-ready='1']").wait_for(state="attached")
    assert page.locator("html").get_attribute("lang") == "de"
    assert saved_names(page) == ["Person 1", "Ida", "Person 3", "Player 2"]
    # They play under the German names, which are kept for the next party.
    page.locator("#start").click()
    page.locator("#table .seat").nth(4).wait_for()
    german = ["Person 1", "Ida", "Person 3", "Player 2"]
    assert page.locator("#table .seat .who").all_inner_texts()[:4] == german
    kept = page.evaluate("JSON.parse(localStorage.getItem('slapjack.party')).players")
    assert [p["name"] for p in kept] == german
    page.locator("#party-exit").click()
    page.locator("#party-exit").click()
    page.locator("#setup").wait_for(state="visible")
    page.locator("body[data-ready='1']").wait_for(state="attached")
    # A German default saved is untyped in English as well.
    page.locator("#lang-switch").select_option("en")
    wait_for(lambda: saved_names(page) == ["Player 1", "Ida", "Player 3", "Player 2"])
    page.evaluate(
        "(s) => localStorage.setItem('slapjack.party', JSON.stringify(s))",
        {
            **earlier,
            "players": [{"name": "Person 1", "key": "a"}, {"name": "Person 1", "key": "l"}],
        },
    )
    page.reload()
    page.locator("body[data-ready='1']").wait_for(state="attached")
    assert page.locator("html").get_attribute("lang") == "en"
    # (slot 2's "Person 1" is not its default: typed)
    assert saved_names(page) == ["Player 1", "Person 1"]
