"""Fake tools and their faults, and the lesson-1 executor that never raises and never leaks internals."""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from reference import SimClock, ToolCall, ToolOutcome, ToolSpec, ToolTimeout
from reference.harness.ledger import Ledger
from reference.core.model import Pricing
from reference.sim.scenario.schema_tools import ToolDef
from reference.sim.tools import FakeTool, Toolbox


def fake(rules: list[dict[str, Any]], latency: float = 0.25, name: str = "lookup") -> FakeTool:
    return FakeTool(ToolDef.model_validate({"name": name, "latency_seconds": latency, "rules": rules}), SimClock.at())


def one(result: dict[str, Any], **rule: Any) -> FakeTool:
    return fake([{"result": result, **rule}])


def test_timeout_raises_tool_timeout_after_the_clock_ran_for_timeout_seconds():
    tool = one({"fault": "timeout", "timeout_seconds": 12})
    with pytest.raises(ToolTimeout, match=r"^lookup timed out after 12s$"):
        tool({})
    assert tool.clock.elapsed == 12, f"the call should have cost its full timeout, not {tool.clock.elapsed} s"


def test_timeout_defaults_to_thirty_seconds():
    tool = one({"fault": "timeout"})
    with pytest.raises(ToolTimeout):
        tool({})
    assert tool.clock.elapsed == 30


@pytest.mark.parametrize("fault,status,error_type,retryable,message", [
    ("rate_limit", 429, "rate_limited", True, "Too many requests."),
    ("server_error", 503, "unavailable", True, "Service temporarily unavailable."),
    ("invalid_argument", 400, "invalid_argument", False, "Invalid argument."),
    ("permission_denied", 403, "permission_denied", False, "Permission denied."),
    ("not_found", 404, "not_found", False, "Not found."),
])
def test_http_faults_answer_with_a_structured_error(fault, status, error_type, retryable, message):
    tool = one({"fault": fault})
    outcome = tool({})
    assert outcome == ToolOutcome(False, error_type=error_type, retryable=retryable, message=message,
                                  http_status=status), f"{fault}: {outcome}"
    assert tool.clock.elapsed == 0.25, "a fault still costs the tool's latency"
    assert json.loads(outcome.to_content()) == {"ok": False, "error_type": error_type, "retryable": retryable,
                                                "message": message}


def test_rate_limit_carries_retry_after_to_the_model():
    outcome = one({"fault": "rate_limit", "retry_after_seconds": 7, "message": "Slow down."})({})
    assert (outcome.http_status, outcome.retry_after, outcome.message) == (429, 7, "Slow down.")
    assert json.loads(outcome.to_content())["retry_after"] == 7


def test_invalid_argument_can_say_what_is_wrong():
    outcome = one({"fault": "invalid_argument", "message": "date must be YYYY-MM-DD, got 'tomorrow'."})({})
    assert (outcome.ok, outcome.retryable) == (False, False)
    assert outcome.message == "date must be YYYY-MM-DD, got 'tomorrow'."


def test_business_failure_is_http_200_with_success_false_in_the_data():
    outcome = one({"fault": "business_failure", "error_code": "SEAT_TAKEN", "message": "Seat 12A is taken."})({})
    assert outcome.ok is True and outcome.http_status == 200, "the transport says it worked: that is the trap"
    assert outcome.data == {"success": False, "error_code": "SEAT_TAKEN", "error_message": "Seat 12A is taken."}


def test_exception_fault_raises_with_internal_text():
    with pytest.raises(RuntimeError, match="psycopg2.errors.UndefinedTable"):
        one({"fault": "exception", "message": "psycopg2.errors.UndefinedTable: relation \"orders\" does not exist"})({})


def test_connection_reset_raises_like_a_dropped_socket():
    with pytest.raises(ConnectionResetError) as info:
        one({"fault": "connection_reset"})({})
    assert info.value.errno == 104


def test_size_chars_gives_a_huge_output():
    outcome = one({"size_chars": 50_000})({})
    size = len(outcome.to_content())
    assert outcome.ok and 50_000 <= size < 60_000, f"expected about 50,000 characters, got {size}"
    assert outcome == one({"size_chars": 50_000})({}), "the filler is deterministic"


