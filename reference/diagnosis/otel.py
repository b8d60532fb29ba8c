"""Lesson 6: a trace as OpenTelemetry GenAI spans and the token-usage metric (needs the `trace` extra:
`pip install -e ".[trace]"`, which brings opentelemetry-sdk).

    invoke_agent {loop}            one per run (INTERNAL)
      chat {model}                 one per model request (CLIENT)
      execute_tool {tool}          one per tool call the model made (INTERNAL), a sibling of the chats

The span tree has the shape of the JSONL trace: as many chat spans as `step` records, as many
execute_tool spans as tool calls in them. Times are the run's simulated clock, from its start instant.
Names follow the GenAI semantic conventions (open-telemetry/semantic-conventions-genai,
model/gen-ai/spans.yaml and metrics.yaml); docs/tracing.md lists them with their stability.

The kit uses providers of its own, never the global ones: a library must not install telemetry for its
host, and the anthropic SDK emits its own spans whenever a global SDK provider is installed.
Message content goes on spans only with `capture_content=True` (and only what the trace holds).
"""
from __future__ import annotations

import json
from typing import Any, IO, Optional

from ..harness.trace import load
from ..sim.clock import parse_start

# The Development-status buckets the conventions give for gen_ai.client.token.usage
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864)
PROVIDERS = {"openai-chat": "openai", "openai-responses": "openai", "anthropic": "anthropic"}


