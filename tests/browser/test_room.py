"""Rooms in a real Chromium against the real server: create, join, play, watch, reconnect."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from .conftest import (
    Pages,
    Server,
    open_page,
    slap_when_a_card_shows,
    stacked_deck,
    table_state,
    wait_for,
)

pytestmark = pytest.mark.browser


def join_through_page(page: Any, code: str, name: str) -> None:
    open_page(page, f"/r/{code}")
    page.locator("#join-name").fill(name)
    page.locator("#join-btn").click()
    page.locator("#game").wait_for(state="visible")


def click_now(page: Any, selector: str) -> None:
    """A click at the element's centre at once, as a hand would: no waiting for it
    to be enabled (the game may have moved on; then the page ignores it)."""
    box = page.locator(selector).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def seat_names(page: Any) -> list[str]:
    names: list[str] = page.locator("#table .seat .who").all_inner_texts()
    return names


def test_two_people_and_a_bot_play_to_the_end(server: Server, pages: Pages, shot: Any) -> None:
    """Anna (keyboard only) and Ben (mouse/touch) join by link, play a stacked
    deck against a bot until the time limit ends it, ask for a rematch (same
    seats), and find the game in the history and its replay."""
    # Seat 1's first card is a Jack: the second flip starts a race at once.
    deck = stacked_deck(["5C", "JS", "KD", "3H", "JH", "8C", "9D", "JD"])
    code = server.hook_room(
        {
            "name": "Browser table",
            "seats": 3,
            "bots": {"2": "beginner"},
            "tempo": "turn_timer",
            "turn_seconds": 1.0,
            "time_limit": 7,
            "public": False,
        },
        deck=deck,
    )
    anna = pages.page()
    ben = pages.page()
    join_through_page(anna, code, "Anna")
    # Anna sees the invite link and a real QR image while she waits.
    assert anna.locator("#invite-link").input_value().endswith(f"/r/{code}")
    wait_for(lambda: anna.evaluate("document.getElementById('qr').naturalWidth") > 0)
    # The test server listens on loopback: the room says the link works here only.
    wait_for(lambda: anna.evaluate("!document.getElementById('invite-local').hidden"))
    anna.locator("#waiting").wait_for(state="visible")
    assert anna.locator("#room-rules").inner_text() == "Slapjack · Classic · Time limit: 7 s"
    join_through_page(ben, code, "Ben")

    players = [(anna, "keys"), (ben, "pointer")]
    slapped: dict[int, set[int]] = {0: set(), 1: set()}
    flipped: dict[int, set[int]] = {0: set(), 1: set()}
    deadline = time.monotonic() + 40
    saw_jack = False
    jacks_seen = 0
    mid_shot = False
    while time.monotonic() < deadline:
        states = [table_state(p) for p, _ in players]
        if all(s["endShown"] for s in states):
            break
        # A Jack: both slap, after a human-ish reaction (above the anticipation
        # floor); Anna with her key, Ben with a click on the pile.
        jack = next(
            (st["flip"] for st in states if (st["top"] or "").startswith("J") and not st["over"]),
            None,
        )
        if jack is not None and jack not in slapped[0] | slapped[1]:
            saw_jack = True
            seen = time.monotonic()
            # Until both pages show it (they get the same update a moment apart).
            while time.monotonic() - seen < 0.1 and not all(
                table_state(p)["flip"] == jack for p, _ in players
            ):
                time.sleep(0.01)
            time.sleep(max(0.0, 0.15 - (time.monotonic() - seen)))
            # Take turns at slapping first: the first slap always counts, a slap
            # arriving after the race window closed would not.
            jacks_seen += 1
            for i in sorted(range(2), reverse=jacks_seen % 2 == 0):
                page, how = players[i]
                slapped[i].add(jack)
                if how == "keys":
                    page.keyboard.press("j")
                else:
                    click_now(page, "#table .pile")
            continue
        for i, ((page, how), st) in enumerate(zip(players, states, strict=True)):
            if st["myTurn"] and not st["over"] and st["flip"] not in flipped[i]:
                flipped[i].add(st["flip"])
                if how == "keys":
                    page.keyboard.press("Space")
                else:
                    click_now(page, "#my-stack")
        if saw_jack and not mid_shot and states[0]["flip"] and states[0]["flip"] > 3:
            shot(anna, "room-playing")
            mid_shot = True
        time.sleep(0.03)
    assert saw_jack
    for page, _ in players:
        page.locator("#end").wait_for(state="visible")
        rows = page.locator("#ranking tr")
        assert rows.count() == 3
        assert page.locator("#end-title").inner_text()
    # The end dialog links to the stored game's replay.
    anna.locator("#replay-link").wait_for(state="visible")
    replay_href = anna.locator("#replay-link").get_attribute("href") or ""
    assert re.fullmatch(r"/replay/\d+", replay_href), replay_href
    shot(anna, "room-end")
    log = anna.locator("#log").inner_text()
    assert "wins the pile" in log and "Time is up" in log
    # Both people flipped by themselves at least once; both slapped the Jack.
    assert flipped[0] and flipped[1] and slapped[0] and slapped[1]
    # Both people's slaps reached the referee: each has a median reaction time.
    for name in ("Anna", "Ben"):
        median = anna.locator("#ranking tr", has_text=name).locator("td").last.inner_text()
        assert median.endswith(" ms"), (name, median)

    # Rematch keeps the seats.
    before = seat_names(anna)
    anna.locator("#rematch-btn").click()
    ben.locator("#rematch-btn").click()
    for page, _ in players:
        page.locator("#end").wait_for(state="hidden")
    wait_for(lambda: table_state(anna)["flip"] is not None and not table_state(anna)["over"])
    assert seat_names(anna) == before
    assert seat_names(ben) == seat_names(anna)

    # The finished game is in the history and steps card by card in the replay viewer.
    open_page(anna, "/history")
    # Per-name statistics: Anna's name is remembered from the join form.
    assert anna.locator("#stats-name").input_value() == "Anna"
    anna.locator("#stats-out .stat").first.wait_for()
    stats = anna.locator("#stats-out").inner_text()
    assert "games" in stats and "Jacks won" in stats and "median reaction" in stats
    # The lookup does not care about case: "aNNA" is Anna.
    anna.locator("#stats-name").fill("aNNA")
    anna.locator("#stats-name").press("Enter")
    wait_for(lambda: anna.locator("#stats-out").inner_text() == stats)
    row = anna.locator("#games tr", has_text="Ben").first
    row.wait_for()
    shot(anna, "history", full_page=True)
    row.get_by_role("link", name="Replay").click()
    anna.wait_for_url(f"**{replay_href}")
    anna.locator("#pos").wait_for()
    assert "step 0 of" in anna.locator("#pos").inner_text()
    anna.keyboard.press("PageDown")
    anna.keyboard.press("PageDown")
    assert anna.locator("#table .pile .card.top").count() == 1
    wait_for(lambda: anna.locator("#table").get_attribute("data-flip") == "2")
    # Autoplay (P) steps on by itself; P again pauses.
    before_play = anna.locator("#pos").inner_text()
    anna.keyboard.press("p")
    wait_for(lambda: anna.locator("#pos").inner_text() != before_play, timeout=5)
    anna.keyboard.press("p")
    assert anna.locator("#play").inner_text() == "Play"
    anna.keyboard.press("End")
    wait_for(lambda: "Time is up" in anna.locator("#step-events").inner_text())
    shot(anna, "replay-end")
    href = anna.locator("#download").get_attribute("href")
    record = anna.request.get(href).json()
    assert record["format"] == "slapjack-record/1"
    assert record["players"][:2] == ["Anna", "Ben"]


def test_play_now_seats_you_with_three_bots(server: Server, pages: Pages, shot: Any) -> None:
    page = pages.page()
    open_page(page, "/")
    page.locator("#name").fill("Clara")
    assert page.locator("#level").input_value() == "casual"  # the default a newcomer can beat
    page.locator("#level").select_option("matched")
    page.get_by_role("button", name="Play now").click()
    page.wait_for_url("**/r/*")
    code = page.url.rsplit("/", 1)[-1]
    bots = [s["bot"] for s in server.api("GET", f"/api/rooms/{code}")["seats"]]
    assert bots == [None, "matched", "matched", "matched"]
    page.locator("#table .seat").nth(3).wait_for()
    assert page.locator("#table .seat").count() == 4
    assert page.locator("#table .seat.bot").count() == 3
    assert page.locator("#table .seat.me .who").inner_text() == "Clara"
    assert page.locator("#controls").is_visible()
    assert page.locator("#spectating").is_hidden()
    # Seat 0 flips first: it is Clara's turn; Space flips her card.
    wait_for(lambda: table_state(page)["myTurn"])
    page.keyboard.press("Space")
    wait_for(lambda: (table_state(page)["flip"] or 0) >= 1)
    assert page.locator("#table .pile .card.top").count() == 1
    shot(page, "play-now")
    open_page(page, "/")  # the level chosen last time is offered again
    assert page.locator("#level").input_value() == "matched"


def test_play_now_names_the_room_in_the_pages_language(server: Server, pages: Pages) -> None:
    page = pages.page(pages.context(locale="de-DE"))
    open_page(page, "/")
    page.locator("#name").fill("Jörg")
    page.locator("#play-now").click()
    page.wait_for_url("**/r/*")
    code = page.url.rsplit("/", 1)[-1]
    assert server.api("GET", f"/api/rooms/{code}")["name"] == "Jörg gegen Bots"
    wait_for(lambda: "Jörg gegen Bots" in page.locator("body").inner_text())


def test_reopening_the_link_reconnects_to_the_seat(server: Server, pages: Pages) -> None:
    ctx = pages.context()
    page = pages.page(ctx)
    open_page(page, "/")
    page.locator("#name").fill("Dora")
    page.locator("#play-now").click()
    page.wait_for_url("**/r/*")
    url = page.url
    wait_for(lambda: table_state(page)["flip"] is not None)
    page.close()
    # The lobby lists the table under "Your tables"; its link leads back to the seat.
    again = pages.page(ctx)
    open_page(again, "/")
    code = url.rsplit("/", 1)[1]
    mine = again.locator(f'#my-rooms li[data-code="{code}"]')
    mine.wait_for()
    assert "Dora" in mine.inner_text()
    mine.get_by_role("link", name="Back to my seat").click()
    again.wait_for_url(f"**/r/{code}")
    again.locator("#table .seat.me").wait_for()
    assert again.locator("#join").is_hidden()
    assert again.locator("#table .seat.me .who").inner_text() == "Dora"
    assert again.locator("#controls").is_visible()
    # The reconnected seat plays on: its flips are accepted.
    wait_for(lambda: table_state(again)["myTurn"], timeout=20)
    flip = table_state(again)["flip"]
    again.keyboard.press("Space")
    wait_for(lambda: table_state(again)["flip"] > flip)


def test_a_spectator_sees_the_table_but_cannot_play(
    server: Server, pages: Pages, shot: Any
) -> None:
    player = pages.page()
    open_page(player, "/")
    player.locator("#name").fill("Emil")
    player.locator("#play-now").click()
    player.wait_for_url("**/r/*")
    code = player.url.rsplit("/", 1)[1]
    watcher = pages.page()
    open_page(watcher, f"/r/{code}?watch=1")
    watcher.locator("#spectating").wait_for(state="visible")
    # The player sees that someone is watching.
    player.locator("#watchers").wait_for(state="visible")
    assert player.locator("#watchers").text_content() == "1 watching"
    watcher.locator("#table .seat").nth(3).wait_for()
    assert watcher.locator("#controls").is_hidden()
    assert watcher.locator("#table .seat.me").count() == 0
    assert watcher.locator("#table .pile").get_attribute("role") == "img"
    # The game goes on under the watcher's eyes.
    wait_for(lambda: table_state(player)["myTurn"], timeout=20)
    player.keyboard.press("Space")
    wait_for(lambda: (table_state(watcher)["flip"] or 0) >= 2, timeout=25)
    # Keys do nothing for a watcher: no slap or flip is sent, no error comes back.
    watcher.keyboard.press("j")
    watcher.keyboard.press("Space")
    assert watcher.locator("#my-result").inner_text() == ""
    assert watcher.locator("#table .card.face").count() <= 5
    shot(watcher, "spectator")


def test_create_a_room_in_the_lobby_and_join_by_code(
    server: Server, pages: Pages, shot: Any
) -> None:
    host = pages.page()
    open_page(host, "/")
    host.locator("#name").fill("Fritz")
    host.locator("#room-name").fill("Irish evening")
    host.locator("#game").select_option("irish-snap")
    assert host.locator("#opt-irish_goal").is_visible()
    assert host.locator("#opt-after_jack").count() == 0
    assert host.locator("#time-limit").is_disabled()
    host.locator("#preset").select_option("irish-snap-winner")
    assert host.locator("#opt-irish_goal").input_value() == "first_out"
    host.locator("#seats").fill("3")
    selects = host.locator("#seat-grid select")
    assert selects.count() == 2
    selects.nth(0).select_option("human")
    selects.nth(1).select_option("pro")
    host.locator("#public").uncheck()
    shot(host, "lobby-create", full_page=True)
    host.get_by_role("button", name="Create and sit down").click()
    host.wait_for_url("**/r/*")
    code = host.url.rsplit("/", 1)[1]
    host.locator("#waiting").wait_for(state="visible")
    assert host.locator("#room-code").inner_text() == code
    assert "1 seat still free" in host.locator("#waiting-info").inner_text()
    wait_for(lambda: host.evaluate("document.getElementById('qr').naturalWidth") > 0)
    shot(host, "room-waiting")

    guest = pages.page()
    open_page(guest, "/")
    guest.locator("#code").fill(code.lower())
    guest.get_by_role("button", name="Join", exact=True).click()
    guest.wait_for_url(f"**/r/{code}")
    guest.locator("#join-name").fill("Greta")
    guest.locator("#join-btn").click()
    for page in (host, guest):
        page.locator("#table .seat").nth(2).wait_for()
        page.locator("#table .call-banner").wait_for(state="visible")
    assert host.locator("#room-rules").inner_text() == "Irish Snap · Irish Snap: first out wins"
    assert seat_names(guest) == ["Fritz", "Greta", "Pro bot 3"]


def test_public_rooms_are_listed_live_in_the_lobby(server: Server, pages: Pages) -> None:
    page = pages.page()
    open_page(page, "/")
    page.locator("#rooms-title").wait_for()
    created = server.api(
        "POST", "/api/rooms", json={"name": "Open to all", "seats": 3, "public": True}
    )
    item = page.locator(f'#rooms li[data-code="{created["code"]}"]')
    item.wait_for(timeout=8000)  # the lobby polls every few seconds
    assert "Open to all" in item.inner_text()
    assert "0 of 3 seated, 3 free" in item.inner_text()
    item.get_by_role("link", name="Join").click()
    page.wait_for_url(f"**/r/{created['code']}")
    page.locator("#join").wait_for(state="visible")


def test_say_it_needs_the_call_key(server: Server, pages: Pages) -> None:
    """Say-it: a slap with the "Slapjack!" call (K) wins the Jack; without it the
    pile is forfeited. The bot's first two cards are Jacks."""
    code = server.hook_room(
        {"seats": 2, "bots": {"1": "beginner"}, "rules": {"preset": "say-it"}, "public": False},
        deck=stacked_deck(["5C", "JS", "KD", "JH"]),
    )
    page = pages.page()
    join_through_page(page, code, "Lena")
    page.locator("#call-btn").wait_for(state="visible")
    assert "K" in page.locator("#call-btn").inner_text()

    def slap_next_jack(call: bool, after: int) -> int:
        """Flip on Lena's turn until a Jack flipped after flip ``after`` is on
        top (not the last one still shown while its pile goes to its winner),
        then slap it; its flip."""
        deadline = time.monotonic() + 20
        while True:
            state = table_state(page)
            if (state["top"] or "").startswith("J") and (state["flip"] or 0) > after:
                break
            assert time.monotonic() < deadline, f"no new Jack: {state}"
            if state["myTurn"]:
                page.keyboard.press("Space")
            page.wait_for_timeout(50)
        page.wait_for_timeout(150)
        if call:
            page.keyboard.press("k")
        page.keyboard.press("j")
        return int(state["flip"])

    first = slap_next_jack(call=True, after=0)
    wait_for(lambda: "Lena wins the pile" in page.locator("#log").inner_text())
    slap_next_jack(call=False, after=first)
    wait_for(lambda: "Lena forfeits" in page.locator("#log").inner_text())


