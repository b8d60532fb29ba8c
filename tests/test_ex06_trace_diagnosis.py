"""Exercise 6: trace-based diagnosis. Run against solutions/ by default; `--target exercises` for yours.

The traces are made here, with the kit's own loops: the naive loop (lesson 1) lets each pattern run its
course, the guarded loop (lessons 2-5) is the fix.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from reference.core.errors import ProtocolError, ProviderError
from reference.core.messages import ToolCall, ToolMessage
from reference.core.result import StopReason
from reference.diagnosis.fleet import fleet_metrics
from reference.harness.episode import Episode
from reference.harness.trace import Trace
from reference.runs.registry import run_loop
from reference.runs.runner import evaluate
from reference.sim.scenario.loading import catalogue, find, parse_scenario
from tests.helpers.targets import load_exercise

SCENARIOS = catalogue()
SHAPES = ("error_storm", "cycle", "repeat", "healthy")  # what the exercise's classifier tells apart


def ex(target):
    return load_exercise(target, "ex06_trace_diagnosis")


def traced(name, loop: str = "react", seed=None, path=None):
    """The trace of a run: `name` a catalogue scenario or a Scenario, `loop` a loop name or a loop function."""
    episode = Episode.from_scenario(find(name) if isinstance(name, str) else name, seed=seed, trace=Trace(path))
    try:
        result = run_loop(loop, episode) if isinstance(loop, str) else loop(episode)
    except (ProviderError, ProtocolError):  # a crash (a provider failure, a request the API refuses): the
        result = None                       # trace up to there is the run
    episode.trace.close()
    return episode.trace, result


def made_up(name: str, tools: list[dict], turns: list[dict]):
    """A scenario written for one test: its tools, and the model's turns, then an answer."""
    return parse_scenario({"name": name, "title": name, "user": "Please look into it.", "tools": tools,
                           "limits": {"max_steps": len(turns) + 1},
                           "model": {"script": turns + [{"answer": "Here is what I found."}]},
                           "expect": {"completable": True, "stop_reason": "completed"}}, f"{name}.yaml")


def tool(name: str, results: list[dict], volatile: bool | None = None) -> dict:
    """A tool taking an `item`, answering `results` one call after the other (the last one from then on)."""
    return {"name": name, "description": f"The {name} service.", "volatile": volatile,
            "parameters": {"type": "object", "properties": {"item": {"type": "string"}}},
            "rules": [{"results": results}]}


OK, FAIL = {"data": {"found": True}}, {"fault": "server_error"}


def lookups(*outcomes: dict, parallel_last: bool = False):
    """One lookup per turn, the i-th of item-i, answered by outcomes[i] (with parallel_last, the last two in one turn)."""
    calls = [{"tool": "lookup", "args": {"item": f"item-{i}"}} for i in range(len(outcomes))]
    turns = [{"call": c} for c in calls]
    if parallel_last:
        turns = turns[:-2] + [{"calls": calls[-2:]}]
    lookup = tool("lookup", [])
    lookup["rules"] = [{"when": {"item": f"item-{i}"}, "result": dict(o)} for i, o in enumerate(outcomes)]
    return made_up("lookups", [lookup], turns)


def polls(*answers: dict):
    """A volatile job status asked once per turn with the same arguments, answering `answers` in order."""
    return made_up("polls", [tool("get_job_status", [{"data": a} for a in answers], volatile=True)],
                   [{"call": {"tool": "get_job_status", "args": {"item": "exp-42"}}} for _ in answers])


def own_loop(answer: Callable[[Episode, Any], list[ToolMessage]]):
    """Lesson 1's loop, with `answer(episode, turn)` giving the tool messages of a turn (another loop's way)."""
    def loop(episode: Episode, max_steps: int = 8):
        messages = episode.initial_messages()
        for _ in range(max_steps):
            turn = episode.model.complete(messages, episode.tools.specs)
            messages.append(turn.message)
            if not turn.tool_calls:
                return episode.finish(StopReason.COMPLETED, messages, answer=turn.text)
            messages += answer(episode, turn)
        return episode.finish(StopReason.MAX_STEPS, messages)
    return loop


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


