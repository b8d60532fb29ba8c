"""Wire formats: the exact request and response shapes of the real services.

One module per format, each with the same four functions:
`to_request(messages, tools)`, `from_request(body)`, `check(body)` (the service's protocol check,
raising ProtocolError with its real text), `response_from_turn(turn, ...)` and `turn_from_response(body)`;
and their parts, for building and checking a growing conversation one new message at a time
(incremental.py): `add_message(out, system, message)`, `wire_tools(tools)`, `request_body(out, system,
tools)` (`to_request` is these three) and `resume_check(items, end, tools, state)` (`check` is it from
no state).

`formats.py` wraps each module in one object with everything else a server or client needs to know about
that service (route, error envelope, id prefixes, tool choice, streaming): code outside this package asks
`wire_format(name)` instead of branching on a format's name.
"""
from . import formats as _formats  # noqa: E402,F401  # registers each format's error envelope (ProtocolError.body)
