"""The kit's own conversation: provider-neutral, lossless, one dataclass per role.

Every loop in the kit talks in these types. `reference.wire` turns them into the exact request
shapes of OpenAI Chat Completions, the OpenAI Responses API and Anthropic Messages, and back.

A tool call keeps its arguments as the raw JSON *string* the model produced, because models do
produce malformed JSON and a faithful harness must be able to replay that.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Union


MAX_ARGUMENT_DEPTH = 64  # real tool arguments nest a few levels; deeper is a malformed call


def nests_deeper_than(text: str, limit: int) -> bool:
    """Does this JSON text nest [ and { more than `limit` levels deep, outside strings? (No parsing.)"""
    if text.count("[") + text.count("{") <= limit:  # the common case, decided at C speed
        return False
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str = "{}"  # raw JSON text, exactly as the model wrote it

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; raises ValueError if they are not a JSON object."""
        # '[[[[...' a thousand deep is malformed for our purposes, not a crash. Python's own limit
        # differs by version (3.11 raises RecursionError, 3.12+ parses on), so the kit sets its own.
        if nests_deeper_than(self.arguments, MAX_ARGUMENT_DEPTH):
            raise ValueError(f"the arguments nest too deeply (more than {MAX_ARGUMENT_DEPTH} levels)")
        try:
            value = json.loads(self.arguments)
        except RecursionError:
            raise ValueError("the arguments nest too deeply") from None
        if not isinstance(value, dict):
            raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
        return value


@dataclass(frozen=True)
class SystemMessage:
    text: str
    role: str = field(default="system", init=False)


@dataclass(frozen=True)
class UserMessage:
    text: str
    role: str = field(default="user", init=False)


@dataclass(frozen=True)
class AssistantMessage:
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    role: str = field(default="assistant", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))


@dataclass(frozen=True)
class ToolMessage:
    """The result of one tool call, answering `call_id`."""

    call_id: str
    content: str
    is_error: bool = False
    role: str = field(default="tool", init=False)


Message = Union[SystemMessage, UserMessage, AssistantMessage, ToolMessage]


def message_to_dict(m: Message) -> dict[str, Any]:
    """A plain JSON-able form, used for traces, replays and notebook display."""
    if isinstance(m, AssistantMessage):
        d: dict[str, Any] = {"role": "assistant", "text": m.text}
        if m.tool_calls:
            d["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls]
        return d
    if isinstance(m, ToolMessage):
        return {"role": "tool", "call_id": m.call_id, "content": m.content, "is_error": m.is_error}
    return {"role": m.role, "text": m.text}


@dataclass(frozen=True)
class ToolSpec:
    """A tool as offered to the model: name, description and JSON Schema of its arguments."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
