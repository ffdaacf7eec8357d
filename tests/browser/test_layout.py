"""One screen, nothing moves, nothing covers the pile: a whole game's worth of
updates at every screen size the issue names, checked after every update.

A page script (injected before the page's own) checks, after each update the
room page has drawn (its ``sj:rendered`` event): the page does not scroll;
Flip, Slap and the race result are inside the viewport and never move by more
than 2 px; and once the top card has landed, ``elementFromPoint`` at its centre
and near its four corners is the card (no seat box, badge, pill or result on
it), the top card rests inside the pile's box and on the card under it, and
the pile's count text is not covered. In Irish Snap the called rank is
visible too. A screenshot per viewport goes to test-artifacts/layout-*.png,
with every animation run to its end (those started later too): the bots flip every ~100-200 ms, and a
screenshot at any moment mostly catches a card in its 140 ms flight from the
seat that turned it, which looks like a card resting beside the pile or over
its count (what the screenshots of 1 Dec showed at 1366x768 and 390x844).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import (
    ARTIFACTS,
    Pages,
    Server,
    open_page,
    slap_jacks_in_page,
    stacked_deck,
    table_state,
    wait_for,
)

pytestmark = pytest.mark.browser

# (name, width, height, phone: touch input)
VIEWPORTS = [
    ("1280x720", 1280, 720, False),
    ("1280x800", 1280, 800, False),
    ("1366x768", 1366, 768, False),
    ("1440x900", 1440, 900, False),
    ("1920x1080", 1920, 1080, False),
    ("2560x1440", 2560, 1440, False),
    ("390x844", 390, 844, True),
    ("360x740", 360, 740, True),
    ("844x390", 844, 390, True),
    ("768x1024", 768, 1024, True),
]
# The laptop and phone sizes play a full 30 flips in every mode; the others
# fewer in Irish Snap and party mode (the same code, checked just as often per update).
FULL = {"1280x720", "1366x768", "390x844", "844x390"}

# Jacks at the 2nd and 7th flip (a race result early), the rest of the deck as dealt.
DECK = stacked_deck(["5C", "JS", "KD", "3H", "4H", "8C", "JH", "9D", "2S", "QC", "6D", "JD"])
FAST = {"bot_pace": 0.08, "turn_ms": 400.0}

CHECKER = r"""
(() => {
  const S = (window.__sj = { updates: 0, covers: 0, counts: 0, problems: [], base: {}, called: 0 });
  const vw = () => document.documentElement.clientWidth;
  const vh = () => document.documentElement.clientHeight;
  const bad = (what) => { if (S.problems.length < 40) S.problems.push(what); };
  const inside = (name, el) => {
    if (!el || el.hidden || !el.getClientRects().length) return null;
    const r = el.getBoundingClientRect();
    if (r.left < -0.5 || r.top < -0.5 || r.right > vw() + 0.5 || r.bottom > vh() + 0.5) {
      bad(`${name} outside the viewport: ${JSON.stringify([r.left, r.top, r.right, r.bottom])} in ${vw()}x${vh()}`);
    }
    return r;
  };
  const still = (name, r) => {
    if (!r) return;
    const b = S.base[name];
    if (!b) { S.base[name] = r; return; }
    const d = Math.max(Math.abs(r.left - b.left), Math.abs(r.top - b.top),
                       Math.abs(r.width - b.width), Math.abs(r.height - b.height));
    if (d > 2) bad(`${name} moved by ${d.toFixed(1)} px`);
  };
  const hits = (el, x, y) => {
    const at = document.elementFromPoint(x, y);
    return !!at && (at === el || el.contains(at));
  };
  function coverCheck(top) {
    const r = top.getBoundingClientRect();
    const pts = [[0.5, 0.5], [0.14, 0.12], [0.86, 0.12], [0.14, 0.88], [0.86, 0.88]];
    for (const [fx, fy] of pts) {
      const x = r.left + fx * r.width, y = r.top + fy * r.height;
      if (!hits(top, x, y)) {
        const at = document.elementFromPoint(x, y);
        bad(`top card covered at (${fx},${fy}) by ${at ? at.outerHTML.slice(0, 120) : "nothing"}`);
      }
    }
    // It rests on the pile: inside the pile's box, and on the fan of the cards
    // under it (mostly over the card it covers), not beside them.
    const pile = top.closest(".pile");
    const p = pile.getBoundingClientRect();
    if (r.left < p.left - 1 || r.right > p.right + 1 || r.top < p.top - 1 || r.bottom > p.bottom + 1) {
      bad(`top card rests outside the pile: ${JSON.stringify([r.left, r.top, r.right, r.bottom].map(Math.round))} ` +
          `in ${JSON.stringify([p.left, p.top, p.right, p.bottom].map(Math.round))}`);
    }
    const below = [...pile.querySelectorAll(".card.under")].pop();
    if (below) {
      const b = below.getBoundingClientRect();
      const ox = Math.min(r.right, b.right) - Math.max(r.left, b.left);
      const oy = Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top);
      if (ox <= 0 || oy <= 0 || ox * oy < 0.5 * b.width * b.height) bad("the top card rests beside the fan, not on it");
    }
    // Overlays that let taps through (the phone's result strip) must not lie on it either.
    const slot = document.getElementById("result-slot");
    if (slot && !slot.hidden && slot.getClientRects().length) {
      const s = slot.getBoundingClientRect();
      if (s.left < r.right && s.right > r.left && s.top < r.bottom && s.bottom > r.top) {
        bad("the result slot overlaps the top card");
      }
    }
    S.covers += 1;
  }
  // The pile's count ("12 cards in the pile") is readable: no card on it.
  function countCheck() {
    const info = document.querySelector("#table .pile-info");
    if (!info || !info.textContent.trim() || !info.getClientRects().length) return;
    const range = document.createRange();
    range.selectNodeContents(info);
    for (const line of range.getClientRects()) {
      const x = line.left + line.width / 2, y = line.top + line.height / 2;
      if (!hits(info, x, y)) {
        const at = document.elementFromPoint(x, y);
        bad(`the pile count "${info.textContent}" is covered by ${at ? at.outerHTML.slice(0, 120) : "nothing"}`);
        break;
      }
    }
    S.counts += 1;
  }
  function check() {
    S.updates += 1;
    const se = document.scrollingElement;
    if (se.scrollHeight > vh() + 1 || se.scrollWidth > vw() + 1) {
      bad(`the page scrolls: ${se.scrollWidth}x${se.scrollHeight} in ${vw()}x${vh()}`);
    }
    for (const id of ["my-stack", "slap-btn", "result-slot"]) {
      const el = document.getElementById(id);
      if (el && !document.getElementById("controls")?.hidden) still(id, inside(id, el));
    }
    for (const zone of document.querySelectorAll("#zones .zone")) {
      still(`zone${zone.dataset.i}`, inside(`zone${zone.dataset.i}`, zone));
    }
    // No line of the race result is cut in half by the slot's edge, unless it
    // fades out there (a list too long for the slot ends in a fade).
    const rslot = document.getElementById("result-slot");
    if (rslot && !rslot.hidden && rslot.getClientRects().length) {
      const sb = rslot.getBoundingClientRect().bottom;
      for (const line of rslot.querySelectorAll(".my-result.show, .race-title, .reactions li")) {
        const r = line.getBoundingClientRect();
        if (!r.height || r.top >= sb - 1 || r.bottom <= sb + 1) continue;
        // Out of sight: wrapped below a list that clips its overflow.
        const list = line.closest(".reactions");
        if (list && line !== list && r.top >= list.getBoundingClientRect().bottom - 1) continue;
        let faded = false;
        for (let el = line; el && el !== rslot; el = el.parentElement) {
          const m = getComputedStyle(el);
          if ((m.maskImage || m.webkitMaskImage || "none") !== "none") faded = true;
        }
        if (!faded) bad(`a line of the race result is cut by the slot's edge: "${line.textContent.slice(0, 60)}"`);
      }
      // Your own result ("You were quickest: 168 ms!") is there in full.
      for (const t of rslot.querySelectorAll(".my-result.show .text")) {
        if (t.scrollWidth > t.clientWidth + 1) bad(`your result is cut off: "${t.textContent}"`);
      }
      // So is the hint on your stack ("Your turn: Space flips"), inside it.
      const hint = document.getElementById("flip-hint");
      if (hint && hint.textContent && hint.getClientRects().length) {
        const h = hint.getBoundingClientRect(), st = document.getElementById("my-stack").getBoundingClientRect();
        if (hint.scrollWidth > hint.clientWidth + 1 || hint.scrollHeight > hint.clientHeight + 1 ||
            h.bottom > st.bottom + 0.5 || h.right > st.right + 0.5) bad(`the stack's hint is cut off: "${hint.textContent}"`);
      }
      // The seats' reaction badges: whole, and inside their seat.
      for (const b of document.querySelectorAll("#table .seat .seat-reaction:not([hidden])")) {
        if (!b.getClientRects().length) continue;
        const r = b.getBoundingClientRect(), s = b.closest(".seat").getBoundingClientRect();
        if (b.scrollWidth > b.clientWidth + 1 || r.left < s.left - 0.5 || r.right > s.right + 0.5) {
          bad(`a seat's reaction badge is cut or spills out: "${b.textContent}"`);
        }
      }
      // Each hand's time is there in full: a long name gives way, not the time.
      const sr = rslot.getBoundingClientRect().right;
      for (const t of rslot.querySelectorAll(".reactions li .ms")) {
        const r = t.getBoundingClientRect();
        const list = t.closest(".reactions").getBoundingClientRect();
        if (r.top >= list.bottom - 1) continue; // wrapped out of sight
        if (r.height && r.right > sr + 1) bad(`a reaction time is cut off at the slot's side: "${t.parentElement.textContent.slice(0, 60)}"`);
      }
    }
    // A seat's word ("on turn", "out", "last chance", a bot's level) whole,
    // not cut to "on t…".
    for (const st of document.querySelectorAll("#table .seat .seat-status")) {
      if (st.textContent && st.getClientRects().length && st.scrollWidth > st.clientWidth + 1) {
        bad(`a seat's status is cut: "${st.textContent}" (${st.scrollWidth} > ${st.clientWidth} px)`);
      }
    }
    // The party's line under the table ("Everyone is here: the game starts…") whole.
    const hint = document.getElementById("party-hint");
    if (hint && hint.textContent && hint.getClientRects().length &&
        (hint.scrollWidth > hint.clientWidth + 1 || hint.scrollHeight > hint.clientHeight + 1)) {
      bad(`the party's hint is cut: "${hint.textContent}"`);
    }
    const race = document.querySelector("#party-race");
    if (race && race.getClientRects().length) inside("party race", race);
    const call = document.querySelector("#table .call.now");
    if (call) {
      const r = inside("called rank", call);
      if (r && !hits(call, r.left + r.width / 2, r.top + r.height / 2)) bad("the called rank is covered");
      S.called += 1;
    }
    const top = document.querySelector("#table .pile .card.top");
    if (top) {
      // Where the card comes to rest: its fly-in animation (if any) jumped to
      // the end for the measurement, then put back where it was.
      const moving = top.getAnimations();
      const saved = moving.map((a) => a.currentTime);
      for (const a of moving) a.currentTime = a.effect.getComputedTiming().endTime;
      coverCheck(top);
      countCheck();
      moving.forEach((a, i) => { a.currentTime = saved[i] ?? 0; });
    }
  }
  document.addEventListener("sj:rendered", check);
})();
"""


def context_for(pages: Pages, width: int, height: int, phone: bool) -> Any:
    kw: dict[str, Any] = {"viewport": {"width": width, "height": height}}
    if phone:
        kw.update(device_scale_factor=2, is_mobile=True, has_touch=True)
    ctx = pages.context(**kw)
    ctx.add_init_script(CHECKER)
    return ctx


def start_party_of_three_and_a_bot(page: Any) -> None:
    """Party mode: three players at this screen and a casual bot, quick tempo."""
    open_page(page, "/party")
    page.locator("#count").select_option("3")
    page.locator("#bots").select_option("1")
    page.locator("#tempo").fill("0.5")
    page.locator("#start").click()
    page.locator("#table .seat").nth(3).wait_for()


def tap_or_click(page: Any, selector: str, phone: bool) -> None:
    box = page.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if phone:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def play(page: Any, flips: int, phone: bool, *, slap_jacks: bool = True) -> None:
    """Flip on my turn (Space, or a tap on my stack) and slap Jacks (J, or a tap
    on Slap) until ``flips`` cards were turned up."""
    done: set[int] = set()
    if slap_jacks:
        slap_jacks_in_page(page, 260, tap=phone)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        st = table_state(page)
        if st["over"] or (st["flip"] or 0) >= flips:
            return
        if st["myTurn"] and st["flip"] not in done:
            done.add(st["flip"])
            if phone:
                tap_or_click(page, "#my-stack", True)
            else:
                page.keyboard.press("Space")
        page.wait_for_timeout(25)
    raise AssertionError(f"only {table_state(page)['flip']} flips in 60 s")


AT_REST = """() => {
  // From now on every animation the page starts jumps to its end (the bots go
  // on flipping: a card that flies in while the screenshot is taken would be
  // caught in flight), and the running ones end now; infinite ones stay.
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    const a = animate.apply(this, args);
    a.finish();
    return a;
  };
  for (const a of document.getAnimations()) {
    if (Number.isFinite(a.effect.getComputedTiming().endTime)) a.finish();
  }
}"""


def screenshot_at_rest(page: Any, name: str) -> None:
    """A screenshot with every card where it comes to rest."""
    page.evaluate(AT_REST)
    page.wait_for_timeout(50)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), animations="disabled")


def layout_report(page: Any) -> dict[str, Any]:
    report: dict[str, Any] = page.evaluate("window.__sj")
    return report


def join(page: Any, code: str, name: str) -> None:
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill(name)
    page.locator("#join-btn").click()
    page.locator("#table .seat").nth(1).wait_for()


@pytest.mark.parametrize(
    ("name", "width", "height", "phone"), VIEWPORTS, ids=[v[0] for v in VIEWPORTS]
)
def test_play_now_fits_the_screen(
    server: Server, pages: Pages, name: str, width: int, height: int, phone: bool
) -> None:
    """A Play-now table (you and three casual bots, classic rules), 30 flips."""
    code = server.hook_room(
        {"seats": 4, "bots": {"1": "casual", "2": "casual", "3": "casual"}, "public": False},
        deck=DECK,
        timing=FAST,
    )
    page = pages.page(context_for(pages, width, height, phone))
    join(page, code, "Ann-Kathrin Beispielname")
    play(page, 30, phone)
    # The last race result is on the screen (a Jack came up at flip 2).
    wait_for(lambda: page.locator("#race-slot .race-title").count() == 1, timeout=5)
    page.wait_for_timeout(450)  # the last card has landed
    report = layout_report(page)
    screenshot_at_rest(page, f"layout-{name}")
    assert report["problems"] == [], report["problems"]
    assert report["updates"] >= 30 and report["covers"] >= 30 and report["counts"] >= 20, report
    assert set(report["base"]) >= {"my-stack", "slap-btn", "result-slot"}


@pytest.mark.parametrize(
    ("name", "width", "height", "phone"), VIEWPORTS, ids=[v[0] for v in VIEWPORTS]
)
def test_irish_snap_fits_the_screen(
    server: Server, pages: Pages, name: str, width: int, height: int, phone: bool
) -> None:
    """Irish Snap: the called rank beside the pile, never under a seat."""
    code = server.hook_room(
        {
            "seats": 4,
            "game": "irish-snap",
            "rules": {"preset": "irish-snap"},
            "bots": {"1": "casual", "2": "casual", "3": "casual"},
            "public": False,
        },
        deck=DECK,
        timing=FAST,
    )
    page = pages.page(context_for(pages, width, height, phone))
    join(page, code, "Fritz")
    play(page, 30 if name in FULL else 14, phone, slap_jacks=False)
    page.wait_for_timeout(450)
    report = layout_report(page)
    screenshot_at_rest(page, f"layout-irish-{name}")
    assert report["problems"] == [], report["problems"]
    assert report["called"] >= 10, report


@pytest.mark.parametrize(
    ("name", "width", "height", "phone"), VIEWPORTS, ids=[v[0] for v in VIEWPORTS]
)
def test_party_mode_fits_the_screen(
    server: Server, pages: Pages, name: str, width: int, height: int, phone: bool
) -> None:
    """Party mode, three players at one screen and a bot: the corners stay put,
    the pile uncovered."""
    page = pages.page(context_for(pages, width, height, phone))
    start_party_of_three_and_a_bot(page)
    flips = 30 if name in FULL else 12
    wait_for(lambda: (table_state(page)["flip"] or 0) >= flips, timeout=40)
    page.wait_for_timeout(300)
    report = layout_report(page)
    screenshot_at_rest(page, f"layout-party-{name}")
    assert report["problems"] == [], report["problems"]
    assert {"zone0", "zone1", "zone2"} <= set(report["base"]), report["base"]


EVENT_LINES = """async () => {
  const { describeEvent } = await import("/static/js/table.js");
  const hint = document.getElementById("party-hint");
  const names = [...document.querySelectorAll("#table .seat .who")].map((e) => e.textContent);
  const order = names.map((n, s) => [n.length, s]).sort((a, b) => b[0] - a[0]).map(([, s]) => s);
  const [a, b, c] = order;  // the longest names first
  const view = { players: names };
  const shares = [[a, 18], [b, 17], [c, 17]];
  const events = [
    { type: "flipped", seat: a, card: "QD" },
    { type: "flipped", seat: a, card: "QD", call: "Q", match: true },
    { type: "flipped", seat: a, card: "QD", call: "10", match: false },
    { type: "slapped", seat: a },
    { type: "slapped", seat: a, call: "Q" },
    ...["pay_pile", "none"].map((penalty) => ({ type: "wrong_slap", seat: a, penalty })),
    { type: "wrong_slap", seat: a, penalty: "pay_player", to: b },
    { type: "wrong_slap", seat: a, penalty: "pay_player", to: a },
    { type: "race_won", winner: a, cards: 52, reactions: [[a, 1234]] },
    { type: "race_tied", seats: [a, b], reaction_ms: 1234 },
    { type: "pile_split", shares },
    { type: "forfeit", seat: a, shares },
    { type: "no_slap", card: "QD" },
    { type: "picked_up", seat: a, cards: 52, reason: "wrong" },
    { type: "picked_up", seat: a, cards: 52, reason: "last" },
    { type: "pile_returned", seat: a, cards: 52 },
    ...["lost_jack", "no_cards", "turn"].map((reason) => ({ type: "eliminated", seat: a, reason })),
    { type: "finished", seat: a },
    { type: "time_is_up" },
    { type: "game_over", winners: [a, b], loser: null },
    { type: "game_over", winners: [a], loser: null },
    { type: "game_over", winners: [], loser: a },
  ];
  const cut = [];
  for (const ev of events) {
    const text = describeEvent(ev, view);
    hint.textContent = text;
    if (hint.scrollWidth > hint.clientWidth + 1 || hint.scrollHeight > hint.clientHeight + 1) {
      cut.push(text);
    }
  }
  return { names, cut, lines: events.length };
}"""


# Phones upright and held sideways: one CSS block gives the party's line its
# three lines on all of them (360x740 the narrowest line, 740x360 the lowest).
PHONES = [(360, 740), (390, 844), (740, 360), (844, 390)]


def party_on_a_phone(pages: Pages, locale: str, width: int, height: int) -> Any:
    """A party of three and a bot started on a phone of ``width`` x ``height``."""
    ctx = pages.context(
        viewport={"width": width, "height": height},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        locale=locale,
    )
    page = pages.page(ctx)
    start_party_of_three_and_a_bot(page)
    return page


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), PHONES, ids=[f"{w}x{h}" for w, h in PHONES])
def test_every_event_line_fits_the_party_line_on_a_phone(
    server: Server, pages: Pages, locale: str, width: int, height: int
) -> None:
    """The line under the party's table says what just happened on three lines
    of a phone (beside "End party"): every kind of event, in each language,
    with the table's longest names and the largest counts (the party's own
    code words it, ``describeEvent``; its box is measured as the layout checks
    do). A bot slapping its own card once took three lines and was cut, and at
    360 px two lines cut 4 English and 18 German lines. The table keeps the
    screen: the line, its button and the corners on it, none over another."""
    page = party_on_a_phone(pages, locale, width, height)
    result = page.evaluate(EVENT_LINES)
    assert len(result["names"]) == 4 and result["lines"] >= 25, result
    assert result["cut"] == [], "\n".join(result["cut"])
    boxes = page.evaluate(BAR_BOXES)
    for name, (left, top, right, bottom) in boxes.items():
        assert left >= -0.5 and top >= -0.5, (name, boxes)
        assert right <= width + 0.5 and bottom <= height + 0.5, (name, boxes)
    for a, b in [("hint", "exit"), ("table", "hint"), ("table", "exit"), ("race", "hint")]:
        assert not overlaps(boxes[a], boxes[b]), (a, b, boxes)
    for zone in [k for k in boxes if k.startswith("zone")]:
        for item in ("hint", "exit", "table"):
            assert not overlaps(boxes[zone], boxes[item]), (zone, item, boxes)


BAR_BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const out = {
    hint: box(document.getElementById("party-hint")),
    exit: box(document.getElementById("party-exit")),
    table: box(document.getElementById("table")),
    race: box(document.getElementById("party-race")),
  };
  document.querySelectorAll("#zones .zone").forEach((z, i) => { out[`zone${i}`] = box(z); });
  return out;
}"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


RACE_LINES = """async (long) => {
  const { TableView, RACE_ENDS } = await import("/static/js/table.js");
  const slot = document.getElementById("party-race");
  // The page's own drawing of a race's result (TableView.showRace) into the
  // party's slot, from a table of no seats (the party's own goes on playing).
  const table = new TableView(document.createElement("div"), { raceEl: slot });
  const seated = [...document.querySelectorAll("#table .seat .who")].map((e) => e.textContent);
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const out = [];
  for (const names of [seated, [...long, ...seated.slice(long.length)]]) {
    const order = names.map((n, s) => [n.length, s]).sort((x, y) => y[0] - x[0]).map(([, s]) => s);
    const [a, b, c, d] = order;  // the longest names first
    const view = { players: names };
    const hands = [[a, 1234], [b, 1302], [c, 5088], [d, 1411]];
    const events = [
      { type: "race_won", winner: a, cards: 52, reactions: hands },
      { type: "race_won", winner: a, cards: 1, reactions: [[a, 1234]] },
      { type: "pile_split", shares: [[a, 18], [b, 17]], reactions: hands },
      { type: "forfeit", seat: a, shares: [[b, 26], [c, 26]], reactions: hands },
      { type: "picked_up", seat: a, cards: 52, reason: "last", reactions: hands },
      { type: "picked_up", seat: a, cards: 52, reason: "wrong", reactions: [[a, 5088]] },
    ];
    for (const ev of events) {
      if (!RACE_ENDS.has(ev.type)) continue;
      table.showRace(ev, view);
      const title = slot.querySelector(".race-title");
      const s = slot.getBoundingClientRect();
      const lines = (() => {
        const range = document.createRange();
        range.selectNodeContents(title);
        return new Set([...range.getClientRects()].filter((r) => r.width).map((r) => Math.round(r.top))).size;
      })();
      const t = title.getBoundingClientRect();
      // Each hand's name and time in the slot whole, or out of sight below it.
      const halfHands = [...slot.querySelectorAll(".reactions li")].filter((li) => {
        const r = li.getBoundingClientRect();
        if (r.top >= s.bottom - 0.5) return false;
        const ms = li.querySelector(".ms");
        return r.bottom > s.bottom + 0.5 || r.left < s.left - 0.5 || r.right > s.right + 0.5 ||
          ms.scrollWidth > ms.clientWidth + 0.5 || li.scrollWidth > li.clientWidth + 0.5;
      }).map((li) => li.textContent);
      out.push({
        text: title.textContent,
        cut: title.scrollWidth > title.clientWidth + 0.5 || title.scrollHeight > title.clientHeight + 0.5 ||
          t.bottom > s.bottom + 0.5 || t.top < s.top - 0.5,
        lines,
        halfHands,
        slot: box(slot),
      });
    }
  }
  table.clearRace();
  return out;
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), PHONES, ids=[f"{w}x{h}" for w, h in PHONES])
def test_every_race_result_reads_whole_over_the_party_line(
    server: Server, pages: Pages, locale: str, width: int, height: int
) -> None:
    """The race's result over the party's line ("Casual bot 4 wins the pile
    (3 cards) in 412 ms.") reads whole on a phone, on up to three lines: each
    kind of result, in each language, with the table's names and with names as
    long as the name field takes. The hands' times under it show whole or not
    at all. (At 360 px it was one line, cut: "Casual bot 4 wins the pile (3 …".)"""
    page = party_on_a_phone(pages, locale, width, height)
    slot_before = page.evaluate(BAR_BOXES)["race"]
    results = page.evaluate(RACE_LINES, ["Anna-Katharina Schreiber"])
    assert len(results) == 12, results
    for r in results:
        assert not r["cut"], r
        assert r["lines"] <= 3, r
        assert r["halfHands"] == [], r
        assert r["slot"] == slot_before, (r, slot_before)  # the slot keeps its size
    if (width, height) == (360, 740):
        # A real race's result, as the players see it.
        wait_for(lambda: page.locator("#party-race .race-title").count() == 1, timeout=40)
        screenshot_at_rest(page, f"layout-party-race-{width}x{height}-{locale}")
    boxes = page.evaluate(BAR_BOXES)
    for a, b in [("table", "race"), ("race", "hint"), ("race", "exit")]:
        assert not overlaps(boxes[a], boxes[b]), (a, b, boxes)
