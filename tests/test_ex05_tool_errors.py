"""Exercise 5: tool errors. Run against solutions/ by default; `--target exercises` for yours.

Each test plugs `make_executor(episode)` into the guarded loop and plays a lesson-5 scenario, or an
inline one built here, and reads the run record: the ledger (every tool attempt), the simulated
clock, and what the model was shown (every request it received).
"""
from __future__ import annotations

import json
import random
import re
import time

import pytest

from reference import RunResult, StopReason, ToolMessage, ToolOutcome, ToolTimeout, find, parse_scenario
from reference.sandbox.grading import run_candidate
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.runs.runner import evaluate
from tests.helpers.targets import load_exercise

# A stack trace with everything that must never reach a model: a path, SQL, a host, an IP, a DSN with
# a password, an API key. All of it fake.
SECRET = ('Traceback (most recent call last):\n  File "/srv/orders-api/app/db.py", line 88, in fetch_order\n'
          '    cur.execute("SELECT id, card_last4 FROM orders WHERE id = %s")\npsycopg2.OperationalError: '
          'connection to server at "orders-db-prod-7.internal.example.com" (10.20.3.7), port 5432 failed\n'
          'DSN: postgresql://orders_rw:FAKE-PASSWORD-not-real@orders-db-prod-7.internal.example.com:5432/orders '
          'api_key=sk-FAKE0000notarealkey0000')
NEEDLES = ["FAKE-PASSWORD-not-real", "sk-FAKE0000notarealkey0000", "orders-db-prod-7", "10.20.3.7",
           "/srv/orders-api", "SELECT", "Traceback", "psycopg2", "card_last4", "line 88"]


@pytest.fixture
def ex(target):
    return load_exercise(target, "ex05_tool_errors")


# ---------------------------------------------------------------- running and reading a run

class Played:
    def __init__(self, attempt, offered):
        self.attempt, self.offered = attempt, offered  # the tools the executor offered at the end
        self.result: RunResult = attempt.result
        self.name = attempt.scenario.name

    def tries(self, tool: str) -> list:
        """Every attempt at `tool`, from the ledger (retries included)."""
        return [t for s in self.result.steps for t in s.tools if t.name == tool]

    def requests(self) -> list:
        model = self.attempt.episode.model.inner
        while not hasattr(model, "requests"):
            model = model.inner
        return model.requests

    def shown_errors(self) -> list[dict]:
        """Every error result the model was shown, parsed."""
        out = []
        for m in self.result.messages:
            if isinstance(m, ToolMessage) and m.is_error:
                try:
                    out.append(json.loads(m.content))
                except ValueError:
                    out.append({"raw": m.content})
        return out


def play(ex, scenario, max_steps=None, sandbox=True) -> Played:
    made = []

    def ex05_loop(episode, max_steps=8):
        executor = ex.make_executor(episode)
        made.append(executor)
        return guarded_loop(episode, max_steps, Parts(executor=executor))

    def offered_at_end(episode):  # runs after the loop, in its process, where the executor lives
        return [s.name for s in made[0].offered(episode)]

    attempt = run_candidate(ex05_loop, scenario, max_steps, probe=offered_at_end, sandbox=sandbox)
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    return Played(attempt, attempt.probe)


