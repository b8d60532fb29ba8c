"""Reading real agent logs: every format told apart by content, calls paired with results, and bad input
reported one line per problem while the rest is still read (reference/diagnosis/logs/)."""
from __future__ import annotations

import json

import pytest

from reference.core.messages import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from reference.diagnosis import samples
from reference.diagnosis.logs import NotALog, read_log, write


def _read(path):
    problems: list[str] = []
    return list(read_log(path, problems.append)), problems


def _calls(c):
    return [(c.call_entries[x.id], x.name) for m in c.messages if isinstance(m, AssistantMessage) for x in m.tool_calls]


def _results(c):
    calls = {x.id: x.name for m in c.messages if isinstance(m, AssistantMessage) for x in m.tool_calls}
    return [(calls[m.call_id], m.content, m.is_error) for m in c.messages if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("layout", ["array", "jsonl", "wrapped"])
def test_chat_completions_in_its_three_layouts(tmp_path, layout):
    messages = write.chat(samples.support_loop())
    path = tmp_path / "log.json"
    if layout == "array":
        path.write_text(json.dumps(messages))
    elif layout == "jsonl":
        path.write_text(json.dumps(messages) + "\n" + json.dumps(write.chat(samples.support_ok())) + "\n")
    else:
        path.write_text(json.dumps({"trajectory": messages, "task_id": 7, "reward": 0.0}) + "\n")
    found, problems = _read(path)
    assert problems == []
    c = found[0]
    assert c.format == "chat"
    assert [type(m) for m in c.messages[:2]] == [SystemMessage, UserMessage]
    # the message index counts every entry of the log's list, system and user included
    assert _calls(c) == [(2, "get_order"), (4, "update_shipping_address"), (8, "update_shipping_address"),
                         (10, "update_shipping_address"), (14, "update_shipping_address")]
    # a plain-text error is a failure even though Chat Completions has no error flag
    assert _results(c)[1] == ("update_shipping_address", samples.ADDRESS_ERROR, True)
    assert _results(c)[0][2] is False
    if layout == "jsonl":
        assert [x.index for x in found] == [0, 1]
    if layout == "wrapped":
        assert c.id == "7" and c.metadata["reward"] == 0.0 and "trajectory" not in c.metadata


def test_anthropic_messages_with_a_top_level_system_and_an_is_error_flag(tmp_path):
    turns = samples.support_loop()
    turns[5] = ("tool", "call_2", "postcode is required", True)  # not worded as an error: the flag says it
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(write.anthropic(turns)) + "\n")
    (c,), problems = _read(path)
    assert c.format == "anthropic" and problems == []
    assert c.positions[0] == -1  # the top-level system is not an entry
    assert _calls(c)[:2] == [(1, "get_order"), (3, "update_shipping_address")]
    assert _results(c)[1] == ("update_shipping_address", "postcode is required", True)


def test_openai_responses_items_with_parallel_calls(tmp_path):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(write.responses(samples.coding_ok())))
    (c,), problems = _read(path)
    assert c.format == "responses" and problems == []
    # each function_call is its own item; the parallel two form one assistant turn
    assert _calls(c) == [(1, "read_file"), (2, "run_tests"), (5, "edit_file"), (7, "run_tests")]
    turns = [m for m in c.messages if isinstance(m, AssistantMessage)]
    assert [len(t.tool_calls) for t in turns] == [2, 1, 1, 0]  # the last is the answer


def test_otlp_spans_with_and_without_captured_content(tmp_path):
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(write.otlp(samples.support_loop(), "t1", "conv-1")) + "\n"
                    + json.dumps(write.otlp(samples.coding_loop(), "t2", content=False)) + "\n")
    (with_content, without), problems = _read(path)
    assert problems == []
    assert with_content.format == "otel" and with_content.id == "conv-1"
    assert _calls(with_content)[1] == (4, "update_shipping_address")
    assert [r[0] for r in _results(with_content)] == ["get_order"] + ["update_shipping_address"] * 4
    assert without.id == "t2" and _calls(without)[0] == (0, "read_file") and without.unknown
    assert without.tokens  # the chat spans' recorded usage


