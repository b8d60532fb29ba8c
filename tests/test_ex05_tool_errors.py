"""Exercise 5 (core): tool errors. Run against solutions/ by default; `--target exercises` for yours.

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

from reference import StopReason, ToolMessage, ToolOutcome, ToolTimeout, find, parse_scenario
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.sandbox.grading import run_candidate
from tests.helpers.targets import load_exercise
from tests.helpers.tool_errors import NEEDLES, SECRET, fault, inline, one_call_per_turn, play


@pytest.fixture
def ex(target):
    return load_exercise(target, "ex05_tool_errors")


def with_status(ex, status: int, tool: str = "validate_address"):
    """A loop whose `tool` always answers HTTP `status`, marked retryable by its wrapper (so only the status can
    decide)."""
    def ex05_loop(episode, max_steps=8):
        episode.tools.tools[tool] = lambda args: ToolOutcome(
            False, error_type="unavailable", retryable=True, http_status=status, message="The service said no.")
        return guarded_loop(episode, max_steps, Parts(executor=ex.make_executor(episode)))
    return ex05_loop


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


def test_one_attempt_means_no_retry(ex):
    def ex05_loop(episode, max_steps=8):
        return guarded_loop(episode, max_steps, Parts(executor=ex.ToolErrorExecutor(episode, max_attempts=1)))

    attempt = run_candidate(ex05_loop, "flaky-timeout")
    if attempt.error is not None:
        pytest.fail(attempt.story(), pytrace=False)
    assert len(attempt.result.steps[0].tools) == 1, (
        f"scenario `flaky-timeout` with max_attempts=1: get_weather ran {len(attempt.result.steps[0].tools)} times "
        "for the first call; one attempt means no retry")


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


def test_two_runs_in_one_process_share_nothing(ex, target):
    def outline(run):
        return (run.result.stop_reason, run.result.model_calls, [t.name for s in run.result.steps for t in s.tools],
                [e.get("error_type") for e in run.shown_errors()])
    names = ("flaky-timeout", "rate-limited", "flaky-timeout", "exception-secret")
    # in this process, as a service runs its loop: a fork per run would start each from a fresh module
    first = [outline(play(ex, name, sandbox="in-process")) for name in names]
    fresh = load_exercise(target, "ex05_tool_errors")
    again = {name: outline(play(fresh, name, sandbox="in-process")) for name in names}
    assert first == [again[name] for name in names], (
        "flaky-timeout, rate-limited, flaky-timeout, exception-secret in one process differ from fresh runs: a retry "
        "counted or a wait drawn in one run must not carry into the next")



def test_a_failure_that_outlasts_its_retries_is_tried_max_attempts_times_then_shown_as_final(ex):
    scenario = inline("always-times-out", {"lookup": fault("timeout", timeout_seconds=1)}, [("lookup", {"q": "x"})])
    for attempts in (2, 4):
        def ex05_loop(episode, max_steps=8, attempts=attempts):
            return guarded_loop(episode, max_steps, Parts(executor=ex.ToolErrorExecutor(episode, max_attempts=attempts)))

        attempt = run_candidate(ex05_loop, scenario)
        if attempt.error is not None:
            pytest.fail(attempt.story(), pytrace=False)
        tries = attempt.result.steps[0].tools
        assert len(tries) == attempts, (
            f"inline scenario `always-times-out` with max_attempts={attempts}: lookup ran {len(tries)} time(s) for one "
            "call; a timeout is retried, at most max_attempts attempts in all")
        shown = [json.loads(m.content) for m in attempt.result.messages if isinstance(m, ToolMessage)]
        assert shown and shown[0].get("error_type") == "timeout", (
            f"inline scenario `always-times-out`: after {attempts} attempts the model read {shown[:1]}; its kind is "
            "the last failure's, a timeout")
        assert shown[0].get("ok") is False and shown[0].get("retryable") is False, (
            f"inline scenario `always-times-out`: after {attempts} attempts the model read {shown[:1]}; the retries are "
            "spent in code, so what the model reads says the call is not to be retried (retryable: false)")
        retries = re.findall(r"\d+", shown[0].get("message", ""))
        assert str(attempts - 1) in retries, (
            f"inline scenario `always-times-out` with max_attempts={attempts}: the message {shown[0].get('message')!r} "
            f"should say how many times the call was retried ({attempts - 1}): the model is not to try again")


def test_the_error_names_the_tools_that_can_do_the_job_instead(ex):
    run = play(ex, "exception-secret")
    shown = [json.loads(m.content) for m in run.result.messages if isinstance(m, ToolMessage) and m.is_error]
    assert shown and all(body.get("alternatives") == ["get_order_status"] for body in shown), (
        f"scenario `exception-secret`: query_orders fails and its definition names get_order_status as an alternative; "
        f"the model read {shown[:1]}: what to do next includes the tool that can do the job instead (`alternatives`)")
