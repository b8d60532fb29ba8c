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

from typing import Any, Sequence

from ..core.errors import ProtocolError
from ..core.messages import Message, ToolSpec
from . import anthropic_messages, openai_chat, openai_responses

WIRE_FORMATS = ("openai-chat", "openai-responses", "anthropic")


def to_wire(messages: Sequence[Message], tools: Sequence[ToolSpec], wire: str) -> dict[str, Any]:
    """The request body (messages and tools only) in the given wire format."""
    return wire_module(wire).to_request(messages, tools)


def check_request(messages: Sequence[Message], tools: Sequence[ToolSpec], wire: str = "openai-chat") -> dict[str, Any]:
    """Raise ProtocolError if the service would reject this request; return the wire body if not."""
    body = to_wire(messages, tools, wire)
    wire_module(wire).check(body)
    return body


def check_wire_body(body: dict[str, Any], wire: str) -> None:
    """Validate a request body already in wire form (what an SDK actually sent)."""
    wire_module(wire).check(body)


def check_required_fields(body: dict[str, Any], wire: str) -> None:
    """The top-level fields a service requires beside the conversation (a raw HTTP client can forget them)."""
    if wire == "anthropic":
        anthropic_messages.check_required(body)


MODULES = {"openai-chat": openai_chat, "openai-responses": openai_responses, "anthropic": anthropic_messages}


def wire_module(wire: str):
    """The module of one wire format: to_request, from_request, check, response_from_turn, turn_from_response."""
    if wire not in MODULES:
        raise ValueError(f"unknown wire format {wire!r}; expected one of {', '.join(WIRE_FORMATS)}")
    return MODULES[wire]
