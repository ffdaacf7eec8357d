"""Strange names through the lobby's form: refused with the server's reason,
or normalised (NFKC) and shown as the server keeps them."""

from __future__ import annotations

import pytest

from .conftest import Pages, Server, open_page, table_state, wait_for

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Anna\u202e", "U+202E"),
        ("\u3164", "U+3164"),
        ("An\u200bna", "U+200B"),
        ("\u0301\u0301", "shows nothing"),
    ],
)
def test_the_lobby_shows_why_a_name_is_refused(
    server: Server, pages: Pages, name: str, why: str
) -> None:
    pages.allow("status of 422")
    page = pages.page()
    open_page(page, "/")
    page.locator("#name").fill(name)
    page.locator("#play-now").click()
    error = page.locator("#play-error")
    error.wait_for(state="visible")
    assert why in error.inner_text()
    assert "/r/" not in page.url
    assert page.locator("#play-now").is_enabled()  # the player can correct it and go on


def test_a_fullwidth_name_is_played_as_plain_letters(server: Server, pages: Pages) -> None:
    page = pages.page()
    open_page(page, "/")
    page.locator("#name").fill("\uff3a\uff4f\uff45  \uff2d")
    page.locator("#play-now").click()
    page.wait_for_url("**/r/*")
    wait_for(lambda: table_state(page)["flip"] is not None)
    me = page.locator("#table .seat.me .who")
    me.wait_for()
    assert me.inner_text() == "Zoe M"
