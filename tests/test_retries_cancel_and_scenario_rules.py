"""Budget reserve and retries, provider faults, business failures in a 200, redaction, the last answer within
the step limit, cancellation, and the scenario format's matching rules, each on small inline scenarios (the catalogue's
scenarios for them are checked with everything else in tests/test_guarded_catalogue.py)."""
from __future__ import annotations

import json

import pytest

from reference.loops.react import react_loop

from reference import Episode, ScenarioError, StopReason, ToolMessage, parse_scenario, to_wire
from reference.core.errors import HarnessError, ProviderError, ProviderTimeout
from reference.parts.executor.redaction import scrub
from reference.parts.executor.taxonomy import business_failure
from reference.providers.server import ScriptedServer
from reference.runs.registry import run_loop
from reference.runs.runner import evaluate, run

TOOL = {"name": "lookup", "parameters": {"type": "object", "properties": {"key": {"type": "string"}},
                                         "required": ["key"]}}


def scenario(script, *, rules=None, limits=None, cycle=None, reactions=None, **extra):
    model = {"script": script}
    if cycle:
        model["cycle"] = cycle
    if reactions:
        model["reactions"] = reactions
    data = {"name": "inline", "title": "inline", "user": "Look up the key ok.", "limits": limits or {"max_steps": 6},
            "tools": [{**TOOL, "rules": rules or [{"result": {"data": {"value": 42}}}]}], "model": model,
            "expect": {"completable": False, "stop_reason": [r.value for r in StopReason]}, **extra}
    return parse_scenario(data, "inline.yaml")


def guarded(s):
    return run_loop("guarded", Episode.from_scenario(s))


CALL = {"call": {"tool": "lookup", "args": {"key": "ok"}}}
ANSWER = {"answer": "The value is 42."}


# ---------------------------------------------------------------- 8. the reserve never refuses what fits

def test_a_request_that_fits_the_whole_budget_is_sent_even_inside_the_reserve():
    script = [CALL, {"call": {"tool": "lookup", "args": {"key": "b"}}}, ANSWER]
    free = guarded(scenario(script))
    last = free.steps[-1]
    # the last request's estimate: its input plus the expected output (the budget's output reserve, 256)
    limit = free.usage.total_tokens - last.output_tokens + 256
    tight = guarded(scenario(script, limits={"max_steps": 6, "max_run_tokens": limit}))
    assert tight.stop_reason is StopReason.COMPLETED, tight.detail
    before = free.usage.total_tokens - last.input_tokens - last.output_tokens
    assert before + last.input_tokens + 256 > 0.75 * limit  # a 25% reserve taken off the limit would have refused it


# ---------------------------------------------------------------- 9. retries know the rest of the budget

def test_a_long_retry_after_stops_the_run_at_once_as_a_resource_stop_that_says_when():
    s = scenario([CALL], cycle=[CALL], rules=[{"result": {"fault": "rate_limit", "retry_after_seconds": 90}}],
                 limits={"max_steps": 6, "max_seconds": 40})
    result = guarded(s)
    assert result.stop_reason is StopReason.TIME_BUDGET and result.stop_reason.kind == "resource"
    assert "retry after 90 s" in result.detail and "retry after 90 s" in result.answer.lower()
    assert [n.action for n in result.degraded.next_steps][0] == "retry_later"
    assert result.model_calls == 1 and len([t for st in result.steps for t in st.tools]) == 1


def test_a_backoff_is_not_started_when_it_would_leave_no_time_for_the_next_request_and_the_answer():
    s = scenario([CALL, ANSWER], rules=[{"results": [{"fault": "timeout", "timeout_seconds": 6}] * 3
                                         + [{"data": {"value": 42}}]}], limits={"max_steps": 4, "max_seconds": 14})
    result = guarded(s)
    assert result.sim_seconds <= 14
    assert len([t for st in result.steps for t in st.tools]) <= 2


