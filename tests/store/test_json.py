"""``dump_json``: canonical text, the same as ``json.dumps`` with its options."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slapjack.store import BadInput
from slapjack.store.base import dump_json

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(values)
def test_dump_json_is_json_dumps_with_sorted_keys(value: Any) -> None:
    expected = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    assert dump_json(value, "value") == expected
    assert dump_json(value, "again") == expected  # the shared encoder keeps no state


@pytest.mark.parametrize("bad", [{"x": math.nan}, {"x": math.inf}, {"x": object()}, {1: 2, "a": 3}])
def test_dump_json_refuses_what_is_not_json_with_bad_input(bad: Any) -> None:
    with pytest.raises(BadInput, match="is not JSON"):
        dump_json(bad, "action")


flat_objects = st.dictionaries(
    st.text(),
    st.none() | st.booleans() | st.integers() | st.text(),
    max_size=6,
)
"""Objects of the kind every action is (orjson encodes them in ``dump_json``)."""


@settings(max_examples=500, deadline=None)
@given(
    flat_objects
    | st.fixed_dictionaries(
        {"t": st.integers(0, 2**63), "slap": st.text(), "reaction_ms": st.integers()},
        optional={"call": st.booleans()},
    )
)
def test_an_action_like_object_is_the_same_text_as_json_dumps(value: dict[str, Any]) -> None:
    """Control characters, quotes, backslashes, every plane, lone surrogates
    (orjson refuses them: the standard encoder writes them), numbers past 64
    bits: the same text either way."""
    expected = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    assert dump_json(value, "action") == expected


@pytest.mark.parametrize(
    "value",
    [
        {"flip": 'Zo\u00eb \U0001f600 \u2028 \x00\x1f\x7f "\\/', "t": 1},
        {"slap": "\ud800", "t": 2},  # a lone surrogate: orjson refuses it
        {"t": 2**64 + 1, "b": -(2**63) - 1},  # beyond 64 bits
        {"t": 1, "call": True, "x": None, "y": False},
    ],
)
def test_the_edges_of_an_action_encode_as_json_dumps(value: dict[str, Any]) -> None:
    expected = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    assert dump_json(value, "action") == expected