def tracer_provider(exporter: Any):
    """A TracerProvider of the kit's own, exporting each span as it ends (SimpleSpanProcessor)."""
    from opentelemetry.sdk.resources import Resource  # lazy: the OTel SDK is an optional extra
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    provider = TracerProvider(resource=Resource.create({"service.name": "loopkit"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def file_exporter(out: IO[str]):
    """Spans as JSON lines to a text file (or sys.stdout): offline, no collector needed."""
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter  # lazy: optional extra
    return ConsoleSpanExporter(out=out, formatter=lambda span: span.to_json(indent=None) + "\n")


def meter_provider(reader: Any):
    """A MeterProvider of the kit's own, with the conventions' buckets for the token histogram."""
    from opentelemetry.sdk.metrics import MeterProvider  # lazy: optional extra
    from opentelemetry.sdk.metrics.view import ExplicitBucketHistogramAggregation, View
    view = View(instrument_name="gen_ai.client.token.usage",
                aggregation=ExplicitBucketHistogramAggregation(boundaries=TOKEN_BUCKETS))
    return MeterProvider(metric_readers=[reader], views=[view])


def _ns(start: int, seconds: float) -> int:
    return start + int(round(seconds * 1e9))


def _parts_message(role: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": role, "parts": parts}


def export(trace: Any, provider: Any, meters: Any = None, *, capture_content: bool = False) -> None:
    """Emit the run's spans through `provider` (and the token metric through `meters`, if given)."""
    from opentelemetry.trace import SpanKind, Status, StatusCode, set_span_in_context  # lazy: optional extra
    records = load(trace)
    run = next(r for r in records if r["kind"] == "run")
    finish = next((r for r in records if r["kind"] == "finish"), None)
    steps = [r for r in records if r["kind"] == "step"]
    attempts: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r["kind"] == "tool":
            attempts.setdefault(r["call_id"], []).append(r)
    results = {x["call_id"]: (r["t"], x) for r in records if r["kind"] == "results" for x in r["results"]}
    crash = next((r for r in records if r["kind"] == "error"), None)

    start = int(parse_start(run["clock"]).timestamp() * 1e9)
    end_t = finish["t"] if finish else max([s["t"] + s["latency"] for s in steps] + [0.0])
    common = {"gen_ai.provider.name": PROVIDERS.get(run["wire"], run["wire"]), "gen_ai.request.model": run["model"]}
    tracer = provider.get_tracer("loopkit.diagnosis")
    histogram = (meters.get_meter("loopkit.diagnosis").create_histogram(
        "gen_ai.client.token.usage", unit="{token}", description="Number of input and output tokens used.")
        if meters is not None else None)
    loop = finish["loop"] if finish else "agent"
    root = tracer.start_span(f"invoke_agent {loop}", kind=SpanKind.INTERNAL, start_time=_ns(start, 0.0),
                             attributes={"gen_ai.operation.name": "invoke_agent", **common, "gen_ai.agent.name": loop})
    context = set_span_in_context(root)
    history: list[dict[str, Any]] = []
    if capture_content and run.get("capture_content"):
        history.append(_parts_message("user", [{"type": "text", "content": run["user"]}]))
        root.set_attribute("gen_ai.system_instructions", json.dumps([{"type": "text", "content": run["system"]}]))
    for s in steps:
        chat = tracer.start_span(f"chat {run['model']}", context=context, kind=SpanKind.CLIENT,
                                 start_time=_ns(start, s["t"]), attributes={"gen_ai.operation.name": "chat", **common})
        chat.set_attribute("gen_ai.usage.input_tokens", s["input_tokens"])
        chat.set_attribute("gen_ai.usage.output_tokens", s["output_tokens"])
        chat.set_attribute("gen_ai.response.finish_reasons", [s["finish_reason"]])
        out = ([{"type": "text", "content": s["text"]}] if s["text"] else []) + [
            {"type": "tool_call", "id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in s["tool_calls"]]
        if capture_content and run.get("capture_content"):
            chat.set_attribute("gen_ai.input.messages", json.dumps(history, ensure_ascii=False))
            chat.set_attribute("gen_ai.output.messages", json.dumps([_parts_message("assistant", out)], ensure_ascii=False))
        history.append(_parts_message("assistant", out))
        chat.end(end_time=_ns(start, s["t"] + s["latency"]))
        if histogram is not None:
            for kind, n in (("input", s["input_tokens"]), ("output", s["output_tokens"])):
                histogram.record(n, {"gen_ai.operation.name": "chat", **common, "gen_ai.token.type": kind})
        for c in s["tool_calls"]:
            tried = attempts.get(c["id"], [])
            t_result, result = results.get(c["id"], (s["t"] + s["latency"], None))
            begin = tried[0]["t"] if tried else s["t"] + s["latency"]
            finish_t = tried[-1]["t"] + tried[-1]["latency"] if tried else begin
            tool = tracer.start_span(f"execute_tool {c['name']}", context=context, kind=SpanKind.INTERNAL,
                                     start_time=_ns(start, begin), attributes={
                                         "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": c["name"],
                                         "gen_ai.tool.call.id": c["id"], "gen_ai.tool.type": "function",
                                         "loopkit.tool.attempts": len(tried)})
            if result is not None and result["status"] == "error":
                tool.set_attribute("error.type", result["error_type"] or "_OTHER")
                tool.set_status(Status(StatusCode.ERROR))
            if capture_content and result is not None:
                tool.set_attribute("gen_ai.tool.call.arguments", c["arguments"])
                tool.set_attribute("gen_ai.tool.call.result", result["content"])
            if result is not None:
                history.append(_parts_message("tool", [{"type": "tool_call_response", "id": c["id"],
                                                        "result": result["content"]}]))
            tool.end(end_time=_ns(start, finish_t))
    root.set_attribute("gen_ai.usage.input_tokens", sum(s["input_tokens"] for s in steps))
    root.set_attribute("gen_ai.usage.output_tokens", sum(s["output_tokens"] for s in steps))
    if steps:
        root.set_attribute("gen_ai.response.finish_reasons", [steps[-1]["finish_reason"]])
    root.set_attribute("loopkit.stop_reason", finish["stop_reason"] if finish else "crashed")
    failed: Optional[str] = crash["error_type"] if crash else ("loop_error" if finish and finish["stop_reason"] == "error"
                                                               else None)
    if failed:
        root.set_attribute("error.type", failed)
        root.set_status(Status(StatusCode.ERROR))
    root.end(end_time=_ns(start, end_t))
