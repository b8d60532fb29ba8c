"""The fast paths of the guard's and the budget's hooks give exactly what the plain ones give (issue 9-D).

- `jsontext.dumps(...)` (one C encoder, made once) is `json.dumps(value, ...)`.

The token counter's own fast path (each message converted and counted once) is tests/test_incremental.py.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.core import jsontext

# ---------------------------------------------------------------- JSON values, and results that look real

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
                    st.sampled_from([0, 1, 1.0, -0.0, 2.5, 10**9, 1.7e9, "", " ", "  a  b ", "ＰＥＫ", "é\"\\\n\u2028",
                                     "2026-11-30T10:00:00Z", "10:00:05", "2026-12-01", "Dec 1, 2026", "tomorrow",
                                     "01/02/2026", "gate B", "x"]),
                    st.text(max_size=8))
KEYS = ["id", "page", "items", "request_id", "traceId", "etag", "checked_at", "checkedAt", "Checked-At", "ts",
        "now", "took", "took_ms", "latency_s", "server_time_ms", "status_at", "date", "start_date", "date_x",
        "meta", "server", " date ", "a b", "Ok", "ok", "A", "a"]
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=5)),
    max_leaves=20)


@pytest.mark.parametrize("options", [{}, {"ensure_ascii": False}, {"ensure_ascii": False, "sort_keys": True},
                                     {"ensure_ascii": False, "separators": (",", ":")},
                                     {"sort_keys": True, "ensure_ascii": False, "separators": (",", ":")}])
@settings(max_examples=200, deadline=None)
@given(value=values)
def test_jsontext_dumps_is_json_dumps(options, value):
    assert jsontext.dumps(**options)(value) == json.dumps(value, **options)


def test_jsontext_dumps_refuses_what_json_dumps_refuses():
    for dumps in (jsontext.dumps(), json.dumps):
        with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
            dumps({"a": object()})
