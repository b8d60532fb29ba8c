"""OpenAI Chat Completions: `tool_calls` on the assistant message, answers with role `tool`.

OpenAI's format has no error flag on tool results, so `ToolMessage.is_error` does not survive a
round trip through it (everything else does).
"""
from __future__ import annotations

import re
from collections import ChainMap
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..core.messages import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from ..core.model import Turn, Usage
from ..core.errors import ProtocolError

WIRE = "openai-chat"
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
NAME_MAX = 64
DESCRIPTION_MAX = 1024


def add_message(out: list[dict[str, Any]], system: list[str], m: Message) -> None:
    """Append one message's wire form to `out` (`system` is for formats that carry it apart; not this one).
    `to_request` is this, message after message; reference/wire/incremental.py calls it for new messages only."""
    if isinstance(m, SystemMessage):
        out.append({"role": "system", "content": m.text})
    elif isinstance(m, UserMessage):
        out.append({"role": "user", "content": m.text})
    elif isinstance(m, AssistantMessage):
        msg: dict[str, Any] = {"role": "assistant", "content": m.text}
        if m.tool_calls or m.text is None:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in m.tool_calls
            ]
        out.append(msg)
    elif isinstance(m, ToolMessage):
        out.append({"role": "tool", "tool_call_id": m.call_id, "content": m.content})
    else:
        raise TypeError(f"not a kit message: {m!r}")


def wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in tools]