@pytest.mark.parametrize("fault,status", [("rate_limit", 429), ("server_error", 500), ("overloaded", 529)])
def test_a_model_fault_is_retried_within_the_budget_and_the_run_completes(fault, status):
    s = scenario([CALL, {"fault": fault}, ANSWER], limits={"max_steps": 4, "max_seconds": 60})
    result = guarded(s)
    assert result.stop_reason is StopReason.COMPLETED and result.model_calls == 2


def test_a_model_fault_that_keeps_coming_ends_as_an_error_that_says_retry_later():
    s = scenario([CALL, {"fault": "overloaded", "repeat": 5}, ANSWER], limits={"max_steps": 4, "max_seconds": 60})
    result = guarded(s)
    assert result.stop_reason is StopReason.ERROR and "529" in result.detail
    assert result.degraded.next_steps[0].action == "retry_later"
    assert result.degraded.final.status == "skipped"  # the failing service is not asked again


def test_the_naive_loop_lets_a_provider_failure_escape_and_the_runner_records_a_crash():
    s = scenario([{"fault": "rate_limit", "retry_after_seconds": 3}, ANSWER])
    with pytest.raises(ProviderError) as info:
        react_loop(Episode.from_scenario(s), max_steps=4)
    assert not isinstance(info.value, HarnessError) and info.value.status_code == 429
    assert info.value.retry_after == 3
    for result in (run(s, "react"), run_loop("react", Episode.from_scenario(s))):
        assert result.stop_reason is StopReason.ERROR and "the loop crashed: ProviderError" in result.detail


def test_a_scripted_timeout_hangs_then_raises_a_timeout_error():
    episode = Episode.from_scenario(scenario([{"fault": "timeout", "timeout_seconds": 12}, ANSWER]))
    with pytest.raises(ProviderTimeout) as info:
        episode.model.complete(episode.initial_messages(), episode.tools.specs)
    assert isinstance(info.value, TimeoutError) and episode.clock.elapsed == 12


@pytest.mark.parametrize("wire,kind,status,envelope", [
    ("openai-chat", "rate_limit", 429, {"code": "rate_limit_exceeded"}),
    ("anthropic", "overloaded", 529, {"type": "overloaded_error"}),
    ("anthropic", "server_error", 500, {"type": "api_error"}),
    ("openai-responses", "server_error", 500, {"type": "server_error"}),
])
def test_the_server_answers_a_fault_with_the_real_status_envelope_and_retry_after(wire, kind, status, envelope):
    s = scenario([{"fault": kind, "retry_after_seconds": 7}, ANSWER])
    s = s.model_copy(update={"model": s.model.model_copy(update={"wire": wire})})
    episode = Episode.from_scenario(s)
    server = ScriptedServer(episode.model)
    path = {"openai-chat": "/v1/chat/completions", "openai-responses": "/v1/responses", "anthropic": "/v1/messages"}
    body = {**to_wire(episode.initial_messages(), episode.tools.specs, wire), "model": "m", "max_tokens": 64}
    if wire != "anthropic":
        body.pop("max_tokens")
    got_status, payload, headers = server.handle("POST", path[wire], {"authorization": "Bearer x", "x-api-key": "x"},
                                                 json.dumps(body).encode())
    assert got_status == status and headers["retry-after"] == "7"
    error = payload["error"]
    assert all(error[k] == v for k, v in envelope.items()), payload
    assert (payload.get("type") == "error") == (wire == "anthropic")


# ---------------------------------------------------------------- 10. the retryable label survives

def test_what_the_model_reads_keeps_the_errors_class():
    s = scenario([CALL, ANSWER], rules=[{"result": {"fault": "server_error"}}])
    result = guarded(s)
    body = json.loads(next(m.content for m in result.messages if isinstance(m, ToolMessage)))
    assert body["retryable"] is True and body["error_type"] == "unavailable"


def test_a_non_retryable_provider_error_never_says_retry_later():
    from reference.parts.degrade.next_steps import next_steps
    advice = [s.action for s in next_steps(StopReason.ERROR, [], retryable=False)]
    assert "retry_later" not in advice and advice[0] == "rephrase"


