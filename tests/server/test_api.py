"""The HTTP API: lobby, rooms, invite QR code, history, stats, rules, pages."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from slapjack.server.lobby import CODE_ALPHABET, CODE_LENGTH

from .conftest import LiveServer


@pytest.fixture
async def http(live: LiveServer) -> httpx.AsyncClient:
    async with httpx.AsyncClient(base_url=live.url) as client:
        yield client  # type: ignore[misc]


async def test_create_list_join_and_fill_a_room(http: httpx.AsyncClient) -> None:
    r = await http.post(
        "/api/rooms",
        json={
            "name": "Friday table",
            "game": "slapjack",
            "rules": {"preset": "klatsch-bube", "tie": "reslap"},
            "seats": 3,
            "bots": {"2": "pro"},
            "tempo": "turn_timer",
            "turn_seconds": 4,
            "public": True,
        },
    )
    assert r.status_code == 200, r.text
    code = r.json()["code"]
    assert r.json()["url"] == f"/r/{code}"
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    listed = (await http.get("/api/rooms")).json()["rooms"]
    mine = next(room for room in listed if room["code"] == code)
    assert mine["free_seats"] == 2
    assert mine["rules"] == {"preset": "klatsch-bube", "tie": "reslap"}
    assert mine["seats"][2]["bot"] == "pro"
    # codes are case-insensitive
    info = (await http.get(f"/api/rooms/{code.lower()}")).json()
    assert info["name"] == "Friday table" and info["status"] == "waiting"
    first = (await http.post(f"/api/rooms/{code}/join", json={"name": "Anna"})).json()
    second = (await http.post(f"/api/rooms/{code}/join", json={"name": "Anna"})).json()
    assert (first["seat"], second["seat"]) == (0, 1)
    assert second["name"] == "Anna 2"
    assert first["token"] != second["token"] and len(first["token"]) >= 24
    full = await http.post(f"/api/rooms/{code}/join", json={"name": "Carla"})
    assert full.status_code == 409 and full.json()["code"] == "room_full"
    listed = (await http.get("/api/rooms")).json()["rooms"]
    assert all(room["code"] != code for room in listed)
    everything = (await http.get("/api/rooms", params={"all": True})).json()["rooms"]
    assert any(room["code"] == code for room in everything)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"rules": {"preset": "nope"}}, "unknown_preset"),
        ({"rules": {"tie": "coinflip"}}, "bad_option"),
        ({"game": "irish-snap", "rules": {"preset": "classic"}}, "impossible_combination"),
        ({"seats": 1}, "bad_request"),
        ({"seats": 11}, "bad_request"),
        ({"seats": 2, "bots": {"5": "pro"}}, "bad_request"),
        ({"bots": {"1": "godlike"}}, "bad_request"),
        ({"turn_seconds": 0}, "bad_request"),
        ({"colour": "red"}, "bad_request"),
    ],
)
async def test_bad_room_settings_are_refused(
    http: httpx.AsyncClient, body: dict[str, object], code: str
) -> None:
    r = await http.post("/api/rooms", json=body)
    assert r.status_code == 422
    assert r.json()["code"] == code
    assert r.json()["message"]


async def test_private_rooms_are_not_listed(http: httpx.AsyncClient) -> None:
    code = (await http.post("/api/rooms", json={"public": False})).json()["code"]
    everything = (await http.get("/api/rooms", params={"all": True})).json()["rooms"]
    assert all(room["code"] != code for room in everything)
    assert (await http.get(f"/api/rooms/{code}")).status_code == 200


async def test_unknown_rooms(http: httpx.AsyncClient) -> None:
    assert (await http.get("/api/rooms/ZZZZZZ")).json()["code"] == "unknown_room"
    r = await http.post("/api/rooms/ZZZZZZ/join", json={"name": "A"})
    assert r.status_code == 404
    assert (await http.get("/api/rooms/ZZZZZZ/qr.svg")).status_code == 404


async def test_join_needs_a_name(http: httpx.AsyncClient) -> None:
    code = (await http.post("/api/rooms", json={})).json()["code"]
    for body in ({}, {"name": ""}, {"name": "x" * 25}, {"name": 5}):
        r = await http.post(f"/api/rooms/{code}/join", json=body)
        assert r.status_code == 422, body


async def test_play_now_gives_a_seat_against_three_bots(http: httpx.AsyncClient) -> None:
    joined = (await http.post("/api/play-now", json={"name": "Solo"})).json()
    assert joined["seat"] == 0 and joined["name"] == "Solo"
    info = (await http.get(f"/api/rooms/{joined['code']}")).json()
    assert [s["bot"] for s in info["seats"]] == [None, "casual", "casual", "casual"]
    assert info["preset"] == "classic" and info["public"] is False
    assert info["name"] == "Solo vs bots"
    # the room is named in the player's language; another language is refused
    joined = (await http.post("/api/play-now", json={"name": "Jörg", "lang": "de"})).json()
    info = (await http.get(f"/api/rooms/{joined['code']}")).json()
    assert info["name"] == "Jörg gegen Bots"
    refused = await http.post("/api/play-now", json={"name": "Jörg", "lang": "fr"})
    assert refused.status_code == 422 and refused.json()["code"] == "bad_request"


async def test_qr_code_is_an_svg_of_the_invite_link(http: httpx.AsyncClient) -> None:
    code = (await http.post("/api/rooms", json={})).json()["code"]
    r = await http.get(f"/api/rooms/{code}/qr.svg")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith("<svg") and "<path" in r.text


async def test_history_and_stats_of_unknown_things(http: httpx.AsyncClient) -> None:
    r = await http.get("/api/games/999999")
    assert r.status_code == 404 and r.json()["code"] == "unknown_game"
    assert (await http.get("/api/games", params={"limit": 0})).status_code == 422
    stats = (await http.get("/api/stats/Nobody-Here")).json()
    assert stats["name"] == "Nobody-Here" and stats["games"] == 0
    # looked up in the form names are kept in (NFKC)
    stats = (await http.get("/api/stats/\uff2eobody\u00a0 Here")).json()
    assert stats["name"] == "Nobody Here"
    games = await http.get("/api/games", params={"player": "\uff2eobody"})
    assert games.status_code == 200 and games.json()["total"] == 0


async def test_stats_and_history_of_a_name_in_another_case(tmp_path: Path) -> None:
    """The stats and the history filter find ``Änne`` as ``änne`` or ``ÄNNE``
    (the store's own tests cover both stores); no game is ``games: 0``."""
    from tests.store.conftest import play

    from slapjack.server import create_app
    from slapjack.store import SqliteStore

    store = await SqliteStore.open(tmp_path / "games.db")
    table, _ = play(5, names=("Änne", "Ben"))
    await store.finish_game(None, table.record.to_dict())
    app = create_app(store=store)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as client,
    ):
        exact = (await client.get("/api/stats/Änne")).json()
        assert exact["games"] == 1 and exact["slaps"] > 0
        for other in ("änne", "ÄNNE"):
            stats = (await client.get(f"/api/stats/{other}")).json()
            assert {k: v for k, v in stats.items() if k != "name"} == {
                k: v for k, v in exact.items() if k != "name"
            }
            games = (await client.get("/api/games", params={"player": other})).json()
            assert games["total"] == 1 and games["games"][0]["players"] == ["Änne", "Ben"]
        assert (await client.get("/api/stats/Anne")).json()["games"] == 0
    await store.close()


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_rules_text_per_preset(http: httpx.AsyncClient, lang: str) -> None:
    texts = set()
    for preset in ("classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"):
        r = await http.get(f"/api/rules/{preset}", params={"lang": lang})
        assert r.status_code == 200
        text = r.json()["markdown"]
        assert text.startswith("# ")
        texts.add(text)
    assert len(texts) == 5
    assert (await http.get("/api/rules/nope")).status_code == 404
    assert (await http.get("/api/rules/classic", params={"lang": "xx"})).status_code == 404


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_browser_gets_its_words(http: httpx.AsyncClient, lang: str) -> None:
    """``GET /api/words/{lang}``: the catalogue's shared and ``web.*`` words, cached by ETag."""
    from slapjack.texts import words

    r = await http.get(f"/api/words/{lang}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    table = r.json()
    assert table["room.slap"] == words(lang)["web.room.slap"]
    assert table["opt.tie.split"] == words(lang)["opt.tie.split"]
    assert not any(k.startswith(("web.", "tui.")) for k in table)
    again = await http.get(f"/api/words/{lang}", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and not again.content
    assert (await http.get("/api/words/xx")).status_code == 404


async def test_pages_and_static_files_are_served(http: httpx.AsyncClient) -> None:
    for path in ("/", "/r/ABCDEF", "/party", "/history", "/replay/1", "/rules"):
        r = await http.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html")
        assert re.search(r"<html", r.text, re.I)
    css = await http.get("/static/css/app.css")
    assert css.status_code == 200 and "text/css" in css.headers["content-type"]
    assert (await http.get("/static/nope.js")).status_code == 404


async def test_a_missing_page_is_named(tmp_path: Path) -> None:
    from slapjack.server import create_app

    app = create_app(data_dir=tmp_path, static_dir=tmp_path / "empty")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        r = await client.get("/party")
    assert r.status_code == 404 and r.json() == {
        "code": "no_page",
        "message": "the client page party.html is missing",
    }


# ------------------------------------------------------------------ names

BAD_NAMES = [
    ("Anna\u202e", "U+202E"),  # a bidi override
    ("\u202eannA", "U+202E"),
    ("An\u200bna", "U+200B"),  # zero-width space
    ("An\u200dna", "U+200D"),  # zero-width joiner
    ("Anna\x00", "U+0000"),
    ("An\nna", "U+000A"),
    ("An\tna", "U+0009"),
    ("\ufeffAnna", "U+FEFF"),
    ("Anna\u00ad", "U+00AD"),  # soft hyphen
    ("Anna\u2028", "U+2028"),
    ("Anna\ue000", "U+E000"),  # private use
    ("\u3164", "U+3164"),  # Hangul filler only
    ("\u3164\u3164 ", "U+3164"),
    ("Anna\u3164", "U+3164"),
    ("\u2800", "U+2800"),  # the blank Braille pattern
    ("\u0301\u0301", "shows nothing"),  # combining marks only
    ("\u0301Anna", "combining mark"),
    ("Z" + "\u0301" * 5, "combining marks"),
    ("     ", "empty"),
    ("\u00a0\u2003", "empty"),  # spaces of other kinds
    ("x" * 25, "longer than 24"),
]


@pytest.mark.parametrize(("name", "why"), BAD_NAMES)
async def test_bad_player_names_are_refused(http: httpx.AsyncClient, name: str, why: str) -> None:
    code = (await http.post("/api/rooms", json={})).json()["code"]
    for path in (f"/api/rooms/{code}/join", "/api/play-now"):
        r = await http.post(path, json={"name": name})
        assert r.status_code == 422, (path, r.text)
        body = r.json()
        assert set(body) == {"code", "message"}
        assert body["code"] == "bad_name", body
        assert why in body["message"], body
    if why not in ("empty", "longer than 24"):  # a room name may be empty, and 40 long
        r = await http.post("/api/rooms", json={"name": name})
        assert r.status_code == 422 and r.json()["code"] == "bad_name", r.text
        assert "room name" in r.json()["message"]


async def test_names_are_nfkc_normalised(http: httpx.AsyncClient) -> None:
    code = (await http.post("/api/rooms", json={"name": "  Ｆｒｉｄａｙ   table "})).json()["code"]
    assert (await http.get(f"/api/rooms/{code}")).json()["name"] == "Friday table"
    first = (await http.post(f"/api/rooms/{code}/join", json={"name": "Anna"})).json()
    # fullwidth letters and a decomposed é look like names already taken: they are
    second = (await http.post(f"/api/rooms/{code}/join", json={"name": "\uff21nna"})).json()
    assert (first["name"], second["name"]) == ("Anna", "Anna 2")
    third = (await http.post(f"/api/rooms/{code}/join", json={"name": "Zoe\u0308"})).json()
    assert third["name"] == "Zo\u00eb"
    fourth = (await http.post(f"/api/rooms/{code}/join", json={"name": "東京 😀"})).json()
    assert fourth["name"] == "東京 😀"


async def test_a_taken_long_name_stays_within_24_characters(http: httpx.AsyncClient) -> None:
    code = (await http.post("/api/rooms", json={})).json()["code"]
    names = [
        (await http.post(f"/api/rooms/{code}/join", json={"name": "x" * 24})).json()["name"]
        for _ in range(3)
    ]
    assert names == ["x" * 24, "x" * 22 + " 2", "x" * 22 + " 3"]


# ------------------------------------------------------------ error bodies


@pytest.mark.parametrize(
    ("content", "headers", "status", "code"),
    [
        (b'{"name": "A"', {"content-type": "application/json"}, 400, "bad_json"),
        (b"[" * 5000 + b"]" * 5000, {"content-type": "application/json"}, 400, "bad_json"),
        (
            b'{"a":' * 3000 + b"1" + b"}" * 3000,
            {"content-type": "application/json"},
            400,
            "bad_json",
        ),
        (b"\xff\xfe", {"content-type": "application/json"}, 400, "bad_json"),
        (b'{"name": "A"}', {"content-type": "text/plain"}, 400, "bad_content_type"),
        (b"name=A", {"content-type": "application/x-www-form-urlencoded"}, 400, "bad_content_type"),
        (b"[1, 2]", {"content-type": "application/json"}, 422, "bad_request"),
        (b'{"name": 5}', {"content-type": "application/json"}, 422, "bad_request"),
        (b"", {"content-type": "application/json"}, 422, "bad_request"),
    ],
)
async def test_bodies_that_do_not_parse(
    http: httpx.AsyncClient, content: bytes, headers: dict[str, str], status: int, code: str
) -> None:
    room = (await http.post("/api/rooms", json={})).json()["code"]
    r = await http.post(f"/api/rooms/{room}/join", content=content, headers=headers)
    assert r.status_code == status, r.text
    assert set(r.json()) == {"code", "message"}
    assert r.json()["code"] == code and r.json()["message"]


async def test_framework_errors_have_the_documented_shape(http: httpx.AsyncClient) -> None:
    r = await http.get("/api/nothing-here")
    assert r.status_code == 404 and r.json() == {"code": "not_found", "message": "Not Found"}
    r = await http.delete("/api/rooms")
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"
    assert r.headers["allow"] == "GET, POST"  # every route of the path, not the first one's
    r = await http.get("/api/play-now")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    r = await http.get("/api/games/not-a-number")
    assert r.status_code == 422 and r.json()["code"] == "bad_request"
    assert "game_id" in r.json()["message"]


async def test_a_server_failure_is_a_500_in_the_documented_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slapjack.server import create_app
    from slapjack.store import SqliteStore

    async def broken(self: object, name: str) -> None:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(SqliteStore, "player_stats", broken)
    app = create_app(data_dir=tmp_path)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as client,
    ):
        r = await client.get("/api/stats/Anna")
    assert r.status_code == 500
    assert r.json() == {
        "code": "internal_error",
        "message": "the server failed on this request (it is logged)",
    }


async def test_the_forms_options_come_from_the_engines_option_table(
    http: httpx.AsyncClient,
) -> None:
    from slapjack.core.rules import OPTION, PRESETS

    got = (await http.get("/api/options")).json()
    assert [o["name"] for o in got["options"]] == list(OPTION)
    assert got["presets"]["klatsch-bube"]["options"]["tie"] == "split"
    assert set(got["presets"]) == set(PRESETS)
    tie = next(o for o in got["options"] if o["name"] == "tie")
    assert tie == {
        "name": "tie",
        "game": "slapjack",
        "type": "choice",
        "choices": ["reslap", "split"],
    }
    assert "matched" in got["bot_levels"] and got["min_seats"] == 2


@pytest.mark.parametrize("headers", [{}, {"content-type": "application/json"}])
async def test_a_room_is_made_from_an_empty_body_as_from_an_empty_object(
    http: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    """Every field of CreateRoom may be left out (protocol.md): the body too."""
    r = await http.post("/api/rooms", content=b"", headers=headers)
    assert r.status_code == 200, r.text
    empty = (await http.get(f"/api/rooms/{r.json()['code']}")).json()
    r = await http.post("/api/rooms", json={})
    default = (await http.get(f"/api/rooms/{r.json()['code']}")).json()
    same = {k for k in default if k not in ("code", "name", "url", "created_at")}
    assert {k: empty[k] for k in same} == {k: default[k] for k in same}
