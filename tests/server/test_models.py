"""Client frames are checked at the edge by the pydantic models."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from slapjack.server.models import CLIENT_MESSAGE, CreateRoom, Hello, SlapMsg


def test_valid_frames_parse() -> None:
    msg = CLIENT_MESSAGE.validate_json('{"v": 1, "type": "hello", "token": null}')
    assert isinstance(msg, Hello) and msg.token is None and msg.lang == "en"
    slap = CLIENT_MESSAGE.validate_json(
        '{"v":1,"type":"slap","token":"t","flip_id":3,"reaction_ms":210.5,'
        '"shown_at":1.5,"input_at":212.0,"call":true}'
    )
    assert isinstance(slap, SlapMsg) and slap.call and slap.reaction_ms == 210.5


@pytest.mark.parametrize(
    "text",
    [
        '{"v": 1, "type": "flip", "token": "t", "flip_id": true}',
        '{"v": 1, "type": "flip", "token": "t", "flip_id": 1.0}',
        '{"v": 1, "type": "flip", "token": "", "flip_id": 1}',
        '{"v": 1, "type": "slap", "token": "t", "flip_id": 1, "reaction_ms": NaN}',
        '{"v": 1, "type": "slap", "token": "t", "flip_id": 1, "reaction_ms": 700000}',
        '{"v": 1, "type": "pong", "id": -1, "client_time": 0}',
        '{"v": 1, "type": "hello", "token": "' + "x" * 200 + '"}',
        '{"v": 1, "type": "hello", "token": null, "admin": true}',
    ],
)
def test_bad_frames_are_refused(text: str) -> None:
    with pytest.raises(ValidationError):
        CLIENT_MESSAGE.validate_json(text)


def test_create_room_checks_bot_seats() -> None:
    with pytest.raises(ValidationError):
        CreateRoom.model_validate({"bots": {"x": "pro"}})
    assert CreateRoom.model_validate({"bots": {"3": "perfect"}}).bots == {"3": "perfect"}
