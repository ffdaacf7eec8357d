"""``ErrorCode`` lists every code the server can send: the server's own, the
live table's and the engine's refusals, the rules', the records' and the
store's codes that reach an answer. The sources are scanned for codes, so a new
one cannot be sent without being listed."""

from __future__ import annotations

import re
from pathlib import Path

from slapjack.protocol import WS_CODES, ErrorCode
from slapjack.server.app import HTTP_CODES

SRC = Path(__file__).resolve().parents[2] / "src" / "slapjack"

NEVER_SENT: dict[str, str] = {
    "bad_view": "a client's own check of a view it received (View.from_dict)",
    "bad_event": "a client's own check of an event it received (event_from_dict)",
    "bad_frame": "a client's own check of a frame it received (protocol.FrameError)",
    "bad_timing": "the live table's timing is built by the server, not from a request",
    "unknown_language": "the rules route answers a LanguageError as unknown_lang",
    "room_exists": "the store refuses a room code twice; the lobby draws codes it does not hold",
    "action_conflict": "the store's guard for the room's own writes",
    "action_gap": "the store's guard for the room's own writes",
    "stale_owner": "the store's fence: a room refused it stops, its clients follow `moved`",
    "schema_too_new": "at startup: the server does not start",
    "bad_database_url": "at startup: the server does not start",
    "bad_public_url": "at startup: slapjack serve refuses it before it listens",
    "unknown_word": "a key the catalogue of words lacks: a bug that tests/texts/test_words.py catches",
    "bad_words": "a broken words file in the package: nothing starts",
}
"""Codes in the sources that never reach a client, each with the reason."""


def codes_in(folder: str) -> set[str]:
    text = "\n".join(p.read_text() for p in sorted((SRC / folder).rglob("*.py")))
    found = set(re.findall(r'code\s*=\s*"(\w+)"', text))
    found |= set(re.findall(r'\.error\(\s*"(\w+)"', text))
    found |= set(re.findall(r'\berror\(\s*\d+,\s*"(\w+)"', text))
    found |= set(re.findall(r'error_frame\(\s*"(\w+)"', text))
    found |= set(re.findall(r'"code": "(\w+)"', text))
    found |= {ErrorCode[name].value for name in re.findall(r"ErrorCode\.([A-Z_]+)", text)}
    return found


def test_every_code_in_the_sources_is_listed() -> None:
    listed = {c.value for c in ErrorCode}
    scanned: dict[str, set[str]] = {
        folder: codes_in(folder) for folder in ("server", "core", "live", "store", "texts")
    }
    scanned["server"] |= set(HTTP_CODES.values())
    assert {"too_many_sockets", "bad_content_type"} <= scanned["server"]
    assert {"not_settled", "time_backwards", "bad_seed"} <= scanned["core"]
    assert {"refused", "stale_flip"} <= scanned["live"]
    missing = {
        folder: sorted(found - listed - set(NEVER_SENT))
        for folder, found in scanned.items()
        if found - listed - set(NEVER_SENT)
    }
    assert not missing, f"codes not in ErrorCode (add them, or say in NEVER_SENT why): {missing}"
    assert not set(NEVER_SENT) & listed


def test_the_websocket_codes_are_codes() -> None:
    assert set(WS_CODES) <= set(ErrorCode)
    assert ErrorCode.STALE_FLIP in WS_CODES and ErrorCode.BAD_CONTENT_TYPE not in WS_CODES
    assert all(code.value == code.name.lower() for code in ErrorCode)
