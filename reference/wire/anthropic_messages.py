"""Anthropic Messages: `tool_use` blocks from the assistant, `tool_result` blocks (with `is_error`)
opening the next user message. The system prompt travels beside the messages, not among them.

Consecutive tool results become one user message, as the API requires for parallel calls.
"""
from __future__ import annotations

import json
import re
from collections import ChainMap
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..core.messages import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage
from ..core.model import Turn, Usage
from ..core.errors import ProtocolError

WIRE = "anthropic"
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")


def _input(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments  # not an object: the check below rejects it as the API would


def add_message(out: list[dict[str, Any]], system: list[str], m: Message) -> None:
    """Append one message's wire form to `out`, its text to `system` for a system message. A tool result
    that follows tool results joins their user message: that message is *replaced* by a longer one, never
    changed in place (reference/wire/incremental.py shares the messages between requests)."""
    if isinstance(m, SystemMessage):
        system.append(m.text)
    elif isinstance(m, UserMessage):
        out.append({"role": "user", "content": [{"type": "text", "text": m.text}]})
    elif isinstance(m, AssistantMessage):
        blocks: list[dict[str, Any]] = []
        if m.text:
            blocks.append({"type": "text", "text": m.text})
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c.arguments)}
                   for c in m.tool_calls]
        out.append({"role": "assistant", "content": blocks})
    elif isinstance(m, ToolMessage):
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.call_id, "content": m.content}
        if m.is_error:
            block["is_error"] = True
        previous = out[-1] if out else None
        if previous and previous["role"] == "user" and all(b["type"] == "tool_result" for b in previous["content"]):
            out[-1] = {"role": "user", "content": previous["content"] + [block]}
        else:
            out.append({"role": "user", "content": [block]})
    else:
        raise TypeError(f"not a kit message: {m!r}")


def wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools]


