"""Party mode at one screen, the German UI, and a phone-sized touch screen."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import Pages, Server, open_page, slap_when_a_card_shows, table_state, wait_for

pytestmark = pytest.mark.browser


def zone_judged(page: Any, i: int) -> int:
    value = page.locator("#zones .zone").nth(i).get_attribute("data-judged")
    return int(value or 0)


def test_party_mode_two_players_with_their_own_keys(
    server: Server, pages: Pages, shot: Any
) -> None:
    page = pages.page()
    open_page(page, "/party")
    players = page.locator("#players .party-player")
    assert players.count() == 2
    players.nth(0).locator("input.name").fill("Hanna")
    players.nth(1).locator("input.name").fill("Ivo")
    assert players.nth(0).locator("input.key").input_value() == "A"
    assert players.nth(1).locator("input.key").input_value() == "L"
    page.locator("#bots").select_option("0")
    page.locator("#tempo").fill("0.6")
    page.locator("#start").click()
    page.locator("#stage").wait_for(state="visible")
    zones = page.locator("#zones .zone")
    assert zones.count() == 2
    assert "A" in zones.nth(0).inner_text() and "Hanna" in zones.nth(0).inner_text()
    assert "L" in zones.nth(1).inner_text() and "Ivo" in zones.nth(1).inner_text()
    # Both seats are this screen's: two highlighted seats, no bots.
    page.locator("#table .seat").nth(1).wait_for()
    assert page.locator("#table .seat.me").count() == 2
    # The table flips by itself; on each new card, each player not yet judged
    # slaps with their own key, until the server has judged a slap of each
    # (a wrong slap, or a race listing their reaction).
    box = zones.nth(1).bounding_box()
    inputs = [
        lambda: page.keyboard.press("a"),
        lambda: page.keyboard.press("l"),
    ]
    slap_until_judged(page, inputs, [0, 1])
    shot(page, "party")
    # A tap in Ivo's corner (bottom right) slaps for him too.
    before = zone_judged(page, 1)
    tap = [lambda: page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)]
    slap_until_judged(page, tap, [1], since={1: before})


def slap_until_judged(
    page: Any, inputs: list[Any], zones: list[int], since: dict[int, int] | None = None
) -> None:
    base = since or {z: 0 for z in zones}
    last_flip = None
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline:
        pending = [i for i, z in enumerate(zones) if zone_judged(page, z) <= base[z]]
        if not pending:
            return
        st = table_state(page)
        if st["top"] is not None and st["flip"] != last_flip:
            last_flip = st["flip"]
            page.wait_for_timeout(150)
            for i in pending:
                inputs[i]()
        page.wait_for_timeout(100)
    raise AssertionError(f"no judged slap for zones {zones}")


def test_german_ui_from_the_browser_language_and_the_switch(
    server: Server, pages: Pages, shot: Any
) -> None:
    ctx = pages.context(locale="de-DE")
    page = pages.page(ctx)
    open_page(page, "/")
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.locator("#play-now").inner_text() == "Sofort spielen"
    assert page.locator("#create-title").inner_text() == "Raum erstellen"
    assert "Bube" in page.locator("#opt-after_jack").locator("..").inner_text()
    shot(page, "lobby-de", full_page=True)
    page.locator("#name").fill("Jana")
    page.locator("#play-now").click()
    page.wait_for_url("**/r/*")
    page.locator("#table .seat").nth(3).wait_for()
    assert "Hau drauf!" in page.locator("#slap-btn").inner_text()
    wait_for(lambda: table_state(page)["myTurn"], timeout=20)
    page.keyboard.press("Space")
    wait_for(lambda: (table_state(page)["flip"] or 0) >= 1, timeout=20)
    # Log lines are German, and the centre pile card's label too.
    wait_for(lambda: "deckt auf" in page.locator("#log").inner_text())
    label = page.locator("#table .pile").get_attribute("aria-label") or ""
    assert "Mittelstapel" in label
    shot(page, "room-de")
    # The switch changes the language at once and is remembered.
    page.locator("#lang-switch").select_option("en")
    wait_for(lambda: "Slap!" in page.locator("#slap-btn").inner_text())
    open_page(page, "/rules?preset=klatsch-bube")
    page.locator("#rules h1").wait_for()
    assert page.locator("html").get_attribute("lang") == "en"
    assert "How to play" in page.locator("#rules").inner_text()
    page.locator("#lang-switch").select_option("de")
    wait_for(lambda: "So wird gespielt" in page.locator("#rules").inner_text())


def test_a_phone_plays_by_touch(server: Server, pages: Pages, shot: Any) -> None:
    ctx = pages.context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    page = pages.page(ctx)
    open_page(page, "/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "phone-lobby")
    page.locator("#name").fill("Kim")
    page.locator("#play-now").tap()
    page.wait_for_url("**/r/*")
    page.locator("#table .seat").nth(3).wait_for()
    # Nothing sticks out sideways; the pile and the buttons do not zoom on a double tap.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for sel in ("#table .pile", "#slap-btn", "#my-stack"):
        action = page.locator(sel).evaluate("el => getComputedStyle(el).touchAction")
        assert action == "manipulation", (sel, action)
    # Kim flips by tapping her stack.
    wait_for(lambda: table_state(page)["myTurn"], timeout=20)
    page.locator("#my-stack").tap()
    wait_for(lambda: (table_state(page)["flip"] or 0) >= 1)
    # A tap on the pile is a slap (pointerdown): the referee answers with a result.
    slap_when_a_card_shows(page, lambda: page.locator("#table .pile").tap())

    def judged() -> bool:
        # The log is in the room drawer (closed on a phone): its text, not its rendering.
        log = page.locator("#log").text_content() or ""
        return "Kim slapped" in log or "wins the pile" in log

    wait_for(judged, timeout=10)
    shot(page, "phone-room", full_page=True)
    # Held sideways, the pile, the stack and the Slap button all fit on the screen.
    page.set_viewport_size({"width": 844, "height": 390})
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(200)
    for sel in ("#table .pile", "#my-stack", "#slap-btn"):
        box = page.locator(sel).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 390, (sel, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 844
    shot(page, "phone-sideways")


def test_a_party_survives_a_reload(server: Server, pages: Pages) -> None:
    page = pages.page()
    open_page(page, "/party")
    page.locator("#count").select_option("3")
    assert page.locator("#players .party-player").count() == 3
    page.locator("#bots").select_option("1")
    page.locator("#start").click()
    page.locator("#table .seat").nth(3).wait_for()
    names = page.locator("#table .seat .who").all_inner_texts()
    wait_for(lambda: (table_state(page)["flip"] or 0) >= 1, timeout=15)
    page.reload()
    page.locator("#stage").wait_for(state="visible")
    assert page.locator("#setup").is_hidden()
    page.locator("#table .seat").nth(3).wait_for()
    assert page.locator("#table .seat .who").all_inner_texts() == names
    assert page.locator("#zones .zone").count() == 3
    assert page.locator("#table .seat.me").count() == 3


def test_a_party_can_be_ended_during_play(server: Server, pages: Pages) -> None:
    page = pages.page()
    page.on("dialog", lambda dialog: pytest.fail(f"a browser dialog: {dialog.message}"))
    open_page(page, "/party")
    page.locator("#bots").select_option("1")
    page.locator("#start").click()
    page.locator("#table .seat").nth(2).wait_for()
    exit_btn = page.locator("#party-exit")
    assert exit_btn.is_visible()
    exit_btn.click()
    assert exit_btn.inner_text() == "Really end?"
    assert page.locator("#stage").is_visible()
    exit_btn.click()
    page.locator("#setup").wait_for(state="visible")
    assert page.evaluate("sessionStorage.getItem('slapjack.party.session')") is None