def test_an_error_storm_needs_two_errors_and_half_the_results(target):
    m = ex(target)
    for outcomes, expected, story in (
            ((OK, OK, OK, FAIL, FAIL), "healthy", "2 errors in 5 results: fewer than half"),
            ((OK, FAIL, OK, FAIL), "error_storm", "2 errors in 4 results: exactly half is a storm"),
            ((OK, OK, OK, FAIL, FAIL, FAIL), "error_storm", "3 errors in 6 results: the third error makes it half")):
        trace, _ = traced(lookups(*outcomes))
        got = m.shape(trace)
        assert got == expected, (f"lookups answered {['error' if o is FAIL else 'ok' for o in outcomes]}: got {got!r}, "
                                 f"expected {expected!r} ({story}). A storm is at least two errors *and* at least "
                                 "half of the results so far, checked after every call")


def test_a_call_never_answered_is_not_a_result(target):
    m = ex(target)
    last_only = own_loop(lambda episode, turn: [episode.tools.execute(turn.tool_calls[-1])])  # a broken loop
    storm, _ = traced(lookups(OK, OK, FAIL, OK, FAIL, parallel_last=True), last_only)
    calm, _ = traced(lookups(OK, OK, FAIL, OK, OK, parallel_last=True), last_only)
    assert m.shape(storm) == "error_storm", (
        f"got {m.shape(storm)!r}: the loop ran only the last of two parallel calls, so the first has status '-' "
        "(never answered). 2 errors in 4 results is a storm; an unanswered call is not a result")
    assert m.shape(calm) == "healthy", (
        f"got {m.shape(calm)!r}: 1 error in 4 results, and one call never answered. A call with status '-' has no "
        "result, so it is not an error either")


def test_errors_in_a_frameworks_own_words_count_in_a_trace_file(target, tmp_path):
    def plain_text(episode, turn):  # a framework's tool node: its own error text, not the kit's JSON body
        results = [episode.tools.execute(c) for c in turn.tool_calls]
        return [ToolMessage(r.call_id, "Error: the rate service is unavailable.", is_error=True) if r.is_error else r
                for r in results]
    path = tmp_path / "run.jsonl"
    traced("tool-down", own_loop(plain_text), path=path)
    got = ex(target).shape(str(path))
    assert got == "error_storm", (f"scenario `tool-down` through a loop whose error results are plain text, read from "
                                  f"its trace file: got {got!r}. Every call failed: a result with status 'error' is "
                                  "an error, whatever its text says")


def test_one_stale_recheck_of_a_volatile_tool_is_fair_whatever_came_before(target):
    m = ex(target)
    for answers in ([{"status": "running", "progress": 0.4}, {"status": "running", "progress": 0.4}, {"status": "done"}],
                    [{"status": "running", "progress": 0.4}, {"status": "running", "progress": 0.8},
                     {"status": "running", "progress": 0.8}, {"status": "done"}],
                    [{"status": "running", "eta_seconds": 60}, {"status": "running", "eta_seconds": 30},
                     {"status": "running", "eta_seconds": 30}, {"status": "done"}]):
        trace, _ = traced(polls(*answers))
        got = m.shape(trace)
        assert got == "healthy", (f"a volatile job status answered {answers}: got {got!r}. It came back unchanged "
                                  "once: one stale re-check of a volatile tool is how a wait looks, not a repeat; "
                                  "compare a result with the earlier *equal* results of that call")


def test_the_second_stale_recheck_of_a_volatile_tool_is_a_repeat(target):
    m = ex(target)
    for answers, story in (
            ([{"status": "running", "progress": 0.4}] * 3 + [{"status": "done"}], "the same answer three times"),
            ([{"events": ["paid"]}, {"events": ["packed"]}, {"events": ["shipped"]}, {"events": []}, {"events": []}],
             "three new answers, then nothing twice")):
        trace, _ = traced(polls(*answers))
        got = m.shape(trace)
        assert got == "repeat", (f"a volatile tool asked again and again, {story}: got {got!r}. Once with nothing "
                                 "new is fair; the second stale re-check is a repeat")


