"""`json.dumps` for the paths that run at every step: the same text, without a new encoder at every call.

`json.dumps(value, **options)` makes a `JSONEncoder`, which makes a C encoder, at every call: for a small
object that is about half the cost of the call. The harness dumps a few small objects at every step of
every run (the token count of each new message, the guard's fingerprints of a call and of its result), so
`dumps(**options)` makes the C encoder once and gives a function that returns what `json.dumps(value,
**options)` returns (tests/test_guard_fast_paths.py compares them).

The C encoder is made without the check for circular references: that check is the one state an encoder
keeps during a call, so without it one encoder can serve every thread at once. Use these functions only
for values that cannot be circular: JSON parsed from text, or a tree the caller has just built from one
(a wire item, canonical arguments, a canonical result). A circular value would raise RecursionError, not
json's ValueError. Without the C accelerator, the function is the encoder's own `encode`.
"""
from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any, Callable, Optional


def dumps(*, ensure_ascii: bool = True, sort_keys: bool = False,
          separators: Optional[tuple[str, str]] = None) -> Callable[[Any], str]:
    """`lambda value: json.dumps(value, ensure_ascii=..., sort_keys=..., separators=...)`, for values that are
    never circular (see above). Immutable once made: safe to keep at module level and to share."""
    plain = json.JSONEncoder(ensure_ascii=ensure_ascii, sort_keys=sort_keys, separators=separators)
    if c_make_encoder is None:
        return plain.encode
    # what JSONEncoder.iterencode makes at every call (markers=None: no check for circular references)
    encoder = c_make_encoder(None, plain.default, encode_basestring_ascii if ensure_ascii else encode_basestring,
                             None, plain.key_separator, plain.item_separator, sort_keys, False, True)

    def dumps_value(value: Any) -> str:
        return "".join(encoder(value, 0))

    return dumps_value
