"""Irish Snap as a player reads it: a wrong slap (its penalty: the slapper
picks up the pile) is one line in the room's log, in the replay's step and in
party mode, not two ("Ida slapped the wrong card." over "Ida slapped wrongly
and picks up 1 card."); the end screen's seven columns keep a bot's name on
one line at a laptop's size ("Casual bot / 2"), and on a phone the table stays
on the screen."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import FULL_DECK, RANKS, Pages, Server, open_page, table_state, wait_for
from .test_game_feel import flip_until, join

pytestmark = pytest.mark.browser

LAPTOP = (1366, 768)
PHONE = (390, 844)

# What the page says aloud: every text its live regions are given, in order.
SPOKEN = """
  window.__spoken = [];
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement;
      const region = el && el.closest('#alert, #live');
      if (region && region.textContent) window.__spoken.push(region.textContent);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
"""


def irish_deck() -> list[str]:
    """No card matches its call (flip k calls RANKS[k % 13]) but the second
    (seat 1 turns up the 2 while "2" is called); after a pick-up, which starts
    the calls again from the Ace, none at all."""
    order = [RANKS[(k + 1) % 13] for k in range(52)]
    order[0], order[1] = order[1], order[0]
    pool = {r: [c for c in FULL_DECK if c[:-1] == r] for r in RANKS}
    return [pool[r].pop() for r in order]


def irish_room(server: Server, level: str, **timing: float) -> str:
    return server.hook_room(
        {
            "seats": 3,
            "game": "irish-snap",
            "rules": {"preset": "irish-snap"},
            "bots": {"1": level, "2": level},
            "public": False,
        },
        deck=irish_deck(),
        timing={"bot_pace": 0.1, "turn_ms": 400.0, "irish_timeout_ms": 4000.0, **timing},
    )


def log_lines(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#log li").all_text_contents()]


def test_a_wrong_slap_reads_once_in_the_log_and_the_replay(
    server: Server, pages: Pages, shot: Any
) -> None:
    """Ida lets the match (the second card) go and picks it up; on her next
    turn she slaps the card on the pile (no match): the log says so in one
    line, who slapped wrongly and how many cards she took, marked as a wrong
    slap; the race result says the same; the page says it aloud once. The
    replay's step shows the one line too."""
    # (Ida's turns wait for her: the card she slaps stays on the pile; the
    # bots slap every match and nothing else)
    code = irish_room(server, "perfect", turn_ms=8000.0, irish_timeout_ms=1500.0)
    ctx = pages.context(viewport={"width": LAPTOP[0], "height": LAPTOP[1]})
    ctx.add_init_script(SPOKEN)
    page = pages.page(ctx)
    join(page, code, "Ida")
    wait_for(lambda: table_state(page)["myTurn"], timeout=15)
    page.keyboard.press("Space")
    wait_for(lambda: any(line.startswith("Ida was last") for line in log_lines(page)), timeout=15)
    wait_for(
        lambda: table_state(page)["myTurn"] and table_state(page)["top"] is not None, timeout=15
    )
    page.keyboard.press("j")
    wait_for(lambda: any("Ida slapped wrongly" in line for line in log_lines(page)), timeout=10)
    page.wait_for_timeout(1000)  # the log's next lines (written at most every 800 ms)
    lines = log_lines(page)
    shot(page, "irish-wrong-slap-log-1366x768")
    said = "Ida slapped wrongly and picks up 2 cards."
    assert [line for line in lines if line.startswith("Ida slapped")] == [said], lines
    line = page.locator("#log li", has_text="Ida slapped wrongly")
    assert "ev-wrong_slap" in (line.get_attribute("class") or "")
    # The race's result says it too (picked_up closes a race).
    assert page.locator("#race-slot .race-title").inner_text() == said
    spoken = [s for s in page.evaluate("window.__spoken") if s.startswith("Ida slapped")]
    assert spoken == [said], spoken

    # Played to its end (no card matches its call any more); the replay's
    # step of the slap says it once.
    flip_until(page, lambda: bool(table_state(page)["endShown"]), timeout=60)
    link = page.locator("#replay-link")
    link.wait_for()
    open_page(page, link.get_attribute("href") or "")
    page.locator("#table .pile").wait_for(state="attached")
    step = page.evaluate(
        """() => {
          const scrub = document.getElementById('scrub');
          for (let i = 0; i <= Number(scrub.max); i++) {
            scrub.value = String(i);
            scrub.dispatchEvent(new Event('input'));
            const lines = [...document.querySelectorAll('#step-events li')].map((li) => li.textContent);
            if (lines.some((l) => l.startsWith('Ida slapped'))) return lines;
          }
          return null;
        }"""
    )
    shot(page, "irish-wrong-slap-replay-1366x768")
    assert step is not None
    assert [s for s in step if s.startswith("Ida slapped")] == [said], step


