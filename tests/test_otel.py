"""Lesson 6: OpenTelemetry GenAI spans and the token metric, from a trace, with the kit's own providers."""
from __future__ import annotations

import io
import json

import pytest
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from reference.diagnosis.otel import export, file_exporter, meter_provider, tracer_provider  # noqa: E402
from reference.harness.episode import Episode  # noqa: E402
from reference.harness.trace import Trace  # noqa: E402
from reference.runs.registry import run_loop  # noqa: E402
from reference.sim.scenario.loading import catalogue, find  # noqa: E402


def _spans(name, loop="react", capture=False, trace_capture=False):
    episode = Episode.from_scenario(find(name), trace=Trace(capture_content=trace_capture))
    run_loop(loop, episode)
    exporter = InMemorySpanExporter()
    export(episode.trace, tracer_provider(exporter), capture_content=capture)
    return episode.trace.records, exporter.get_finished_spans()


@pytest.mark.parametrize("loop", ["react", "guarded"])
def test_the_span_tree_has_the_shape_of_the_jsonl_trace(loop):
    for scenario in [s for s in catalogue() if loop != "react" or not s.provider_faults]:  # react crashes there
        records, spans = _spans(scenario.name, loop)
        steps = [r for r in records if r["kind"] == "step"]
        root = [s for s in spans if s.parent is None]
        assert len(root) == 1 and root[0].attributes["gen_ai.operation.name"] == "invoke_agent"
        children = [s for s in spans if s.parent is not None]
        assert all(s.parent.span_id == root[0].context.span_id for s in children)  # siblings, all of them
        ops = [s.attributes["gen_ai.operation.name"] for s in children]
        assert ops.count("chat") == len(steps)
        assert ops.count("execute_tool") == sum(len(s["tool_calls"]) for s in steps)


def test_attributes_follow_the_genai_conventions():
    records, spans = _spans("malformed-calls")
    chat = next(s for s in spans if s.name.startswith("chat "))
    assert chat.kind == otel_trace.SpanKind.CLIENT
    assert chat.attributes["gen_ai.provider.name"] == "openai"
    assert chat.attributes["gen_ai.request.model"] == records[0]["model"]
    assert chat.attributes["gen_ai.usage.input_tokens"] == records[1]["input_tokens"]
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert tools[0].attributes["gen_ai.tool.name"] == "weather"
    assert tools[0].attributes["error.type"] == "unknown_tool"
    assert tools[0].status.status_code == otel_trace.StatusCode.ERROR
    assert tools[0].attributes["gen_ai.tool.call.id"] == records[1]["tool_calls"][0]["id"]
    _, fine = _spans("happy-path")
    assert all("error.type" not in s.attributes and s.status.status_code == otel_trace.StatusCode.UNSET for s in fine)
    root = next(s for s in spans if s.parent is None)
    assert root.kind == otel_trace.SpanKind.INTERNAL and root.name == "invoke_agent react"


def test_content_is_captured_only_when_asked():
    _, spans = _spans("happy-path")
    assert not any(k.startswith(("gen_ai.input", "gen_ai.output", "gen_ai.system", "gen_ai.tool.call.arg"))
                   for s in spans for k in s.attributes)
    _, spans = _spans("happy-path", capture=True, trace_capture=True)
    chat = next(s for s in spans if s.name.startswith("chat "))
    assert json.loads(chat.attributes["gen_ai.input.messages"])[0]["role"] == "user"


def test_the_token_metric_and_the_global_provider_is_left_alone():
    before = otel_trace.get_tracer_provider()
    episode = Episode.from_scenario(find("happy-path"))
    run_loop("react", episode)
    reader = InMemoryMetricReader()
    export(episode.trace, tracer_provider(InMemorySpanExporter()), meter_provider(reader))
    assert otel_trace.get_tracer_provider() is before
    metric = next(m for rm in reader.get_metrics_data().resource_metrics for sm in rm.scope_metrics
                  for m in sm.metrics if m.name == "gen_ai.client.token.usage")
    points = {p.attributes["gen_ai.token.type"]: p for p in metric.data.data_points}
    assert points["input"].sum == episode.ledger.usage.input_tokens
    assert points["output"].sum == episode.ledger.usage.output_tokens


def test_spans_to_a_jsonl_file():
    episode = Episode.from_scenario(find("happy-path"))
    run_loop("react", episode)
    out = io.StringIO()
    export(episode.trace, tracer_provider(file_exporter(out)))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [l["name"].split()[0] for l in lines] == ["chat", "execute_tool", "execute_tool", "chat", "invoke_agent"]
