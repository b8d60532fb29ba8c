"""Exercise 1: the ReAct loop. Run against solutions/ by default; `--target exercises` for yours."""
from __future__ import annotations

import json

import pytest

from reference import Episode, ProtocolError, StopReason, catalogue, find, parse_scenario
from reference.core.messages import message_to_dict
from reference.sandbox.grading import CappedModel, run_candidate
from reference.sandbox.inline import session
from tests.helpers.one_child import in_one_child
from tests.helpers.targets import load_exercise


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
def test_every_request_is_protocol_valid(target, wire):
    def first_failure(sandbox: str, starting=lambda name: None, fresh: bool = True) -> str | None:
        once = None if fresh else load_exercise(target, "ex01_react_loop").react_loop
        for scenario in [s for s in catalogue() if wire in s.wires and not s.provider_faults]:  # lesson 1 has no try
            starting(scenario.name)
            # in the forked child, a fresh copy of the module for each run, as a fork per run would give it
            react_loop = once or load_exercise(target, "ex01_react_loop").react_loop
            attempt = run_candidate(react_loop, scenario, max_steps=4, wire=wire, sandbox=sandbox)
            if attempt.error is not None:
                return attempt.story()
        return None

    # one fork for the wire's whole catalogue (tests/helpers/one_child.py); a `loopkit check` session makes its
    # runs in process already, with one copy of the module as for every other test (a copy per run stays alive as
    # long as anything the learner's code left running holds it: a timer a run, 177 copies, past the session's
    # memory limit), and judges a failing test again with a fork per run
    if session() is not None:
        failure = first_failure("child", fresh=False)
    else:
        failure = in_one_child(lambda starting: first_failure("in-process", starting))
    if failure is not None:
        pytest.fail(failure, pytrace=False)


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


# ---------------------------------------------------------------- kinds of wrong answer found by mutation testing

# The model asks the same tool twice in one turn (two cities): both calls run, each answered under its own id.
SAME_TOOL_TWICE = parse_scenario({
    "name": "same-tool-twice",
    "title": "Two parallel calls to the same tool",
    "user": "Weather in Shanghai and in Beijing tomorrow?",
    "tools": [{"name": "get_weather",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
               "rules": [{"when": {"city": "Shanghai"}, "result": {"data": {"forecast": "light rain"}}},
                         {"when": {"city": "Beijing"}, "result": {"data": {"forecast": "sunny"}}}]}],
    "model": {"script": [{"calls": [{"tool": "get_weather", "args": {"city": "Shanghai"}},
                                    {"tool": "get_weather", "args": {"city": "Beijing"}}]},
                         {"answer": "Shanghai: light rain. Beijing: sunny."}]},
    "expect": {"completable": True, "stop_reason": "completed"},
}, source="tests/test_ex01_react_loop.py:SAME_TOOL_TWICE")


def test_answers_parallel_calls_to_the_same_tool(react_loop):
    attempt = run_candidate(react_loop, SAME_TOOL_TWICE)
    result = finished(attempt)
    calls = [c for m in result.messages if m.role == "assistant" for c in m.tool_calls]
    answers = {m.call_id: json.loads(m.content) for m in result.messages if m.role == "tool"}
    assert [c.id for c in calls] == list(answers), \
        "inline scenario `same-tool-twice`: each of the two get_weather calls of one turn needs its own result"
    forecasts = [answers[c.id]["data"]["forecast"] for c in calls]
    assert forecasts == ["light rain", "sunny"], \
        f"inline scenario `same-tool-twice`: the results were {forecasts}; each call runs with its own arguments"
    assert result.stop_reason is StopReason.COMPLETED, attempt.story()


# The model asks for both cities in every turn and never answers: each turn is one step, two calls or not.
BOTH_CITIES_FOREVER = parse_scenario({
    "name": "both-cities-forever",
    "title": "Two parallel calls in every turn, never an answer",
    "user": "Weather in Shanghai and in Beijing tomorrow?",
    "tools": SAME_TOOL_TWICE.model_dump(mode="json", exclude_none=True)["tools"],
    "model": {"cycle": [{"calls": [{"tool": "get_weather", "args": {"city": "Shanghai"}},
                                   {"tool": "get_weather", "args": {"city": "Beijing"}}]}]},
    "expect": {"completable": False, "stop_reason": "max_steps"},
}, source="tests/test_ex01_react_loop.py:BOTH_CITIES_FOREVER")


def test_a_turn_with_parallel_calls_is_one_step(react_loop):
    for limit in (1, 3, 5):
        attempt = run_candidate(react_loop, BOTH_CITIES_FOREVER, max_steps=limit)
        result = finished(attempt)
        assert (result.stop_reason, result.model_calls) == (StopReason.MAX_STEPS, limit), (
            f"inline scenario `both-cities-forever` with max_steps={limit}: every turn asks for two tool calls; "
            f"one step is one model request however many calls its turn holds, so the loop should make {limit} "
            f"requests and stop at the limit. " + attempt.story())


def test_a_step_limit_of_zero_makes_no_model_request(react_loop):
    attempt = run_candidate(react_loop, "happy-path", max_steps=0)
    result = finished(attempt)
    assert (result.stop_reason, result.model_calls) == (StopReason.MAX_STEPS, 0), \
        "scenario `happy-path` with max_steps=0: no request may be sent; " + attempt.story()


def test_the_default_step_limit_is_eight(react_loop):
    episode = Episode.from_scenario(find("repeat-exact"))
    episode.model.inner = CappedModel(episode.model.inner, 30)
    result = react_loop(episode)  # no max_steps: the signature's default
    assert (result.stop_reason, result.model_calls) == (StopReason.MAX_STEPS, 8), \
        f"scenario `repeat-exact` called as react_loop(episode): {result.model_calls} model calls; the default is 8"


def test_two_runs_in_one_process_share_nothing(react_loop, target):
    # in this process (under the time limit), as a service runs its loop: the fork sandbox would give each run a
    # fresh copy of the module, and a module-level cache or a mutable default could never leak into the next run
    first = finished(run_candidate(react_loop, "happy-path", sandbox="in-process"))
    second = finished(run_candidate(react_loop, "paging-legit", sandbox="in-process"))
    fresh = finished(run_candidate(load_exercise(target, "ex01_react_loop").react_loop, "paging-legit",
                                   sandbox="in-process"))
    assert [message_to_dict(m) for m in second.messages] == [message_to_dict(m) for m in fresh.messages], \
        "scenario `paging-legit` run after `happy-path` in the same process differs from a fresh run: state leaks"
    assert first.answer != second.answer and second.model_calls == fresh.model_calls
