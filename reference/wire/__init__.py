"""Wire formats: the exact request and response shapes of the real services.

One module per format, each with the same four functions:
`to_request(messages, tools)`, `from_request(body)`, `check(body)` (the service's protocol check,
raising ProtocolError with its real text), `response_from_turn(turn, ...)` and `turn_from_response(body)`.
"""
