"""OpenAI Responses API: `function_call` and `function_call_output` items in `input`.

The Responses API matches an output to its call by `call_id` (in the input, or in the state of
`previous_response_id`), so it is looser about order than Chat Completions: results need not follow
their turn immediately. The kit requires the call to come earlier in the input than its output
(**[assumed]**, see docs/protocol.md). Like Chat Completions it has no error flag on tool results.
"""
from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..core.messages import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from ..core.model import Turn, Usage
from ..core.errors import ProtocolError
from . import openai_chat

WIRE = "openai-responses"
MESSAGE_ROLES = ("assistant", "system", "developer", "user")


def item_id(call_id: str) -> str:
    """Function-call item ids must begin with 'fc'; derive one from the call id."""
    return "fc_" + call_id.removeprefix("call_")


def add_message(out: list[dict[str, Any]], system: list[str], m: Message) -> None:
    """Append one message's wire items to `out` (an assistant turn may become several items)."""
    if isinstance(m, (SystemMessage, UserMessage)):
        out.append({"type": "message", "role": m.role, "content": m.text})
    elif isinstance(m, AssistantMessage):
        if m.text is not None:
            out.append({"type": "message", "role": "assistant", "content": m.text})
        for c in m.tool_calls:
            out.append({"type": "function_call", "id": item_id(c.id), "call_id": c.id,
                        "name": c.name, "arguments": c.arguments})
    elif isinstance(m, ToolMessage):
        out.append({"type": "function_call_output", "call_id": m.call_id, "output": m.content})
    else:
        raise TypeError(f"not a kit message: {m!r}")


def wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [{"type": "function", "name": t.name, "description": t.description,
             "parameters": t.parameters, "strict": False} for t in tools]