def request_body(out: list[dict[str, Any]], system: list[str], tools: list[dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": out}
    if tools:
        body["tools"] = tools
    return body


def to_request(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for m in messages:
        add_message(out, [], m)
    return request_body(out, [], wire_tools(tools))


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def from_request(body: dict[str, Any]) -> tuple[list[Message], list[ToolSpec]]:
    messages: list[Message] = []
    for m in body["messages"]:
        role = m["role"]
        if role in ("system", "developer"):
            messages.append(SystemMessage(_text(m["content"]) or ""))
        elif role == "user":
            messages.append(UserMessage(_text(m["content"]) or ""))
        elif role == "assistant":
            calls = tuple(ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in m.get("tool_calls") or [])
            messages.append(AssistantMessage(_text(m.get("content")), calls))
        elif role == "tool":
            messages.append(ToolMessage(m["tool_call_id"], _text(m["content"]) or ""))
        else:
            raise ValueError(f"unsupported chat message role {role!r}")
    tools = [ToolSpec(t["function"]["name"], t["function"].get("description", ""),
                      t["function"].get("parameters", {"type": "object", "properties": {}}))
             for t in body.get("tools", [])]
    return messages, tools


def _fail(message: str, param: str | None, code: str | None = None) -> None:
    raise ProtocolError(WIRE, message, param, code)


def check_name(name: str, where: str, wire: str = WIRE) -> None:
    """OpenAI's checks on a tool name, the same on Chat Completions and Responses (public reports quote
    "Invalid 'tools[0].name': empty string." on Responses, the rest as on Chat)."""
    def _fail(message: str, param: str, code: str) -> None:
        raise ProtocolError(wire, message, param, code)

    if name == "":
        _fail(f"Invalid '{where}': empty string. Expected a string with minimum length 1, "
              "but got an empty string instead.", where, "empty_string")
    if not NAME_PATTERN.match(name):
        _fail(f"Invalid '{where}': string does not match pattern. Expected a string that matches "
              "the pattern '^[a-zA-Z0-9_-]+$'.", where, "invalid_value")
    if len(name) > NAME_MAX:
        _fail(f"Invalid '{where}': string too long. Expected a string with maximum length {NAME_MAX}, "
              f"but got a string with length {len(name)} instead.", where, "string_above_max_length")


@dataclass
class CheckState:
    """Where a passed check stopped: after `resume_at` messages, with what its walk knew there."""

    resume_at: int = 0
    answered_at: dict[str, int] = field(default_factory=dict)  # grows with the run: shared, never copied
    pending: dict[str, None] = field(default_factory=dict)
    pending_from: int = -1
    open_ids: set[str] = field(default_factory=set)


def check(body: dict[str, Any]) -> None:
    messages = body.get("messages") or []
    resume_check(messages, len(messages), body.get("tools", []), None)


def resume_check(messages: Sequence[dict[str, Any]], end: int, tools: Sequence[dict[str, Any]],
                 state: CheckState | None) -> CheckState:
    """The check of the request `messages[:end]` + `tools`, walking on from `state`, what the check of a
    request that was a prefix of this one left (None: from the start, the full check). The walk is left to
    right and its state after a prefix does not depend on what follows, so a prefix that passed need not be
    walked again. Returns the state for the next request; `state` must not be used again."""
    if not end:
        _fail("Invalid 'messages': empty array. Expected an array with minimum length 1, "
              "but got an empty array instead.", "messages", "empty_array")
    for i, tool in enumerate(tools):
        check_name(tool["function"]["name"], f"tools[{i}].function.name")
        description = tool["function"].get("description") or ""
        if len(description) > DESCRIPTION_MAX:
            where = f"tools[{i}].function.description"
            _fail(f"Invalid '{where}': string too long. Expected a string with maximum length {DESCRIPTION_MAX}, "
                  f"but got a string with length {len(description)} instead.", where, "string_above_max_length")
    s = state or CheckState()
    for i in range(s.resume_at, end):  # a message's shape does not depend on what follows it
        _check_shape(i, messages[i])

    pending = dict(s.pending)  # ids of the last assistant turn still waiting for an answer
    pending_from = s.pending_from
    open_ids = set(s.open_ids)  # ids the current block of tool messages may answer
    answered_at: ChainMap[str, int] = ChainMap({}, s.answered_at)  # new answers apart, until this passes
    for i in range(s.resume_at, end):
        m = messages[i]
        role = m["role"]
        if role != "tool" and pending:
            _fail("An assistant message with 'tool_calls' must be followed by tool messages responding "
                  "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                  + ", ".join(pending), f"messages.[{pending_from}].role")
        if role == "assistant":
            calls = m.get("tool_calls")
            if calls is not None:
                if len(calls) == 0:
                    _fail(f"Invalid 'messages[{i}].tool_calls': empty array. Expected an array with minimum "
                          "length 1, but got an empty array instead.", f"messages[{i}].tool_calls", "empty_array")
                for j, c in enumerate(calls):
                    check_name(c["function"]["name"], f"messages[{i}].tool_calls[{j}].function.name")
                pending = {c["id"]: None for c in calls}
                pending_from = i
                open_ids = set(pending)
            else:
                open_ids = set()
        elif role == "tool":
            call_id = m.get("tool_call_id")
            if not open_ids and call_id not in answered_at:
                _fail("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                      "message with 'tool_calls'.", f"messages.[{i}].role")
            if call_id in answered_at:
                _fail(f"Invalid parameter: Duplicate value for 'tool_call_id' of '{call_id}', in "
                      f"messages[{answered_at[call_id]}] and messages[{i}].", f"messages.[{i}].tool_call_id")
            if call_id not in open_ids:
                _fail(f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of "
                      "previous message.", f"messages.[{i}].tool_call_id")
            answered_at[call_id] = i
            pending.pop(call_id, None)
        else:
            open_ids = set()
    if pending:
        _fail("An assistant message with 'tool_calls' must be followed by tool messages responding "
              "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
              + ", ".join(pending), f"messages.[{pending_from}].role")
    s.answered_at.update(answered_at.maps[0])
    return CheckState(end, s.answered_at, pending, pending_from, open_ids)


def _check_shape(i: int, m: dict[str, Any]) -> None:
    """The schema checks the service runs on each message as sent, before it pairs calls and results."""
    content = m.get("content")
    if isinstance(content, dict):
        _fail(f"Invalid type for 'messages[{i}].content': expected one of a string or array of objects, but got "
              "an object instead.", f"messages[{i}].content", "invalid_type")
    if m["role"] == "assistant":
        for j, c in enumerate(m.get("tool_calls") or []):
            if isinstance(c.get("function", {}).get("arguments"), dict):
                where = f"messages[{i}].tool_calls[{j}].function.arguments"
                _fail(f"Invalid type for '{where}': expected a string, but got an object instead.", where,
                      "invalid_type")
        if content is None and m.get("tool_calls") is None:
            _fail("Invalid value for 'content': expected a string, got null.", f"messages.[{i}].content")
    elif m["role"] == "tool" and m.get("tool_call_id") is None:
        _fail("Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
              f"messages.[{i}].tool_call_id")


# the API's finish reasons, normalised (content_filter: the output was withheld, like a refusal)
FINISH = {"stop": "stop", "tool_calls": "tool_calls", "function_call": "tool_calls", "length": "length",
          "content_filter": "refusal"}
WIRE_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "length": "length", "refusal": "content_filter"}


def response_from_turn(turn: Turn, *, response_id: str = "chatcmpl-kit", model: str = "scripted",
                       created: int = 0) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in turn.tool_calls
        ]
    u = turn.usage
    return {
        "id": response_id, "object": "chat.completion", "created": created, "model": model,
        "choices": [{"index": 0, "finish_reason": WIRE_FINISH[turn.finish_reason], "message": message,
                     "logprobs": None}],
        "usage": {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens,
                  "total_tokens": u.input_tokens + u.output_tokens,
                  "prompt_tokens_details": {"cached_tokens": 0},  # the scripted model caches nothing
                  "completion_tokens_details": {"reasoning_tokens": 0}},
    }


def turn_from_response(body: dict[str, Any]) -> Turn:
    choice = body["choices"][0]
    msg = choice["message"]
    calls = tuple(ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in msg.get("tool_calls") or [])
    usage = body.get("usage") or {}
    finish = FINISH.get(choice.get("finish_reason"), "tool_calls" if calls else "stop")
    return Turn(_text(msg.get("content")), calls, finish,
                Usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)))