def inline(name, tools, calls, *, limits=None):
    """A scenario: the model calls `calls` (tool, args) in one turn, then answers."""
    return parse_scenario({
        "name": name, "title": name, "user": "Look it up, please.", "limits": limits or {"max_steps": 4},
        "tools": [{"name": t, "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                   "rules": [rule]} for t, rule in tools.items()],
        "model": {"allow_unknown_tools": True,
                  "script": [{"calls": [{"tool": t, "args": a} if isinstance(a, dict) else {"tool": t, "raw_args": a}
                                        for t, a in calls]},
                             {"answer": "Sorry, I could not look that up."}]},
        "expect": {"completable": False, "stop_reason": ["completed", "circuit_open"]},
    })


def fault(kind, **more):
    return {"result": {"fault": kind, **more}}


def one_call_per_turn(name, tool, rules, calls):
    """A scenario with one tool: the model sends `calls` one per turn (each after the last one's result), then
    answers."""
    return parse_scenario({
        "name": name, "title": name, "user": "Look it up, please.", "limits": {"max_steps": len(calls) + 2},
        "tools": [{"name": tool, "rules": rules,
                   "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}],
        "model": {"script": [{"call": {"tool": tool, "args": a}} for a in calls]
                  + [{"answer": "Here is what I found."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    }, source=f"tests/test_ex05_tool_errors.py ({name})")


def withdrawn(run, tool: str) -> str:
    """'' when `tool` was offered in every request and still is at the end; else where it went missing."""
    missing = [i for i, r in enumerate(run.requests(), 1) if tool not in [t.name for t in r.tools]]
    if missing:
        return f"{tool} was not offered in request(s) {missing}"
    if tool not in run.offered:
        return f"{tool} was withdrawn"
    return ""


# ---------------------------------------------------------------- step 1: the taxonomy

def test_taxonomy_retries_only_what_can_heal(ex):
    retryable = {
        "timeout (ToolTimeout)": ex.classify(None, ToolTimeout("get_weather timed out after 10s")),
        "connection reset": ex.classify(None, ConnectionResetError(104, "Connection reset by peer")),
        "HTTP 429": ex.classify(ToolOutcome(False, http_status=429, retry_after=5.0, message="Too many requests.")),
        "HTTP 503": ex.classify(ToolOutcome(False, http_status=503, message="Service temporarily unavailable.")),
    }
    for what, failure in retryable.items():
        assert failure is not None and failure.retryable, f"{what} is retryable: it can heal on its own, got {failure}"
    assert retryable["HTTP 429"].retry_after == 5.0, "keep a 429's retry_after: the server said when to come back"
    not_retryable = {
        "HTTP 400": ex.classify(ToolOutcome(False, http_status=400, message="Invalid value for 'date'.")),
        "HTTP 403": ex.classify(ToolOutcome(False, http_status=403, message="Permission denied.")),
        "HTTP 404": ex.classify(ToolOutcome(False, http_status=404, message="Not found.")),
        "a RuntimeError (a bug)": ex.classify(None, RuntimeError("division by zero")),
        "HTTP 200 with success false": ex.classify(ToolOutcome(True, data={"success": False, "error_code": "X"})),
    }
    for what, failure in not_retryable.items():
        assert failure is not None, f"{what} is a failure, but classify returned None (a success)"
        assert not failure.retryable, f"{what} is not retryable: the same call fails the same way, got {failure}"
    assert ex.classify(ToolOutcome(True, data={"forecast": "light rain"})) is None, "a real success is not a failure"


# ---------------------------------------------------------------- step 2: backoff

def test_backoff_grows_with_jitter_and_is_seeded(ex):
    means = []
    for attempt in (1, 2, 3):
        rng = random.Random(7)
        draws = [ex.backoff_seconds(attempt, rng) for _ in range(200)]
        assert all(0 < d <= 60 for d in draws), \
            f"attempt {attempt}: waits must be positive and bounded, got {draws[:5]}"
        assert len(set(draws)) > 1, \
            f"attempt {attempt}: every wait is {draws[0]} s: no jitter, so clients retry in step"
        means.append(sum(draws) / len(draws))
    assert means[0] < means[1] < means[2], f"mean waits {means}: the backoff must grow with each attempt"
    a, b = random.Random(3), random.Random(3)
    assert [ex.backoff_seconds(n, a) for n in (1, 2, 3)] == [ex.backoff_seconds(n, b) for n in (1, 2, 3)], \
        "the same seed must give the same waits (draw the jitter from `rng`, not from `random`)"


# ---------------------------------------------------------------- step 5: retries in code

def test_flaky_tool_recovers_without_the_model_noticing(ex):
    run = play(ex, "flaky-timeout")
    tries = run.result.steps[0].tools  # the attempts made for the model's first call, before it was answered
    assert len(tries) == 3, (f"scenario `flaky-timeout`: get_weather was attempted {len(tries)} time(s) before the "
                             "model got its answer; it times out twice, then answers, so that takes 3 attempts. A "
                             "timeout is retryable: the retry never fired"
                             + (" (is something catching the exception before the retry can see it?)"
                                if len(tries) == 1 else ""))
    shown = [m for r in run.requests() for m in r.messages if isinstance(m, ToolMessage) and m.is_error]
    assert not shown, f"scenario `flaky-timeout`: the model saw the failure: {shown[0].content[:200]}"
    assert run.result.stop_reason is StopReason.COMPLETED and run.result.model_calls == 2, \
        f"scenario `flaky-timeout`: {run.attempt.story()}; a retry that succeeds costs no model call (2 in all)"


def test_backoff_waits_on_the_simulated_clock(ex, monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", lambda seconds: slept.append(seconds))  # real sleeping is recorded, not done
    run = play(ex, "flaky-timeout", sandbox="in-process")  # in this process, where `slept` is: a fork's list is lost
    tries = run.result.steps[0].tools
    assert len(tries) == 3, f"scenario `flaky-timeout`: {len(tries)} attempts of get_weather in code, expected 3"
    gaps = [b.started - (a.started + a.seconds) for a, b in zip(tries, tries[1:])]
    assert all(g > 0 for g in gaps), (f"scenario `flaky-timeout`: waits between attempts {gaps} s: back off before "
                                      "retrying, with episode.clock.sleep(seconds)")
    assert not slept, f"scenario `flaky-timeout`: time.sleep{tuple(slept)} was called: never sleep for real, use the clock"


def test_honours_retry_after(ex):
    run = play(ex, "rate-limited")
    tries = run.result.steps[0].tools
    assert len(tries) == 2, (f"scenario `rate-limited`: {len(tries)} attempt(s) of search_flights before the model got "
                             "its answer; a 429 with Retry-After is retried once, in code, before answering the model")
    gap = tries[1].started - (tries[0].started + tries[0].seconds)
    assert gap == pytest.approx(5.0, abs=0.01), \
        f"scenario `rate-limited`: waited {gap:.2f} s after the 429; the server said Retry-After: 5"
    assert run.result.model_calls == 2, \
        f"scenario `rate-limited`: {run.attempt.story()}; the model should not see the 429"


def test_does_not_retry_what_cannot_succeed(ex):
    faults = {"invalid_argument": fault("invalid_argument", message="Invalid value for 'q'."),
              "permission_denied": fault("permission_denied"), "not_found": fault("not_found"),
              "business_failure": fault("business_failure", error_code="LIMIT_REACHED"),
              "exception": fault("exception", message="KeyError: 'q'")}
    run = play(ex, inline("non-retryable", faults, [(name, {"q": "x"}) for name in faults]))
    for name in faults:
        n = len(run.tries(name))
        assert n == 1, (f"scenario `non-retryable`: the {name} tool ran {n} times; it is not retryable, so the "
                        "same call fails the same way: run it once and tell the model")


def test_a_client_error_is_not_retried_whatever_the_tool_says(ex):
    # A tool wrapper that marks every error retryable (it happens): the status code decides, not the flag.
    scenario = one_call_per_turn("mislabelled-400", "validate_address", [{"result": {"data": {"valid": True}}}],
                                 [{"q": "10 Downing St, SW1A 2AA"}])

    def ex05_loop(episode, max_steps=8):
        episode.tools.tools["validate_address"] = lambda args: ToolOutcome(
            False, error_type="invalid_argument", retryable=True, http_status=400, message="Unknown postcode.")
        return guarded_loop(episode, max_steps, Parts(executor=ex.make_executor(episode)))

    attempt = run_candidate(ex05_loop, scenario)
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    tries = [t for s in attempt.result.steps for t in s.tools]
    assert len(tries) == 1, (
        f"scenario `mislabelled-400`: the tool answered HTTP 400 with retryable: true and ran {len(tries)} times. A "
        "400 fails the same way every time: your taxonomy decides what is retryable, from the status, not the tool's "
        "own retryable flag")


def test_retries_stay_within_the_time_budget(ex):
    scenario = inline("slow-timeouts", {"lookup": fault("timeout", timeout_seconds=10)}, [("lookup", {"q": "x"})],
                      limits={"max_steps": 4, "max_seconds": 25})
    run = play(ex, scenario)
    assert run.result.sim_seconds <= 25, (
        f"scenario `slow-timeouts`: the run took {run.result.sim_seconds:.1f} simulated s; the budget is 25 s and "
        f"each attempt takes 10 s ({len(run.tries('lookup'))} attempts): do not start a retry that cannot fit")


# ---------------------------------------------------------------- step 3: translation

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


def test_business_failure_behind_http_200_is_an_error(ex):
    run = play(ex, "business-failure")
    first = next(m for m in run.result.messages if isinstance(m, ToolMessage))
    body = json.loads(first.content)
    assert first.is_error and body.get("ok") is False, (
        "scenario `business-failure`: HTTP 200 with success false was read as data (ok: true); it must go down "
        f"the error branch: {first.content[:200]}")
    assert run.result.stop_reason is StopReason.COMPLETED and run.result.model_calls == 2, run.attempt.story()


def test_no_exception_text_or_secret_reaches_the_model(ex):
    every_path = {
        "raises": fault("exception", message=SECRET), "times_out": fault("timeout", timeout_seconds=1),
        "resets": fault("connection_reset"), "limits": fault("rate_limit", retry_after_seconds=1, message=SECRET),
        "breaks": fault("server_error", message=SECRET), "refuses_arg": fault("invalid_argument", message=SECRET),
        "forbids": fault("permission_denied", message=SECRET), "misses": fault("not_found", message=SECRET),
        "rejects": fault("business_failure", message=SECRET, error_code="AUTH password=FAKE-PASSWORD-not-real"),
    }
    calls = [(name, {"q": "x"}) for name in every_path] + [("raises", '{"q": '), ("no_such_tool", {"q": "x"})]
    for scenario in (inline("every-error-path", every_path, calls), find("exception-secret")):
        run = play(ex, scenario)
        visible = [m.content for m in run.result.messages if isinstance(m, ToolMessage)]
        visible += [json.dumps(r.wire_body, ensure_ascii=False) for r in run.requests()]
        for needle in NEEDLES:
            leaked = [v for v in visible if needle in v]
            assert not leaked, (f"scenario `{run.name}`: {needle!r} leaked to the model: {leaked[0][:300]}. "
                                "Never pass an exception's text (or a tool's message unchecked) to the model")


# ---------------------------------------------------------------- step 4: malformed calls; never raise

def test_tool_exceptions_never_escape_the_loop(ex):
    tools = {"raises": fault("exception", message="boom"), "times_out": fault("timeout", timeout_seconds=1),
             "resets": fault("connection_reset")}
    calls = [(t, {"q": "x"}) for t in tools] + [("raises", "not json"), ("no_such_tool", {"q": "x"}),
                                                 ("raises", {"q": 42})]
    run = play(ex, inline("everything-fails", tools, calls))
    answered = [m for m in run.result.messages if isinstance(m, ToolMessage)]
    assert len(answered) == len(calls), \
        f"scenario `everything-fails`: {len(calls)} calls, {len(answered)} answered: every call needs a result"
    assert all(m.is_error for m in answered), "scenario `everything-fails`: every one of these calls failed"


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


# ---------------------------------------------------------------- step 6: circuit breaker

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


# ---------------------------------------------------------------- kinds of wrong answer found by mutation testing

def with_status(ex, status: int, tool: str = "validate_address"):
    """A loop whose `tool` always answers HTTP `status`, marked retryable by its wrapper (so only the status can
    decide)."""
    def ex05_loop(episode, max_steps=8):
        episode.tools.tools[tool] = lambda args: ToolOutcome(
            False, error_type="unavailable", retryable=True, http_status=status, message="The service said no.")
        return guarded_loop(episode, max_steps, Parts(executor=ex.make_executor(episode)))
    return ex05_loop


@pytest.mark.parametrize("status", [400, 401, 403, 404, 407, 409, 410, 422, 451, 499])
def test_401_403_and_other_client_errors_are_never_retried(ex, status):
    failure = ex.classify(ToolOutcome(False, http_status=status, message="No."))
    assert not failure.retryable, f"HTTP {status} is a client error: the same call fails the same way, not retryable"
    kind = {400: "invalid_argument", 401: "permission_denied", 403: "permission_denied", 404: "not_found",
            422: "invalid_argument"}.get(status)
    assert kind is None or failure.error_type == kind, f"HTTP {status} is {kind}, got {failure.error_type}"
    scenario = one_call_per_turn(f"status-{status}", "validate_address", [{"result": {"data": {"valid": True}}}],
                                 [{"q": "10 Downing St"}])
    attempt = run_candidate(with_status(ex, status), scenario)
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    tries = [t for s in attempt.result.steps for t in s.tools]
    assert len(tries) == 1, f"scenario `status-{status}`: the tool answered HTTP {status} and ran {len(tries)} times"


@pytest.mark.parametrize("status", [408, 500, 502, 503, 504])
def test_408_and_every_5xx_are_retried(ex, status):
    failure = ex.classify(ToolOutcome(False, http_status=status, message="Try again."))
    assert failure is not None and failure.retryable, f"HTTP {status} can heal on its own: it is retryable"


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


def test_one_attempt_means_no_retry(ex):
    def ex05_loop(episode, max_steps=8):
        return guarded_loop(episode, max_steps, Parts(executor=ex.ToolErrorExecutor(episode, max_attempts=1)))

    attempt = run_candidate(ex05_loop, "flaky-timeout")
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    assert len(attempt.result.steps[0].tools) == 1, (
        f"scenario `flaky-timeout` with max_attempts=1: get_weather ran {len(attempt.result.steps[0].tools)} times "
        "for the first call; one attempt means no retry")


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
    fresh = load_exercise(target, "ex05_tool_errors")
    again = {name: outline(play(fresh, name, sandbox="in-process")) for name in names}
    assert first == [again[name] for name in names], (
        "tool-down, flaky-timeout, tool-down, schema-mismatch twice in one process differ from fresh runs: a tool "
        "withdrawn, a failure counted or a rejection remembered in one run must not carry into the next")


def test_backoff_is_exponential_up_to_a_cap(ex):
    for kwargs, base, cap in (({}, 0.5, 8.0), ({"base": 1.0, "cap": 4.0}, 1.0, 4.0)):
        for attempt in range(1, 8):
            rng = random.Random(attempt)
            draws = [ex.backoff_seconds(attempt, rng, **kwargs) for _ in range(300)]
            ceiling = min(cap, base * 2 ** (attempt - 1))
            assert all(0 < d <= ceiling for d in draws), (
                f"backoff_seconds({attempt}, rng, {kwargs}) gave waits up to {max(draws):.3f} s; with base {base} s "
                f"doubling per attempt and capped at {cap} s, attempt {attempt} waits at most {ceiling:g} s")
            assert max(draws) > 0.9 * ceiling, (
                f"backoff_seconds({attempt}, rng, {kwargs}): the longest of 300 waits was {max(draws):.3f} s; the "
                f"jitter should reach up to the attempt's ceiling ({ceiling:g} s)")


def rate_limited_once(name: str, retry_after: float, max_seconds: float):
    """The model takes 1 s; the tool takes 1 s and answers 429 (Retry-After) once, then data."""
    return parse_scenario({
        "name": name, "title": "a 429, then an answer", "user": "Look it up, please.",
        "limits": {"max_steps": 4, "max_seconds": max_seconds},
        "tools": [{"name": "lookup", "latency_seconds": 1,
                   "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                   "rules": [{"results": [{"fault": "rate_limit", "retry_after_seconds": retry_after},
                                          {"data": {"hits": 1}}]}]}],
        "model": {"latency": {"base_seconds": 1, "per_output_token_seconds": 0, "per_input_token_seconds": 0},
                  "script": [{"call": {"tool": "lookup", "args": {"q": "x"}}}, {"answer": "One hit."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    })


def test_a_retry_that_exactly_fits_the_time_budget_is_made(ex):
    run = play(ex, rate_limited_once("retry-fits-exactly", 3, 6))
    assert [t.ok for t in run.tries("lookup")] == [False, True], (
        f"scenario `retry-fits-exactly`: the request took 1 s and the 429 came 1 s later; waiting 3 s and retrying "
        f"(1 s) ends at 6 s, exactly max_seconds: the retry fits. Attempts (ok): {[t.ok for t in run.tries('lookup')]}")
    run = play(ex, rate_limited_once("retry-after-too-long", 10, 6))
    assert len(run.tries("lookup")) == 1 and run.result.sim_seconds <= 6, (
        f"scenario `retry-after-too-long`: Retry-After 10 s with 4 s left: do not wait for a retry that cannot fit "
        f"({len(run.tries('lookup'))} attempts, {run.result.sim_seconds:.1f} s)")
    slow = inline("slow-timeouts", {"lookup": fault("timeout", timeout_seconds=10)}, [("lookup", {"q": "x"})],
                  limits={"max_steps": 4, "max_seconds": 25})
    tries = play(ex, slow).tries("lookup")
    assert len(tries) == 2, (f"scenario `slow-timeouts`: {len(tries)} attempts; a 10-s timeout, a short wait and a "
                             "second 10-s attempt fit in 25 s, a third does not")


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
