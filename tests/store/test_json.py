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
