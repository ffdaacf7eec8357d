"""Party mode: each player's touch corner is beside their seat on the table,
on a laptop and on a phone held upright or sideways, and the party can be
ended from the table."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Pages, Server, open_page, wait_for

pytestmark = pytest.mark.browser

SIZES = {
    "laptop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
    "phone-sideways": {"width": 844, "height": 390},
}


# Points of the top card (centre, near each corner) where something else is on
# top; null while no card shows or one is still moving.
TOP_COVERED = """() => {
  const top = document.querySelector('#table .pile .card.top');
  if (!top) return null;
  // still flying in from the seat that turned it
  if (document.getAnimations().some((a) => a.playState === 'running')) return null;
  const r = top.getBoundingClientRect();
  const bad = [];
  for (const [fx, fy] of [[.5, .5], [.1, .1], [.9, .1], [.1, .9], [.9, .9]]) {
    const el = document.elementFromPoint(r.left + fx * r.width, r.top + fy * r.height);
    if (!el || !el.closest('.pile')) bad.push([fx, fy, el ? el.className : null]);
  }
  return bad;
}"""


def centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def nearest_zone(seat: tuple[float, float], zones: list[tuple[float, float]]) -> int:
    return min(
        range(len(zones)), key=lambda i: (zones[i][0] - seat[0]) ** 2 + (zones[i][1] - seat[1]) ** 2
    )


@pytest.mark.parametrize(("players", "bots"), [(2, 1), (4, 2)])
@pytest.mark.parametrize("size", list(SIZES))
def test_each_corner_is_beside_its_players_seat(
    server: Server, pages: Pages, shot: Any, size: str, players: int, bots: int
) -> None:
    phone = size != "laptop"
    ctx = pages.context(viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    page = pages.page(ctx)
    open_page(page, "/party")
    page.locator("#count").select_option(str(players))
    names = [f"P{i + 1}" for i in range(players)]
    for i, name in enumerate(names):
        page.locator("#players .party-player").nth(i).locator("input.name").fill(name)
    page.locator("#bots").select_option(str(bots))
    page.locator("#tempo").fill("0.8")
    page.locator("#start").click()
    page.locator("#table .seat").nth(players + bots - 1).wait_for()
    wait_for(lambda: page.locator("#table .seat.me").count() == players)
    page.wait_for_timeout(300)  # the seats' sizes settle (fonts, resize observer)
    width, height = SIZES[size]["width"], SIZES[size]["height"]
    zones = page.locator("#zones .zone")
    assert zones.count() == players
    zone_centres = [centre(zones.nth(i).bounding_box()) for i in range(players)]
    seats = page.locator("#table .seat")
    for i, name in enumerate(names):
        assert name in zones.nth(i).inner_text()
        seat = seats.filter(has_text=name)
        assert seat.count() == 1
        box = seat.bounding_box()
        sx, sy = centre(box)
        zx, zy = zone_centres[i]
        # Same side of the screen, both ways, and no other corner nearer.
        assert (sx < width / 2) == (zx < width / 2), (size, name, box, zone_centres[i])
        assert (sy < height / 2) == (zy < height / 2), (size, name, box, zone_centres[i])
        assert nearest_zone((sx, sy), zone_centres) == i, (size, name, box, zone_centres)
        # The seat is on the screen and not under any touch corner.
        assert box["x"] >= 0 and box["y"] >= 0
        assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height
        for z in range(players):
            zb = zones.nth(z).bounding_box()
            overlap_x = min(box["x"] + box["width"], zb["x"] + zb["width"]) - max(box["x"], zb["x"])
            overlap_y = min(box["y"] + box["height"], zb["y"] + zb["height"]) - max(
                box["y"], zb["y"]
            )
            assert overlap_x <= 1 or overlap_y <= 1, (size, name, "under corner", z)
    # Every seat is on the felt's edge, inside the felt, and none covers another.
    felt = page.locator("#table").bounding_box()
    boxes = [seats.nth(s).bounding_box() for s in range(players + bots)]
    for a, ba in enumerate(boxes):
        assert ba["x"] >= felt["x"] - 1 and ba["x"] + ba["width"] <= felt["x"] + felt["width"] + 1
        for bb in boxes[a + 1 :]:
            ox = min(ba["x"] + ba["width"], bb["x"] + bb["width"]) - max(ba["x"], bb["x"])
            oy = min(ba["y"] + ba["height"], bb["y"] + bb["height"]) - max(ba["y"], bb["y"])
            assert ox <= 1 or oy <= 1, (size, ba, bb)
    # The way out is on the screen, above the corners.
    exit_btn = page.locator("#party-exit")
    eb = exit_btn.bounding_box()
    assert eb is not None and eb["y"] >= 0 and eb["y"] + eb["height"] <= height
    ex, ey = centre(eb)
    assert page.evaluate(f"document.elementFromPoint({ex}, {ey}).id") == "party-exit"
    # Once the cards flip, the top card is not covered by any seat or corner.
    wait_for(lambda: page.evaluate(TOP_COVERED) is not None, timeout=20)
    shot(page, f"party-corners-{size}-{players}p{bots}b")
    covered = page.evaluate(TOP_COVERED)
    assert covered in ([], None), (size, covered)
    exit_btn.click()
    exit_btn.click()
    page.locator("#setup").wait_for(state="visible")