def request_body(out: list[dict[str, Any]], system: list[str], tools: list[dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": out}
    if system:
        body["system"] = "\n\n".join(system)
    if tools:
        body["tools"] = tools
    return body


def to_request(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> dict[str, Any]:
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for m in messages:
        add_message(out, system, m)
    return request_body(out, system, wire_tools(tools))


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


def from_request(body: dict[str, Any]) -> tuple[list[Message], list[ToolSpec]]:
    messages: list[Message] = []
    system = body.get("system")
    if system:
        messages.append(SystemMessage(system if isinstance(system, str) else _result_text(system)))
    for m in body["messages"]:
        blocks = _blocks(m["content"])
        if m["role"] == "assistant":
            text = "".join(b["text"] for b in blocks if b["type"] == "text") or None
            calls = tuple(ToolCall(b["id"], b["name"], json.dumps(b["input"], ensure_ascii=False))
                          for b in blocks if b["type"] == "tool_use")
            messages.append(AssistantMessage(text, calls))
            continue
        for b in blocks:
            if b["type"] == "tool_result":
                messages.append(ToolMessage(b["tool_use_id"], _result_text(b.get("content")), bool(b.get("is_error"))))
            elif b["type"] == "text":
                messages.append(UserMessage(b["text"]))
    tools = [ToolSpec(t["name"], t.get("description", ""), t.get("input_schema", {"type": "object", "properties": {}}))
             for t in body.get("tools", [])]
    return messages, tools


def _fail(message: str) -> None:
    raise ProtocolError(WIRE, message)


Span = tuple[int, str, list[dict[str, Any]]]  # a turn: (index of its first message, role, blocks)


def _turns(messages: Sequence[dict[str, Any]], offset: int = 0) -> list[Span]:
    """Consecutive messages of one role combined into one turn, as the API documents it does
    ("Consecutive `user` or `assistant` turns in your request will be combined into a single turn"),
    each with the index of its first message. Which index a real error names for a combined turn is
    [assumed]; for a request without consecutive same-role messages it is the message's own index."""
    turns: list[Span] = []
    for i, m in enumerate(messages, offset):
        if turns and turns[-1][1] == m["role"]:
            turns[-1][2].extend(_blocks(m["content"]))
        else:
            turns.append((i, m["role"], _blocks(m["content"])))
    return turns


def _has_tool_blocks(messages: Sequence[dict[str, Any]]) -> bool:
    return any(b["type"] in ("tool_use", "tool_result") for m in messages for b in _blocks(m["content"]))


@dataclass
class CheckState:
    """Where a passed check stopped: at the first message of its last turn (the next request may add to that
    turn), with the turn before it, the `tool_use` ids of the turns before (shared, never copied), and
    whether those turns hold tool blocks."""

    resume_at: int = 0
    previous: Span | None = None
    seen_ids: dict[str, None] = field(default_factory=dict)
    tool_blocks: bool = False


ROLE_TOOL = ('messages: Unexpected role "tool". Allowed roles are "user" or "assistant". For instructions on how to '
             "use tools, see https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview.")
ROLE_SYSTEM = "role 'system' is not supported on this model"  # models without mid-conversation system messages


def check_required(body: dict[str, Any]) -> None:
    """A field the SDK always sends (it refuses the call before sending), so only raw HTTP can forget it."""
    if "max_tokens" not in body:
        _fail("max_tokens: Field required")


def _check_messages(messages: Sequence[dict[str, Any]], start: int, end: int) -> None:
    """The rules on each message as sent (raw indexes, before consecutive turns are combined), for
    messages[start:end]. Only "final" depends on what follows, and a resumed check starts at the previous
    request's last turn, so a message that was final there is checked again here."""
    for i in range(start, end):
        m = messages[i]
        if m["role"] == "tool":
            _fail(ROLE_TOOL)
        if m["role"] == "system":
            _fail(ROLE_SYSTEM)
        for j, b in enumerate(_blocks(m["content"])):
            if b["type"] == "tool_use" and not ID_PATTERN.match(str(b.get("id", ""))):
                _fail(f"messages.{i}.content.{j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'")
    for i in range(start, end):
        m = messages[i]
        final_assistant = i == end - 1 and m["role"] == "assistant"  # a prefill may be empty
        if m["content"] in ("", []) and not final_assistant:
            _fail(f"messages.{i}: all messages must have non-empty content except for the optional final "
                  "assistant message")
    for m in messages[start:end]:
        for b in _blocks(m["content"]) if m["content"] != "" else []:
            if b["type"] == "text" and b.get("text") == "":
                _fail("messages: text content blocks must be non-empty")
            if b["type"] == "text" and not str(b.get("text")).strip():
                _fail("messages: text content blocks must contain non-whitespace text")


def check(body: dict[str, Any]) -> None:
    messages = body.get("messages") or []
    resume_check(messages, len(messages), body.get("tools", []), None)


def resume_check(messages: Sequence[dict[str, Any]], end: int, tools: Sequence[dict[str, Any]],
                 state: CheckState | None) -> CheckState:
    """The check of `messages[:end]` + `tools`, walking on from `state` (see openai_chat.resume_check).
    It walks again from the last turn of the prefix that passed, the one turn new messages can join; a turn
    before it passed with the same neighbours (the turn after an assistant turn can only gain blocks at
    its end, which answers no fewer of its calls)."""
    names: set[str] = set()
    for i, tool in enumerate(tools):
        if len(tool["name"]) > 128:  # the newest text (2026); earlier builds reported the pattern below
            _fail(f"tools.{i}.custom.name: String should have at most 128 characters")
        if not NAME_PATTERN.match(tool["name"]):
            _fail(f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
        if tool["name"] in names:
            _fail("tools: Tool names must be unique.")
        names.add(tool["name"])
    s = state or CheckState()
    _check_messages(messages, s.resume_at, end)
    tail = messages[s.resume_at:end]
    if not tools and (s.tool_blocks or _has_tool_blocks(tail)):
        _fail("Requests which include `tool_use` or `tool_result` blocks must define tools.")
    turns = _turns(tail, s.resume_at)
    seen_ids: ChainMap[str, None] = ChainMap({}, s.seen_ids)  # new ids apart, until this passes
    for t, (i, role, blocks) in enumerate(turns):
        if role == "assistant":
            for j, b in enumerate(blocks):
                if b["type"] != "tool_use":
                    continue
                if b["id"] in seen_ids:
                    _fail(f"messages.{i}.content.{j}: `tool_use` ids must be unique")
                seen_ids[b["id"]] = None
                if not isinstance(b["input"], dict):
                    _fail(f"messages.{i}.content.{j}.tool_use.input: Input should be a valid dictionary")
            wanted = [b["id"] for b in blocks if b["type"] == "tool_use"]
            if not wanted:
                continue
            # results must open the next turn; the API does not look past a leading non-result block
            following = turns[t + 1][2] if t + 1 < len(turns) else []
            answered: set[str] = set()
            for b in following:
                if b["type"] != "tool_result":
                    break
                answered.add(b["tool_use_id"])
            missing = [w for w in wanted if w not in answered]
            if missing:
                _fail(f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                      + ", ".join(missing) + ". Each `tool_use` block must have a corresponding `tool_result` "
                      "block in the next message.")
        else:
            previous = turns[t - 1] if t > 0 else s.previous
            allowed = {b["id"] for b in previous[2] if b["type"] == "tool_use"} \
                if previous and previous[1] == "assistant" else set()
            for j, b in enumerate(blocks):
                if b["type"] == "tool_result" and b["tool_use_id"] not in allowed:
                    _fail(f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                          f"{b['tool_use_id']}. Each `tool_result` block must have a corresponding `tool_use` "
                          "block in the previous message.")
    if len(turns) < 2:
        return s
    last = turns[-1][0]
    for _, role, blocks in turns[:-1]:
        s.seen_ids.update((b["id"], None) for b in blocks if role == "assistant" and b["type"] == "tool_use")
    return CheckState(last, turns[-2], s.seen_ids,
                      s.tool_blocks or _has_tool_blocks(messages[s.resume_at:last]))


def response_from_turn(turn: Turn, *, response_id: str = "msg_kit", model: str = "scripted",
                       created: int = 0) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if turn.text:
        content.append({"type": "text", "text": turn.text, "citations": None})
    content += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c.arguments)} for c in turn.tool_calls]
    stop = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "refusal": "refusal"}[turn.finish_reason]
    return {"id": response_id, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": turn.usage.input_tokens, "output_tokens": turn.usage.output_tokens,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}  # nothing cached


# the API's stop reasons, normalised: a paused turn or a full context window did not finish its answer
STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length",
                "model_context_window_exceeded": "length", "pause_turn": "length", "refusal": "refusal"}


def turn_from_response(body: dict[str, Any]) -> Turn:
    blocks = body["content"]
    text = "".join(b["text"] for b in blocks if b["type"] == "text") or None
    calls = tuple(ToolCall(b["id"], b["name"], json.dumps(b["input"], ensure_ascii=False))
                  for b in blocks if b["type"] == "tool_use")
    finish = STOP_REASONS.get(body.get("stop_reason"), "tool_calls" if calls else "stop")
    usage = body.get("usage") or {}
    return Turn(text, calls, finish, Usage(usage.get("input_tokens", 0), usage.get("output_tokens", 0)))
