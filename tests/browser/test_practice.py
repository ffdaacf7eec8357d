"""The practice game in a real Chromium against the real server: offered on a
first visit and from the lobby, played through by a person, each moment
explained once, never over the pile or the Slap button, and the last chance
explained on the person's own seat."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import Pages, Server, open_page, stacked_deck, table_state

pytestmark = pytest.mark.browser

# The practice rooms of these tests: the real deal, bots, referee and races,
# with the bots flipping 0.6 times a normal game's delays instead of 1.6 times,
# and a shorter countdown (the practice pace made a game take over two minutes).
# A race is no shorter (a flip waits for it to close), nor is the person's
# turn; the bots' reactions are their own. A Queen the next bot covers within
# the person's 200 ms (TEMPTED) is not slapped: the next Queen is.
QUICK_PRACTICE = {"bot_pace": 0.6, "start_delay_ms": 1000.0}

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

RECORD_MOMENTS = """
window.__moments = [];
new MutationObserver(() => {
  const c = document.getElementById('coach');
  const m = c && !c.hidden ? c.dataset.moment : null;
  const last = window.__moments[window.__moments.length - 1];
  const text = m ? c.querySelector('.coach-text').textContent : null;
  if (m && (!last || last.id !== m || last.text !== text)) {
    window.__moments.push({id: m, text});
  }
  const note = document.querySelector('#table .seat.me .lastchance-note');
  if (note && !window.__note && !window.__noteWaits) {
    const top = document.querySelector('#table .pile .card.top');
    const moving = top ? top.getAnimations().filter((a) => a.playState === 'running') : [];
    if (moving.length) {
      // a card flying in is not where it lands: look once it rests
      window.__noteWaits = true;
      Promise.allSettled(moving.map((a) => a.finished)).then(() => {
        window.__noteWaits = false;
        document.body.dataset.noteCheck = String(Date.now());  // a mutation: look again
      });
      return;
    }
    let centre = null;
    if (top) {
      const t = top.getBoundingClientRect();
      const el = document.elementFromPoint(t.left + t.width / 2, t.top + t.height / 2);
      centre = el && el.closest('.card.top') ? 'card' : el ? el.className || el.tagName : null;
    }
    const n = note.getBoundingClientRect(), vw = innerWidth, vh = innerHeight;
    window.__note = {
      text: note.textContent, seat_class: note.closest('.seat').className, centre,
      inside: n.left >= 0 && n.top >= 0 && n.right <= vw && n.bottom <= vh,
    };
  }
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
"""

# The person wakes up at their last chance, in the page: from the moment their
# stack is first empty, each Jack is slapped 250 ms after it shows (a quick
# person), so they come back and win (the deal is made for a player who wins
# every Jack). Done by the page's own timer, not by the test's round trips
# through Playwright, which on a loaded machine took longer than the beginner
# bots; and slapping every Jack from then on, not only while empty, ends the
# game whatever the bots did before.
QUICK_LAST_CHANCE = """() => {
  window.__lastChanceSlaps = 0;
  let done = null, dealt = false, awake = false;
  new MutationObserver(() => {
    const count = document.getElementById('my-count');
    const table = document.getElementById('table');
    const top = document.querySelector('#table .pile .card.top');
    const cards = count ? count.textContent.trim() : '';
    if (cards !== '' && cards !== '0') dealt = true;  // before the deal it says 0 too
    if (dealt && cards === '0') awake = true;
    if (!awake || !table || !top) return;
    const flip = table.dataset.flip;
    if (!(top.dataset.card || '').startsWith('J') || done === flip) return;
    done = flip;
    setTimeout(() => {
      document.getElementById('slap-btn').dispatchEvent(
        new PointerEvent('pointerdown', {bubbles: true, cancelable: true}));
      window.__lastChanceSlaps += 1;
    }, 250);
  }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""

# The person's two early mistakes, in the page (its timers, not Playwright's
# round trips, which on a loaded machine came after the next card): the first
# Jack slapped 1.2 s after it shows (too slow for the bots: they win the race),
# and the first Queen that is still on top 200 ms after it shows (a wrong
# slap). Each only on the card it was meant for: a slap that would land on a
# later card is not made (window.__tempted counts what was done).
TEMPTED = """() => {
  window.__tempted = {jack: 0, queen: 0};
  let jackDone = false, queenDone = false;
  const seen = new Set();
  new MutationObserver(() => {
    const table = document.getElementById('table');
    const top = document.querySelector('#table .pile .card.top');
    if (!table || !top) return;
    const card = top.dataset.card || '', flip = table.dataset.flip;
    const isJack = card.startsWith('J'), isQueen = card.startsWith('Q');
    if (!(isJack && !jackDone) && !(isQueen && !queenDone)) return;
    if (seen.has(flip)) return;
    seen.add(flip);
    if (isJack) jackDone = true;  // the first Jack only, slapped or not
    setTimeout(() => {
      const now = document.querySelector('#table .pile .card.top');
      if (!now || now.dataset.card !== card || table.dataset.flip !== flip) return;
      if (isQueen) queenDone = true;
      document.getElementById('slap-btn').dispatchEvent(
        new PointerEvent('pointerdown', {bubbles: true, cancelable: true}));
      window.__tempted[isJack ? 'jack' : 'queen'] += 1;
    }, isJack ? 1200 : 200);
  }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""

# The person's flips after their first: 250 ms after their turn comes (a
# person looks first), a click on what is at the middle of their stack, as a
# mouse's would be; by the page's timer (through Playwright each turn cost
# several round trips, most of a loaded machine's minute). A turn whose stack
# was covered is counted in window.__flipBlocked (then the game flips for them
# after 20 s).
PERSON_FLIPS = """() => {
  window.__flipBlocked = 0;
  const done = new Set();
  new MutationObserver(() => {
    const stack = document.getElementById('my-stack');
    const table = document.getElementById('table');
    if (!stack || !table || !stack.classList.contains('turn')) return;
    const flip = table.dataset.flip;
    if (done.has(flip)) return;
    done.add(flip);
    setTimeout(() => {
      if (!stack.classList.contains('turn') || table.dataset.flip !== flip) return;
      const r = stack.getBoundingClientRect();
      const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!el || !el.closest('#my-stack')) {
        window.__flipBlocked += 1;
        return;
      }
      el.click();
    }, 250);
  }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""

# No card on the table is still moving (flying in from a seat, sweeping to a winner).
SETTLED = """() => !document.querySelector('#table') ||
  [...document.querySelectorAll('#table .card')].every(
    (c) => c.getAnimations().every((a) => a.playState !== 'running'))"""

# The rectangles that matter, and whether the coach overlaps the pile's top card
# or the Slap button (or your stack), and what is at the top card's centre.
# Measured in the same task that finds no card moving (up to 2 s): a card that
# began its flight between a separate settle check and the measurement was
# measured mid-flight (left of the pile) and counted as the coach covering it.
GEOMETRY = """async () => {
  const moving = () => [...document.querySelectorAll('#table .card')].some(
    (c) => c.getAnimations().some((a) => a.playState === 'running'));
  const until = performance.now() + 2000;
  while (moving() && performance.now() < until) {
    await new Promise((done) => requestAnimationFrame(done));
  }
  const r = (el) => el ? el.getBoundingClientRect() : null;
  const coach = document.getElementById('coach');
  const shown = coach && !coach.hidden;
  const top = document.querySelector('#table .pile .card.top');
  const hits = (a, b) => !!(a && b && a.left < b.right && b.left < a.right
                                  && a.top < b.bottom && b.top < a.bottom);
  const c = shown ? r(coach) : null;
  const t = r(top);
  let centre = null;
  if (t) {
    const el = document.elementFromPoint(t.left + t.width / 2, t.top + t.height / 2);
    centre = el ? (el.closest('.card.top') ? 'card' : el.className || el.tagName) : null;
  }
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  return {
    shown,
    moment: shown ? coach.dataset.moment : null,
    overPile: hits(c, t),
    overSlap: hits(c, r(document.getElementById('slap-btn'))),
    overStack: hits(c, r(document.getElementById('my-stack'))),
    inside: !c || (c.left >= 0 && c.top >= 0 && c.right <= vw && c.bottom <= vh),
    centre,
    rects: JSON.stringify({coach: c, top: t}),
  };
}"""


@pytest.fixture
def quick_practice(server: Server) -> Iterator[None]:
    """Practice rooms made during the test get :data:`QUICK_PRACTICE`'s timers
    (the test hook ``POST /api/test/practice``); the real ones after it."""
    got = server.api("POST", "/api/test/practice", json={"timing": QUICK_PRACTICE})
    assert got["timing"]["bot_pace"] == QUICK_PRACTICE["bot_pace"]
    yield
    server.api("POST", "/api/test/practice", json={"timing": {}})


def click(page: Any, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def play_practice(page: Any, shot: Any, tag: str) -> dict[str, Any]:
    """Play the practice game as a newcomer: flip on your turn (the first by
    Playwright's mouse, the rest by :data:`PERSON_FLIPS`), slap the first
    Jack too late, fall for the Queen (:data:`TEMPTED`), then wait; from the
    moment your stack is empty, slap every Jack at once
    (:data:`QUICK_LAST_CHANCE`). Check the coach at every new moment."""
    seen: list[str] = []
    problems: list[str] = []
    handled: set[int] = set()
    note_shot = None
    page.evaluate(TEMPTED)
    page.evaluate(QUICK_LAST_CHANCE)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        geo = page.evaluate(GEOMETRY)
        if geo["shown"] and geo["moment"] not in seen:
            seen.append(geo["moment"])
            time.sleep(0.25)  # the bubble's fade-in, for an honest screenshot
            # a card still flying in from its seat is not where it lands: measure
            # where it rests
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_function(SETTLED, timeout=2000)
            geo = page.evaluate(GEOMETRY)
            for bad in ("overPile", "overSlap", "overStack"):
                if geo[bad]:
                    problems.append(f"{geo['moment']}: the coach is {bad} ({geo['rects']})")
            if not geo["inside"]:
                problems.append(f"{geo['moment']}: the coach is not inside the viewport")
            if geo["centre"] not in (None, "card"):
                problems.append(f"{geo['moment']}: {geo['centre']} covers the top card")
            shot(page, f"practice-{tag}-{len(seen):02d}-{geo['moment']}")
        st = table_state(page)
        if st["over"]:
            break
        if page.locator("#out").is_visible():
            slaps = page.evaluate("window.__lastChanceSlaps")
            raise AssertionError(
                f"the person is out ({slaps} last-chance slaps); moments so far: {seen}"
            )
        if note_shot is None and page.evaluate("!!window.__note"):
            note_shot = shot(page, f"practice-{tag}-last-chance-seat")
        if st["myTurn"] and not handled:  # the first turn: its moment is checked first
            handled.add(st["flip"])
            time.sleep(0.25)  # a person looks first
            click(page, "#my-stack")
            page.evaluate(PERSON_FLIPS)  # the page flips the person's next turns
        time.sleep(0.03)
    else:
        raise AssertionError(f"the practice game did not end; moments so far: {seen}")
    page.locator("#coach[data-moment='end']").wait_for(state="visible", timeout=5000)
    if "end" not in seen:
        seen.append("end")
    shot(page, f"practice-{tag}-end")
    moments = page.evaluate("window.__moments")
    note = page.evaluate("window.__note || null")
    tempted = page.evaluate("window.__tempted")
    return {
        "seen": seen,
        "problems": problems,
        "note": note,
        "moments": moments,
        "tempted": tempted,
        "flip_blocked": page.evaluate("window.__flipBlocked"),
    }


def check_run(run: dict[str, Any]) -> None:
    assert not run["problems"], run["problems"]
    assert run["tempted"]["queen"] == 1, run["tempted"]  # the wrong slap is the person's
    assert run["flip_blocked"] == 0, "something covered your stack on your turn"
    ids = [m["id"] for m in run["moments"]]
    assert len(ids) == len(set(ids)), f"a moment was explained twice: {ids}"
    assert "last_chance_you" in ids, f"the person's stack never ran empty: {ids}"
    expected = ["your_turn", "first_flip", "jack", "race", "queen", "wrong_slap"]
    assert ids[: len(expected)] == expected, ids
    assert "last_chance_you" in ids and ids[-1] == "end", ids
    texts = {m["id"]: m["text"] for m in run["moments"]}
    assert "Jack" in texts["jack"] and "Slap" in texts["jack"]
    assert "Queen" in texts["queen"] and "Don't slap" in texts["queen"]
    assert "Wrong slap" in texts["wrong_slap"]
    assert "last chance" in texts["last_chance_you"]
    note = run["note"]
    assert note is not None, "the last chance was never explained on the seat"
    assert "Last chance" in note["text"] and "last-chance" in note["seat_class"]
    assert note["centre"] in (None, "card") and note["inside"], note


def test_a_first_visit_offers_the_practice_game_and_it_teaches(
    server: Server, quick_practice: None, pages: Pages, shot: Any
) -> None:
    ctx = pages.context(viewport=LAPTOP)
    ctx.add_init_script(RECORD_MOMENTS)
    page = pages.page(ctx)
    open_page(page, "/")
    offer = page.locator("#practice-offer")
    offer.wait_for(state="visible")
    assert "practice" in offer.inner_text().lower()
    shot(page, "practice-laptop-lobby-offer")
    page.locator("#name").fill("Newcomer")
    page.locator("#practice-offer-go").click()
    page.wait_for_url("**/r/*?practice=1")
    page.locator("#game").wait_for(state="visible")
    page.locator("body.practising").wait_for(state="attached")
    assert page.locator(".invite").is_hidden()  # nobody to invite to a practice game
    run = play_practice(page, shot, "laptop")
    check_run(run)
    assert page.locator("#end").is_visible()
    # offered once: the next visit has the lobby's button, not the offer
    open_page(page, "/")
    page.locator("#practice-btn").wait_for(state="visible")
    assert page.locator("#practice-offer").count() == 0


def test_the_practice_game_from_the_lobby_button_on_a_phone(
    server: Server, quick_practice: None, pages: Pages, shot: Any
) -> None:
    ctx = pages.context(viewport=PHONE, has_touch=True, locale="de-DE")
    ctx.add_init_script(RECORD_MOMENTS)
    ctx.add_init_script("localStorage.setItem('slapjack.lang', 'en')")
    page = pages.page(ctx)
    open_page(page, "/")
    page.locator("#practice-offer-no").click()  # not now...
    assert page.locator("#practice-offer").count() == 0
    page.locator("#practice-btn").click()  # ...but from the lobby's button
    page.wait_for_url("**/r/*?practice=1")
    run = play_practice(page, shot, "phone")
    check_run(run)


def test_the_last_chance_note_outside_practice_and_in_german(
    server: Server, pages: Pages, shot: Any
) -> None:
    """Not a practice game: no coach, but your seat says "last chance" while your
    stack is empty. Lena never slaps, so the pro bot takes every Jack and her
    stack runs empty."""
    order = stacked_deck(["5C", "JS", "8D", "JH", "9C", "JD", "10C", "JC"])
    code = server.hook_room(
        {"seats": 2, "bots": {"1": "pro"}, "turn_seconds": 0.5, "public": False},
        deck=order,
        timing={"bot_pace": 0.3},
    )
    ctx = pages.context(viewport=LAPTOP, locale="de-DE")
    ctx.add_init_script("localStorage.setItem('slapjack.lang', 'de')")
    page = pages.page(ctx)
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill("Lena")
    page.locator("#join-btn").click()
    note = page.locator("#table .seat.me .lastchance-note")
    note.wait_for(state="visible", timeout=90_000)
    assert "Letzte Chance" in note.inner_text()
    assert page.locator("#coach").count() == 0  # explanations belong to practice games
    shot(page, "practice-last-chance-outside-de")


NOTE_PLACE = """() => {
  // Measured in the same task that finds no card moving and the note shown
  // (null otherwise: polled again): the note lasts only until the next Jack.
  if (document.getAnimations().some((a) => a.playState === 'running')) return null;
  const r = (el) => el.getBoundingClientRect();
  const seat = document.querySelector('#table .seat.me');
  const note = seat && seat.querySelector('.lastchance-note');
  if (!note || note.getClientRects().length === 0) return null;
  const felt = document.querySelector('#table.felt, #table .felt');
  const top = document.querySelector('#table .pile .card.top');
  const [s, n, f, name] = [r(seat), r(note), r(felt), r(seat.querySelector('.seat-name'))];
  const t = top ? r(top) : null;
  return {
    text: note.textContent,
    in_felt: n.left >= f.left && n.right <= f.right && n.top >= f.top && n.bottom <= f.bottom,
    name_in_seat: name.top >= s.top && name.bottom <= s.bottom,
    over_seat: n.bottom > s.top && n.top < s.bottom,
    over_top_card: !!t && n.bottom > t.top && n.top < t.bottom && n.right > t.left && n.left < t.right,
  };
}"""


@pytest.mark.parametrize(
    ("lang", "size"), [("en", (1366, 768)), ("de", (1280, 800))], ids=["en-1366", "de-1280"]
)
def test_the_last_chance_note_is_whole_and_leaves_the_seat_readable(
    server: Server, pages: Pages, shot: Any, lang: str, size: tuple[int, int]
) -> None:
    """On a laptop the note sat inside your seat: the seat's name was pushed out
    at its top and the note's second line was cut off by the felt's edge. It
    hangs above the seat now, whole, over neither the seat nor the top card."""
    order = stacked_deck(["5C", "JS", "8D", "JH", "9C", "JD", "10C", "JC"])
    code = server.hook_room(
        {"seats": 2, "bots": {"1": "pro"}, "turn_seconds": 0.5, "public": False},
        deck=order,
        timing={"bot_pace": 0.3},
    )
    ctx = pages.screen(*size, locale="de-DE" if lang == "de" else "en-GB")
    ctx.add_init_script(f"localStorage.setItem('slapjack.lang', '{lang}')")
    page = pages.page(ctx)
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill("Lena")
    page.locator("#join-btn").click()
    page.locator("#table .seat.me .lastchance-note").wait_for(state="visible", timeout=90_000)
    # Where it rests, with no card flying: measured in one task, as the note
    # can be gone a moment later (a separate wait for the cards to settle, then
    # a measurement, found no note once under load).
    place = page.wait_for_function(NOTE_PLACE, timeout=20_000).json_value()
    shot(page, f"last-chance-note-{lang}-{size[0]}")
    assert ("Letzte Chance" if lang == "de" else "Last chance") in place["text"]
    assert place["in_felt"], place
    assert place["name_in_seat"], place
    assert not place["over_seat"], place
    assert not place["over_top_card"], place
    assert page.locator("#stack-note").is_hidden()  # said once: on the seat, not again by the stack


# Whenever the page shows "last chance" under your stack: its text, and whether
# it lies whole inside the stack's button and the screen.
RECORD_STACK_NOTE = """
new MutationObserver(() => {
  const note = document.getElementById('stack-note');
  if (!note || window.__stackNote || !note.textContent) return;
  const r = note.getBoundingClientRect();
  if (!r.width) return;
  const b = document.getElementById('my-stack').getBoundingClientRect();
  window.__stackNote = {
    text: note.textContent,
    inside: r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom
      && r.bottom <= innerHeight,
  };
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""


def test_the_last_chance_is_said_under_your_stack_on_a_phone(
    server: Server, pages: Pages, shot: Any
) -> None:
    """An upright phone does not show your own seat on the felt, so the note on
    it was never seen there: a player with an empty stack read only "0 cards"
    and did not know a Jack could bring them back. It is said under the stack."""
    order = stacked_deck(["5C", "JS", "8D", "JH", "9C", "JD", "10C", "JC"])
    code = server.hook_room(
        {"seats": 2, "bots": {"1": "pro"}, "turn_seconds": 0.5, "public": False},
        deck=order,
        timing={"bot_pace": 0.3},
    )
    ctx = pages.screen(390, 844)
    ctx.add_init_script(RECORD_STACK_NOTE)
    page = pages.page(ctx)
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill("Lena")
    page.locator("#join-btn").click()
    page.locator("#table .seat.me .lastchance-note").wait_for(state="attached", timeout=90_000)
    page.wait_for_function("() => !!window.__stackNote", timeout=5000)
    note = page.evaluate("window.__stackNote")
    shot(page, "last-chance-phone-stack")
    assert "Last chance" in note["text"], note
    assert note["inside"], note
    assert page.locator("#table .seat.me").is_hidden()  # the felt shows no seat of yours