def test_the_kits_own_span_lines_and_traces(tmp_path):
    from reference.diagnosis.otel import export, file_exporter, tracer_provider
    from reference.harness.episode import Episode
    from reference.harness.trace import Trace
    from reference.runs.registry import run_loop
    from reference.sim.scenario.loading import find
    trace_path = tmp_path / "trace.jsonl"
    episode = Episode.from_scenario(find("repeat-exact"), trace=Trace(str(trace_path), capture_content=True))
    run_loop("react", episode)
    episode.trace.close()
    (c,), problems = _read(trace_path)
    assert c.format == "kit-trace" and problems == [] and c.tools
    recorded = [x for s in map(json.loads, trace_path.read_text().splitlines()) if s["kind"] == "step"
                for x in s["tool_calls"]]
    assert [x.name for m in c.messages if isinstance(m, AssistantMessage) for x in m.tool_calls] == \
        [x["name"] for x in recorded]
    spans_path = tmp_path / "spans.jsonl"
    with open(spans_path, "w") as out:
        export(str(trace_path), tracer_provider(file_exporter(out)), capture_content=True)
    (s,), problems = _read(spans_path)
    assert s.format == "otel" and problems == []
    assert [x.name for m in s.messages if isinstance(m, AssistantMessage) for x in m.tool_calls] == \
        [x["name"] for x in recorded]


def test_missing_and_reused_ids_are_paired_by_position_and_the_notes_say_so(tmp_path):
    log = [{"role": "user", "content": "check both"},
           {"role": "assistant", "tool_calls": [
               {"id": "x", "type": "function", "function": {"name": "a", "arguments": "{}"}},
               {"id": "x", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},
           {"role": "tool", "tool_call_id": "x", "content": "from a"},
           {"role": "tool", "tool_call_id": "x", "content": "from b"},
           {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "c", "arguments": "{}"}}]},
           {"role": "tool", "content": "from c"}]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    (c,), problems = _read(path)
    assert problems == []
    assert [(name, text) for name, text, _ in _results(c)] == [("a", "from a"), ("b", "from b"), ("c", "from c")]
    assert any("reuses the id x" in n for n in c.notes)
    assert any("message 5: the result was paired by position" in n and "has no id" in n for n in c.notes)
    assert len({m.call_id for m in c.messages if isinstance(m, ToolMessage)}) == 3  # the kit's ids are unique


def test_wrong_types_and_a_truncated_file_are_one_line_each_and_the_rest_is_read(tmp_path):
    good = json.dumps(write.chat(samples.support_ok()))
    bad_entries = json.dumps([{"role": "user", "content": "hi"}, 5, {"role": 7},
                              {"role": "assistant", "tool_calls": "not a list"},
                              {"role": "tool", "tool_call_id": "nobody", "content": "orphan"},
                              {"role": "assistant", "content": "bye"}])
    path = tmp_path / "log.jsonl"
    path.write_text(good + "\n" + bad_entries + "\n" + "42\n" + good + "\n" + good[: len(good) // 2])
    found, problems = _read(path)
    assert [c.index for c in found] == [0, 1, 3]
    assert len(found[1].messages) == 2  # the user's message and the last answer survive
    assert len(problems) == 6, problems
    assert any("message 1: an entry must be an object, got int" in p for p in problems)
    assert any("message 2: 'role' must be a string" in p for p in problems)
    assert any("message 3: 'tool_calls' must be a list" in p for p in problems)
    assert any("message 4: a tool result with no open call" in p for p in problems)
    assert any("line 3: a conversation must be a message list" in p for p in problems)
    assert any("line 5: not valid JSON" in p and "truncated" in p for p in problems)


def test_a_file_that_is_no_log_gets_one_line_naming_what_was_expected(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some text\n")
    with pytest.raises(NotALog) as caught:
        list(read_log(path))
    message = str(caught.value)
    assert "\n" not in message and "expected" in message and "OTLP" in message and "trajectory" in message


def test_jsonl_is_read_one_conversation_at_a_time(tmp_path):
    path = tmp_path / "many.jsonl"
    line = json.dumps(write.chat(samples.support_ok()))
    path.write_text((line + "\n") * 3 + "{broken\n")
    reader = read_log(path)
    first = next(reader)  # the broken last line is not read before the first conversation comes out
    assert first.index == 0 and len(list(reader)) == 2


@pytest.mark.slow
def test_a_100_mb_line_is_read(tmp_path):
    turns = samples.support_ok()
    big = "x" * (100 * 1024 * 1024)
    turns[3] = ("tool", "call_1", big, False)
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(write.chat(turns)) + "\n" + json.dumps(write.chat(samples.support_ok())) + "\n")
    found, problems = _read(path)
    assert problems == [] and len(found) == 2 and len(_results(found[0])[0][1]) == len(big)


def test_a_kit_trace_cut_off_before_its_finish_is_still_read(tmp_path):
    from reference.harness.episode import Episode
    from reference.harness.trace import Trace
    from reference.runs.registry import run_loop
    from reference.sim.scenario.loading import find
    full = tmp_path / "full.jsonl"
    episode = Episode.from_scenario(find("repeat-exact"), trace=Trace(str(full)))
    run_loop("react", episode)
    episode.trace.close()
    lines = full.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-3]) + "\n" + lines[-3][:20])
    (c,), problems = _read(cut)
    assert len(problems) == 1 and "truncated" in problems[0]
    assert any("without a finish record" in n for n in c.notes) and _calls(c)


