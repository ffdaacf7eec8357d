"""docs/protocol.md against the code, so the two cannot drift apart: every
message both ways and every HTTP body with exactly its fields (the models of
slapjack.protocol), every view field, every event type with exactly its fields
and values, the room status, every close code, every error code, every limit
with its default."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path
from typing import Any

import pytest

from slapjack.core import Record, Rules, Table, event_to_dict, observe
from slapjack.core.events import Event
from slapjack.protocol import (
    CLIENT_MESSAGES,
    EVENT_MODELS,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    WS_CODES,
    CreateRoom,
    ErrorBody,
    ErrorCode,
    Joined,
    JoinRoom,
    PlayNow,
    Practice,
    RoomCreated,
    RoomInfo,
    RoomPage,
    RoomStatus,
    SeatInfo,
    Timers,
)
from slapjack.server import RoomTiming
from slapjack.server.app import HTTP_CODES
from slapjack.server.connection import Limits

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
SERVER = ROOT / "src" / "slapjack" / "server"
LAYER_CLOSE_CODES = {1007, 1009, 1011, 1012}
"""Close codes the WebSocket layer (uvicorn, websockets) sends, not our code."""


def section(title: str) -> str:
    """The text under the heading ``title`` up to the next heading of its level or above."""
    m = re.search(rf"^(#+) {re.escape(title)}\s*$", DOC, re.M)
    assert m, f"no section {title!r} in docs/protocol.md"
    level = len(m.group(1))
    rest = DOC[m.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def rows(text: str) -> list[list[str]]:
    out = []
    for line in text.splitlines():
        if line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            out.append(cells)
    return out[1:]  # without the header


def names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def games() -> list[Any]:
    out = []
    for game, preset in (("slapjack", "classic"), ("irish-snap", "irish-snap")):
        rules = Rules.from_options({"preset": preset}, game=game)
        out.append(Table(Record.new(rules, ["A", "B", "C"], seed=5)).game)
    return out


def test_every_view_field_is_documented() -> None:
    documented = {names(r[0])[0] for r in rows(section("View"))}
    produced: set[str] = {"flip_id"}  # the server adds it to the engine's view
    for game in games():
        for seat in (None, 0):
            produced |= set(observe(game, seat).to_dict())
    assert documented == produced


SAMPLES: dict[str, Any] = {
    "seat": 0,
    "card": 0,
    "call": None,
    "match": False,
    "reaction_ms": 200.0,
    "penalty": "pay_pile",
    "to": None,
    "winner": 1,
    "cards": 3,
    "reactions": ((1, 200.0),),
    "seats": (0, 1),
    "shares": ((0, 2), (1, 1)),
    "reason": "no_cards",
    "winners": (1,),
    "loser": None,
}


def test_every_event_is_documented_with_exactly_its_fields() -> None:
    documented = {}
    for cells in rows(section("Events")):
        documented[names(cells[0])[0]] = set(names(cells[1]))
    produced = {}
    for cls in typing.get_args(Event):
        event = cls(**{f.name: SAMPLES[f.name] for f in dataclasses.fields(cls)})
        data = event_to_dict(event)
        kind = data.pop("type")
        produced[kind] = set(data)
    assert documented == produced


def server_source() -> str:
    """The server's modules, its routes included."""
    return "\n".join(p.read_text() for p in sorted(SERVER.rglob("*.py")))


def game_source() -> str:
    """The server and the live table it runs (whose refusals reach the clients)."""
    live = SERVER.parent / "live"
    return server_source() + "\n".join(p.read_text() for p in sorted(live.glob("*.py")))


def test_every_close_code_is_documented() -> None:
    source = server_source()
    protocol = "\n".join(p.read_text() for p in sorted((SERVER.parent / "protocol").glob("*.py")))
    constants = {
        k: int(v)
        for k, v in re.findall(r"^(CLOSE_\w+)(?:: Final)? = (\d{4})", source + protocol, re.M)
    }
    used = {int(c) for c in re.findall(r"close\(\s*(\d{4})", source)}
    used |= {constants[c] for c in re.findall(r"close\(\s*(CLOSE_\w+)", source)}
    assert {1000, 1001, 1008, 1013, 4001, 4004} <= used  # the scan finds them
    documented = {
        int(names(r[0])[0] if names(r[0]) else r[0]) for r in rows(section("Close codes"))
    }
    assert used | LAYER_CLOSE_CODES <= documented, (used | LAYER_CLOSE_CODES) - documented
    assert documented <= used | LAYER_CLOSE_CODES, documented - used - LAYER_CLOSE_CODES


