"""docs/protocol.md against the code, so the two cannot drift apart: every view
field, every event type with exactly its fields, every close code and error
code the server uses, every limit with its default."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path
from typing import Any

import pytest

from slapjack.core import Record, Rules, Table, event_to_dict, observe
from slapjack.core.events import Event
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
    return "\n".join(p.read_text() for p in sorted(SERVER.glob("*.py")))


def game_source() -> str:
    """The server and the live table it runs (whose refusals reach the clients)."""
    live = SERVER.parent / "live"
    return server_source() + "\n".join(p.read_text() for p in sorted(live.glob("*.py")))


def test_every_close_code_is_documented() -> None:
    source = server_source()
    constants = {k: int(v) for k, v in re.findall(r"^(CLOSE_\w+): Final = (\d{4})", source, re.M)}
    used = {int(c) for c in re.findall(r"close\(\s*(\d{4})", source)}
    used |= {constants[c] for c in re.findall(r"close\(\s*(CLOSE_\w+)", source)}
    assert {1000, 1001, 1008, 1013, 4001, 4004} <= used  # the scan finds them
    documented = {
        int(names(r[0])[0] if names(r[0]) else r[0]) for r in rows(section("Close codes"))
    }
    assert used | LAYER_CLOSE_CODES <= documented, (used | LAYER_CLOSE_CODES) - documented
    assert documented <= used | LAYER_CLOSE_CODES, documented - used - LAYER_CLOSE_CODES


def test_every_error_code_is_documented() -> None:
    source = game_source()
    codes = set(re.findall(r'code="(\w+)"', source))
    codes |= set(re.findall(r'\.error\(\s*"(\w+)"', source))
    codes |= set(re.findall(r'refusal = \("(\w+)"', source))
    codes |= set(re.findall(r'_error\(\s*\d+,\s*"(\w+)"', source))
    codes |= set(re.findall(r'"code": "(\w+)"', source))
    codes |= set(HTTP_CODES.values())
    assert {"bad_json", "too_large", "stale_flip", "too_many_sockets", "bad_content_type"} <= codes
    missing = sorted(c for c in codes if f"`{c}`" not in DOC)
    assert not missing


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