def test_keys_can_be_rebound_and_flips_are_announced(server: Server, pages: Pages) -> None:
    ctx = pages.context(reduced_motion="reduce")
    page = pages.page(ctx)
    open_page(page, "/")
    page.locator("#name").fill("Mia")
    page.locator("#play-now").click()
    page.wait_for_url("**/r/*")
    page.locator("#table .seat").nth(3).wait_for()
    # Rebind the flip key to F with the keyboard alone.
    page.locator("#keys-panel summary").click()
    page.get_by_role("button", name="Change the key for: Flip").click()
    page.keyboard.press("f")
    assert page.locator("#key-list").inner_text().count("F") >= 1
    stored = page.evaluate("JSON.parse(localStorage.getItem('slapjack.keys'))")
    assert stored["flip"] == "f"
    page.locator("#main").click(position={"x": 5, "y": 5})
    wait_for(lambda: table_state(page)["myTurn"], timeout=20)
    page.keyboard.press("f")
    wait_for(lambda: (table_state(page)["flip"] or 0) >= 1)
    # The aria-live region says what was turned up.
    wait_for(lambda: "turns up" in (page.locator("#live").text_content() or ""))
    # Reduced motion: the card lands without an animation.
    wait_for(lambda: table_state(page)["top"] is not None)
    duration = page.locator("#table .pile .card.top").evaluate(
        "el => parseFloat(getComputedStyle(el).animationDuration)"
    )
    assert duration < 0.01
    # Suits by colour and symbol: every face shows its suit symbol, red suits red.
    # The face is one element drawn by an SVG image: its symbols and ink are in it.
    face = page.locator("#table .pile .card.top")
    symbol = face.get_attribute("data-suit") or ""
    assert symbol and symbol in "♣♦♥♠"
    drawn = face.evaluate("el => decodeURIComponent(getComputedStyle(el).backgroundImage)")
    assert drawn.count(symbol) >= 3  # both corners and the centre
    assert ("#c62828" in drawn) == (symbol in "♦♥")
    assert ("#1a1a1a" in drawn) == (symbol in "♣♠")
    colour = face.evaluate("el => getComputedStyle(el).color")
    assert (colour == "rgb(198, 40, 40)") == (symbol in "♦♥")


