"""Exercise 5 (stretch): malformed calls and circuit breakers. Run against solutions/ by default; `--target exercises` for yours.

Each test plugs `make_executor(episode)` into the guarded loop and plays a lesson-5 scenario, or an
inline one built here, and reads the run record: the ledger (every tool attempt), the simulated
clock, and what the model was shown (every request it received).
"""
from __future__ import annotations

import json
import re

import pytest

from reference import StopReason, parse_scenario
from reference.runs.runner import evaluate
from tests.helpers.targets import load_exercise
from tests.helpers.tool_errors import fault, inline, one_call_per_turn, play


@pytest.fixture
def ex(target):
    return load_exercise(target, "ex05b_errors_stretch")


def withdrawn(run, tool: str) -> str:
    """'' when `tool` was offered in every request and still is at the end; else where it went missing."""
    missing = [i for i, r in enumerate(run.requests(), 1) if tool not in [t.name for t in r.tools]]
    if missing:
        return f"{tool} was not offered in request(s) {missing}"
    if tool not in run.offered:
        return f"{tool} was withdrawn"
    return ""


def test_bad_date_is_fixed_after_one_actionable_message(ex):
    run = play(ex, "bad-date-format")
    errors = run.shown_errors()
    assert errors, "scenario `bad-date-format`: the model was never told that its date was wrong"
    text = json.dumps(errors[0], ensure_ascii=False)
    assert "date" in text and "YYYY-MM-DD" in text, \
        f"scenario `bad-date-format`: the error is not actionable (which argument, what format?): {text[:300]}"
    assert any(isinstance(v, str) and len(v) == 10 and v[4] == v[7] == "-" for v in errors[0].values()) \
        or "example" in errors[0], f"scenario `bad-date-format`: give an example of a valid date: {text[:300]}"
    assert run.result.stop_reason is StopReason.COMPLETED and run.result.model_calls == 3, \
        f"scenario `bad-date-format`: {run.attempt.story()}; after one actionable error the model answers on call 3"


def test_malformed_calls_get_actionable_answers(ex):
    run = play(ex, "malformed-calls")
    assert run.tries("get_weather") and len(run.tries("get_weather")) == 1, (
        f"scenario `malformed-calls`: get_weather ran {len(run.tries('get_weather'))} time(s); only the well-formed "
        "call should reach it (check names, JSON and the JSON Schema first)")
    assert run.result.stop_reason is StopReason.COMPLETED and run.result.model_calls == 5, (
        f"scenario `malformed-calls`: {run.attempt.story()}; answered actionably, this model fixes the name, the "
        "JSON and the date in turn and answers on call 5")


def test_the_same_malformed_call_is_stopped(ex):
    run = play(ex, "schema-mismatch")
    assert not run.tries("get_weather"), "scenario `schema-mismatch`: arguments that break the schema reached the tool"
    assert run.result.stop_reason is StopReason.REPEATED_CALL and run.result.model_calls <= 3, (
        f"scenario `schema-mismatch`: {run.attempt.story()}; the same rejected call three times is a loop: stop it")


def test_circuit_opens_and_the_run_stops(ex):
    run = play(ex, "tool-down")
    assert run.result.stop_reason is StopReason.CIRCUIT_OPEN, (
        f"scenario `tool-down`: {run.attempt.story()}; after 2 failed calls in a row the tool is withdrawn, and "
        "with no tool left the run stops (circuit_open)")
    told = [e for e in run.shown_errors() if "withdrawn" in json.dumps(e) or e.get("error_type") == "circuit_open"]
    assert told, "scenario `tool-down`: the model was never told that the tool was withdrawn"
    offered = run.offered
    assert "get_exchange_rate" not in offered, f"scenario `tool-down`: the dead tool is still offered: {offered}"
    assert not [c for c in evaluate(run.attempt.scenario, run.result) if not c.ok and c.name != "completed"], \
        f"scenario `tool-down`: {[c.detail for c in evaluate(run.attempt.scenario, run.result) if not c.ok]}"


