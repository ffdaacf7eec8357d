"""Client frames are checked at the edge by the pydantic models."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from slapjack.protocol import (
    CLIENT_MESSAGE,
    CreateRoom,
    Hello,
    JoinRoom,
    SlapMsg,
    clean_name,
    refusal,
)


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


@pytest.mark.parametrize(
    "text",
    [
        '{"v": true, "type": "hello"}',
        '{"v": 1.0, "type": "hello"}',
        '{"v": 2, "type": "hello"}',
        '{"v": 1, "type": "slap", "token": "t", "flip_id": 1, "reaction_ms": "5"}',
        '{"v": 1, "type": "slap", "token": "t", "flip_id": 1, "reaction_ms": 5, "call": "true"}',
        '{"v": 1, "type": "slap", "token": "t", "flip_id": 1, "reaction_ms": 5, "call": 0}',
        '{"v": 1, "type": "hello", "lang": 5}',
        '{"v": 1, "type": "hello", "id": 2147483648}',
        '{"v": 1, "type": "hello", "id": ""}',
        '{"v": 1, "type": "hello", "id": [1]}',
    ],
)
def test_nothing_is_coerced(text: str) -> None:
    with pytest.raises(ValidationError):
        CLIENT_MESSAGE.validate_json(text)


def test_ids_and_whole_numbers_for_floats() -> None:
    msg = CLIENT_MESSAGE.validate_json('{"v": 1, "type": "hello", "id": "req.7:a-b_c"}')
    assert msg.id == "req.7:a-b_c"
    slap = CLIENT_MESSAGE.validate_json(
        '{"v": 1, "type": "slap", "token": "t", "flip_id": 1, "reaction_ms": 231, "id": 0}'
    )
    assert isinstance(slap, SlapMsg) and slap.reaction_ms == 231.0 and slap.id == 0


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Anna", "Anna"),
        ("  Anna   Lena ", "Anna Lena"),
        ("\uff21\uff4e\uff4e\uff41", "Anna"),  # fullwidth
        ("\ufb01sh", "fish"),  # the fi ligature
        ("Zoe\u0308", "Zo\u00eb"),  # composed
        ("A\u00a0B", "A B"),  # a no-break space is a space
        ("Vi\u1ec7t", "Vi\u1ec7t"),  # two marks on one letter
    ],
)
def test_names_are_normalised(raw: str, clean: str) -> None:
    assert clean_name(raw) == clean
    assert JoinRoom.model_validate({"name": raw}).name == clean


@pytest.mark.parametrize(
    "raw", ["\u202e", "a\u2066b", "a\x7fb", "\u3164", "\u115f\u1160", "\u0301", "  ", "a\U000e0041"]
)
def test_bad_names_are_typed_errors(raw: str) -> None:
    with pytest.raises(ValidationError) as info:
        JoinRoom.model_validate({"name": raw})
    assert info.value.errors()[0]["type"] == "bad_name"


def test_a_room_name_may_be_empty_and_forty_long() -> None:
    assert CreateRoom.model_validate({"name": "  "}).name == ""
    assert CreateRoom.model_validate({"name": "r" * 40}).name == "r" * 40
    with pytest.raises(ValidationError):
        CreateRoom.model_validate({"name": "r" * 41})
    with pytest.raises(ValidationError):
        CreateRoom.model_validate({"seats": "4"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"type": "dance"}', "type: Input tag 'dance'"),
        ('{"id": 1}', "type: Unable to extract tag"),
        ("[1, 2]", "frame: Input should be"),
        (
            '{"type": "slap", "v": 1, "token": "t", "flip_id": 1, "reaction_ms": "x"}',
            "slap.reaction_ms: ",
        ),
    ],
)
def test_a_refusal_names_the_field_or_the_frame(text: str, message: str) -> None:
    """bad_message's text begins with what was wrong (protocol.md), never with ": "."""
    with pytest.raises(ValidationError) as caught:
        CLIENT_MESSAGE.validate_json(text)
    code, said = refusal(caught.value)
    assert code == "bad_message" and said.startswith(message), said
