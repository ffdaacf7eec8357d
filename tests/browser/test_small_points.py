"""Small things a player meets: the log after a reload, a name with no games,
a replay that does not exist, a button that needs a name first."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from .conftest import Pages, Server, open_page, table_state, wait_for

pytestmark = pytest.mark.browser


def log_lines(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#log li").all_text_contents()]


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_reload_brings_back_what_happened(
    server: Server, pages: Pages, shot: Any, size: tuple[int, int]
) -> None:
    width, height = size
    phone = width < 600
    ctx = pages.context(
        viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    page = pages.page(ctx)
    code = server.hook_room({"seats": 2, "bots": {"1": "beginner"}, "public": False})
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill("Rosa")
    page.locator("#join-btn").click()
    page.locator("#table .seat").nth(1).wait_for(state="attached")
    wait_for(lambda: table_state(page)["myTurn"], timeout=15)
    page.keyboard.press("Space")
    wait_for(lambda: len(log_lines(page)) >= 2, timeout=15)
    before = log_lines(page)
    assert any("Rosa" in line for line in before), before
    page.reload()
    page.locator("body[data-ready='1']").wait_for(state="attached")
    wait_for(lambda: table_state(page)["flip"] is not None, timeout=15)
    after = log_lines(page)
    # The lines from before the reload are there, in the same order (newer ones above).
    assert after[-len(before) :] == before, (before, after)
    assert not any("Reconnected" in line for line in after)
    shot(page, f"reload-log-{width}x{height}")

    # Another tab with the same seat (the token is kept per browser, the log
    # per tab): the log says that it cannot show the earlier moves.
    other = pages.page(ctx)
    open_page(other, f"/r/{code}")
    wait_for(lambda: table_state(other)["flip"] is not None, timeout=15)
    wait_for(lambda: len(log_lines(other)) >= 1, timeout=5)
    assert log_lines(other)[-1] == "Reconnected: earlier moves are not shown."
    shot(other, f"reconnect-note-{width}x{height}")


def test_a_name_without_games_says_so(server: Server, pages: Pages, shot: Any) -> None:
    page = pages.page()
    name = f"Nobody {uuid.uuid4().hex[:6]}"
    open_page(page, f"/history?player={name}")
    out = page.locator("#stats-out")
    wait_for(lambda: "No games yet" in out.inner_text())
    assert out.inner_text().strip() == f"No games yet for {name}."
    assert out.locator(".stat").count() == 0
    assert page.locator("#stats-error").is_hidden()
    shot(page, "stats-no-games")


def test_a_missing_replay_shows_a_message_and_no_controls(
    server: Server, pages: Pages, shot: Any
) -> None:
    pages.allow("404")
    page = pages.page(viewport={"width": 390, "height": 844})
    open_page(page, "/replay/987654321")
    error = page.locator("#replay-error")
    assert error.is_visible()
    assert error.inner_text() == (
        "There is no finished game 987654321 to replay. It may never have finished, or the link is wrong."
    )
    for sel in ("#table", "#play", "#next", "#scrub", "#step", "#download", "#replay-keys"):
        assert page.locator(sel).is_hidden(), sel
    back = page.get_by_role("link", name="All finished games")
    assert back.is_visible()
    shot(page, "replay-missing-390x844")
    back.click()
    page.wait_for_url("**/history")


@pytest.mark.parametrize("button", ["#create-form button[type=submit]", "#play-now"])
def test_a_button_that_needs_a_name_says_so(server: Server, pages: Pages, button: str) -> None:
    page = pages.page()
    open_page(page, "/")
    page.evaluate("localStorage.clear()")
    open_page(page, "/")
    page.locator("#name").fill("")
    page.locator(button).click()
    note = page.locator("#name-missing")
    assert note.is_visible()
    assert note.inner_text() == "Type your name first: the others see it at the table."
    assert page.evaluate("document.activeElement.id") == "name"
    assert page.locator("#name").get_attribute("aria-invalid") == "true"
    box = page.locator("#name").bounding_box()
    assert box is not None and 0 <= box["y"] <= 900  # scrolled into view
    assert page.url == server.url + "/"  # nothing happened but the note
    if button != "#play-now":
        # The create button is far below the name field: it says so there too.
        assert page.locator("#create-error").inner_text() == note.inner_text()
    # With a name, the same button goes on to a room.
    page.locator("#name").fill("Uta")
    page.locator(button).click()
    page.wait_for_url("**/r/*")


def test_the_history_says_who_was_last_in_irish_snap(server: Server, pages: Pages) -> None:
    """An Irish Snap game (avoid the last) has a loser and everyone else as
    winners: the history said "Ann, Ben won", as if they shared a win. It says
    who was left holding cards, as the end screen and the log do; a Slapjack
    game still says who won."""
    base = {"room": "ABCDEF", "started_at": "2026-01-02T10:00:00+00:00", "complete": True}
    base |= {"finished_at": "2026-01-02T10:05:00+00:00", "actions": 90, "flips": 60}
    games = [
        {**base, "id": 2, "game": "irish-snap", "preset": "irish-snap", "flips": 80}
        | {"players": ["Ann", "Ben", "Cleo"], "winners": ["Ann", "Ben"], "loser": "Cleo"},
        {**base, "id": 1, "game": "slapjack", "preset": "classic"}
        | {"players": ["Ann", "Ben"], "winners": ["Ben"], "loser": None},
    ]
    page = pages.page()
    page.route(
        "**/api/games?*",
        lambda route: route.fulfill(json={"games": games, "total": len(games)}),
    )
    open_page(page, "/history")
    rows = page.locator("#games tr")
    rows.nth(1).wait_for()
    assert "Cleo was last" in rows.nth(0).inner_text()
    assert "won" not in rows.nth(0).inner_text()
    assert "Ben won" in rows.nth(1).inner_text()
