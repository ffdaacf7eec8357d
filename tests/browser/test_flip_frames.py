"""Nothing moves while you flip: on your turn the page runs no animation that
needs a frame every 16 ms, and a flip ends the card movements still running.

Why (docs/benchmarks.md, "Nothing moves while you flip"): after a key press
Chromium draws its next frame before it hands the page a socket message, so
any animation still running when you flip delays the card you turned up by a
frame or more."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import FULL_DECK, Pages, Server, open_page, table_state, wait_for

pytestmark = pytest.mark.browser

RUNNING = """() => document.getAnimations()
  .filter((a) => a.playState === "running")
  .map((a) => {
    const t = a.effect.getTiming();
    const target = a.effect.target;
    return {
      css: a.animationName || null,
      target: target ? String(target.className) : "",
      timer: !!(target && target.closest && target.closest(".seat-timer")),
      easing: t.easing,
      delay: t.delay,
      now: Number(a.currentTime),
    };
  })"""


def join(page: Any, code: str, name: str) -> None:
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill(name)
    page.locator("#join-btn").click()
    page.locator("#table .seat").nth(1).wait_for()


# A deck with its Jacks in the middle: the first and the last dozen cards of
# each stack are no Jack, so the first flips of these tests start no race
# (whose words and flourishes would come in between, at random).
_NO_JACKS = [c for c in FULL_DECK if not c.startswith("J")]
MIDDLE_JACKS = [*_NO_JACKS[:24], "JC", "JD", "JH", "JS", *_NO_JACKS[24:]]


def my_turn_against_a_bot(server: Server, pages: Pages) -> Any:
    """A page seated against one beginner bot, with an 8 s turn timer, on my
    turn (no Jack among the first flips)."""
    code = server.hook_room(
        {"seats": 2, "bots": {"1": "beginner"}, "public": False},
        deck=MIDDLE_JACKS,
        timing={"turn_ms": 8000.0},
    )
    page = pages.page()
    join(page, code, "Ivo")
    wait_for(lambda: table_state(page)["myTurn"], timeout=10)
    return page


def test_on_your_turn_nothing_needs_a_frame_every_16_ms(server: Server, pages: Pages) -> None:
    """Your turn, with a turn timer: the timer bar counts down in steps set by
    a timer (no animation), the glow on your stack waits before it breathes,
    nothing else runs."""
    page = my_turn_against_a_bot(server, pages)
    page.wait_for_timeout(400)  # the first card movements are over
    bar = "() => getComputedStyle(document.querySelector('#table .seat.me .seat-timer .bar')).transform"
    first = page.evaluate(bar)
    running = page.evaluate(RUNNING)
    glows = [a for a in running if a["css"] == "glow"]
    others = [a for a in running if a["css"] != "glow"]
    assert glows and all(a["delay"] >= 2000 and a["now"] < a["delay"] for a in glows), glows
    assert not others, others  # the timer bar too: it steps by a timer, not an animation
    page.wait_for_timeout(600)
    later = page.evaluate(bar)

    def scale(matrix: str) -> float:
        return float(matrix.removeprefix("matrix(").split(",")[0])

    assert 0 < scale(later) < scale(first) < 1, (first, later)  # it does count down


def test_a_flip_lands_the_cards_still_in_flight(server: Server, pages: Pages) -> None:
    """The bot's card is still flying to the pile when you flip: it lands at
    once (its animation finished), the turn timer holds still, and your flip
    is sent."""
    page = my_turn_against_a_bot(server, pages)
    page.keyboard.press("Space")
    wait_for(lambda: not table_state(page)["myTurn"], timeout=10)  # my card is down
    # In the page: the moment the bot's card is drawn (it is my turn again and
    # the new top card has begun its flight), press Space; then look.
    seen = page.evaluate(
        """() => new Promise((done) => {
          const table = document.getElementById("table");
          const start = Number(table.dataset.flip);
          const check = () => {
            const top = document.querySelector("#table .pile .card.top");
            // My turn by the table state (the page may draw the card a
            // frame before the controls that say so).
            const me = document.querySelector("#table .seat.me");
            const mine = !!me && table.dataset.turn === me.dataset.seat;
            if (Number(table.dataset.flip) <= start || !mine || !top) return;
            const before = top.getAnimations().filter((a) => a.playState === "running").length;
            if (!before) return;
            obs.disconnect();
            document.body.dispatchEvent(new KeyboardEvent("keydown", { key: " ", bubbles: true }));
            const after = top.getAnimations().filter((a) => a.playState === "running").length;
            const ticking = [...document.querySelectorAll("#table .seat-timer .bar")].filter((b) => b._tick).length;
            done({ before, after, ticking, flip: Number(table.dataset.flip) });
          };
          const obs = new MutationObserver(check);
          obs.observe(table, { subtree: true, childList: true, attributes: true });
          check();
        })"""
    )
    assert seen["before"] >= 1 and seen["after"] == 0 and seen["ticking"] == 0, seen
    wait_for(lambda: (table_state(page)["flip"] or 0) > seen["flip"], timeout=10)


# Every batch the warm-up draws: each face's class and whether it lies inside
# the warm-up's clip (a face outside it is never painted, so its SVG is laid
# out only in the frame that first shows the card).
WARM_WATCHER = """
window.__warm = [];
new MutationObserver(() => {
  const box = document.querySelector(".face-warmup");
  if (!box) return;
  const clip = box.getBoundingClientRect();
  for (const el of box.children) {
    const r = el.getBoundingClientRect();
    const inside = r.left < clip.right && r.right > clip.left && r.top < clip.bottom && r.bottom > clip.top;
    window.__warm.push({ face: el.className, inside, w: r.width });
  }
}).observe(document, { subtree: true, childList: true });
"""


def test_the_warm_up_paints_every_face(server: Server, pages: Pages) -> None:
    """Before the cards are needed, each of the 52 faces is drawn once at a
    card's size inside the warm-up's 1 px clip (where it is painted, its SVG
    parsed and laid out), not beside it: while the player is still reading
    the join form (before the game's first cards, not during them). Once the
    table is there, they are drawn again at the size of its cards (an SVG
    image is laid out and painted for each size it is drawn at: warmed at
    another size, each face was cold in the frame that showed its card)."""
    ctx = pages.context()
    ctx.add_init_script(WARM_WATCHER)
    page = pages.page(ctx)
    code = server.hook_room({"seats": 2, "bots": {"1": "beginner"}, "public": False})
    open_page(page, f"/r/{code}")
    wait_for(lambda: len({w["face"] for w in page.evaluate("window.__warm")}) >= 52, timeout=20)
    seen = page.evaluate("window.__warm")
    faces = {w["face"] for w in seen}
    assert len(faces) == 52, sorted(faces)
    outside = sorted({w["face"] for w in seen if not w["inside"]})
    assert not outside, outside
    assert all(w["w"] > 20 for w in seen), seen  # a card's size, not a dot
    assert page.locator("#join-name").is_visible()  # not joined: no table drawn yet
    # Joining: the faces again, at the width of the table's cards.
    before = len(seen)
    page.locator("#join-name").fill("Ivo")
    page.locator("#join-btn").click()
    page.locator("#table .seat").nth(1).wait_for()
    width = page.evaluate(
        "document.querySelector('#table .pile').getBoundingClientRect().width / 1.8"
    )
    assert abs(width - seen[0]["w"]) > 2, (width, seen[0])  # another size than the form's

    def at_table_size() -> set[str]:
        later = page.evaluate("window.__warm")[before:]
        return {w["face"] for w in later if abs(w["w"] - width) < 0.5 and w["inside"]}

    wait_for(lambda: len(at_table_size()) >= 52, timeout=20)
    assert at_table_size() == faces
    # Then no more: the table's size is the same.
    settled = len(page.evaluate("window.__warm"))
    page.wait_for_timeout(500)
    assert len(page.evaluate("window.__warm")) == settled


def test_the_faces_are_warmed_at_the_table_size_while_the_room_waits(
    server: Server, pages: Pages
) -> None:
    """While the room waits for its players, the table is laid out but not
    shown (the waiting panel lies over it, and takes the clicks): the faces are
    drawn at the size of its cards then, not in the frames of the first cards
    (the table was measured only once shown, at the first card, and the
    warm-up ran under the first flips: docs/benchmarks.md, "The table laid out
    while the room waits")."""
    ctx = pages.context()
    ctx.add_init_script(WARM_WATCHER)
    page = pages.page(ctx)
    code = server.hook_room({"seats": 3, "bots": {"1": "beginner"}, "public": False})
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill("Ivo")
    before = len(page.evaluate("window.__warm"))
    page.locator("#join-btn").click()
    page.locator("#waiting").wait_for()  # a seat is free: the room waits

    def warmed() -> dict[float, set[str]]:
        by: dict[float, set[str]] = {}
        for w in page.evaluate("window.__warm")[before:]:
            if w["inside"]:
                by.setdefault(round(w["w"], 1), set()).add(w["face"])
        return by

    wait_for(lambda: any(len(f) == 52 for f in warmed().values()), timeout=20)
    width = next(w for w, f in warmed().items() if len(f) == 52)
    assert page.locator("#waiting").is_visible()
    assert not page.locator("#table").is_visible()  # laid out, not shown
    hit = page.evaluate(
        """() => { const r = document.getElementById('waiting').getBoundingClientRect();
                   const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                   return { inTable: !!el.closest('#table'), inWaiting: !!el.closest('#waiting') }; }"""
    )
    assert hit == {"inTable": False, "inWaiting": True}, hit
    # The last seat taken: the game starts, and its cards have the warmed size.
    other = pages.page()
    join(other, code, "Una")
    wait_for(lambda: table_state(page)["top"] is not None, timeout=20)
    card = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#table .pile .card.top'))"
        ".getPropertyValue('--w'))"  # (its box may be mid-flight, scaled)
    )
    assert card == pytest.approx(width, abs=0.1), (card, width)
    settled = len(page.evaluate("window.__warm"))
    page.wait_for_timeout(300)
    assert len(page.evaluate("window.__warm")) == settled  # not warmed again under play


def test_the_lengths_a_card_is_sized_by_are_registered(server: Server, pages: Pages) -> None:
    """A card's --w (and the felt's --cw it comes from) is a length in px
    where it is used, not the felt's formula handed down to be parsed again
    on every card: app.css registers them (@property). Unregistered, the
    style of each new card took twice as long (docs/benchmarks.md,
    "Registered lengths")."""
    page = my_turn_against_a_bot(server, pages)
    page.keyboard.press("Space")
    wait_for(lambda: table_state(page)["top"] is not None, timeout=10)
    got = page.evaluate(
        """() => {
          const card = document.querySelector('#table .pile .card.top');
          const felt = document.getElementById('table');
          const cs = getComputedStyle(card);
          return { w: cs.getPropertyValue('--w').trim(), cw: getComputedStyle(felt).getPropertyValue('--cw').trim(),
                   width: card.getBoundingClientRect().width, transform: cs.transform };
        }"""
    )
    assert got["w"].endswith("px") and got["cw"].endswith("px"), got
    assert float(got["w"][:-2]) == pytest.approx(float(got["cw"][:-2]), abs=0.01)
    # The card is as wide as its --w says (its transform is a small rotation).
    assert got["width"] == pytest.approx(float(got["w"][:-2]), rel=0.05), got


def test_a_flip_after_a_race_leaves_its_flourishes_to_run_out(server: Server, pages: Pages) -> None:
    """You win a Jack and flip while its burst and the pile's sweep still
    play: they go on to their end (ending them at once would change the page
    in the frame after your key press, and your card would wait behind that
    frame); once played out they are taken off the page with a later drawing."""
    from .test_game_feel import deck_with

    code = server.hook_room(
        {"seats": 2, "bots": {"1": "beginner"}, "public": False},
        deck=deck_with({0: "JS"}),
        timing={"turn_ms": 8000.0},
    )
    page = pages.page()
    join(page, code, "Ivo")
    wait_for(lambda: table_state(page)["myTurn"], timeout=10)
    page.keyboard.press("Space")
    wait_for(lambda: table_state(page)["top"] == "JS", timeout=10)
    page.wait_for_timeout(250)
    page.keyboard.press("j")
    # In the page: the first moment it is my turn with the flourishes of the
    # race still playing, press Space; count them before and after.
    seen = page.evaluate(
        """() => new Promise((done) => {
          const table = document.getElementById("table");
          const fx = () => [...document.querySelectorAll("#table .fx-layer > *")]
            .flatMap((el) => el.getAnimations()).filter((a) => a.playState === "running").length;
          const check = () => {
            const me = document.querySelector("#table .seat.me");
            const mine = !!me && table.dataset.turn === me.dataset.seat;
            const before = fx();
            if (!mine || !before) return;
            obs.disconnect();
            document.body.dispatchEvent(new KeyboardEvent("keydown", { key: " ", bubbles: true }));
            done({ before, after: fx() });
          };
          const obs = new MutationObserver(check);
          obs.observe(table, { subtree: true, childList: true, attributes: true });
          check();
        })"""
    )
    assert seen["before"] >= 1 and seen["after"] == seen["before"], seen
    # Played out, then taken off the page (the bot's flips draw the table again).
    wait_for(
        lambda: page.evaluate("document.querySelectorAll('#table .fx-layer > *').length") == 0,
        timeout=10,
    )


def test_a_plain_flip_draws_the_card_first_and_says_it_after(server: Server, pages: Pages) -> None:
    """A plain flip's update puts the new card in the pile and leaves the rest
    for after the frame that shows it: the seats' counts, and the words for
    screen readers (the live region is neither cleared nor set in the work of
    that frame); both follow once it is painted."""
    page = my_turn_against_a_bot(server, pages)
    page.keyboard.press("Space")  # a flip each, so that the live region has said something
    wait_for(
        lambda: (table_state(page)["flip"] or 0) >= 2 and table_state(page)["myTurn"], timeout=10
    )
    wait_for(lambda: "turns up" in (page.locator("#live").text_content() or ""), timeout=5)
    seen = page.evaluate(
        """() => new Promise((done) => {
          const pile = document.querySelector("#table .pile");
          const live = document.getElementById("live");
          const count = () => [...document.querySelectorAll("#table .seat .count")].map((el) => el.textContent).join(",");
          const before = { live: live.textContent, count: count() };
          const obs = new MutationObserver(() => {
            const top = pile.querySelector(".card.top");
            if (!top || !top.dataset.card) return;
            obs.disconnect();
            const inFrame = { live: live.textContent, count: count(), card: top.dataset.card };
            requestAnimationFrame(() => setTimeout(() => setTimeout(() => {
              done({ before, inFrame, after: { live: live.textContent, count: count() } });
            }, 60), 0));
          });
          obs.observe(pile, { childList: true });
          document.body.dispatchEvent(new KeyboardEvent("keydown", { key: " ", bubbles: true }));
        })"""
    )
    assert seen["inFrame"]["live"] == seen["before"]["live"], seen
    assert seen["inFrame"]["count"] == seen["before"]["count"], seen
    assert seen["after"]["count"] != seen["before"]["count"], seen
    assert (
        "turns up" in seen["after"]["live"] and seen["after"]["live"] != seen["before"]["live"]
    ), seen