def test_a_wrong_slap_reads_once_in_party_mode(server: Server, pages: Pages) -> None:
    """Party mode shows the last event's line under the table and says each
    aloud: a wrong slap is said once, with the cards picked up, and shown once
    (in the race slot: the line under the table does not repeat it)."""
    ctx = pages.context(viewport={"width": LAPTOP[0], "height": LAPTOP[1]})
    ctx.add_init_script(SPOKEN)
    page = pages.page(ctx)
    open_page(page, "/party")
    page.locator("#count").select_option("2")
    for i, name in enumerate(["Ida", "Ben"]):
        page.locator("#players .party-player").nth(i).locator("input.name").fill(name)
    page.locator("#preset").select_option("irish-snap")
    page.locator("#bots").select_option("0")
    page.locator("#tempo").fill("1.5")
    page.locator("#start").click()
    page.locator("#table .seat").nth(1).wait_for()

    def hint() -> str:
        return page.locator("#party-hint").inner_text()

    def race() -> str:
        return page.locator("#party-race .race-title").inner_text()

    # Ida's key on a card that does not match its call (a match would be a
    # good slap: then the next card).
    for _ in range(6):
        wait_for(
            lambda: page.evaluate(
                """() => !!document.querySelector('#table .pile .card.top') &&
                         !!document.querySelector('#table .call.now:not(.match)')"""
            ),
            timeout=15,
        )
        page.keyboard.press("a")
        try:
            wait_for(lambda: "Ida slapped wrongly" in page.inner_text("#party-race"), timeout=2)
            break
        except AssertionError:
            continue
    assert race().startswith("Ida slapped wrongly and picks up"), race()
    assert "Ida slapped" not in hint(), hint()
    page.wait_for_timeout(300)  # said after the frame
    spoken = [s for s in page.evaluate("window.__spoken") if s.startswith("Ida slapped")]
    assert len(spoken) == 1 and spoken[0].startswith("Ida slapped wrongly and picks up"), spoken
    page.locator("#party-exit").click()


# Each name cell of the end screen's table: its text, its lines, whether it is cut.
NAME_CELLS = """() => [...document.querySelectorAll('#ranking tr th')].map((th) => {
  const node = th.firstChild;
  const range = document.createRange();
  range.selectNodeContents(node);
  const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
  return { text: node.textContent, lines: lines.size, cut: th.scrollWidth > th.clientWidth + 1 };
})"""

# Wider than the screen: the end panel, the page; the panel scrolls sideways.
OVERFLOW = """() => {
  const end = document.querySelector('#end .end'), r = end.getBoundingClientRect();
  const vw = document.documentElement.clientWidth;
  return { panel: r.left < -0.5 || r.right > vw + 0.5, page: document.documentElement.scrollWidth > vw,
           scrolls: end.scrollWidth > end.clientWidth + 1 };
}"""


def end_screen(
    server: Server, pages: Pages, shot: Any, size: tuple[int, int], locale: str, name: str
) -> Any:
    """An Irish Snap game with two casual bots, played to its end screen."""
    code = irish_room(server, "casual")
    page = pages.page(pages.screen(*size, locale=locale))
    join(page, code, name)
    flip_until(page, lambda: bool(table_state(page)["endShown"]), timeout=60)
    page.wait_for_timeout(300)
    shot(page, f"irish-end-names-{locale}-{len(name)}-{size[0]}x{size[1]}")
    return page


@pytest.mark.parametrize(
    ("locale", "name"),
    [("en-GB", "Ida"), ("de-DE", "Ida"), ("de-DE", "Bartholomäus Wolkenstein")],
    ids=["en", "de", "de-24"],
)
def test_the_end_screen_keeps_each_name_on_one_line(
    server: Server, pages: Pages, shot: Any, locale: str, name: str
) -> None:
    """Irish Snap's end screen (seven columns) at a laptop's size: each name
    on one line ("Casual bot 2" took two, "Bot 2 (gemütlich)" too), a name
    as long as the field takes (24 letters) as well, and the table fits its
    panel (no sideways scroll)."""
    page = end_screen(server, pages, shot, LAPTOP, locale, name)
    cells = page.evaluate(NAME_CELLS)
    assert len(cells) == 3, cells
    assert all(c["lines"] == 1 and not c["cut"] for c in cells), cells
    overflow = page.evaluate(OVERFLOW)
    assert not any(overflow.values()), overflow


@pytest.mark.parametrize(
    ("locale", "name"),
    [("en-GB", "Christopher Ab"), ("de-DE", "Bartholomäus Wolkenstein")],
    ids=["en", "de-24"],
)
def test_the_end_screen_stays_on_a_phones_screen(
    server: Server, pages: Pages, shot: Any, locale: str, name: str
) -> None:
    """On a phone (390x844) the names may take two lines, but the table and
    its panel stay on the screen: nothing wider than it, no sideways scroll."""
    page = end_screen(server, pages, shot, PHONE, locale, name)
    assert len(page.evaluate(NAME_CELLS)) == 3
    overflow = page.evaluate(OVERFLOW)
    assert not any(overflow.values()), overflow
