"""Exercise 1: the ReAct loop. Run against solutions/ by default; `--target exercises` for yours."""
from __future__ import annotations

import json

import pytest

from conftest import load_exercise
from reference import ProtocolError, StopReason, catalogue, parse_scenario
from reference.runs.grading import run_candidate


@pytest.fixture
def react_loop(target):
    return load_exercise(target, "ex01_react_loop").react_loop


def finished(attempt):
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    return attempt.result


def test_happy_path_completes_with_the_answer(react_loop):
    result = finished(run_candidate(react_loop, "happy-path"))
    assert result.stop_reason is StopReason.COMPLETED, f"scenario `happy-path`: stop reason {result.stop_reason}"
    assert result.answer and "light rain" in result.answer and "MU5138" in result.answer, \
        f"scenario `happy-path`: the answer should be the model's final text, got {result.answer!r}"
    assert result.model_calls == 2, f"scenario `happy-path`: {result.model_calls} model calls; the model answers on the 2nd"


def test_repeat_scenario_stops_at_the_step_limit(react_loop):
    attempt = run_candidate(react_loop, "repeat-exact", max_steps=8)
    result = finished(attempt)
    assert result.stop_reason is StopReason.MAX_STEPS, attempt.story()
    assert result.model_calls == 8, \
        f"scenario `repeat-exact`: your loop made {result.model_calls} model calls; the step limit was 8"


def test_respects_the_max_steps_argument(react_loop):
    for limit in (1, 3):
        attempt = run_candidate(react_loop, "alternation", max_steps=limit)
        result = finished(attempt)
        assert (result.stop_reason, result.model_calls) == (StopReason.MAX_STEPS, limit), \
            f"scenario `alternation` with max_steps={limit}: " + attempt.story()


def test_appends_the_assistant_tool_call_message_before_the_results(react_loop):
    attempt = run_candidate(react_loop, "paging-legit")
    if isinstance(attempt.error, ProtocolError):
        pytest.fail(attempt.story() + "\n(the assistant message that carries the tool calls must be "
                    "appended before the tool results that answer it)")
    finished(attempt)


def test_answers_every_parallel_tool_call(react_loop):
    attempt = run_candidate(react_loop, "happy-path")
    if isinstance(attempt.error, ProtocolError):
        pytest.fail(attempt.story())
    result = finished(attempt)
    assert result.tool_calls == 2 and len([s for s in result.steps for _ in s.tools]) == 2, \
        "scenario `happy-path`: the model called two tools in one turn; both must run"


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
def test_every_request_is_protocol_valid(react_loop, wire):
    for scenario in [s for s in catalogue() if wire in s.wires and not s.provider_faults]:  # lesson 1 has no try
        attempt = run_candidate(react_loop, scenario, max_steps=4, wire=wire)
        assert not isinstance(attempt.error, ProtocolError), attempt.story()
        finished(attempt)


def test_one_model_request_per_step(react_loop):
    for name, limit in (("paging-legit", 8), ("repeat-exact", 5), ("happy-path", 8)):
        attempt = run_candidate(react_loop, name, max_steps=limit)
        result = finished(attempt)
        assistant_turns = sum(1 for m in result.messages if m.role == "assistant")
        assert result.model_calls == assistant_turns, \
            (f"scenario `{name}`: {result.model_calls} model requests but {assistant_turns} assistant turns "
             "in the history: one step is one model request, and its turn goes into the history")
        assert result.model_calls <= limit, attempt.story()


def test_stop_reason_and_history_are_in_the_result(react_loop):
    result = finished(run_candidate(react_loop, "polling-legit"))
    assert result.stop_reason is StopReason.COMPLETED
    assert result.messages[0].role == "system" and result.messages[1].role == "user"
    assert result.messages[-1].role == "assistant" and result.messages[-1].text == result.answer, \
        "the final assistant turn belongs in the returned history"


TOOL_FAILURES = """
name: tool-failures
title: a tool that raises, a malformed call, an unknown tool
user: check it
tools:
  - name: flaky
    rules: [{result: {fault: exception, message: "psycopg.errors.UndefinedTable: relation users_v2 at /srv/app/db.py"}}]
model:
  allow_unknown_tools: true
  script:
    - call: {tool: flaky, args: {}}
    - call: {tool: flaky, raw_args: '{"oops": '}
    - call: {tool: no_such_tool, args: {}}
    - answer: done
expect: {completable: true, stop_reason: completed}
"""


def test_a_failing_tool_does_not_crash_the_loop(react_loop):
    scenario = parse_scenario(__import__("yaml").safe_load(TOOL_FAILURES))
    attempt = run_candidate(react_loop, scenario)
    result = finished(attempt)
    assert result.stop_reason is StopReason.COMPLETED, attempt.story()
    errors = [json.loads(m.content) for m in result.messages if m.role == "tool"]
    assert len(errors) == 3 and all(e["ok"] is False for e in errors), \
        "each failed call must still be answered, with an error result the model can read"