# ---------------------------------------------------------------- 11. nested business failures

@pytest.mark.parametrize("data", [
    {"response": {"ok": False, "error": {"code": "DECLINED", "message": "declined"}}},
    {"data": {"status": "FAILED"}},
    {"data": {"status": "error", "message": "quota"}},
    {"errors": [{"message": "not found"}], "data": None},
    {"result": {"success": False}},
    {"error": {"code": "X", "message": "no"}},
])
def test_failures_in_an_envelope_are_failures(data):
    assert business_failure(data) is not None


@pytest.mark.parametrize("data", [
    {"job_id": "j1", "status": "failed"},
    {"data": {"job": "j1", "status": "FAILED", "finished": "2026-11-30"}},
    {"status": "ok"},
    {"service": "checkout", "errors": ["02:14 timeout"]},
    {"errors": [{"message": "partial"}], "data": {"a": 1}},
    {"orders": [{"status": "failed"}]},
])
def test_data_that_merely_has_a_status_or_errors_field_is_not_a_failure(data):
    assert business_failure(data) is None


def test_a_nested_failure_is_never_an_obtained_fact():
    s = scenario([CALL], cycle=[{"call": {"tool": "lookup", "args": {"key": "x"}}}], limits={"max_steps": 3},
                 rules=[{"when": {"key": "ok"}, "result": {"data": {"response": {"ok": False, "error": {
                     "code": "CARD_DECLINED"}}}}}, {"result": {"data": {"errors": [{"message": "nope"}], "data": None}}}])
    result = guarded(s)
    assert result.degraded.obtained == []
    assert "CARD_DECLINED" not in json.dumps([o.to_dict() for o in result.degraded.obtained])


# ---------------------------------------------------------------- 12. redaction on success

def test_a_successful_result_is_redacted_and_counted():
    data = {"dsn": "mysql://root:pa55word!@10.1.2.3:3306/db", "key": "sk-ant-api03-abcdefghijklmnop",
            "trace": 'Traceback (most recent call last):\n  File "/opt/app/x.py", line 3', "aws": "AKIAIOSFODNN7EXAMPLE",
            "token": "Bearer abcdefghijklmnopqrstuv", "public": "see https://example.com/docs", "n": 3}
    s = scenario([CALL, ANSWER], rules=[{"result": {"data": data}}],
                 expect={"completable": False, "stop_reason": "completed",
                         "never_visible": ["pa55word", "sk-ant-api03", "10.1.2.3", "/opt/app", "AKIAIOSFODNN7EXAMPLE",
                                           "abcdefghijklmnopqrstuv"]})
    episode = Episode.from_scenario(s)
    result = run_loop("guarded", episode)
    failed = [c.detail for c in evaluate(s, result) if not c.ok and c.name.startswith("never_visible")]
    assert not failed, failed
    assert "https://example.com/docs" in result.messages[3].content  # public data stays
    assert sum(episode.ledger.redactions.values()) >= 5, episode.ledger.redactions


def test_clean_data_is_returned_as_is():
    data = {"value": 42, "host": "api.example.com", "path": "/v1/items"}
    assert scrub(data) == (data, {})


# ---------------------------------------------------------------- 13. a step is one model request, hard

@pytest.mark.parametrize("max_steps", [1, 2, 3, 5])
def test_the_last_answer_is_paid_from_the_step_limit(max_steps):
    s = scenario([CALL], cycle=[CALL], limits={"max_steps": max_steps})
    assert guarded(s).model_calls <= max_steps


# ---------------------------------------------------------------- 14. cancel

def test_cancel_after_a_step_is_honoured_between_steps():
    s = scenario([CALL, {"call": {"tool": "lookup", "args": {"key": "b"}}}, ANSWER], cancel={"after_step": 1})
    result = guarded(s)
    assert result.stop_reason is StopReason.CANCELLED and result.stop_reason.kind == "user"
    assert result.model_calls == 1 and result.degraded.obtained  # the first step's result is kept
    assert result.degraded.final.status == "skipped"


