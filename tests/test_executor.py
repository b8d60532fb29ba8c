"""Lesson 5's reference executor (reference/parts/executor/executor.py) and taxonomy
(reference/parts/executor/taxonomy.py).

The lesson-5 scenarios end as their `expect` blocks say with the executor in the guarded loop, and
the lesson-1 loop does not meet them (the "before" picture). Then each behaviour on its own: the
taxonomy, retries on the simulated clock, Retry-After, the time budget, translation, malformed
calls, the circuit breaker, the repeat stop, and "never raises".
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reference import Episode, StopReason, ToolMessage, ToolOutcome, ToolTimeout, find, parse_scenario
from reference.parts.executor import taxonomy as errors
from reference.parts.executor import ResilientExecutor, RetryPolicy
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.runs.runner import evaluate, run

ROOT = Path(__file__).resolve().parent.parent
LESSON5 = ["flaky-timeout", "rate-limited", "bad-date-format", "business-failure", "exception-secret", "tool-down",
           "schema-mismatch", "malformed-calls"]


def play(scenario, wire=None, **overrides):
    scenario = find(scenario) if isinstance(scenario, str) else scenario
    if wire:
        scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})
    episode = Episode.from_scenario(scenario)
    executor = ResilientExecutor.for_episode(episode, **overrides)
    result = guarded_loop(episode, scenario.limits.max_steps, Parts(executor=executor))
    return episode, executor, result


def tries(result, tool=None):
    return [t for s in result.steps for t in s.tools if tool is None or t.name == tool]


def errors_shown(result):
    return [json.loads(m.content) for m in result.messages if isinstance(m, ToolMessage) and m.is_error]


def inline(name, tools, script, *, limits=None, checklist=None):
    return parse_scenario({
        "name": name, "title": name, "user": "Look it up, please.", "limits": limits or {"max_steps": 6},
        "checklist": checklist or [],
        "tools": [{"name": t, "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                                             "required": ["q"]}, **spec} for t, spec in tools.items()],
        "model": {"allow_unknown_tools": True, "script": script},
        "expect": {"completable": False, "stop_reason": ["completed", "circuit_open", "repeated_call", "max_steps"]},
    })


# ---------------------------------------------------------------- the scenarios, before and after

@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
@pytest.mark.parametrize("name", LESSON5)
def test_lesson5_scenario_ends_as_its_expect_block_says(name, wire):
    if wire not in find(name).wires:
        pytest.skip(f"`{name}` sends arguments that are not a JSON object, which {wire} cannot carry")
    _, executor, result = play(name, wire)
    failed = [c.detail for c in evaluate(find(name), result) if not c.ok]
    assert not failed, f"scenario `{name}` ({wire}) with the resilient executor: {failed}"


@pytest.mark.parametrize("name", LESSON5)
def test_the_lesson1_loop_misses_the_lesson5_expectations(name):
    result = run(find(name), "react")
    assert not all(c.ok for c in evaluate(find(name), result)), \
        f"scenario `{name}`: the plain ReAct loop already meets the expect block, so the scenario teaches nothing"


def test_figures_are_deterministic():
    first = [(r.stop_reason, r.model_calls, r.sim_seconds) for r in (play(n)[2] for n in LESSON5)]
    again = [(r.stop_reason, r.model_calls, r.sim_seconds) for r in (play(n)[2] for n in LESSON5)]
    assert first == again, "the same scenario must give the same run: jitter is seeded"


# ---------------------------------------------------------------- the taxonomy

@pytest.mark.parametrize("outcome, error_type, retryable", [
    (ToolOutcome(False, http_status=408), "timeout", True),
    (ToolOutcome(False, http_status=429, retry_after=3), "rate_limited", True),
    (ToolOutcome(False, http_status=500), "unavailable", True),
    (ToolOutcome(False, http_status=503), "unavailable", True),
    (ToolOutcome(False, http_status=400), "invalid_argument", False),
    (ToolOutcome(False, http_status=422), "invalid_argument", False),
    (ToolOutcome(False, http_status=401), "permission_denied", False),
    (ToolOutcome(False, http_status=403), "permission_denied", False),
    (ToolOutcome(False, http_status=404), "not_found", False),
    (ToolOutcome(False, http_status=409), "rejected", False),
    (ToolOutcome(True, data={"success": False, "error_code": "X"}), "rejected", False),
    (ToolOutcome(True, data={"ok": False}), "rejected", False),
])
def test_outcomes_are_classified_by_status_not_by_the_tools_own_flag(outcome, error_type, retryable):
    failure = errors.classify_outcome(outcome)
    assert (failure.error_type, failure.retryable) == (error_type, retryable), f"{outcome} -> {failure}"
    lying = errors.classify_outcome(ToolOutcome(False, http_status=outcome.http_status, retryable=not retryable)) \
        if not outcome.ok else failure
    assert lying.retryable == retryable, "the tool's own `retryable` flag must not override the taxonomy"


@pytest.mark.parametrize("exc, error_type, retryable", [
    (ToolTimeout("t timed out after 10s"), "timeout", True),
    (TimeoutError(), "timeout", True),
    (ConnectionResetError(104, "Connection reset by peer"), "connection_error", True),
    (ConnectionRefusedError(), "connection_error", True),
    (RuntimeError("boom"), "internal_error", False),
    (KeyError("q"), "internal_error", False),
])
def test_exceptions_are_classified_by_class_and_their_text_is_dropped(exc, error_type, retryable):
    failure = errors.classify_exception(exc)
    assert (failure.error_type, failure.retryable, failure.detail) == (error_type, retryable, None)
    assert failure.exception == type(exc).__name__


def test_an_http_error_carried_by_an_exception_uses_its_status():
    class APIStatusError(Exception):
        status_code = 429
        retry_after = 2.0

    failure = errors.classify_exception(APIStatusError("secret text"))
    assert (failure.error_type, failure.retry_after, failure.detail) == ("rate_limited", 2.0, None)


def test_a_job_whose_status_is_failed_is_data_not_a_failed_call():
    assert errors.classify_outcome(ToolOutcome(True, data={"job": 7, "status": "failed"})) is None


def test_every_kind_is_either_retried_or_counted_as_the_callers_fault():
    assert errors.RETRYABLE == {"timeout", "connection_error", "rate_limited", "unavailable"}
    for name, kind in errors.KINDS.items():
        assert not (kind.retryable and not kind.tool_fault), f"{name}: a retryable error is the tool's fault"
        assert kind.instruction.endswith("."), f"{name}: every kind tells the model what to do next"


# ---------------------------------------------------------------- retries in code

def test_a_retry_that_succeeds_is_invisible_to_the_model_and_recorded_in_the_ledger():
    episode, executor, result = play("flaky-timeout")
    seen = [m for r in episode.scripted.requests for m in r.messages if isinstance(m, ToolMessage) and m.is_error]
    assert not seen, f"the model saw: {seen[0].content}"
    ledger = tries(result, "get_weather")
    assert [t.exception for t in ledger] == ["ToolTimeout", "ToolTimeout", None] and ledger[-1].ok
    assert executor.retries == 2 and [a.number for a in executor.attempts] == [1, 2, 3]


def test_backoff_is_exponential_with_equal_jitter_and_seeded():
    policy = RetryPolicy()
    import random

    for attempt in (1, 2, 3, 4, 5, 6):
        ceiling = min(policy.max_backoff_seconds, policy.base_seconds * 2 ** (attempt - 1))
        draws = [policy.backoff(attempt, random.Random(i)) for i in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in draws), f"attempt {attempt}: {min(draws)}..{max(draws)}"
        assert len(set(draws)) > 1
    _, a, _ = play("tool-down")
    _, b, _ = play("tool-down")
    assert [x.waited_after for x in a.attempts] == [x.waited_after for x in b.attempts]


def test_waits_happen_on_the_simulated_clock_between_attempts():
    _, executor, result = play("flaky-timeout")
    ledger = tries(result, "get_weather")
    gaps = [b.started - (a.started + a.seconds) for a, b in zip(ledger, ledger[1:])]
    assert gaps == pytest.approx([a.waited_after for a in executor.attempts[:2]])
    assert all(g > 0 for g in gaps)


def test_retry_after_is_waited_exactly():
    _, executor, result = play("rate-limited")
    first, second = tries(result, "search_flights")
    assert second.started - (first.started + first.seconds) == pytest.approx(5.0)
    assert executor.waited_seconds == pytest.approx(5.0)


def test_a_retry_after_longer_than_the_run_can_wait_is_not_waited():
    scenario = inline("long-429", {"t": {"rules": [{"results": [
        {"fault": "rate_limit", "retry_after_seconds": 600}, {"data": {"x": 1}}]}]}},
        [{"call": {"tool": "t", "args": {"q": "x"}}}, {"answer": "Sorry."}])
    _, executor, result = play(scenario)
    assert len(tries(result)) == 1 and executor.waited_seconds == 0
    shown = errors_shown(result)[0]
    assert shown["error_type"] == "rate_limited" and shown["retry_after"] == 600 and shown["retryable"] is True
    # the run ends at once, as a resource stop that tells the user how long to wait (not a guard stop)
    assert result.stop_reason is StopReason.TIME_BUDGET and "retry after 600 s" in result.detail
    assert result.model_calls == 1


def test_retries_stop_before_the_time_budget_runs_out():
    scenario = inline("budget", {"t": {"rules": [{"result": {"fault": "timeout", "timeout_seconds": 10}}]}},
                      [{"call": {"tool": "t", "args": {"q": "x"}}}, {"answer": "Sorry."}],
                      limits={"max_steps": 4, "max_seconds": 25})
    _, _, result = play(scenario)
    assert len(tries(result)) == 2 and result.sim_seconds <= 25
    assert "time budget" in errors_shown(result)[0]["message"]


@pytest.mark.parametrize("kind", ["invalid_argument", "permission_denied", "not_found", "business_failure",
                                  "exception"])
def test_non_retryable_failures_run_once(kind):
    scenario = inline("once", {"t": {"rules": [{"result": {"fault": kind}}]}},
                      [{"call": {"tool": "t", "args": {"q": "x"}}}, {"answer": "Sorry."}])
    _, executor, result = play(scenario)
    assert len(tries(result)) == 1 and executor.retries == 0


# ---------------------------------------------------------------- translation

def test_a_tool_400_names_the_argument_and_gives_the_expected_format_and_an_example():
    scenario = find("bad-date-format")
    tool = scenario.tools[0].model_copy(update={"parameters": {**scenario.tools[0].parameters, "properties": {
        "city": {"type": "string"}, "date": {"type": "string", "description": "Date as YYYY-MM-DD"}}}})
    _, _, result = play(scenario.model_copy(update={"tools": [tool]}), validate=False)  # the tool itself says 400
    shown = errors_shown(result)[0]
    assert (shown["argument"], shown["example"]) == ("date", "2026-11-30") and "YYYY-MM-DD" in shown["expected"]
    assert "Invalid value for 'date'." in shown["message"], "a tool's own safe words are kept"
    assert len(tries(result, "get_weather")) == 2 and result.model_calls == 3


def test_an_internal_error_suggests_the_alternative_tool():
    _, _, result = play("exception-secret")
    shown = errors_shown(result)[0]
    assert shown["error_type"] == "internal_error" and shown["alternatives"] == ["get_order_status"]
    assert "not your arguments" in shown["message"]


def test_a_business_failure_keeps_its_code_and_reason_and_is_an_error():
    _, _, result = play("business-failure")
    shown = errors_shown(result)[0]
    assert (shown["error_type"], shown["error_code"]) == ("rejected", "REFUND_WINDOW_CLOSED")
    assert "within 30 days" in shown["message"]


def test_exhausted_retries_tell_the_model_not_to_retry():
    _, _, result = play("tool-down")
    first = errors_shown(result)[0]
    assert (first["error_type"], first["retryable"], first["attempts"]) == ("unavailable", True, 3)  # the label survives
    assert "Do not call it again now" in first["instruction"]


# ---------------------------------------------------------------- malformed calls

def test_an_unknown_tool_gets_the_closest_name():
    _, _, result = play("malformed-calls")
    shown = errors_shown(result)[0]
    assert shown["error_type"] == "unknown_tool" and "Did you mean 'get_weather'?" in shown["message"]


def test_schema_problems_name_every_wrong_argument_and_give_a_whole_example():
    _, executor, result = play("schema-mismatch")
    shown = errors_shown(result)[0]
    assert "'city', 'date' are missing" in shown["message"] and "'day', 'location'" in shown["message"]
    assert shown["example"] == {"city": "Shanghai", "date": "2026-11-30"}
    assert not tries(result), "arguments that break the schema never reach the tool"
    assert result.stop_reason is StopReason.REPEATED_CALL and "3 times" in result.detail


def test_a_tool_not_offered_in_this_run_is_not_run():
    scenario = inline("allowed", {"a": {"rules": [{"result": {"data": {"x": 1}}}]},
                                  "b": {"rules": [{"result": {"data": {"x": 2}}}]}},
                      [{"call": {"tool": "b", "args": {"q": "x"}}}, {"answer": "Done."}])
    episode, executor, result = play(scenario, allowed_tools={"a"})
    assert [s.name for s in episode.scripted.requests[0].tools] == ["a"]
    assert errors_shown(result)[0]["error_type"] == "tool_not_offered" and not tries(result)


# ---------------------------------------------------------------- the circuit breaker

def test_the_circuit_opens_after_two_failed_calls_and_stops_the_run():
    episode, executor, result = play("tool-down")
    assert result.stop_reason is StopReason.CIRCUIT_OPEN and "get_exchange_rate" in result.detail
    assert len(tries(result)) == 6 and executor.retries == 4
    assert [s.name for s in executor.offered(episode)] == []
    assert errors_shown(result)[-1]["error_type"] == "circuit_open"


def test_a_withdrawn_tool_is_no_longer_offered_and_a_call_to_it_does_not_run():
    scenario = inline("fallback", {
        "dead": {"alternatives": ["alive"], "rules": [{"result": {"fault": "server_error"}}]},
        "alive": {"rules": [{"result": {"data": {"answer": 42}}}]}},
        [{"call": {"tool": "dead", "args": {"q": "1"}}}, {"call": {"tool": "dead", "args": {"q": "2"}}},
         {"call": {"tool": "dead", "args": {"q": "3"}}}, {"call": {"tool": "alive", "args": {"q": "x"}}},
         {"answer": "42."}],
        checklist=[{"item": "get it", "tool": "alive"}])
    episode, executor, result = play(scenario)
    assert result.stop_reason is StopReason.COMPLETED, "the task's tool is still up: the run goes on"
    assert [s.name for s in episode.scripted.requests[-1].tools] == ["alive"]
    shown = errors_shown(result)
    assert shown[1]["error_type"] == "circuit_open" and shown[1]["alternatives"] == ["alive"]
    assert shown[2]["error_type"] == "circuit_open" and len(tries(result, "dead")) == 6, "the third call never ran"


# ---------------------------------------------------------------- never raises; never imports jsonschema early

def test_execute_never_raises_even_when_the_toolbox_itself_breaks():
    episode = Episode.from_scenario(find("happy-path"))
    executor = ResilientExecutor.for_episode(episode)

    def broken(*args, **kwargs):
        raise MemoryError("the tool wrapper is broken: /srv/secret/path")

    episode.tools.invoke = broken
    episode.ledger.record_model  # noqa: B018
    from reference.core.messages import ToolCall

    message = executor.execute(episode, ToolCall("call_1", "get_weather", '{"city": "Shanghai", "date": "2026-12-01"}'))
    assert message.is_error and "/srv/secret" not in message.content
    assert json.loads(message.content)["error_type"] == "internal_error"


def test_jsonschema_is_not_imported_when_the_demo_path_is():
    code = ("import sys, reference.cli, reference.runs.runner, reference.parts.executor, reference.parts.executor.taxonomy; "
            "print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "False", out.stderr or "importing the executor imported jsonschema"


def test_jsonschema_loads_without_building_the_iri_grammar_and_still_checks_formats():
    code = ("import sys; from reference.parts.executor.schema import load_jsonschema; js = load_jsonschema(); "
            "v = js.Draft202012Validator({'format': 'date'}, format_checker=js.Draft202012Validator.FORMAT_CHECKER); "
            "print('rfc3987_syntax' in sys.modules, [e.validator for e in v.iter_errors('01/12/2026')]); "
            # unmasked: an import would now find it (importing it would build the grammar: 2-3 s of CPU)
            "import importlib.util; "
            "print('importable later' if importlib.util.find_spec('rfc3987_syntax') else 'masked')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.split("\n")[:2] == ["False ['format']", "importable later"], out.stdout + out.stderr