def test_start_now_fills_free_seats_with_bots(server: Server, pages: Pages) -> None:
    code = server.api(
        "POST",
        "/api/rooms",
        json={
            "seats": 3,
            "tempo": "fixed",
            "turn_seconds": 1,
            "public": False,
            "rules": {"preset": "classic", "tie": "split"},
        },
    )["code"]
    page = pages.page()
    join_through_page(page, code, "Nora")
    page.locator("#start-btn").wait_for(state="visible")
    assert "2 seats still free" in page.locator("#waiting-info").inner_text()
    # The house rule on top of the preset is named in the room's header.
    assert page.locator("#room-rules").inner_text() == (
        "Slapjack · Classic · Exact tie: Share the pile"
    )
    page.locator("#start-btn").click()
    page.locator("#table .seat").nth(2).wait_for()
    assert page.locator("#table .seat.bot").count() == 2
    # Fixed tempo: the table flips for everyone; Nora's stack offers no flip.
    assert page.locator("#flip-hint").inner_text() == "The table flips by itself"
    wait_for(lambda: (table_state(page)["flip"] or 0) >= 2, timeout=10)


def test_an_unknown_room_says_so(server: Server, pages: Pages) -> None:
    pages.allow("status of 404")  # GET /api/rooms/ZZZZZZ
    page = pages.page()
    open_page(page, "/")
    page.locator("#code").fill("zzzzzz")
    page.locator("#code-form button").click()
    page.wait_for_url("**/r/ZZZZZZ")
    page.locator("#missing").wait_for(state="visible")
    assert page.locator("#game").is_hidden()