def test_invalid_arguments_do_not_open_the_circuit(ex):
    rules = [{"when": {"q": "2026-11-20"}, "result": {"fault": "invalid_argument",
                                                      "message": "The date must be today or later."}},
             {"when": {"q": "2026-11-31"}, "result": {"fault": "invalid_argument", "message": "Not a calendar date."}},
             {"result": {"data": {"date": "2026-12-01", "free_tables": 3}}}]
    run = play(ex, one_call_per_turn("two-bad-dates", "find_table", rules,
                                     [{"q": "2026-11-20"}, {"q": "2026-11-31"}, {"q": "2026-12-01"}]))
    gone = withdrawn(run, "find_table")
    assert not gone and run.result.stop_reason is StopReason.COMPLETED, (
        f"{run.attempt.story()}; {gone or 'the run did not complete'} after the model sent two invalid dates (HTTP "
        "400); its third call, with a valid date, must reach the tool. An invalid argument is the caller's mistake, "
        "not the tool's sickness: only the tool's own failures (timeouts, 5xx, crashes) count towards the circuit "
        "breaker")
    assert [t.ok for t in run.tries("find_table")] == [False, False, True], \
        f"scenario `two-bad-dates`: the corrected third call should run and succeed: {run.tries('find_table')}"


def test_a_success_resets_the_failure_count(ex):
    rules = [{"results": [{"fault": "exception", "message": "worker crashed"}, {"data": {"rate": 7.12}},
                          {"fault": "exception", "message": "worker crashed"}, {"data": {"rate": 7.13}}]}]
    run = play(ex, one_call_per_turn("fail-succeed-fail", "get_rate", rules,
                                     [{"q": q} for q in ("USD/CNY", "USD/CNY now", "USD/CNY today", "USD/CNY spot")]))
    gone = withdrawn(run, "get_rate")
    assert not gone and run.result.stop_reason is StopReason.COMPLETED, (
        f"{run.attempt.story()}; get_rate failed, succeeded, then failed again: {gone or 'the run did not complete'}. "
        "The breaker counts failed calls in a row: a success in between starts the count again")
    assert run.result.model_calls == 5, f"scenario `fail-succeed-fail`: {run.attempt.story()}; 4 calls and an answer"


def test_a_tool_that_keeps_failing_is_tried_max_attempts_times_per_call(ex):
    scenario = one_call_per_turn("always-times-out", "lookup", [fault("timeout", timeout_seconds=1)],
                                 [{"q": "a"}, {"q": "b"}, {"q": "c"}])
    run = play(ex, scenario)
    per_step = [len([t for t in s.tools if t.name == "lookup"]) for s in run.result.steps]
    assert per_step[:2] == [3, 3] and sum(per_step) == 6, (
        f"scenario `always-times-out`: attempts of lookup per model request: {per_step}. Each call is tried "
        "max_attempts (3) times in code; after 2 failed calls in a row the tool is withdrawn and runs no more")
    first = run.shown_errors()[0]
    assert first.get("error_type") == "timeout" and "2" in first.get("message", ""), (
        f"scenario `always-times-out`: the model should read that the call timed out and how often it was retried "
        f"(2 times): {first}")
    assert run.result.stop_reason is StopReason.CIRCUIT_OPEN, run.attempt.story()