def test_a_result_is_new_unless_its_own_tool_gave_it_before(target):
    status = [{"data": {"status": s}} for s in ("paid", "shipped", "in transit")]
    scenario = made_up("parcel", [tool("get_order", status), tool("check_carrier", [status[1]]),
                                  tool("track_parcel", [status[2]])],
                       [{"call": {"tool": name, "args": {"item": "A1234"}}}
                        for name in ("get_order", "check_carrier", "track_parcel", "get_order", "get_order")])
    trace, _ = traced(scenario)
    got = ex(target).shape(trace)
    assert got == "healthy", (
        f"get_order said paid, then shipped, then in transit, with check_carrier (shipped) and track_parcel (in "
        f"transit) in between: got {got!r}. Each get_order result was new *for get_order*: nothing new means "
        "empty, or equal to an earlier result of the same tool (not another tool's, not a smaller one)")


def test_a_repeat_is_judged_from_the_last_call_with_that_fingerprint(target):
    prices = [{"data": {"flights": [{"flight": "MU5138", "price_cny": p}]}} for p in (1240, 1180)]
    scenario = made_up("prices", [tool("search_flights", prices), tool("get_weather", [{"data": {"sky": "clear"}}])],
                       [{"call": {"tool": name, "args": {"item": "PEK-SHA"}}}
                        for name in ("search_flights", "get_weather", "search_flights", "search_flights")])
    trace, _ = traced(scenario)
    got = ex(target).shape(trace)
    assert got == "repeat", (
        f"search, weather, search (new prices), search again at once (the same prices): got {got!r}. Between the "
        "last call and the one before it with that fingerprint no other tool ran: a repeat, not a cycle. Look "
        "after the *last* earlier call with that fingerprint")


def test_on_one_step_an_error_storm_outranks_a_repeat_whatever_the_call_order(target):
    lookup = tool("lookup", [])
    lookup["rules"] = [{"when": {"item": "a"}, "result": OK}, {"when": {"item": "b"}, "result": FAIL},
                       {"when": {"item": "c"}, "result": FAIL}]
    turns = [{"call": {"tool": "lookup", "args": {"item": "a"}}}, {"call": {"tool": "lookup", "args": {"item": "b"}}},
             {"calls": [{"tool": "lookup", "args": {"item": "a"}}, {"tool": "lookup", "args": {"item": "c"}}]}]
    trace, _ = traced(made_up("tie", [lookup], turns))
    got = ex(target).shape(trace)
    assert got == "error_storm", (
        f"lookups a (ok), b (error), then a and c in one turn (a: the same answer again, c: an error): got {got!r}. "
        "On step 3 the repeated lookup of a shows a repeat and, one call later, 2 errors in 4 results show a "
        "storm: the same step, so the tie order decides (error_storm, then cycle, then repeat), not which call "
        "of the step came first")


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


def test_fleet_reads_trace_files_as_well_as_traces(target, tmp_path):
    m = ex(target)
    names = ("repeat-exact", "happy-path", "tool-down", "incident-40-step")
    traces = [traced(name, path=tmp_path / f"{name}.jsonl")[0] for name in names]
    from_files = m.fleet([str(tmp_path / f"{name}.jsonl") for name in names])
    assert from_files == m.fleet(traces), (
        f"fleet() over the JSONL files gave {from_files}, over the same runs' traces {m.fleet(traces)}: "
        "fleet takes paths too; read each with `load`")
    assert from_files["stop_reasons"] == {"max_steps": 3, "completed": 1}, from_files["stop_reasons"]


def test_a_fleet_that_called_no_tool_has_no_duplicates(target):
    runs = [traced(made_up("just-answers", [tool("lookup", [OK])], []))[0] for _ in range(2)]
    got = ex(target).fleet(runs)["duplicate_call_rate"]
    assert got == 0, f"duplicate_call_rate {got!r} for runs that called no tool: no call, so no duplicate call (0)"


