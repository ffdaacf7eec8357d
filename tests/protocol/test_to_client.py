"""The server's frames as models: one for one with the engine's view and events,
strict, and a decoder that says what is wrong with a frame."""

from __future__ import annotations

import dataclasses
import json

import pytest

from slapjack.core.events import EVENT_TYPES
from slapjack.core.view import VIEW_KEYS
from slapjack.protocol import (
    EVENT_MODELS,
    FrameError,
    UnknownEvent,
    Update,
    ViewFrame,
    decode_event,
    decode_server_frame,
    decode_view,
)

from .test_encode import status


def test_the_view_model_has_exactly_the_views_keys_and_flip_id() -> None:
    assert list(ViewFrame.model_fields) == [*VIEW_KEYS, "flip_id"]


def test_one_event_model_per_engine_event_with_its_fields() -> None:
    assert set(EVENT_MODELS) == set(EVENT_TYPES)
    for kind, cls in EVENT_TYPES.items():
        fields = [f.name for f in dataclasses.fields(cls)]
        assert list(EVENT_MODELS[kind].model_fields) == ["type", *fields], kind


def update_text(events: list[object], view: object = None) -> str:
    return json.dumps(
        {"type": "update", "seq": 1, "events": events, "view": view, "room": status(2)}
    )


def test_an_unknown_event_type_is_skipped_not_refused() -> None:
    msg = decode_server_frame(update_text([{"type": "a_new_kind", "what": 1}]))
    assert isinstance(msg, Update) and isinstance(msg.events[0], UnknownEvent)
    assert decode_event(msg.events[0], 2) is None
    assert decode_event({"type": "a_new_kind"}, 2) is None


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not an object"),
        ('{"type": "surprise"}', "unknown frame type 'surprise'"),
        ('{"seq": 1}', "a frame without a type"),
        (update_text([{"type": "flipped"}]), "events.0.flipped.seat: Field required"),
        (update_text([], {"rules": 5}), "view.game: Field required"),
        ('{"type": "ping", "id": true, "server_time": 1.0}', "id: Input should be a valid integer"),
        (
            '{"type": "ping", "id": 1, "server_time": "1"}',
            "server_time: Input should be a valid number",
        ),
        ('{"type": "error", "code": "nope", "message": "m"}', "code: Input should be"),
        (
            '{"type": "error", "code": "stale_flip", "message": "m", "extra": 1}',
            "extra: Extra inputs",
        ),
    ],
)
def test_a_bad_frame_says_what_is_wrong(text: str, what: str) -> None:
    with pytest.raises(FrameError) as info:
        decode_server_frame(text)
    assert info.value.message.startswith(what), info.value.message


def test_flip_id_must_be_flips_and_seats_must_be_seats() -> None:
    from slapjack.core import Rules, Table, observe

    table = Table.new(Rules.from_options({"preset": "classic"}), ("A", "B"), seed=1)
    view = observe(table.game, 0).to_dict()
    good = {**view, "flip_id": view["flips"]}
    assert decode_view(good) == observe(table.game, 0)
    with pytest.raises(FrameError, match="flip_id"):
        decode_view({**good, "flip_id": 3})
    with pytest.raises(FrameError, match=r"view\.turn"):
        decode_view({**good, "turn": 7})  # a seat number the table does not have
    with pytest.raises(FrameError, match=r"race_won\.winner"):
        decode_event({"type": "race_won", "winner": 3, "cards": 1, "reactions": []}, 2)