def test_every_error_code_is_documented() -> None:
    """The Error codes table is ``ErrorCode``, both ways (that the server sends
    no code outside ``ErrorCode`` is tests/protocol/test_codes.py's)."""
    documented: set[str] = set()
    ws: set[str] = set()
    for cells in rows(section("Error codes")):
        codes = names(cells[0])
        documented |= set(codes)
        if "ws" in cells[1]:
            ws |= set(codes)
    listed = {c.value for c in ErrorCode}
    assert documented == listed, (sorted(listed - documented), sorted(documented - listed))
    assert ws == {c.value for c in WS_CODES}, sorted(ws ^ {c.value for c in WS_CODES})
    http_table = section("HTTP (lobby, history)")
    for code in HTTP_CODES.values():
        assert f"`{code}`" in http_table, code


def model_fields(model: Any, *skip: str) -> set[str]:
    return set(model.model_fields) - set(skip)


def type_of(model: Any) -> str:
    (value,) = typing.get_args(model.model_fields["type"].annotation)
    return str(value)


def test_every_client_message_is_documented_with_exactly_its_fields() -> None:
    """``v`` and ``id`` are said once for every client frame, under the table."""
    documented = {names(r[0])[0]: set(names(r[1])) for r in rows(section("Client → server"))}
    produced = {type_of(m): model_fields(m, "type", "v", "id") for m in CLIENT_MESSAGES}
    produced["pong"].add("id")  # a pong's id is the ping's, in its row
    assert documented == produced
    text = section("Client → server")
    assert f'"v": {PROTOCOL_VERSION}' in text and "may carry an `id`" in text


def test_every_server_message_is_documented_with_exactly_its_fields() -> None:
    documented = {names(r[0])[0]: set(names(r[1])) for r in rows(section("Server → client"))}
    produced = {type_of(m): model_fields(m, "type") for m in SERVER_MESSAGES}
    assert documented == produced
    assert DOC.startswith(f"# The Slapjack wire protocol, version {PROTOCOL_VERSION}\n")


def test_the_room_status_is_documented_with_exactly_its_fields() -> None:
    table = {names(r[0])[0]: r for r in rows(section("Room status"))}
    assert set(table) == model_fields(RoomStatus)
    assert set(names(table["timers"][2])) == model_fields(Timers)


BODIES = [
    CreateRoom,
    JoinRoom,
    PlayNow,
    Practice,
    RoomCreated,
    Joined,
    RoomInfo,
    SeatInfo,
    RoomPage,
    ErrorBody,
]


@pytest.mark.parametrize("model", BODIES, ids=lambda m: m.__name__)
def test_every_http_body_is_documented_with_exactly_its_fields(model: Any) -> None:
    documented = {names(r[0])[0] for r in rows(section(model.__name__))}
    assert documented == model_fields(model)


def test_the_event_values_are_documented() -> None:
    """Every penalty and reason an event can carry is named in its row."""
    events = {names(r[0])[0]: r[2] for r in rows(section("Events"))}
    for kind, field in (
        ("wrong_slap", "penalty"),
        ("picked_up", "reason"),
        ("eliminated", "reason"),
    ):
        values = typing.get_args(EVENT_MODELS[kind].model_fields[field].annotation)
        for value in values:
            assert f"`{value}`" in events[kind], (kind, value)


def _shown(value: float) -> str:
    return f"{value:g}"


def test_every_limit_is_documented_with_its_default() -> None:
    table = {}
    for cells in rows(section("Limits")):
        keys = names(cells[0])
        values = [v.strip() for v in cells[1].split(",")]
        if keys and len(keys) == len(values):
            table.update(zip(keys, values, strict=True))
    defaults = Limits()
    for f in dataclasses.fields(Limits):
        assert f.name in table, f"{f.name} is not in the Limits table"
        assert table[f.name] == _shown(getattr(defaults, f.name)), f.name
    frames = next(r for r in rows(section("Limits")) if r[0] == "game frames per socket")
    assert frames[1].startswith(f"{_shown(RoomTiming().rate_limit)} a second")


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Limits)])
def test_the_doc_table_is_what_the_test_reads(field: str) -> None:
    """The parser above would pass an empty table: make sure it is not empty."""
    assert f"`{field}`" in section("Limits")
