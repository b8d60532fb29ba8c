"""Odd input from a scenario author, a model or a tool: a clear error or a clean stop, never a crash."""
from __future__ import annotations

import copy

import pytest

from reference import Episode, ScenarioError, StopReason, Turn, Usage, find, parse_scenario
from reference.runs.registry import guarded
from reference.loops.react import react_loop
from reference.runs.runner import completed


def scenario(**changes):
    data = {"name": "odd", "title": "odd input", "user": "look it up",
            "tools": [{"name": "lookup", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                       "rules": [{"result": {"data": {"value": 42}}}]}],
            "model": {"script": [{"call": {"tool": "lookup", "args": {"q": "x"}}}, {"answer": "It is 42."}]},
            "expect": {"completable": True, "stop_reason": "completed"}}
    data.update(changes)
    return parse_scenario(data, "odd.yaml")


@pytest.mark.parametrize("loop", [react_loop, guarded], ids=["react", "guarded"])
def test_arguments_nested_a_thousand_deep_are_answered_not_raised(loop):
    s = scenario(model={"script": [{"call": {"tool": "lookup", "raw_args": "[" * 1000}}, {"answer": "done"}]})
    result = loop(Episode.from_scenario(s), max_steps=4)
    answers = [m.content for m in result.messages if m.role == "tool"]
    assert result.stop_reason is StopReason.COMPLETED and "nest too deeply" in answers[0], answers


@pytest.mark.parametrize("reason", ["length", "refusal"])
def test_a_cut_off_or_refused_last_turn_is_not_a_completed_task(reason):
    s = scenario(model={"script": [{"call": {"tool": "lookup", "args": {"q": "x"}}},
                                   {"answer": "It is", "finish_reason": reason}]})
    naive = react_loop(Episode.from_scenario(s), max_steps=4)
    assert not completed(s, naive), f"a turn that ended with {reason} was counted as a completed task"
    result = guarded(Episode.from_scenario(s), max_steps=4)
    assert result.stop_reason is StopReason.ERROR and result.degraded is not None, result.stop_reason


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
@pytest.mark.parametrize("reason", ["stop", "tool_calls", "length", "refusal"])
def test_finish_reasons_survive_each_wire_format(wire, reason):
    from reference.wire.protocol import wire_module as _module
    from reference.core.messages import ToolCall

    calls = (ToolCall("call_1", "lookup", '{"q": "x"}'),) if reason == "tool_calls" else ()
    turn = Turn("text" if not calls else None, calls, reason, Usage(10, 2))
    module = _module(wire)
    assert module.turn_from_response(module.response_from_turn(turn)).finish_reason == reason


def test_a_clock_in_utc_with_z_is_accepted_and_a_bad_one_is_named():
    assert Episode.from_scenario(scenario(clock="2026-11-30T01:00:00Z")).clock.now().hour == 1
    with pytest.raises(ScenarioError, match=r"odd.yaml: clock: .*ISO 8601"):
        scenario(clock="soon")
    with pytest.raises(ScenarioError, match=r"clock: .*UTC offset"):
        scenario(clock="2026-11-30T09:00:00")


def test_a_boolean_subschema_does_not_crash_the_guard():
    s = scenario(tools=[{"name": "lookup", "parameters": {"type": "object", "properties": {"q": True}},
                         "rules": [{"result": {"data": {"value": 42}}}]}])
    assert guarded(Episode.from_scenario(s), max_steps=4).stop_reason is StopReason.COMPLETED


def test_a_malformed_parameters_schema_is_rejected_when_the_file_loads():
    with pytest.raises(ScenarioError, match=r"tools\[0\]\.parameters: .*'properties' must be a mapping"):
        scenario(tools=[{"name": "lookup", "parameters": {"type": "object", "properties": []},
                         "rules": [{"result": {"data": 1}}]}])


def test_a_misspelt_wire_format_lists_the_real_ones():
    with pytest.raises(ValueError, match="openai-chat, openai-responses, anthropic"):
        Episode.from_scenario(find("happy-path"), wire="openai_chat")


def test_a_wrapped_model_can_be_copied():
    episode = Episode.from_scenario(find("happy-path"))
    assert copy.copy(episode.model).inner is episode.model.inner


def test_argument_depth_limit_is_the_kits_own_on_every_python():
    """65 levels is refused and 64 accepted, whatever the interpreter's own recursion behaviour."""
    from reference.core.messages import MAX_ARGUMENT_DEPTH, ToolCall

    ok = '{"a": ' * (MAX_ARGUMENT_DEPTH - 1) + '{}' + '}' * (MAX_ARGUMENT_DEPTH - 1)
    assert ToolCall("c", "t", ok).parsed_arguments()
    too_deep = '{"a": ' * MAX_ARGUMENT_DEPTH + '{}' + '}' * MAX_ARGUMENT_DEPTH
    with pytest.raises(ValueError, match="nest too deeply"):
        ToolCall("c", "t", too_deep).parsed_arguments()
    inside_a_string = '{"a": "' + "[" * 500 + '"}'
    assert ToolCall("c", "t", inside_a_string).parsed_arguments() == {"a": "[" * 500}
