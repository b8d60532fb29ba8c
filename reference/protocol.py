"""The protocol check: what the real services enforce before they accept a request.

`check_request(messages, tools, wire)` converts the kit's conversation into the chosen wire format
and validates it the way that service does. A violation raises `ProtocolError` whose message is the
service's real HTTP 400 text, typos included (OpenAI really writes "preceeding"). The texts and
their sources are listed in docs/protocol.md.

The invariants, in words:
- every tool result answers a tool call of the immediately preceding assistant turn;
- every tool call of that turn is answered before the next request;
- tool call ids are unique; a tool call list is never empty;
- tool names match ^[a-zA-Z0-9_-]+$ with at most 64 characters (OpenAI) or 128 (Anthropic).
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from .messages import Message, ToolSpec

WIRE_FORMATS = ("openai-chat", "openai-responses", "anthropic")


class ProtocolError(Exception):
    """HTTP 400 from the service: the request broke the tool-calling protocol.

    `str(err)` is the service's message text; `body` is the JSON error envelope it sends.
    """

    status_code = 400

    def __init__(self, wire: str, message: str, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.wire = wire
        self.message = message
        self.param = param
        self.code = code

    @property
    def body(self) -> dict[str, Any]:
        if self.wire == "anthropic":
            return {"type": "error", "error": {"type": "invalid_request_error", "message": self.message}}
        return {"error": {"message": self.message, "type": "invalid_request_error",
                          "param": self.param, "code": self.code}}

    def __repr__(self) -> str:
        return f"ProtocolError({self.wire!r}, {self.message!r})"


def to_wire(messages: Sequence[Message], tools: Sequence[ToolSpec], wire: str) -> dict[str, Any]:
    """The request body (messages and tools only) in the given wire format."""
    return _module(wire).to_request(messages, tools)


def check_request(messages: Sequence[Message], tools: Sequence[ToolSpec], wire: str = "openai-chat") -> dict[str, Any]:
    """Raise ProtocolError if the service would reject this request; return the wire body if not."""
    body = to_wire(messages, tools, wire)
    _module(wire).check(body)
    return body


def check_wire_body(body: dict[str, Any], wire: str) -> None:
    """Validate a request body already in wire form (what an SDK actually sent)."""
    _module(wire).check(body)


def _module(wire: str):
    from .wire import anthropic_messages, openai_chat, openai_responses

    modules = {"openai-chat": openai_chat, "openai-responses": openai_responses, "anthropic": anthropic_messages}
    if wire not in modules:
        raise ValueError(f"unknown wire format {wire!r}; expected one of {', '.join(WIRE_FORMATS)}")
    return modules[wire]


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