def request_body(items: list[dict[str, Any]], system: list[str], tools: list[dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {"input": items}
    if tools:
        body["tools"] = tools
    return body


def to_request(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for m in messages:
        add_message(items, [], m)
    return request_body(items, [], wire_tools(tools))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") in ("input_text", "output_text", "text"))


def from_request(body: dict[str, Any]) -> tuple[list[Message], list[ToolSpec]]:
    messages: list[Message] = []
    for item in body["input"]:
        kind = item.get("type", "message")
        if kind == "message":
            role = item["role"]
            if role in ("system", "developer"):
                messages.append(SystemMessage(_text(item["content"])))
            elif role == "user":
                messages.append(UserMessage(_text(item["content"])))
            else:
                messages.append(AssistantMessage(_text(item["content"])))
        elif kind == "function_call":
            call = ToolCall(item["call_id"], item["name"], item["arguments"])
            last = messages[-1] if messages else None
            # calls that follow an assistant item without a tool result in between belong to that turn
            if isinstance(last, AssistantMessage):
                messages[-1] = AssistantMessage(last.text, last.tool_calls + (call,))
            else:
                messages.append(AssistantMessage(None, (call,)))
        elif kind == "function_call_output":
            messages.append(ToolMessage(item["call_id"], _text(item["output"])))
        elif kind == "reasoning":
            continue  # a reasoning model's own thoughts: nothing the kit's conversation carries
        else:
            raise ValueError(f"unsupported Responses input item type {kind!r}")
    tools = [ToolSpec(t["name"], t.get("description", ""), t.get("parameters", {"type": "object", "properties": {}}))
             for t in body.get("tools", [])]
    return messages, tools


def _fail(message: str, param: str | None, code: str | None = None) -> None:
    raise ProtocolError(WIRE, message, param, code)


@dataclass
class CheckState:
    """Where a passed check stopped: after `resume_at` items, with the ids seen so far (shared, never copied)."""

    resume_at: int = 0
    item_ids: dict[str, None] = field(default_factory=dict)
    calls: dict[str, None] = field(default_factory=dict)
    outputs: dict[str, None] = field(default_factory=dict)


def check(body: dict[str, Any]) -> None:
    items = body.get("input") or []
    resume_check(items, len(items), body.get("tools", []), None)


def resume_check(items: Sequence[dict[str, Any]], end: int, tools: Sequence[dict[str, Any]],
                 state: CheckState | None) -> CheckState:
    """The check of `items[:end]` + `tools`, walking on from `state` (see openai_chat.resume_check). The
    second walk (every call has an output) needs no earlier item either: in a prefix that passed, every
    call had its output, and outputs are only ever added."""
    for i, tool in enumerate(tools):
        name, where = tool["name"], f"tools[{i}].name"
        openai_chat.check_name(name, where, WIRE)
    s = state or CheckState()
    seen_item_ids: ChainMap[str, None] = ChainMap({}, s.item_ids)  # new ids apart, until this passes
    calls: ChainMap[str, None] = ChainMap({}, s.calls)
    outputs: ChainMap[str, None] = ChainMap({}, s.outputs)
    new = items[s.resume_at:end]
    for i, item in enumerate(new, start=s.resume_at):
        _check_item(i, item, items[i + 1] if i + 1 < end else None)
        if item.get("type", "message") == "message" and item.get("role") not in MESSAGE_ROLES:
            _fail(f"Invalid value: '{item.get('role')}'. Supported values are: 'assistant', 'system', 'developer', "
                  "and 'user'.", f"input[{i}].role", "invalid_value")
    for item in new:
        if item.get("type") == "function_call":
            if "id" in item:  # ids are optional on input items; only given ones can clash
                if item["id"] in seen_item_ids:
                    _fail(f"Duplicate item found with id {item['id']}. Remove duplicate items from your input "
                          "and try again.", "input")
                seen_item_ids[item["id"]] = None
            calls[item["call_id"]] = None
        elif item.get("type") == "function_call_output":
            if item["call_id"] not in calls:
                _fail(f"No tool call found for function call output with call_id {item['call_id']}.", "input")
            outputs[item["call_id"]] = None
    for item in new:
        if item.get("type") == "function_call" and item["call_id"] not in outputs:
            _fail(f"No tool output found for function call {item['call_id']}.", "input")
    for mine, added in ((s.item_ids, seen_item_ids), (s.calls, calls), (s.outputs, outputs)):
        mine.update(added.maps[0])
    return CheckState(end, s.item_ids, s.calls, s.outputs)


ID_PREFIXES = {"function_call": "fc", "reasoning": "rs"}  # an input item's own id, where one is given
FOLLOWERS = ("message", "function_call", "reasoning")  # the items of its response that may follow a reasoning item


def _check_item(i: int, item: dict[str, Any], following: dict[str, Any] | None) -> None:
    """The service's schema checks on one input item (texts: docs/protocol.md, Responses)."""
    kind = item.get("type", "message")
    prefix = ID_PREFIXES.get(kind)
    if prefix and "id" in item and not str(item["id"]).startswith(prefix):
        _fail(f"Invalid 'input[{i}].id': '{item['id']}'. Expected an ID that begins with '{prefix}'.",
              f"input[{i}].id", "invalid_id_prefix")
    if kind == "function_call" and not isinstance(item.get("arguments"), str):
        got = "an object" if isinstance(item.get("arguments"), dict) else type(item.get("arguments")).__name__
        _fail(f"Invalid type for 'input[{i}].arguments': expected a string, but got {got} instead.",
              f"input[{i}].arguments", "invalid_type")
    if kind == "reasoning" and (following is None or following.get("type", "message") not in FOLLOWERS):
        _fail(f"Item '{item.get('id')}' of type 'reasoning' was provided without its required following item.",
              "input")


def response_from_turn(turn: Turn, *, response_id: str = "resp_kit", model: str = "scripted",
                       created: int = 0) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if turn.text is not None:
        output.append({"type": "message", "id": "msg_" + response_id.removeprefix("resp_"), "role": "assistant",
                       "status": "completed",
                       "content": [{"type": "output_text", "text": turn.text, "annotations": []}]})
    for c in turn.tool_calls:
        output.append({"type": "function_call", "id": item_id(c.id), "call_id": c.id, "name": c.name,
                       "arguments": c.arguments, "status": "completed"})
    u = turn.usage
    incomplete = turn.finish_reason in ("length", "refusal")
    reason = "max_output_tokens" if turn.finish_reason == "length" else "content_filter"
    return {
        "id": response_id, "object": "response", "created_at": created, "model": model,
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": {"reason": reason} if incomplete else None,
        "error": None, "instructions": None, "metadata": {}, "output": output,
        "parallel_tool_calls": True, "temperature": 1.0, "top_p": 1.0, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
                  "total_tokens": u.input_tokens + u.output_tokens,
                  "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }


def turn_from_response(body: dict[str, Any]) -> Turn:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in body.get("output", []):
        if item["type"] == "message":
            texts.append(_text(item["content"]))
        elif item["type"] == "function_call":
            calls.append(ToolCall(item["call_id"], item["name"], item["arguments"]))
    usage = body.get("usage") or {}
    if body.get("status") == "incomplete":
        reason = (body.get("incomplete_details") or {}).get("reason")
        finish = "refusal" if reason == "content_filter" else "length"
    else:
        finish = "tool_calls" if calls else "stop"
    return Turn("".join(texts) if texts else None, tuple(calls), finish,
                Usage(usage.get("input_tokens", 0), usage.get("output_tokens", 0)))
