"""A conversation written in each format diagnose reads, the way each one logs it: for fixtures, the
lesson's sample fleet and the speed benchmark. A conversation is a list of turns:

    ("system", text)  ("user", text)  ("assistant", text, [(call id or None, tool, arguments dict)])
    ("tool", call id or None, content, is_error)

The writers keep what each format keeps and nothing more (Chat Completions has no error flag on a tool
message; spans carry content only when captured), so reading them back exercises the real readers.
"""
from __future__ import annotations

import json
from typing import Any, Optional

Turn = tuple


def chat(turns: list[Turn]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in turns:
        if t[0] in ("system", "user"):
            out.append({"role": t[0], "content": t[1]})
        elif t[0] == "assistant":
            m: dict[str, Any] = {"role": "assistant", "content": t[1] or None}
            if t[2]:
                m["tool_calls"] = [{**({"id": i} if i is not None else {}), "type": "function",
                                    "function": {"name": n, "arguments": json.dumps(a)}} for i, n, a in t[2]]
            out.append(m)
        else:
            out.append({"role": "tool", **({"tool_call_id": t[1]} if t[1] is not None else {}), "content": t[2]})
    return out


def anthropic(turns: list[Turn]) -> dict[str, Any]:
    """`{"system": ..., "messages": [...]}`: results of one turn go in one user message, before any text."""
    system = next((t[1] for t in turns if t[0] == "system"), None)
    messages: list[dict[str, Any]] = []
    for t in turns:
        if t[0] == "assistant":
            blocks = ([{"type": "text", "text": t[1]}] if t[1] else []) + [
                {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in t[2]]
            messages.append({"role": "assistant", "content": blocks})
        elif t[0] == "tool":
            block = {"type": "tool_result", "tool_use_id": t[1], "content": t[2], **({"is_error": True} if t[3] else {})}
            if messages and messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list):
                messages[-1]["content"].append(block)
            else:
                messages.append({"role": "user", "content": [block]})
        elif t[0] == "user":
            messages.append({"role": "user", "content": t[1]})
    return {"system": system, "messages": messages}


def responses(turns: list[Turn]) -> dict[str, Any]:
    """`{"instructions": ..., "input": [...]}` as the API takes it; the items hold calls and outputs."""
    items: list[dict[str, Any]] = []
    for t in turns:
        if t[0] == "user":
            items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": t[1]}]})
        elif t[0] == "assistant":
            if t[1]:
                items.append({"type": "message", "role": "assistant",
                              "content": [{"type": "output_text", "text": t[1]}]})
            items += [{"type": "function_call", "call_id": i, "name": n, "arguments": json.dumps(a)} for i, n, a in t[2]]
        elif t[0] == "tool":
            items.append({"type": "function_call_output", "call_id": t[1], "output": t[2]})
    system = next((t[1] for t in turns if t[0] == "system"), None)
    return {"instructions": system, "items": items}


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value if isinstance(value, str) else json.dumps(value)}}


def otlp(turns: list[Turn], trace_id: str, conversation_id: Optional[str] = None, *, content: bool = True,
         start_ns: int = 1_780_000_000_000_000_000) -> dict[str, Any]:
    """One trace as the OTLP JSON exporter writes it: a chat span per assistant turn, an execute_tool span
    per call. With `content`, each chat span carries its input and output messages (parts form)."""
    spans: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    t = start_ns
    n = 0

    def span(name: str, attrs: dict[str, Any], failed: bool = False) -> None:
        nonlocal t, n
        n += 1
        t += 1_000_000
        spans.append({"traceId": trace_id, "spanId": f"{n:016x}", "name": name, "kind": 3,
                      "startTimeUnixNano": str(t), "endTimeUnixNano": str(t + 500_000),
                      "attributes": [_attr(k, v) for k, v in attrs.items()],
                      "status": {"code": 2} if failed else {}})

    common = {"gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o"}
    if conversation_id:
        common["gen_ai.conversation.id"] = conversation_id
    pending: dict[Any, dict[str, Any]] = {}
    for turn in turns:
        if turn[0] in ("system", "user"):
            history.append({"role": turn[0], "parts": [{"type": "text", "content": turn[1]}]})
        elif turn[0] == "assistant":
            out = ([{"type": "text", "content": turn[1]}] if turn[1] else []) + [
                {"type": "tool_call", "id": i, "name": name, "arguments": a} for i, name, a in turn[2]]
            attrs = {"gen_ai.operation.name": "chat", **common, "gen_ai.usage.input_tokens": 100,
                     "gen_ai.usage.output_tokens": 20}
            if content:
                attrs["gen_ai.input.messages"] = json.dumps(history)
                attrs["gen_ai.output.messages"] = json.dumps([{"role": "assistant", "parts": out}])
            span("chat gpt-4o", attrs)
            history.append({"role": "assistant", "parts": out})
            pending = {i: {"name": name, "arguments": a} for i, name, a in turn[2]}
        elif turn[0] == "tool":
            call = pending.get(turn[1], {"name": "unknown", "arguments": {}})
            attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call["name"],
                     "gen_ai.tool.type": "function"}
            if turn[1] is not None:
                attrs["gen_ai.tool.call.id"] = turn[1]
            if content:
                attrs["gen_ai.tool.call.arguments"] = json.dumps(call["arguments"])
                attrs["gen_ai.tool.call.result"] = turn[2]
            if turn[3]:
                attrs["error.type"] = "tool_error"
            span(f"execute_tool {call['name']}", attrs, failed=turn[3])
            history.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": turn[1], "result": turn[2]}]})
    return {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", "agent")]},
                               "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}]}]}