def test_grow_chars_output_grows_with_every_call():
    tool = one({"grow_chars": 2_000})
    sizes = [len(tool({}).to_content()) for _ in range(4)]
    assert all(b - a > 1_500 for a, b in zip(sizes, sizes[1:])), f"each page should add ~2,000 characters: {sizes}"
    assert tool({}).data["page"] == 5


def test_results_change_per_call_and_the_last_one_repeats():
    tool = fake([{"results": [{"data": {"status": "queued"}}, {"fault": "server_error"},
                              {"data": {"status": "done"}}]}])
    seen = [(o.ok, o.data) for o in (tool({}) for _ in range(5))]
    assert seen == [(True, {"status": "queued"}), (False, None)] + [(True, {"status": "done"})] * 3, seen


def test_when_rules_match_a_subset_of_the_arguments_first_match_wins():
    tool = fake([{"when": {"city": "Shanghai", "date": "2026-12-01"}, "result": {"data": "rain tomorrow"}},
                 {"when": {"city": "Shanghai"}, "result": {"data": "rain"}},
                 {"result": {"fault": "not_found", "message": "Unknown city."}}])
    assert tool({"city": "Shanghai", "date": "2026-12-01", "units": "C"}).data == "rain tomorrow"
    assert tool({"city": "Shanghai", "date": "2026-12-02"}).data == "rain"
    assert tool({"city": "Beijing"}).message == "Unknown city."


def test_unmatched_arguments_get_not_found_naming_them():
    tool = fake([{"when": {"city": "Shanghai"}, "result": {"data": "rain"}}])
    outcome = tool({"city": "Atlantis", "date": "2026-12-01"})
    assert outcome == ToolOutcome(False, error_type="not_found", http_status=404,
                                  message='No result for {"city": "Atlantis", "date": "2026-12-01"}.'), outcome
    assert tool.clock.elapsed == 0.25


def test_results_sequences_count_per_rule():
    tool = fake([{"when": {"page": 1}, "results": [{"data": "p1 first"}, {"data": "p1 again"}]},
                 {"results": [{"data": "other first"}, {"data": "other again"}]}])
    assert [tool({"page": p}).data for p in (1, 2, 1, 2)] == ["p1 first", "other first", "p1 again", "other again"]


def test_a_rules_latency_overrides_the_tools():
    tool = fake([{"result": {"data": 1}, "latency_seconds": 4.0}], latency=0.25)
    tool({})
    assert tool.clock.elapsed == 4.0


def test_returned_data_is_a_copy_of_the_scenarios():
    tool = one({"data": {"items": [1, 2]}})
    tool({}).data["items"].append(3)
    assert tool({}).data == {"items": [1, 2]}, "a caller mutating a result must not change the scenario"


# ---------------------------------------------------------------- Toolbox.execute

SECRET = "sk-live-51HxQyT2eZvKYlo2C0FAKEKEY"
INTERNALS = f"auth failed with key {SECRET} at /srv/app/billing/client.py:88 during SELECT * FROM users WHERE id=7"


def toolbox(extra: dict[str, Any] | None = None) -> Toolbox:
    clock = SimClock.at()
    tools: dict[str, Any] = {
        "lookup": FakeTool(ToolDef.model_validate({"name": "lookup", "rules": [
            {"when": {"key": "boom"}, "result": {"fault": "exception", "message": INTERNALS}},
            {"when": {"key": "slow"}, "result": {"fault": "timeout", "timeout_seconds": 5}},
            {"when": {"key": "reset"}, "result": {"fault": "connection_reset"}},
            {"when": {"key": "busy"}, "result": {"fault": "rate_limit", "retry_after_seconds": 2}},
            {"when": {"key": "seat"}, "result": {"fault": "business_failure"}},
            {"result": {"data": {"value": 42}}}]}), clock),
        **(extra or {}),
    }
    return Toolbox(tools, [ToolSpec(n) for n in tools], clock, Ledger(clock, Pricing()))


