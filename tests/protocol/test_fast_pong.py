"""``protocol.fast_pong`` accepts exactly the ``pong`` frames that
``CLIENT_MESSAGE`` accepts, with the same values, and nothing else (whatever it
declines goes to pydantic, which gives the refusal)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from slapjack.protocol import CLIENT_MESSAGE, Pong, fast_pong


def pydantic_pong(text: str) -> tuple[int, float] | None:
    try:
        msg = CLIENT_MESSAGE.validate_json(text)
    except ValidationError:
        return None
    if not isinstance(msg, Pong):
        return None
    return msg.id, msg.client_time


def same(text: str) -> None:
    fast = fast_pong(text)
    slow = pydantic_pong(text)
    if fast is None:
        return  # declined: the slow path decides (accepts or refuses)
    assert slow is not None, text
    assert fast == slow, text
    assert type(fast[0]) is int and type(fast[1]) is float


@pytest.mark.parametrize(
    "text",
    [
        '{"v":1,"type":"pong","id":1,"client_time":5123.4}',
        '{"v": 1, "type": "pong", "id": 0, "client_time": 0}',
        '{"type":"pong","client_time":-0.0,"id":9007199254740992,"v":1}',
        '{"v":1,"type":"pong","id":1,"id":2,"client_time":5.5}',
        '{"v":1,"type":"pong","id":1,"client_time":1e15}',
        '{"v":1,"type":"pong","id":1,"client_time":-1000000000000000}',
    ],
)
def test_well_formed_pongs_take_the_fast_path(text: str) -> None:
    assert fast_pong(text) is not None
    same(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"v":1,"type":"pong","id":"1","client_time":0}',
        '{"v":1,"type":"pong","id":1,"client_time":"0"}',
        '{"v":1,"type":"pong","id":1.0,"client_time":0}',
        '{"v":1,"type":"pong","id":true,"client_time":0}',
        '{"v":true,"type":"pong","id":1,"client_time":0}',
        '{"v":1.0,"type":"pong","id":1,"client_time":0}',
        '{"v":2,"type":"pong","id":1,"client_time":0}',
        '{"v":1,"type":"pong","id":-1,"client_time":0}',
        '{"v":1,"type":"pong","id":9007199254740993,"client_time":0}',
        '{"v":1,"type":"pong","id":1,"client_time":1e400}',
        '{"v":1,"type":"pong","id":1,"client_time":NaN}',
        '{"v":1,"type":"pong","id":1,"client_time":1.5e15}',
        '{"v":1,"type":"pong","id":1,"client_time":-1000000000000001}',
        '{"v":1,"type":"pong","id":1,"client_time":null}',
        '{"v":1,"type":"pong","id":1,"client_time":true}',
        '{"v":1,"type":"pong","id":1}',
        '{"v":1,"type":"pong","id":1,"client_time":0,"x":1}',
        '{"v":1,"type":"pong","id":1,"client_time":0,"type":"slap"}',
        '{"v":1,"type":"Pong","id":1,"client_time":0}',
        '["pong"]',
        '"pong"',
        '{"v":1,"type":"pong","id":1,"client_time":0',
        "",
    ],
)
def test_what_pydantic_refuses_is_declined(text: str) -> None:
    assert fast_pong(text) is None
    assert pydantic_pong(text) is None


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, 2, 2**53, 2**53 + 1, 1e15, -1e15, "pong", "1", 1.0]),
    st.text(max_size=5),
)
keys = st.sampled_from(["v", "type", "id", "client_time", "token", "x"])


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(keys, values, max_size=6),
    st.booleans(),
    st.integers(min_value=0, max_value=2**53),
    st.floats(min_value=-1e15, max_value=1e15),
)
def test_random_frames_agree(extra: dict[str, Any], base: bool, ping: int, at: float) -> None:
    frame: dict[str, Any] = {"v": 1, "type": "pong", "id": ping, "client_time": at} if base else {}
    frame.update(extra)
    text = json.dumps(frame)
    same(text)
    if pydantic_pong(text) is None:
        assert fast_pong(text) is None