def test_parallel_rejected_calls_to_the_same_tool_are_different_calls(ex):
    schema = {"type": "object", "properties": {"q": {"type": "string", "minLength": 5}}, "required": ["q"]}
    scenario = parse_scenario({
        "name": "three-short-queries", "title": "three different rejected calls to one tool in one turn",
        "user": "Look these up.", "limits": {"max_steps": 4},
        "tools": [{"name": "lookup", "parameters": schema, "rules": [{"result": {"data": {"hits": 1}}}]}],
        "model": {"script": [{"calls": [{"tool": "lookup", "args": {"q": q}} for q in ("a", "b", "c")]},
                             {"answer": "Those names are too short to look up."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    })
    run = play(ex, scenario)
    errors = run.shown_errors()
    assert len(errors) == 3 and all(e.get("error_type") == "invalid_argument" for e in errors), \
        f"scenario `three-short-queries`: each of the three calls breaks the schema: {errors}"
    assert run.result.stop_reason is StopReason.COMPLETED, (
        f"scenario `three-short-queries`: {run.attempt.story()}; three *different* rejected calls to one tool are not "
        "the same call repeated")


def test_two_runs_in_one_process_share_nothing(ex, target):
    def outline(run):
        return (run.result.stop_reason, run.result.model_calls, [t.name for s in run.result.steps for t in s.tools],
                [e.get("error_type") for e in run.shown_errors()])
    names = ("tool-down", "flaky-timeout", "tool-down", "schema-mismatch", "schema-mismatch")
    # in this process, as a service runs its loop: a fork per run would start each from a fresh module
    first = [outline(play(ex, name, sandbox="in-process")) for name in names]
    fresh = load_exercise(target, "ex05b_errors_stretch")
    again = {name: outline(play(fresh, name, sandbox="in-process")) for name in names}
    assert first == [again[name] for name in names], (
        "tool-down, flaky-timeout, tool-down, schema-mismatch twice in one process differ from fresh runs: a tool "
        "withdrawn, a failure counted or a rejection remembered in one run must not carry into the next")


def test_internal_errors_open_the_circuit(ex):
    scenario = one_call_per_turn("keeps-crashing", "get_rate", [fault("exception", message="worker crashed")],
                                 [{"q": q} for q in ("USD/CNY", "USD/CNY now", "USD/CNY today")])
    run = play(ex, scenario)
    assert len(run.tries("get_rate")) == 2 and run.result.stop_reason is StopReason.CIRCUIT_OPEN, (
        f"scenario `keeps-crashing`: {run.attempt.story()}; a tool that crashes on 2 calls in a row is withdrawn "
        "(a crash is the tool's fault, like a timeout)")


@pytest.mark.parametrize("between", [{"data": {"rate": 7.12}}, {"fault": "invalid_argument", "message": "Bad pair."}])
def test_the_failure_count_restarts_after_an_answer(ex, between):
    crash = {"fault": "exception", "message": "worker crashed"}
    scenario = one_call_per_turn("crash-answer-crash-crash", "get_rate", [{"results": [crash, between, crash, crash]}],
                                 [{"q": q} for q in ("USD/CNY", "USD/CNY now", "USD/CNY today", "USD/CNY spot")])
    run = play(ex, scenario)
    assert len(run.tries("get_rate")) == 4 and run.result.stop_reason is StopReason.CIRCUIT_OPEN, (
        f"scenario `crash-answer-crash-crash` ({between}): {run.attempt.story()}. The tool crashed, answered, then "
        "crashed twice: the answer in between restarts the count, and the two crashes after it withdraw the tool")


def test_withdrawing_one_tool_leaves_the_others_and_names_them(ex):
    scenario = parse_scenario({
        "name": "primary-down", "title": "the primary tool is down, the backup works", "user": "Rate of USD/CNY?",
        "tools": [{"name": "primary_rates", "alternatives": ["backup_rates"], "rules": [fault("server_error")],
                   "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}},
                  {"name": "backup_rates", "rules": [{"result": {"data": {"rate": 7.12}}}],
                   "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}],
        "model": {"script": [{"call": {"tool": "primary_rates", "args": {"q": q}}} for q in ("USD/CNY", "USD CNY")]
                  + [{"call": {"tool": "backup_rates", "args": {"q": "USD/CNY"}}}, {"answer": "7.12 CNY per USD."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    })
    run = play(ex, scenario)
    assert run.result.stop_reason is StopReason.COMPLETED and run.tries("backup_rates"), (
        f"scenario `primary-down`: {run.attempt.story()}; primary_rates is withdrawn, but backup_rates is still "
        "there: the run goes on")
    errors = run.shown_errors()
    assert errors and all("backup_rates" in json.dumps(e) for e in errors), (
        f"scenario `primary-down`: primary_rates lists backup_rates as its alternative; say so: {errors}")
    assert all(e.get("ok") is False and e.get("retryable") is False for e in errors), (
        f"scenario `primary-down`: what the model reads is a failure it should not retry itself (retries happen in "
        f"code): {errors}")


def test_each_call_is_checked_against_its_own_tool_schema(ex):
    def tool(name, required):
        return {"name": name, "rules": [{"result": {"data": {name: "ok"}}}],
                "parameters": {"type": "object", "properties": {required: {"type": "string"}}, "required": [required]}}
    scenario = parse_scenario({
        "name": "three-schemas", "title": "three tools, three schemas", "user": "Plan my day.",
        "tools": [tool("b_zone", "zone"), tool("a_city", "city"), tool("c_date", "date")],
        "model": {"script": [{"calls": [{"tool": "a_city", "args": {"city": "Shanghai"}},
                                        {"tool": "c_date", "args": {"date": "2026-12-01"}}]}, {"answer": "Done."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    })
    run = play(ex, scenario)
    assert run.tries("a_city") and run.tries("c_date") and not run.shown_errors(), (
        f"scenario `three-schemas`: both calls match their own tool's schema, yet: {run.shown_errors()}")


def test_an_invalid_argument_gets_an_example_of_its_own_kind(ex):
    parameters = json.loads('{"type": "object", "properties": {"day": {"type": "string", "format": "date"}, '
                            '"party": {"type": "integer"}, "city": {"type": "string", "minLength": 2, '
                            '"examples": ["Shanghai", "Beijing"]}}}')
    scenario = parse_scenario({
        "name": "three-bad-arguments", "title": "three invalid arguments", "user": "A table, please.",
        "tools": [{"name": "book", "parameters": parameters, "rules": [{"result": {"data": {"booked": True}}}]}],
        "model": {"script": [{"calls": [{"tool": "book", "args": {"day": "2026-13-45"}},
                                        {"tool": "book", "args": {"party": "four"}},
                                        {"tool": "book", "args": {"city": "S"}}]}, {"answer": "I could not book."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    })
    day, party, city = play(ex, scenario).shown_errors()
    dates = [v for v in day.values() if isinstance(v, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", v)]
    assert dates, f"scenario `three-bad-arguments`: the bad date should come with an example date: {day}"
    assert not [v for v in party.values() if isinstance(v, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", v)], \
        f"scenario `three-bad-arguments`: a party size is not a date; no date example: {party}"
    assert "Shanghai" in json.dumps(city), \
        f"scenario `three-bad-arguments`: the schema's first example (Shanghai) shows a valid city: {city}"


def test_the_same_rejected_call_is_stopped_on_its_third_time(ex):
    run = play(ex, "schema-mismatch")
    assert run.result.stop_reason is StopReason.REPEATED_CALL and run.result.model_calls == 3, (
        f"scenario `schema-mismatch`: {run.attempt.story()}; the same rejected call is answered twice and stopped "
        "on its third time (max_same_rejections = 3)")


def test_execute_never_raises_even_when_validation_breaks(ex, monkeypatch):
    def broken():
        raise RuntimeError("jsonschema is broken")
    monkeypatch.setattr(ex, "load_jsonschema", broken)
    run = play(ex, inline("validator-broken", {"lookup": {"result": {"data": {"hits": 1}}}}, [("lookup", {"q": "x"})]))
    assert run.result.stop_reason is StopReason.COMPLETED and len(run.shown_errors()) <= 1, run.attempt.story()