def test_the_page_speaks_the_protocol(server: Server, pages: Pages) -> None:
    """Frames on the wire: hello first, every ping answered by a pong at once, and a
    slap carrying its flip_id, both stamps and reaction_ms = input_at - shown_at."""
    import json

    page = pages.page()
    sent: list[tuple[float, dict[str, Any]]] = []
    received: list[tuple[float, dict[str, Any]]] = []

    def on_socket(ws: Any) -> None:
        ws.on("framesent", lambda f: sent.append((time.monotonic(), json.loads(f))))
        ws.on("framereceived", lambda f: received.append((time.monotonic(), json.loads(f))))

    page.on("websocket", on_socket)
    open_page(page, "/")
    page.locator("#name").fill("Otto")
    page.locator("#play-now").click()
    page.wait_for_url("**/r/*")
    wait_for(lambda: table_state(page)["myTurn"], timeout=20)
    page.keyboard.press("Space")
    wait_for(lambda: (table_state(page)["flip"] or 0) >= 1)
    page.wait_for_timeout(200)
    page.keyboard.press("j")
    wait_for(lambda: any(m["type"] == "slap" for _, m in sent))
    wait_for(lambda: sum(m["type"] == "ping" for _, m in received) >= 3, timeout=10)
    page.wait_for_timeout(100)

    assert sent[0][1]["type"] == "hello" and sent[0][1]["v"] == 1
    token = sent[0][1]["token"]
    assert isinstance(token, str) and token
    pongs = {m["id"]: at for at, m in sent if m["type"] == "pong"}
    for at, ping in ((at, m) for at, m in received if m["type"] == "ping"):
        assert ping["id"] in pongs, ping
        assert pongs[ping["id"]] - at < 0.5
    flips = [m for _, m in sent if m["type"] == "flip"]
    assert flips and flips[0] == {"v": 1, "type": "flip", "token": token, "flip_id": 0}
    slap = next(m for _, m in sent if m["type"] == "slap")
    assert slap["token"] == token and slap["call"] is False
    assert slap["flip_id"] >= 1
    assert slap["input_at"] >= slap["shown_at"] > 0
    assert abs(slap["reaction_ms"] - (slap["input_at"] - slap["shown_at"])) < 0.01
    # The views the page got list face-up centre cards only; stacks are counts.
    views = [m["view"] for _, m in received if m["type"] == "update" and m["view"]]
    assert views
    for view in views:
        assert all(isinstance(n, int) for n in view["stacks"])
        assert len(view["centre_top"]) <= view["centre_size"] - view["centre_face_down"]