# ---------------------------------------------------------------- 3. regression case

@pytest.mark.parametrize("name", ["metric-trend", "repeat-exact", "tool-down", "token-blowup"])
def test_the_case_fails_on_the_naive_loop_and_passes_on_the_guarded_one(target, name):
    trace, _ = traced(name)
    case = ex(target).regression_case(trace)
    naive, guarded = failures(case, "react"), failures(case, "guarded")
    assert naive, (f"scenario `{name}`: the naive loop passes the case, so it tests nothing: the expectation "
                   "must describe the fix (not max_steps, fewer model calls), not the recorded run")
    assert not guarded, f"scenario `{name}`: the guarded loop fails the case: {guarded}"


def test_the_case_names_the_kind_of_stop_the_tools_to_call_and_the_calls_not_to_resend(target):
    loop_case = ex(target).regression_case(traced("metric-trend")[0])["expect"]
    storm_case = ex(target).regression_case(traced("tool-down")[0])["expect"]
    room_case = ex(target).regression_case(traced("token-blowup")[0])["expect"]
    kinds = {name: sorted({StopReason(r).kind for r in case.get("stop_reason", [])})
             for name, case in (("cycle", loop_case), ("error storm", storm_case), ("healthy", room_case))}
    assert kinds == {"cycle": ["guard", "no_progress"], "error storm": ["guard", "no_progress", "resource"],
                     "healthy": ["resource"]}, (
        f"the stop reasons' kinds by shape are {kinds}: a loop is stopped by a guard or for want of progress, an "
        "error storm also by a budget, a run with no loop in it by a budget; any stop but the limit is the fuse")
    assert loop_case.get("must_call") == ["get_metric_trend", "record_metric", "render_trend_card"], (
        f"must_call {loop_case.get('must_call')}: the tools that gave an ok result in `metric-trend`")
    assert storm_case.get("must_not_repeat") == ["get_exchange_rate"] and loop_case.get("must_not_repeat") == [], (
        "must_not_repeat lists the tools whose failed call was sent again unchanged: get_exchange_rate in "
        f"`tool-down`, none in `metric-trend` (every call there succeeded); got {storm_case.get('must_not_repeat')}, "
        f"{loop_case.get('must_not_repeat')}")


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


def test_the_case_asks_for_fewer_model_calls_than_the_run_made(target):
    trace, result = traced("metric-trend")
    bound = parse_scenario(ex(target).regression_case(trace), "case.yaml").expect.model_calls
    made = result.model_calls
    allowed = bound is None or ((bound.min is None or made >= bound.min) and (bound.max is None or made <= bound.max))
    assert not allowed, (f"scenario `metric-trend` hit the step limit after {made} model calls, and the case "
                         f"allows {made} ({bound}): a fix that stops for a good reason only at the same step has "
                         "not fixed anything. Ask for fewer model calls than the recorded run")


def test_a_run_the_guarded_loop_stopped_is_pinned_as_it_was(target):
    trace, result = traced("repeat-exact", "guarded")
    case = ex(target).regression_case(trace)
    assert case["expect"]["stop_reason"] == result.stop_reason.value == "repeated_call", case["expect"]
    assert not failures(case, "guarded"), (
        "the guarded loop stopped `repeat-exact` for repeated_call, not at the step limit: keep the recorded "
        f"expectation, which its replay passes; got {case['expect']}")


def test_the_case_is_made_from_a_trace_file_as_well(target, tmp_path):
    path = tmp_path / "run.jsonl"
    traced("repeat-exact", path=path)
    case = ex(target).regression_case(str(path))
    assert failures(case, "react"), ("the case made from the trace file of `repeat-exact` (the step limit) passes on "
                                     "the naive loop: regression_case takes a JSONL path too, and the stop reason "
                                     "read from it is the same `max_steps`")
    assert not failures(case, "guarded"), f"the guarded loop fails the case: {failures(case, 'guarded')}"
