"""OpenTelemetry GenAI spans: the OTLP JSON exporter's `resourceSpans` objects, and the span JSON lines the
kit's own exporter writes (reference/diagnosis/otel.py: one `span.to_json()` a line). One trace is one
conversation (its `gen_ai.conversation.id` when a span has one, else the trace id).

Where the spans carry content (the opt-in `gen_ai.input.messages` / `gen_ai.output.messages`, as span
attributes or on a `gen_ai.client.inference.operation.details` event), the conversation is the last model
call's input followed by its output, in the conventions' parts form; its message index counts those
messages. Without content, each `execute_tool` span is a call (`gen_ai.tool.name`, `gen_ai.tool.call.id`,
`gen_ai.tool.call.arguments` / `.result` if captured; `error.type` or an ERROR status marks a failure),
grouped into one turn per model call before it; the message index then counts one entry per model turn
and one per tool result, in time order.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Iterator, Optional

from ...core.messages import SystemMessage, UserMessage
from .chat import says_error
from .conversation import Conversation, Pairing, arguments_text, text_of

MODEL_OPERATIONS = ("chat", "generate_content", "text_completion")
CONTENT_EVENT = "gen_ai.client.inference.operation.details"


@dataclass
class Span:
    trace: str
    name: str
    start: float  # seconds since the epoch
    attributes: dict[str, Any]
    failed: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)


def _value(v: Any) -> Any:
    """An OTLP AnyValue as a Python value."""
    if not isinstance(v, dict):
        return v
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in v:
            return v[key]
    if "intValue" in v:
        return int(v["intValue"])
    if "arrayValue" in v:
        return [_value(x) for x in v["arrayValue"].get("values", [])]
    if "kvlistValue" in v:
        return {kv["key"]: _value(kv.get("value")) for kv in v["kvlistValue"].get("values", [])}
    return None


def _attributes(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw  # the kit's exporter writes a plain mapping
    return {a["key"]: _value(a.get("value")) for a in raw or [] if isinstance(a, dict) and "key" in a}


def otlp_spans(obj: dict[str, Any]) -> Iterator[Span]:
    """The spans of one OTLP JSON export object (`{"resourceSpans": [...]}`)."""
    for rs in obj.get("resourceSpans") or []:
        for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
            for s in ss.get("spans") or []:
                status = (s.get("status") or {}).get("code")
                attrs = _attributes(s.get("attributes"))
                yield Span(str(s.get("traceId", "")), str(s.get("name", "")),
                           int(s.get("startTimeUnixNano") or 0) / 1e9, attrs,
                           failed=status in (2, "STATUS_CODE_ERROR") or "error.type" in attrs,
                           events=[{"name": e.get("name"), "attributes": _attributes(e.get("attributes"))}
                                   for e in s.get("events") or []])


def kit_span(obj: dict[str, Any]) -> Span:
    """One line of the kit's span file (the OpenTelemetry SDK's `span.to_json()`)."""
    start = obj.get("start_time") or ""
    seconds = datetime.fromisoformat(start.replace("Z", "+00:00")).timestamp() if start else 0.0
    attrs = _attributes(obj.get("attributes"))
    status = (obj.get("status") or {}).get("status_code")
    return Span(str((obj.get("context") or {}).get("trace_id", "")), str(obj.get("name", "")), seconds, attrs,
                failed=status == "ERROR" or "error.type" in attrs,
                events=[{"name": e.get("name"), "attributes": _attributes(e.get("attributes"))}
                        for e in obj.get("events") or []])


def _content(span: Span, key: str) -> Any:
    value = span.attributes.get(key)
    for e in span.events:
        if value is None and e["name"] == CONTENT_EVENT:
            value = e["attributes"].get(key)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def conversations(source: str, spans: Iterable[Span], first_index: int = 0) -> Iterator[Conversation]:
    """One conversation per trace, in the order the traces first appear."""
    traces: dict[str, list[Span]] = {}
    for s in spans:
        traces.setdefault(s.trace, []).append(s)
    for n, (trace, group) in enumerate(traces.items()):
        group.sort(key=lambda s: s.start)
        ids = [s.attributes["gen_ai.conversation.id"] for s in group if "gen_ai.conversation.id" in s.attributes]
        c = Conversation(source, first_index + n, "otel", id=str(ids[0]) if ids else trace)
        c.metadata = {"trace_id": trace}
        models = [s for s in group if s.attributes.get("gen_ai.operation.name") in MODEL_OPERATIONS]
        with_content = [s for s in models if isinstance(_content(s, "gen_ai.input.messages"), list)]
        if with_content:
            # a call's execute_tool span carries the status the parts form lacks: where there is one, it decides
            flags = {str(s.attributes["gen_ai.tool.call.id"]): s.failed for s in group if "gen_ai.tool.call.id"
                     in s.attributes and s.attributes.get("gen_ai.operation.name") == "execute_tool"}
            _from_messages(c, with_content[-1], flags)
        else:
            _from_tool_spans(c, group)
        yield c


def _from_messages(c: Conversation, span: Span, flags: dict[str, bool]) -> None:
    system = _content(span, "gen_ai.system_instructions")
    if isinstance(system, list):
        c.system = text_of([p for p in system if isinstance(p, dict)])
    entries = list(_content(span, "gen_ai.input.messages")) + list(_content(span, "gen_ai.output.messages") or [])
    p = Pairing(c)
    if c.system:
        p.add(SystemMessage(c.system), -1)
    for i, m in enumerate(entries):
        if not isinstance(m, dict) or not isinstance(m.get("parts"), list):
            c.problems.append(f"message {i}: a message must be an object with a 'parts' list (skipped)")
            continue
        parts = [x for x in m["parts"] if isinstance(x, dict)]
        role = m.get("role")
        if role == "assistant":
            calls = [(x.get("id"), str(x.get("name")), arguments_text(x.get("arguments"))) for x in parts
                     if x.get("type") == "tool_call"]
            p.say(i, text_of([x for x in parts if x.get("type") == "text"]), calls)
        elif role == "tool" or any(x.get("type") == "tool_call_response" for x in parts):
            for x in parts:
                if x.get("type") == "tool_call_response":
                    result = x.get("result", x.get("response"))
                    text = result if isinstance(result, str) else json.dumps(result)
                    failed = flags.get(str(x.get("id")))  # the parts form has no error flag of its own
                    p.answer(i, x.get("id"), text, says_error(text) if failed is None else failed)
        else:
            text = text_of([x for x in parts if x.get("type") == "text"])
            p.add(SystemMessage(text) if role == "system" else UserMessage(text), i)
    if span.attributes.get("gen_ai.usage.output_tokens") is not None and entries:
        c.tokens[len(entries) - 1] = int(span.attributes.get("gen_ai.usage.input_tokens") or 0) + int(
            span.attributes["gen_ai.usage.output_tokens"])


def _from_tool_spans(c: Conversation, group: list[Span]) -> None:
    p = Pairing(c)
    entry = 0
    turn: list[Span] = []
    tokens: Optional[int] = None

    def flush() -> None:
        nonlocal entry
        if not turn:
            return
        calls = [(s.attributes.get("gen_ai.tool.call.id"), str(s.attributes.get("gen_ai.tool.name", s.name)),
                  arguments_text(s.attributes.get("gen_ai.tool.call.arguments"))) for s in turn]
        if tokens is not None:
            c.tokens[entry] = tokens
        p.say(entry, None, calls)
        entry += 1
        for s in turn:
            result = s.attributes.get("gen_ai.tool.call.result")
            text = result if isinstance(result, str) else "" if result is None else json.dumps(result)
            if s.failed and not text:
                text = f"Error: {s.attributes.get('error.type', 'the tool failed')}"
            p.answer(entry, s.attributes.get("gen_ai.tool.call.id"), text, s.failed,  # the span's status decides
                     captured=result is not None)
            entry += 1
        turn.clear()

    for s in group:
        op = s.attributes.get("gen_ai.operation.name")
        if op in MODEL_OPERATIONS:
            flush()
            tokens = sum(int(s.attributes.get(k) or 0) for k in ("gen_ai.usage.input_tokens",
                                                                 "gen_ai.usage.output_tokens")) or None
        elif op == "execute_tool":
            turn.append(s)
    flush()
    if c.unknown:
        c.notes.append("the spans hold no tool results (content capture was off): repeats and alternations "
                       "can be judged, what came back cannot")
    if not c.messages:
        c.notes.append("the trace has no execute_tool span and no captured messages: nothing to judge")