def test_keyboard_alone_from_the_lobby_to_a_flip(server: Server, pages: Pages) -> None:
    page = pages.page()
    open_page(page, "/")
    # Tab through the page: the skip link comes first, focus is always visible.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    for _ in range(15):
        if page.evaluate("document.activeElement.id") == "name":
            break
        page.keyboard.press("Tab")
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none", page.evaluate("document.activeElement.outerHTML")
    assert page.evaluate("document.activeElement.id") == "name"
    page.keyboard.type("Paula")
    page.keyboard.press("Enter")
    page.wait_for_url("**/r/*")
    page.locator("#table .seat").nth(3).wait_for()
    wait_for(lambda: table_state(page)["myTurn"], timeout=20)
    page.keyboard.press("Space")
    wait_for(lambda: (table_state(page)["flip"] or 0) >= 1)
    # The pile itself is reachable with Tab and slaps with Enter.
    for _ in range(30):
        if page.evaluate("document.activeElement.classList.contains('pile')"):
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('role')") == "button"
    slap_when_a_card_shows(page, lambda: page.keyboard.press("Enter"))


def test_leaving_the_seat_hands_it_to_a_bot(server: Server, pages: Pages) -> None:
    page = pages.page()
    page.on("dialog", lambda dialog: pytest.fail(f"a browser dialog: {dialog.message}"))
    open_page(page, "/")
    page.locator("#name").fill("Quinn")
    page.locator("#play-now").click()
    page.wait_for_url("**/r/*")
    page.locator("#table .seat.me").wait_for()
    # Two steps, in the page (no browser dialog): "Leave my seat", then "Really leave?".
    page.locator("#leave-btn").click()
    assert page.locator("#leave-btn").inner_text() == "Really leave? A bot takes over"
    assert page.locator("#spectating").is_hidden()
    page.locator("#leave-btn").click()
    page.locator("#spectating").wait_for(state="visible")
    assert page.locator("#controls").is_hidden()
    assert (
        page.evaluate("Object.keys(localStorage).some(k => k.startsWith('slapjack.seat.'))")
        is False
    )
    # Quinn's seat is played by a bot now: four bot tags round the table.
    wait_for(lambda: page.locator("#table .seat.bot").count() == 4)