def execute(box: Toolbox, name: str, arguments: str) -> tuple[Any, dict[str, Any]]:
    message = box.execute(ToolCall("call_1", name, arguments))
    assert message.call_id == "call_1", "the result must answer the call it was made for"
    return message, json.loads(message.content)


def test_execute_answers_a_successful_call():
    message, body = execute(toolbox(), "lookup", '{"key": "k1"}')
    assert (message.is_error, body) == (False, {"ok": True, "data": {"value": 42}})


def test_execute_answers_an_unknown_tool_with_the_available_names():
    message, body = execute(toolbox(), "lookup_v2", "{}")
    assert message.is_error and body == {"ok": False, "error_type": "unknown_tool", "retryable": False,
                                         "message": "There is no tool named 'lookup_v2'. Available tools: lookup."}


@pytest.mark.parametrize("arguments,reason", [('{"key": "k1"', "Expecting ',' delimiter"),
                                              ("key=k1", "Expecting value"),
                                              ('["k1"]', "arguments must be a JSON object, got list")])
def test_execute_answers_malformed_arguments_with_how_to_fix_them(arguments, reason):
    message, body = execute(toolbox(), "lookup", arguments)
    assert message.is_error and body["error_type"] == "invalid_json", body
    assert body["message"] == (f"The arguments are not a valid JSON object ({reason}). Send the arguments as a "
                               "JSON object matching the tool's schema."), body["message"]


def test_execute_never_leaks_an_exceptions_text():
    box = toolbox()
    message, body = execute(box, "lookup", '{"key": "boom"}')
    assert message.is_error and body == {"ok": False, "error_type": "internal_error", "retryable": False,
                                         "message": "'lookup' failed with an internal error."}
    for leak in (SECRET, "sk-live", "/srv/app", "client.py", "SELECT", "users"):
        assert leak not in message.content, f"the model was shown internals ({leak!r}): {message.content}"
    record = box.ledger.orphan_tools[-1]
    assert (record.exception, record.outcome) == ("RuntimeError", None), "the ledger keeps the class name only"
    assert SECRET not in repr(box.ledger.orphan_tools), "nor does the ledger keep the secret"


def test_execute_answers_a_timeout_as_retryable():
    box = toolbox()
    message, body = execute(box, "lookup", '{"key": "slow"}')
    assert message.is_error and (body["error_type"], body["retryable"]) == ("timeout", True), body
    assert body["message"] == "'lookup' did not answer in time." and box.clock.elapsed == 5


def test_execute_answers_a_connection_reset_without_its_text():
    message, body = execute(toolbox(), "lookup", '{"key": "reset"}')
    assert body["error_type"] == "internal_error" and "reset by peer" not in message.content


def test_execute_passes_structured_faults_through_and_flags_them():
    message, body = execute(toolbox(), "lookup", '{"key": "busy"}')
    assert message.is_error and body == {"ok": False, "error_type": "rate_limited", "retryable": True,
                                         "message": "Too many requests.", "retry_after": 2}


def test_execute_does_not_flag_a_business_failure_because_the_transport_succeeded():
    message, body = execute(toolbox(), "lookup", '{"key": "seat"}')
    assert message.is_error is False and body["data"]["success"] is False, \
        "HTTP 200 with success:false reaches the model as ok:true; spotting it is the loop's job"


@pytest.mark.parametrize("python_tool", [
    lambda args: (_ for _ in ()).throw(KeyError("/etc/secrets/" + SECRET)),
    lambda args: (_ for _ in ()).throw(ZeroDivisionError("division by zero")),
    lambda args: ToolOutcome(True, data={"when": dt.datetime(2026, 12, 1, 8, 0)}),
], ids=["key_error", "zero_division", "non_json_data"])
def test_execute_never_raises_whatever_a_python_tool_does(python_tool):
    message = toolbox({"custom": python_tool}).execute(ToolCall("call_9", "custom", "{}"))
    assert message.call_id == "call_9" and SECRET not in message.content, message
    json.loads(message.content)  # always JSON the model can read
