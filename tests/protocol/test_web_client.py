"""The browser client (``web/static``, plain ES modules) against the protocol's
models: the frame types it sends and handles, the fields it sends, the event
types it describes, the version it speaks, and a text of its own for the
error codes a player can meet."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from slapjack.protocol import (
    CLIENT_MESSAGES,
    EVENT_MODELS,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    ErrorCode,
)
from slapjack.texts.words import browser_words

STATIC = Path(__file__).resolve().parents[2] / "src" / "slapjack" / "web" / "static"
JS = {p.name: p.read_text(encoding="utf-8") for p in sorted((STATIC / "js").glob("*.js"))}
I18N = {lang: browser_words(lang) for lang in ("en", "de")}
CLIENT_OWN_ERRORS = {"network"}
"""``error.*`` keys of the browser's own (no server code): the server cannot be reached."""


def tag(model: type) -> str:
    (value,) = typing.get_args(model.model_fields["type"].annotation)
    return str(value)


CLIENT_TYPES = {tag(m): m for m in CLIENT_MESSAGES}
SERVER_TYPES = {tag(m) for m in SERVER_MESSAGES}


def test_the_browser_speaks_our_protocol_version() -> None:
    found = re.findall(r"export const PROTOCOL_VERSION = (\d+);", JS["connection.js"])
    assert found == [str(PROTOCOL_VERSION)]


def sent_frames() -> list[tuple[str, str, set[str]]]:
    """``(file, type, fields)`` of every ``send("type", {...})`` and ``act("type", {...})``."""
    out = []
    for name, text in JS.items():
        for m in re.finditer(r"\b(?:send|act)\(\s*\"(\w+)\"(?:\s*,\s*\{([^}]*)\})?", text):
            body = m.group(2) or ""
            keys = set()
            for part in body.split(","):
                part = part.strip()
                if not part or part.startswith("..."):
                    continue
                keys.add(part.split(":", 1)[0].strip())
            out.append((name, m.group(1), keys))
    return out


def test_every_frame_the_browser_sends_is_a_client_message_with_its_fields() -> None:
    frames = sent_frames()
    types = {kind for _, kind, _ in frames}
    assert {"hello", "pong", "flip", "slap", "call", "rematch", "leave", "start"} <= types
    for name, kind, keys in frames:
        assert kind in CLIENT_TYPES, f"{name} sends {kind!r}, not a client message"
        fields = set(CLIENT_TYPES[kind].model_fields)
        assert keys <= fields, f"{name}: {kind} with {sorted(keys - fields)}"
    # a slap's fields come from the reaction clock
    slap = re.search(r"slapFields\(inputAt\) \{.*?return \{(.*?)\};", JS["connection.js"], re.S)
    assert slap is not None
    keys = {line.split(":")[0].strip() for line in slap.group(1).split(",") if line.strip()}
    assert keys == {"flip_id", "reaction_ms", "shown_at", "input_at"}
    assert keys <= set(CLIENT_TYPES["slap"].model_fields)


def test_the_browser_handles_every_server_frame_and_no_other() -> None:
    receive = JS["connection.js"].split("receive(data)", 1)[1]
    handled = set(re.findall(r'case "(\w+)":', receive.split("\n  }\n", 1)[0]))
    assert handled == SERVER_TYPES


def test_the_browser_describes_every_event_and_knows_no_other() -> None:
    described = set(re.findall(r'case "(\w+)":', JS["table.js"]))
    assert set(EVENT_MODELS) <= described, set(EVENT_MODELS) - described
    for name, text in JS.items():
        named = set(re.findall(r'\bev\.type === "(\w+)"', text))
        named |= (
            set(re.findall(r'case "(\w+)":', text)) if name in ("room.js", "table.js") else set()
        )
        assert named <= set(EVENT_MODELS), f"{name}: {sorted(named - set(EVENT_MODELS))}"


def error_keys(lang: str) -> set[str]:
    return {k.removeprefix("error.") for k in I18N[lang] if k.startswith("error.")}


def test_every_error_text_is_for_a_code_and_in_both_languages() -> None:
    assert error_keys("en") == error_keys("de")
    codes = {c.value for c in ErrorCode}
    stale = sorted(error_keys("en") - codes - CLIENT_OWN_ERRORS)
    assert not stale, f"error texts for codes the server never sends: {stale}"


PLAYER_FACING: frozenset[ErrorCode] = frozenset(
    {
        # the room page's actions (room.js onError, party.js)
        ErrorCode.BAD_MESSAGE,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.STALE_FLIP,
        ErrorCode.GAME_OVER,
        ErrorCode.NOT_SETTLED,
        ErrorCode.NOT_STARTED,
        ErrorCode.PLAYER_OUT,
        ErrorCode.SPECTATOR,
        ErrorCode.RATE_LIMITED,
        ErrorCode.ROOM_CLOSED,
        ErrorCode.TOO_MANY_SOCKETS,
        ErrorCode.ILLEGAL_ACTION,
        # the lobby's and the join form's requests (common.js showError)
        ErrorCode.ROOM_FULL,
        ErrorCode.UNKNOWN_ROOM,
        ErrorCode.SERVER_FULL,
        ErrorCode.BAD_REQUEST,
        ErrorCode.BAD_NAME,
    }
)
"""Codes a player meets through the browser's own actions; without a text of
the browser's own it shows the server's English message (``bad_token`` is
handled without words: the page forgets the seat and offers to join again)."""


def missing_error_texts() -> list[str]:
    return sorted(c.value for c in PLAYER_FACING if c.value not in error_keys("en"))


def test_every_player_facing_code_has_a_text_of_the_browsers_own() -> None:
    assert not missing_error_texts(), missing_error_texts()