def test_json_lines_of_single_messages_are_one_conversation(tmp_path):
    path = tmp_path / "messages.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in write.chat(samples.coding_ok())) + "\n")
    (c,), problems = _read(path)
    assert problems == [] and [name for _, name in _calls(c)] == ["read_file", "run_tests", "edit_file", "run_tests"]


def test_span_content_on_the_inference_details_event(tmp_path):
    """The current conventions may put the messages on a `gen_ai.client.inference.operation.details` event."""
    data = write.otlp(samples.support_ok(), "t9")
    for span in data["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        moved = [a for a in span["attributes"] if a["key"] in ("gen_ai.input.messages", "gen_ai.output.messages")]
        span["attributes"] = [a for a in span["attributes"] if a not in moved]
        if moved:
            span["events"] = [{"name": "gen_ai.client.inference.operation.details", "attributes": moved}]
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(data))
    (c,), problems = _read(path)
    assert problems == [] and not c.unknown
    assert [r[0] for r in _results(c)] == ["get_order", "update_shipping_address"]


def test_json_lines_whose_first_line_is_broken_are_still_read(tmp_path):
    good = json.dumps(write.chat(samples.support_ok()))
    path = tmp_path / "log.jsonl"
    path.write_text(good[:40] + "\n" + good + "\n")
    found, problems = _read(path)
    assert [c.index for c in found] == [1] and len(problems) == 1 and "line 1: not valid JSON" in problems[0]
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(write.chat(samples.support_ok()), indent=2)[:-30])  # cut off
    with pytest.raises(NotALog, match="not valid JSON"):
        list(read_log(pretty))


def test_a_failed_tool_span_is_a_failure_though_its_content_has_no_flag(tmp_path):
    # the chat span's content (the parts form) has no error flag; the call's execute_tool span has a status
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(write.otlp(samples.support_loop(), "t1")))
    (c,), _ = _read(path)
    assert _results(c)[1] == ("update_shipping_address", samples.ADDRESS_ERROR, True)


def _results_file(simulations):
    """A benchmark results file: its runs in a list beside its own metadata, each run holding `messages`;
    calls with `name` and `arguments` (an object) at their top, results naming their call by `id`."""
    return {"timestamp": "t", "info": {"agent": "a"}, "tasks": [{"id": "1"}], "simulations": simulations}