def test_cancel_during_a_retry_wait_stops_the_wait_there():
    s = scenario([CALL], cycle=[CALL], rules=[{"result": {"fault": "server_error"}}],
                 limits={"max_steps": 6, "max_seconds": 100}, cancel={"at_seconds": 1.5})
    result = guarded(s)
    assert result.stop_reason is StopReason.CANCELLED and result.sim_seconds == pytest.approx(1.5)


def test_a_ui_can_press_stop():
    episode = Episode.from_scenario(scenario([CALL, ANSWER]))
    episode.cancel()
    assert run_loop("guarded", episode).stop_reason is StopReason.CANCELLED


def test_cancel_needs_exactly_one_trigger():
    with pytest.raises(ScenarioError, match="exactly one of 'at_seconds' or 'after_step'"):
        scenario([ANSWER], cancel={"at_seconds": 1, "after_step": 1})


# ---------------------------------------------------------------- the scenario format

def test_when_matches_any_of_and_regex():
    rules = [{"when": {"key": {"any_of": ["a", "b"]}}, "result": {"data": "ab"}},
             {"when": {"key": {"regex": "(?i)^c\\d+$"}}, "result": {"data": "c"}}, {"result": {"data": "other"}}]
    episode = Episode.from_scenario(scenario([ANSWER], rules=rules))
    got = [episode.tools.invoke("lookup", {"key": k}).data for k in ("a", "b", "C12", "c", "d")]
    assert got == ["ab", "ab", "c", "other", "other"]


def test_a_bad_regex_is_refused_with_the_field():
    with pytest.raises(ScenarioError, match=r"when.key.regex: '\(' is not a valid regular expression"):
        scenario([ANSWER], rules=[{"when": {"key": {"regex": "("}}, "result": {"data": 1}}])


def test_results_advance_per_argument_value():
    rules = [{"advance": "arguments", "results": [{"data": 1}, {"data": 2}]}]
    episode = Episode.from_scenario(scenario([ANSWER], rules=rules))
    got = [episode.tools.invoke("lookup", {"key": k}).data for k in ("a", "b", "a", "b", "a")]
    assert got == [1, 1, 2, 2, 2]


def test_results_advance_with_simulated_time():
    rules = [{"advance": "time", "every_seconds": 10, "results": [{"data": "running"}, {"data": "done"}]}]
    episode = Episode.from_scenario(scenario([ANSWER], rules=rules))
    early = episode.tools.invoke("lookup", {"key": "job"}).data
    episode.clock.advance(10)
    assert (early, episode.tools.invoke("lookup", {"key": "job"}).data) == ("running", "done")
    with pytest.raises(ScenarioError, match="'advance: time' needs 'every_seconds'"):
        scenario([ANSWER], rules=[{"advance": "time", "results": [{"data": 1}]}])


def test_reactions_match_by_regex_any_of_or_ignoring_case():
    for when in ({"matches": "VALUE\\W+42", "ignore_case": True}, {"contains": ["nope", "value"]},
                 {"contains": "VALUE", "ignore_case": True}):
        s = scenario([CALL, CALL], reactions=[{"when": when, "then": [ANSWER]}])
        assert guarded(s).stop_reason is StopReason.COMPLETED, when


def test_expect_checks_report_what_they_saw():
    s = scenario([CALL, CALL, ANSWER], expect={
        "completable": True, "stop_reason": "completed", "answer_not_contains": ["43"], "tool_calls_executed": {"max": 2},
        "interventions": {"min": 1}, "detectors_fired": ["repeated_call"], "answered_once": ["lookup"]})
    result = guarded(s)  # the repeated read runs once more, and its same answer is replaced by the warning
    checks = {c.name: c.ok for c in evaluate(s, result)}
    assert checks["answer_not_contains:43"] and checks["tool_calls_executed"] and checks["interventions"]
    assert checks["detectors_fired:repeated_call"] and checks["answered_once:lookup"]
