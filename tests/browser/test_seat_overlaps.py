"""Nothing of the table lies on a seat: its slap hand, or the pile's fan.

- A seat that slapped shows a hand. It was a badge on the seat's top-right
  corner (24 px, 10 px above and 8 px beside it) and lay on the end of the
  seat's name; on an upright phone's crowded band (five or more others, the
  names on two lines) over half of it. Now it sits on the seat's edge, in
  its border and padding, the rest of it on the felt beside the seat: on no
  text of any seat (name, "you" tag, count, status, reaction time), on no
  other seat, inside the felt, at every size and count of seats.
- The centre pile's cards, fanned (five cards, the oldest furthest left,
  lowest and most tilted), lay on a seat at ten seats (at 1280x720 and
  844x390 on "Beginner bot 2", the seat at the pile's lower left). Now the
  pile is no larger than keeps every card off every seat and off each
  seat's hand; a laptop's table of four keeps its large pile.

Boxes are measured in the browser (``getBoundingClientRect``; the hand is a
seat's ``::after``: its box from its computed place in the seat), with every
seat marked as the page marks one that slapped (the ``slapped`` class).
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import FULL_DECK, Pages, Server, open_page, table_state, wait_for
from .test_layout import play

pytestmark = pytest.mark.browser

LONG = "Christopher Maximilianus"  # the longest name a player may take (24 letters)
BOTS = ["beginner", "casual", "pro"]
# The Jacks last: no race while the first twenty cards are turned up, the
# pile grows to its full fan.
JACKS_LAST = [c for c in FULL_DECK if not c.startswith("J")] + ["JC", "JD", "JH", "JS"]

SIZES = [(1366, 768), (1280, 720), (390, 844), (360, 640), (844, 390)]

# Every seat the felt shows, marked as slapped (as room.js marks one:
# table.markSlap, or a view's ``slapped``): its box, its hand's (the seat's
# ::after, placed in the seat's padding box: its resolved left and top), and
# the boxes of its texts. The seats' flashes (a scale, a shake) run to their
# end first; all in one go, before the next update draws the seats again.
MARKED = """() => {
  const box = (r) => [r.left, r.top, r.right, r.bottom];
  const shown = (el) => !!el && !el.hidden && el.getClientRects().length > 0;
  const seats = [...document.querySelectorAll('#table .seat')].filter(shown);
  for (const seat of seats) {
    for (const a of seat.getAnimations()) a.finish();
    seat.classList.add('slapped');
  }
  return seats.map((seat) => {
    const r = seat.getBoundingClientRect();
    const style = getComputedStyle(seat);
    const after = getComputedStyle(seat, '::after');
    const left = r.left + parseFloat(style.borderLeftWidth) + parseFloat(after.left);
    const top = r.top + parseFloat(style.borderTopWidth) + parseFloat(after.top);
    const texts = [];
    for (const el of seat.querySelectorAll('.who, .tag, .seat-stack, .seat-status, .seat-reaction')) {
      if (shown(el) && el.textContent.trim()) texts.push([el.className, el.textContent, box(el.getBoundingClientRect())]);
    }
    return {
      name: seat.querySelector('.who').textContent,
      seat: box(r),
      hand: [left, top, left + parseFloat(after.width), top + parseFloat(after.height)],
      handShown: after.content !== 'none' && after.visibility === 'visible' && after.display !== 'none',
      texts,
    };
  });
}"""

# The felt: its box and its corners' radii (px), for "inside its rounded shape".
FELT = """() => {
  const felt = document.getElementById('table');
  const r = felt.getBoundingClientRect();
  const style = getComputedStyle(felt);
  const radius = (v, w, h) => {
    const [x, y] = v.split(' ');
    const px = (s, of) => s.endsWith('%') ? parseFloat(s) / 100 * of : parseFloat(s);
    return [px(x, w), px(y ?? x, h)];
  };
  return {
    box: [r.left, r.top, r.right, r.bottom],
    radius: radius(style.borderTopLeftRadius, r.width, r.height),
    view: [document.documentElement.clientWidth, document.documentElement.clientHeight],
  };
}"""

# The pile's cards where they rest (a card's flight run to its end), with
# every seat marked as slapped (MARKED).
PILE = """() => {
  for (const a of document.getAnimations()) {
    if (Number.isFinite(a.effect.getComputedTiming().endTime)) a.finish();
  }
  return [...document.querySelectorAll('#table .pile .card')].map((card) => {
    const r = card.getBoundingClientRect();
    return { key: card.dataset.key, box: [r.left, r.top, r.right, r.bottom], width: card.offsetWidth };
  });
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    """Do two boxes share more than a hairline (half a pixel each way)?"""
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def in_felt(point: tuple[float, float], felt: dict[str, Any]) -> bool:
    """Is ``point`` inside the felt's rounded shape (its clip), a pixel spared?"""
    left, top, right, bottom = felt["box"]
    rx, ry = felt["radius"]
    x, y = point
    if not (left - 1 <= x <= right + 1 and top - 1 <= y <= bottom + 1):
        return False
    cx = min(max(x, left + rx), right - rx)
    cy = min(max(y, top + ry), bottom - ry)
    if (cx, cy) == (x, y) or rx <= 0 or ry <= 0:
        return True
    # In a corner: inside the ellipse of its radii, grown by a pixel.
    return ((x - cx) / (rx + 1)) ** 2 + ((y - cy) / (ry + 1)) ** 2 <= 1


def room(server: Server, seats: int, deck: list[str] | None = None) -> str:
    bots = {str(s): BOTS[(s - 1) % 3] for s in range(1, seats)}
    return server.hook_room(
        {"seats": seats, "bots": bots, "public": False},
        deck=deck,
        timing={"bot_pace": 0.3, "turn_ms": 600.0},
    )


def sit(pages: Pages, code: str, name: str, size: tuple[int, int]) -> Any:
    page = pages.page(pages.screen(*size))
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill(name)
    page.locator("#join-btn").click()
    page.locator("#game").wait_for()
    wait_for(lambda: table_state(page)["flip"] is not None)
    page.wait_for_timeout(300)  # the names fitted, the band laid out, the pile sized
    return page


# ---------------------------------------------------------------- the hand


@pytest.mark.parametrize("seats", [2, 4, 6, 8, 10])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_slap_hand_covers_no_seats_text(
    server: Server, pages: Pages, shot: Any, size: tuple[int, int], seats: int
) -> None:
    """Every seat marked as slapped: each one's hand shows, on its own seat's
    edge (touching it), on no name, tag, count, status or time of any seat,
    on no other seat, inside the felt's rounded shape and the screen. Your
    own seat's long name (and its "you" tag) too, where the felt shows it."""
    page = sit(pages, room(server, seats), LONG, size)
    marked = page.evaluate(MARKED)
    felt = page.evaluate(FELT)
    shot(page, f"slap-hands-{seats}-{size[0]}x{size[1]}")
    phone_upright = size[0] < size[1]
    assert len(marked) == (seats - 1 if phone_upright else seats), marked
    width, height = felt["view"]
    problems = []
    for s in marked:
        hand = s["hand"]
        if not s["handShown"]:
            problems.append(("not shown", s["name"]))
        if hand[3] - hand[1] < 12 or hand[2] - hand[0] < 7:
            problems.append(("too small to see", s["name"], hand))
        if not overlap(hand, s["seat"]):
            problems.append(("not on its seat", s["name"], hand, s["seat"]))
        if hand[0] < -0.5 or hand[1] < -0.5 or hand[2] > width + 0.5 or hand[3] > height + 0.5:
            problems.append(("outside the screen", s["name"], hand))
        corners = [(hand[0], hand[1]), (hand[2], hand[1]), (hand[0], hand[3]), (hand[2], hand[3])]
        if not all(in_felt(c, felt) for c in corners):
            problems.append(("cut by the felt's edge", s["name"], hand, felt))
        for other in marked:
            if other is not s and overlap(hand, other["seat"]):
                problems.append(("on another seat", s["name"], other["name"]))
            for kind, text, box in other["texts"]:
                if overlap(hand, box):
                    problems.append(("on a text", s["name"], other["name"], kind, text, hand, box))
    assert problems == []


# ---------------------------------------------------------------- the pile

PILES = [
    (1280, 720, 10),
    (844, 390, 10),
    (1366, 768, 10),
    (1280, 720, 8),
    (844, 390, 8),
    (1280, 720, 6),
    (844, 390, 6),
    (1366, 768, 4),
    (844, 390, 4),
    (390, 844, 8),
    (360, 640, 10),
    (390, 844, 4),
    (1366, 768, 2),
]


@pytest.mark.parametrize(
    ("width", "height", "seats"), PILES, ids=[f"{n}-{w}x{h}" for w, h, n in PILES]
)
def test_the_fanned_pile_keeps_off_every_seat(
    server: Server, pages: Pages, shot: Any, width: int, height: int, seats: int
) -> None:
    """Five cards on the pile, fanned in full: no card on any seat's box or
    on any seat's slap hand. On a laptop with four seats the pile stays as
    large as it was (a card 200 px wide or more)."""
    page = sit(pages, room(server, seats, JACKS_LAST), "Anna", (width, height))
    play(page, 6, width < 1000, slap_jacks=False)
    wait_for(lambda: page.locator("#table .pile .card.face").count() == 5, timeout=10)
    marked = page.evaluate(MARKED)
    cards = page.evaluate(PILE)
    shot(page, f"fanned-pile-{seats}-{width}x{height}")
    faces = [c for c in cards if c["key"].startswith("f:")]
    assert len(faces) == 5, cards
    problems = []
    for card in cards:
        for s in marked:
            if overlap(card["box"], s["seat"]):
                problems.append(("on a seat", card["key"], s["name"], card["box"], s["seat"]))
            if overlap(card["box"], s["hand"]):
                problems.append(
                    ("on a seat's hand", card["key"], s["name"], card["box"], s["hand"])
                )
    assert problems == []
    if (width, height, seats) == (1366, 768, 4):
        assert min(c["width"] for c in faces) >= 200, faces
