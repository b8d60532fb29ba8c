"""Exercise 6: trace-based diagnosis. Run against solutions/ by default; `--target exercises` for yours.

The traces are made here, with the kit's own loops: the naive loop (lesson 1) lets each pattern run its
course, the guarded loop (lessons 2-5) is the fix.
"""
from __future__ import annotations

import pytest

from conftest import load_exercise
from reference.diagnosis.fleet import fleet_metrics
from reference.harness.episode import Episode
from reference.harness.trace import Trace
from reference.core.errors import ProviderError
from reference.runs.registry import run_loop
from reference.runs.runner import evaluate
from reference.sim.scenario.loading import catalogue, find, parse_scenario

SCENARIOS = catalogue()
SHAPES = ("error_storm", "cycle", "repeat", "healthy")  # what the exercise's classifier tells apart


def ex(target):
    return load_exercise(target, "ex06_trace_diagnosis")


def traced(name: str, loop: str = "react", seed=None, path=None):
    episode = Episode.from_scenario(find(name), seed=seed, trace=Trace(path))
    try:
        result = run_loop(loop, episode)
    except ProviderError:  # the naive loop crashes on a provider failure: its trace up to there is the run
        result = None
    episode.trace.close()
    return episode.trace, result


def failures(case: dict, loop: str) -> list[str]:
    scenario = parse_scenario(case, "case.yaml")
    return [c.detail for c in evaluate(scenario, run_loop(loop, Episode.from_scenario(scenario))) if not c.ok]


# ---------------------------------------------------------------- 1. shape

def test_each_catalogue_run_has_its_labelled_shape(target):
    m = ex(target)
    wrong = []
    for s in SCENARIOS:
        if s.shape in SHAPES:
            trace, _ = traced(s.name)
            got = m.shape(trace)
            if got != s.shape:
                wrong.append(f"{s.name}: {got!r}, labelled {s.shape!r}")
    assert not wrong, "the naive run of these scenarios has another shape than its label:\n  " + "\n  ".join(wrong)


def test_a_cycle_is_read_across_other_tools_calls(target):
    trace, _ = traced("metric-trend")
    got = ex(target).shape(trace)
    assert got == "cycle", (
        f"scenario `metric-trend`: got {got!r}. Its run goes record, trend 30d, trend 14d, card, trend 14d, card...: "
        "no call is repeated back to back, yet the run goes round, A-B-A-B. Compare each call with every "
        "earlier call of the run, not only the one before it, and look at what came in between")


def test_one_stale_recheck_of_a_volatile_tool_is_not_a_repeat(target):
    trace, _ = traced("polling-legit")
    got = ex(target).shape(trace)
    assert got == "healthy", (f"scenario `polling-legit`: got {got!r}. The job's status is `volatile`: asking again "
                              "once with the same answer is how a wait looks; the second stale re-check is a repeat")


def test_errors_that_pile_up_are_a_storm_and_one_error_is_not(target):
    m = ex(target)
    storm, _ = traced("tool-down")
    one, _ = traced("rate-limited")
    assert m.shape(storm) == "error_storm", f"scenario `tool-down`: every call fails, got {m.shape(storm)!r}"
    assert m.shape(one) == "healthy", (f"scenario `rate-limited`: one 429, then the flights; got {m.shape(one)!r}: "
                                       "one error is not a storm (at least two, and at least half the results)")


def test_reads_a_trace_file_as_well_as_a_trace(target, tmp_path):
    path = tmp_path / "run.jsonl"
    traced("repeat-exact", path=path)
    assert ex(target).shape(str(path)) == "repeat", "shape() takes a JSONL path too: read it with `load`"


# ---------------------------------------------------------------- 2. fleet

def test_fleet_metrics_over_the_catalogue(target):
    traces = [traced(s.name)[0] for s in SCENARIOS]
    got, ref = ex(target).fleet(traces), fleet_metrics(traces)
    assert got["runs"] == len(SCENARIOS) and got["stop_reasons"] == ref["stop_reasons"], got["stop_reasons"]
    assert got["max_steps_rate"] == pytest.approx(ref["max_steps_rate"])
    assert got["p99_steps"] == ref["p99_steps"], (
        f"p99_steps {got['p99_steps']}, expected {ref['p99_steps']}: the nearest-rank 99th percentile of the "
        "model requests per run (a value that occurred: the 40-step incident's 50), not a mean")
    assert got["duplicate_call_rate"] == pytest.approx(ref["duplicate_call_rate"])


def test_retries_in_code_are_not_duplicate_calls(target):
    trace, result = traced("rate-limited", "guarded")
    attempts = [r for r in trace.records if r["kind"] == "tool"]
    assert result.tool_calls == 1 and len(attempts) == 2  # the scenario: one call, retried once in code
    got = ex(target).fleet([trace])["duplicate_call_rate"]
    assert got == 0, (f"duplicate_call_rate {got}: the guarded loop retried the 429 in code, so the trace has two "
                      "attempts of one call. Retries are attempts (`tool` records); a duplicate is a call the "
                      "model asked for again (`step` records' tool_calls)")


def test_the_same_call_in_another_run_is_not_a_duplicate(target):
    m = ex(target)
    runs = [traced("fleet-lookup", seed=1)[0], traced("fleet-lookup", seed=1)[0]]
    assert m.fleet(runs)["duplicate_call_rate"] == 0, "two runs making the same call: each run counts its own"
    repeat, _ = traced("repeat-exact")
    assert m.fleet([repeat])["duplicate_call_rate"] == pytest.approx(7 / 8), "repeat-exact: 8 calls, 7 repeats"


# ---------------------------------------------------------------- 3. regression case

@pytest.mark.parametrize("name", ["metric-trend", "repeat-exact", "tool-down", "token-blowup"])
def test_the_case_fails_on_the_naive_loop_and_passes_on_the_guarded_one(target, name):
    trace, _ = traced(name)
    case = ex(target).regression_case(trace)
    naive, guarded = failures(case, "react"), failures(case, "guarded")
    assert naive, (f"scenario `{name}`: the naive loop passes the case, so it tests nothing: the expectation "
                   "must describe the fix (not max_steps, fewer model calls), not the recorded run")
    assert not guarded, f"scenario `{name}`: the guarded loop fails the case: {guarded}"


def test_the_case_keeps_the_tool_call_ids(target):
    trace, _ = traced("metric-trend")
    case = ex(target).regression_case(trace)
    ids = [c.get("id") for s in case["model"]["script"] for c in s.get("calls", [])]
    recorded = [c["id"] for r in trace.records if r["kind"] == "step" for c in r["tool_calls"]]
    assert ids == recorded, ("the case's script lost the recorded tool-call ids: a replay must pair each result "
                             "with the call that asked for it, as in the trace")


def test_a_run_that_ended_well_is_pinned_as_it_was(target):
    trace, _ = traced("happy-path")
    case = ex(target).regression_case(trace)
    assert case["expect"]["stop_reason"] == "completed" and case["expect"]["completable"]
    assert not failures(case, "react") and not failures(case, "guarded")