def test_an_object_holding_a_list_of_conversations_is_read_as_those_conversations(tmp_path):
    run = {"id": "sim-0", "task_id": "1", "messages": [
        {"role": "assistant", "content": "Hi, how can I help?"},
        {"role": "user", "content": "Check my line please."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "name": "get_line", "arguments": {"line": "L1"}, "requestor": "assistant"},
            {"id": "c2", "name": "get_bill", "arguments": {"line": "L1"}, "requestor": "assistant"}]},
        {"role": "tool", "id": "c2", "content": "Error: no bill yet", "error": False},
        {"role": "tool", "id": "c1", "content": "{\"status\": \"off\"}", "error": True},
    ]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_results_file([run, {"id": "sim-1", "messages": run["messages"][:2]}])))
    found, problems = _read(path)
    assert problems == []
    assert [(c.index, c.id) for c in found] == [(0, "sim-0"), (1, "sim-1")]
    assert _calls(found[0]) == [(2, "get_line"), (2, "get_bill")]
    # paired by `id`, not by position; the log's own error flag wins over the text
    assert _results(found[0]) == [("get_bill", "Error: no bill yet", False), ("get_line", "{\"status\": \"off\"}", True)]
    assert found[0].by_position == set()
    assert found[0].positions == [0, 1, 2, 3, 4]


def test_a_users_own_tool_calls_are_part_of_its_turn_not_calls_to_judge(tmp_path):
    run = {"messages": [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "", "name": "run_speed_test", "arguments": {}}]},
        {"role": "tool", "id": "", "content": "slow", "requestor": "assistant"},
        {"role": "user", "content": "I turned data on.", "tool_calls": [
            {"id": "", "name": "toggle_data", "arguments": {}, "requestor": "user"}]},
        {"role": "tool", "id": "", "content": "data on", "requestor": "user"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "", "name": "run_speed_test", "arguments": {}}]},
        {"role": "tool", "id": "", "content": "fast", "requestor": "assistant"},
    ]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_results_file([run])))
    (c,), problems = _read(path)
    assert problems == []
    assert _calls(c) == [(0, "run_speed_test"), (4, "run_speed_test")]
    assert [r[1] for r in _results(c)] == ["slow", "fast"]
    users = [(at, m.text) for m, at in zip(c.messages, c.positions) if isinstance(m, UserMessage)]
    assert users[0] == (2, "I turned data on.") and users[1][0] == 3 and "data on" in users[1][1]


def test_an_object_with_neither_messages_nor_conversations_is_one_line(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"runs": [{"score": 1}], "name": "x"}, indent=2))
    with pytest.raises(NotALog) as caught:
        list(read_log(path))
    assert "\n" not in str(caught.value) and "expected" in str(caught.value)


def test_one_object_on_one_line_that_is_no_log_is_one_line_too(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"runs": [{"score": 1}], "name": "x"}) + "\n")
    with pytest.raises(NotALog, match="expected"):
        list(read_log(path))
    path.write_text(json.dumps(_results_file([{"messages": [{"role": "user", "content": "hi"}]}]))[:-3])
    problems: list[str] = []
    with pytest.raises(NotALog, match="no readable line"):  # cut off: said, and no traceback
        list(read_log(path, problems.append))
    assert len(problems) == 1 and "truncated" in problems[0]


def test_a_harness_marker_entry_is_counted_not_read_and_a_result_naming_another_tool_is_noted(tmp_path):
    messages = [{"role": "user", "content": "fix it"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "think", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "name": "get_order", "content": "{}"},
                {"role": "exit", "content": "done"}]
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"messages": messages}))
    (c,), problems = _read(path)
    assert problems == [] and c.positions == [0, 1, 2]
    assert any("message 3" in n and "'exit'" in n for n in c.notes)
    assert any("message 2" in n and "get_order" in n and "think" in n for n in c.notes)


@pytest.mark.parametrize("writer", ["anthropic", "otlp"])
def test_where_the_wire_has_a_failure_flag_the_flag_decides_not_the_words(tmp_path, writer):
    turns = samples.support_loop()
    turns[5] = ("tool", "call_2", "HTTP/1.1 503 Service Unavailable", False)  # a health probe's correct answer
    turns[3] = ("tool", "call_1", "postcode is required", True)  # flagged, though not worded as an error
    path = tmp_path / "log.jsonl"
    data = write.anthropic(turns) if writer == "anthropic" else write.otlp(turns, "t1")
    path.write_text(json.dumps(data) + "\n")
    (c,), problems = _read(path)
    assert problems == []
    results = {content: failed for _, content, failed in _results(c)}
    assert results["HTTP/1.1 503 Service Unavailable"] is False
    assert results["postcode is required"] is True
