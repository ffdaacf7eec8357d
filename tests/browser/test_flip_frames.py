"""Nothing moves while you flip: on your turn the page runs no animation that
needs a frame every 16 ms, and a flip ends the card movements still running.

Why (docs/benchmarks.md, "Nothing moves while you flip"): after a key press
Chromium draws its next frame before it hands the page a socket message, so
any animation still running when you flip delays the card you turned up by a
frame or more."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Pages, Server, open_page, table_state, wait_for

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


def test_on_your_turn_nothing_needs_a_frame_every_16_ms(server: Server, pages: Pages) -> None:
    """Your turn, with a turn timer: the timer bar moves in steps and the glow
    on your stack waits before it breathes; nothing else runs."""
    code = server.hook_room(
        {"seats": 2, "bots": {"1": "beginner"}, "public": False},
        timing={"turn_ms": 8000.0},
    )
    page = pages.page()
    join(page, code, "Ivo")
    wait_for(lambda: table_state(page)["myTurn"], timeout=10)
    page.wait_for_timeout(400)  # the first card movements are over
    running = page.evaluate(RUNNING)
    timers = [a for a in running if a["timer"]]
    glows = [a for a in running if a["css"] == "glow"]
    others = [a for a in running if not a["timer"] and a["css"] != "glow"]
    assert timers, running  # the turn timer runs (else this test sees nothing)
    assert all(a["easing"].startswith("steps(") for a in timers), timers
    assert glows and all(a["delay"] >= 2000 and a["now"] < a["delay"] for a in glows), glows
    assert not others, others


def test_a_flip_lands_the_cards_still_in_flight(server: Server, pages: Pages) -> None:
    """The bot's card is still flying to the pile when you flip: it lands at
    once (its animation finished), and your flip is sent."""
    code = server.hook_room(
        {"seats": 2, "bots": {"1": "beginner"}, "public": False},
        timing={"turn_ms": 8000.0},
    )
    page = pages.page()
    join(page, code, "Ivo")
    wait_for(lambda: table_state(page)["myTurn"], timeout=10)
    page.keyboard.press("Space")
    # In the page: the moment the bot's card is drawn (it is my turn again and
    # the new top card has begun its flight), press Space; then look.
    seen = page.evaluate(
        """() => new Promise((done) => {
          const table = document.getElementById("table");
          const start = Number(table.dataset.flip);
          const check = () => {
            const top = document.querySelector("#table .pile .card.top");
            const mine = document.getElementById("my-stack").classList.contains("turn");
            if (Number(table.dataset.flip) <= start + 1 || !mine || !top) return;
            const before = top.getAnimations().filter((a) => a.playState === "running").length;
            if (!before) return;
            obs.disconnect();
            document.body.dispatchEvent(new KeyboardEvent("keydown", { key: " ", bubbles: true }));
            const after = top.getAnimations().filter((a) => a.playState === "running").length;
            done({ before, after, flip: Number(table.dataset.flip) });
          };
          const obs = new MutationObserver(check);
          obs.observe(table, { subtree: true, childList: true, attributes: true });
        })"""
    )
    assert seen["before"] >= 1 and seen["after"] == 0, seen
    wait_for(lambda: (table_state(page)["flip"] or 0) > seen["flip"], timeout=10)