def test_a_room_nobody_named_is_named_in_the_pages_language(server: Server, pages: Pages) -> None:
    """The server names a room nobody named "Room K7Q2PX" (docs/protocol.md);
    a German page says "Raum K7Q2PX": on the join form, at the table and in
    the lobby's list. A name somebody gave stays as given."""
    code = server.api("POST", "/api/rooms", json={"seats": 3, "public": True})["code"]
    named = server.api("POST", "/api/rooms", json={"name": "Room night", "public": True})
    page = pages.page(pages.context(locale="de-DE"))
    open_page(page, "/")
    item = page.locator(f'#rooms li[data-code="{code}"] .room-title')
    item.wait_for(timeout=8000)  # the lobby polls every few seconds
    assert item.inner_text() == f"Raum {code}"
    other = page.locator(f'#rooms li[data-code="{named["code"]}"] .room-title')
    assert other.inner_text() == "Room night"
    open_page(page, f"/r/{code}")
    wait_for(lambda: f"Raum {code}" in page.locator("#join-info").inner_text())
    page.locator("#join-name").fill("Jörg")
    page.locator("#join-btn").click()
    page.locator("#game").wait_for()
    wait_for(lambda: page.locator("#room-name").inner_text() == f"Raum {code}")
    assert f"Room {code}" not in page.locator("body").inner_text()
