"""Exercise 4: degraded outputs. Run against solutions/ by default; `--target exercises` for yours.

The learner's `degrade` is plugged into the guarded loop. To make the budget and loop stops happen
before lessons 2 and 3 are wired in, tests/helpers/degraded.py carries two small stand-ins (`TinyBudget`,
`TinyGuard`): just enough to stop each scenario for its own reason.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

import pytest

from reference import Episode, ToolMessage, find, parse_scenario
from reference.parts.degrade import Degraded
from reference.parts.degrade.grounding import ungrounded
from reference.loops.guarded import guarded_loop
from reference.loops import hooks
from reference.loops.hooks import Parts, Stop
from reference.core.result import RunResult, StopReason
from reference.sim.scenario.schema import Scenario
from tests.helpers.degraded import FAILURES, HALLUCINATING, MUSING, TinyBudget, TinyGuard
from tests.helpers.targets import load_exercise

# ---------------------------------------------------------------- scenarios and runs

# scenario -> (the parts that stop it, the stop reason expected)
STOPS = {
    "token-blowup": ("budget", StopReason.TOKEN_BUDGET),
    "cost-blowup": ("budget", StopReason.COST_BUDGET),
    "slow-tools": ("budget", StopReason.TIME_BUDGET),
    "repeat-exact": ("guard", StopReason.REPEATED_CALL),
    "alternation": ("guard", StopReason.ALTERNATION),
    "empty-rephrase": ("guard", StopReason.NO_PROGRESS),
    "incident-40-step": ("guard", StopReason.REPEATED_CALL),
}
NAIVE = [n for n in STOPS if n != "slow-tools"]  # only the step limit (slow-tools would answer, late)


@pytest.fixture
def degrade(target):
    return load_exercise(target, "ex04_degraded_output").degrade


@dataclass
class Run:
    name: str
    episode: Episode
    result: RunResult
    degraded: Degraded


RUNS: dict[tuple, Run] = {}  # runs are deterministic: each (degrade, scenario, parts) is run once per session


def run(degrade, scenario: Scenario | str, parts: str = "", max_steps: Optional[int] = None) -> Run:
    """Run the guarded loop with the learner's degrade; a crash becomes a readable failure."""
    scenario = find(scenario) if isinstance(scenario, str) else scenario
    code = getattr(degrade, "__code__", None)  # the fixture loads the target afresh for each test
    module = getattr(degrade, "__globals__", {}).get("__file__")  # a red flag may run the solution's own code
    who = (code.co_filename, code.co_firstlineno, module) if code else id(degrade)
    key = (who, scenario.name, scenario.limits, scenario.model.answer_without_tools, parts, max_steps)
    if key not in RUNS:
        RUNS[key] = _run(degrade, scenario, parts, max_steps)
    return RUNS[key]


def _run(degrade, scenario: Scenario, parts: str, max_steps: Optional[int]) -> Run:
    episode = Episode.from_scenario(scenario)
    steps = max_steps or scenario.limits.max_steps
    chosen = Parts(degrade=degrade, budget=TinyBudget() if "budget" in parts else None,
                   guard=TinyGuard() if "guard" in parts else None)
    try:
        result = guarded_loop(episode, steps, chosen)
    except Exception as exc:
        pytest.fail(f"scenario `{scenario.name}`: your degrade raised {type(exc).__name__}: {exc}", pytrace=False)
    where = f"scenario `{scenario.name}` (stopped: {result.stop_reason.value})"
    assert result.stop_reason is not StopReason.COMPLETED, f"{where}: the run was expected to stop, not complete"
    if not isinstance(result.degraded, Degraded):
        pytest.fail(f"{where}: degrade returned {type(result.degraded).__name__} ({result.degraded!r:.80}), "
                    "not a Degraded", pytrace=False)
    return Run(scenario.name, episode, result, result.degraded)


def stopped(degrade, name: str) -> Run:
    parts, reason = STOPS[name]
    r = run(degrade, name, parts)
    assert r.result.stop_reason is reason, \
        (f"scenario `{name}`: the test's {parts} stub should stop it for {reason.value}, "
         f"got {r.result.stop_reason.value}")
    return r


def all_runs(degrade) -> list[Run]:
    return [stopped(degrade, n) for n in STOPS] + [run(degrade, n) for n in NAIVE] + [run(degrade, FAILURES)]


# what the tests expect, computed here from the ledger, independently of the code under test

def _empty(data: Any) -> bool:
    if data in (None, "", [], {}):
        return True
    return isinstance(data, dict) and all(v in (None, "", [], {}) for v in data.values())


def facts(episode: Episode) -> dict[str, tuple[str, dict, Any]]:
    out = {}
    for step in episode.ledger.steps:
        for t in step.tools:
            if not t.ok or t.outcome is None:
                continue
            data = t.outcome.get("data")
            if (isinstance(data, dict) and data.get("success") is False) or _empty(data):
                continue
            out.setdefault(key(t.name, t.arguments, data), (t.name, t.arguments, data))
    return out


def key(tool: str, arguments: Any, data: Any) -> str:
    return json.dumps([tool, arguments, data], sort_keys=True, ensure_ascii=False, default=str)


def items(r: Run) -> dict[str, Any]:
    return {key(o.tool, o.arguments, o.data): o for o in r.degraded.obtained}


def expected_unfinished(r: Run) -> list[str]:
    got = facts(r.episode).values()
    out = []
    for item in r.episode.scenario.checklist:
        when = item.when or {}
        done = item.tool is not None and any(
            tool == item.tool and all(args.get(k, object()) == v for k, v in when.items()) for tool, args, _ in got)
        if not done:
            out.append(item.item)
    return out


def leaf(data: Any) -> Any:
    """The first plain value inside a result (a string or a number), to look for in the answer."""
    if isinstance(data, dict):
        data = list(data.values())
    if isinstance(data, list):
        return next((leaf(v) for v in data if leaf(v) != ""), "")
    return data


def actions(r: Run) -> list[str]:
    return [s.action for s in r.degraded.next_steps]


# ---------------------------------------------------------------- the tests


def test_every_stop_returns_a_degraded_result_with_its_reason(degrade):
    for r in all_runs(degrade):
        d = r.degraded
        assert StopReason(d.stop_reason) is r.result.stop_reason, \
            (f"scenario `{r.name}`: the run stopped for {r.result.stop_reason.value}, "
             f"the degraded result says {d.stop_reason}")
        assert d.detail, \
            f"scenario `{r.name}`: the degraded result has no detail (pass on the trip's one-line explanation)"
        json.dumps(d.to_dict(), default=str)


def test_obtained_items_are_exactly_the_successful_tool_results(degrade):
    for r in all_runs(degrade):
        want, got = facts(r.episode), items(r)
        missing = [f"{t}({json.dumps(a)})" for k, (t, a, _) in want.items() if k not in got]
        extra = [f"{o.tool}({json.dumps(o.arguments)}) -> {json.dumps(o.data, default=str)[:80]}"
                 for k, o in got.items() if k not in want]
        assert not missing, (f"scenario `{r.name}`: successful tool results missing from `obtained`: {missing} "
                             "(read them from episode.ledger: every step's `tools` records)")
        assert not extra, (f"scenario `{r.name}`: these obtained items are not a successful tool result with that "
                           f"tool, those arguments and that data: {extra}")


def test_failed_calls_are_not_obtained(degrade):
    r = run(degrade, FAILURES)
    wrong = [f"{o.tool}: {json.dumps(o.data, default=str)[:100]}" for o in r.degraded.obtained if o.tool != "get_order"]
    assert not wrong, ("scenario `refund-mixed-results`: issue_refund answered HTTP 200 with \"success\": false, "
                       "get_invoice answered not_found and get_shipment timed out; each of these is not a successful "
                       f"result, yet `obtained` lists: {wrong}")
    assert [o.tool for o in r.degraded.obtained] == ["get_order"], \
        f"scenario `refund-mixed-results`: only get_order succeeded; obtained = {[o.tool for o in r.degraded.obtained]}"
    r = stopped(degrade, "repeat-exact")  # the 2nd call was answered by an intervention, the 3rd never ran
    interventions = [o for o in r.degraded.obtained if not isinstance(o.data, dict) or "status" not in o.data]
    assert not interventions, ("scenario `repeat-exact`: an intervention or a \"not run\" answer is not a successful "
                               f"result, yet `obtained` lists: {[json.dumps(o.data)[:100] for o in interventions]}")


def test_identical_results_are_one_obtained_item(degrade):
    r = run(degrade, "repeat-exact")  # 8 identical calls, 8 identical results
    assert len(r.degraded.obtained) == 1, \
        (f"scenario `repeat-exact`: the same call returned the same data 8 times; that is one fact, "
         f"got {len(r.degraded.obtained)} obtained items")
    assert r.degraded.obtained[0].data["status"] == "in transit", \
        f"scenario `repeat-exact`: the obtained data should be the tool's data, got {r.degraded.obtained[0].data!r}"


def test_empty_results_are_not_facts(degrade):
    for r in (stopped(degrade, "empty-rephrase"), run(degrade, "empty-rephrase")):
        assert not r.degraded.obtained, \
            (f"scenario `empty-rephrase`: every search returned {{\"results\": []}}: nothing was found, "
             f"yet `obtained` lists {len(r.degraded.obtained)} item(s)")
        assert r.degraded.unfinished[:1] == ["find the SAML setup guide for on-premise"], \
            f"scenario `empty-rephrase`: an empty search does not find the guide; unfinished = {r.degraded.unfinished}"


def test_unfinished_items_match_the_checklist(degrade):
    for r in all_runs(degrade):
        want = expected_unfinished(r)
        assert list(r.degraded.unfinished) == want, \
            (f"scenario `{r.name}` ({r.result.stop_reason.value}): unfinished should be {want} (the checklist items no "
             f"successful call covered, and those that need the final answer), got {list(r.degraded.unfinished)}")


def test_checklist_items_with_arguments_need_matching_calls(degrade):
    r = stopped(degrade, "slow-tools")
    assert [o.arguments["region"] for o in r.degraded.obtained] == ["north", "south"], \
        f"scenario `slow-tools`: only the north and south reports ran, got {[o.arguments for o in r.degraded.obtained]}"
    assert r.degraded.unfinished == ["east report", "west report", "central report", "overseas report",
                                     "compare the regions"], \
        (f"scenario `slow-tools`: a report item is done only by a call with its region (`when`); "
         f"unfinished = {r.degraded.unfinished}")


@pytest.mark.parametrize("name", list(STOPS))
def test_next_steps_fit_the_stop_reason(degrade, name):
    r = stopped(degrade, name)
    got, reason = actions(r), r.result.stop_reason
    assert got and all(a in ("narrow", "rephrase", "retry_later", "hand_over") for a in got), \
        (f"scenario `{name}` ({reason.value}): next step actions must be narrow/rephrase/retry_later/hand_over, "
         f"got {got}")
    assert all(s.text.strip() for s in r.degraded.next_steps), f"scenario `{name}`: a next step without text"
    assert "hand_over" in got, \
        f"scenario `{name}` ({reason.value}): handing over to a person is always an option; got {got}"
    first = {StopReason.TOKEN_BUDGET: "narrow", StopReason.COST_BUDGET: "narrow", StopReason.TIME_BUDGET: "narrow",
             StopReason.REPEATED_CALL: "rephrase", StopReason.NO_PROGRESS: "rephrase",
             StopReason.ALTERNATION: "hand_over"}[reason]
    assert got[0] == first, \
        f"scenario `{name}` ({reason.value}): the first next step should be {first!r}, got {got}"
    if reason in (StopReason.TOKEN_BUDGET, StopReason.COST_BUDGET, StopReason.REPEATED_CALL,
                  StopReason.NO_PROGRESS, StopReason.ALTERNATION):
        assert "retry_later" not in got, \
            f"scenario `{name}` ({reason.value}): retrying the same request later would stop the same way; got {got}"


@dataclass
class StopAfterOneStep(hooks.Budget):
    """A stand-in that stops the run before its second request, for any stop reason the test names."""

    reason: StopReason

    def before_request(self, episode: Episode, messages, step: int):
        return Stop(self.reason, f"synthetic {self.reason.value} stop after one step") if step >= 1 else None

    def before_tool(self, episode: Episode, call):
        return None


# every stop reason except completed -> the first next steps that fit it, and why
FIRST_STEP = {
    StopReason.MAX_STEPS: (("narrow",), "the same request would stop at the same place: make it smaller"),
    StopReason.TOKEN_BUDGET: (("narrow",), "less to read is what fits the budget"),
    StopReason.COST_BUDGET: (("narrow",), "less to read is what fits the budget"),
    StopReason.TIME_BUDGET: (("narrow", "retry_later"), "a smaller request, or the slow tools again later"),
    StopReason.REPEATED_CALL: (("rephrase",), "a loop needs other words"),
    StopReason.SAME_RESULT: (("rephrase",), "a loop needs other words"),
    StopReason.NO_PROGRESS: (("rephrase",), "a loop needs other words"),
    StopReason.ALTERNATION: (("hand_over",), "two tools waiting for each other need a person"),
    StopReason.CIRCUIT_OPEN: (("hand_over", "retry_later"), "the tools are failing: a person, or later"),
    StopReason.ERROR: (("hand_over", "retry_later"), "the provider or a tool is failing: a person, or later"),
    StopReason.CANCELLED: (("narrow", "retry_later"), "the user stopped it: a smaller request, or the same one later"),
}
NO_RETRY_LATER = {StopReason.TOKEN_BUDGET, StopReason.COST_BUDGET, StopReason.REPEATED_CALL, StopReason.SAME_RESULT,
                  StopReason.NO_PROGRESS, StopReason.ALTERNATION}


def next_step_problems(degrade, reason: StopReason) -> list[str]:
    """What is wrong with the next steps after a synthetic `reason` stop of refund-mixed-results (empty: nothing)."""
    where = f"stopped for {reason.value}"
    if reason not in FIRST_STEP:
        return [f"{where}: this test has no expectation for the stop reason {reason.value}: add it to FIRST_STEP"]
    episode = Episode.from_scenario(FAILURES)
    try:
        result = guarded_loop(episode, 3, Parts(degrade=degrade, budget=StopAfterOneStep(reason)))
    except Exception as exc:
        return [f"{where}: your degrade raised {type(exc).__name__}: {exc}. Every stop reason the loop can produce "
                "reaches degrade, the rare ones included"]
    if not isinstance(result.degraded, Degraded):
        return [f"{where}: degrade returned {type(result.degraded).__name__}, not a Degraded"]
    got = [s.action for s in result.degraded.next_steps]
    first, why = FIRST_STEP[reason]
    if not got or any(a not in ("narrow", "rephrase", "retry_later", "hand_over") for a in got):
        return [f"{where}: next step actions must be narrow/rephrase/retry_later/hand_over, got {got}"]
    problems = []
    if "hand_over" not in got:
        problems.append(f"{where}: handing over to a person is always an option; got {got}")
    if got[0] not in first:
        problems.append(f"{where}: the first next step should be {' or '.join(map(repr, first))} ({why}); got {got}")
    if reason in NO_RETRY_LATER and "retry_later" in got:
        problems.append(f"{where}: retrying the same request later would stop the same way; got {got}")
    return problems


def test_every_stop_reason_gets_fitting_next_steps(degrade):
    problems = [p for reason in StopReason if reason is not StopReason.COMPLETED
                for p in next_step_problems(degrade, reason)]
    assert not problems, ("scenario `refund-mixed-results`, stopped after one step for each stop reason in turn "
                          "(synthetic trips):\n" + "\n".join(problems))


def test_answer_is_never_just_max_steps_reached(degrade):
    for r in [run(degrade, "incident-40-step"), run(degrade, "repeat-exact"), stopped(degrade, "token-blowup")]:
        answer = r.result.answer or ""
        where = f"scenario `{r.name}` ({r.result.stop_reason.value})"
        assert answer == r.degraded.answer, f"{where}: the loop hands the user degraded.answer; it was not set"
        words = answer.lower().replace("_", " ").strip(" .!")
        assert words not in ("max steps reached", "maximum steps reached", "max steps", "step limit reached", ""), \
            f"{where}: the user would read only {answer!r}: say what was found, what is missing, and what to do next"
        assert len(answer) > 80, f"{where}: the user would read only {answer!r}: that is not a useful result"
        for o in r.degraded.obtained[:1]:
            value = str(leaf(o.data))[:40]
            assert value in answer, \
                f"{where}: the answer does not show what was obtained (e.g. {value!r} from {o.tool}):\n{answer}"
        for item in r.degraded.unfinished:
            assert item in answer, f"{where}: the answer does not say that {item!r} is unfinished:\n{answer}"
        for step in r.degraded.next_steps:
            assert step.text in answer, f"{where}: the answer leaves out the next step {step.text!r}:\n{answer}"


def test_answer_states_no_value_that_no_tool_returned(degrade):
    # MUSING: the model's own text beside its calls guesses a date and a tracking number; text is not a tool result
    for r in (stopped(degrade, "repeat-exact"), run(degrade, HALLUCINATING), run(degrade, FAILURES),
              run(degrade, MUSING)):
        sources = [r.episode.scenario.user, r.result.detail or ""] + [i.item for i in r.episode.scenario.checklist]
        sources += [json.dumps([a, d], ensure_ascii=False) for _, a, d in facts(r.episode).values()]
        sources += [m.content for m in r.result.messages if isinstance(m, ToolMessage)]  # errors may be quoted
        invented = ungrounded(r.result.answer or "", sources)
        assert not invented, (f"scenario `{r.name}`: the answer states {invented}, which no tool result, the request "
                              f"or the stop detail contains: invented.\n{r.result.answer}")


def test_a_stop_before_any_tool_result_is_honest(degrade):
    r = run(degrade, "cost-blowup", "budget", max_steps=1)  # one request, one export, then the step limit
    assert len(r.degraded.obtained) == 1 and r.degraded.obtained[0].arguments == {"month": "2026-10"}, \
        (f"scenario `cost-blowup` with max_steps=1: one export ran; "
         f"obtained = {[o.arguments for o in r.degraded.obtained]}")
    scenario = find("happy-path")
    tight = scenario.model_copy(update={"limits": scenario.limits.model_copy(update={"max_run_tokens": 50})})
    r = run(degrade, tight, "budget")  # the very first request does not fit
    assert r.result.model_calls == 0 and not r.degraded.obtained, \
        f"scenario `happy-path` with 50 tokens: nothing ran, yet obtained = {r.degraded.obtained}"
    assert r.degraded.unfinished == [i.item for i in scenario.checklist], \
        f"scenario `happy-path` with 50 tokens: every checklist item is unfinished; got {r.degraded.unfinished}"


# ---------------------------------------------------------------- kinds of wrong answer found by mutation testing

def first_seen(episode: Episode) -> dict[str, tuple[str, int, int]]:
    """fact key -> (call id of its first call, step of that call, how many calls returned it), from the ledger."""
    out: dict[str, tuple[str, int, int]] = {}
    wanted = facts(episode)
    for step in episode.ledger.steps:
        for t in step.tools:
            k = key(t.name, t.arguments, (t.outcome or {}).get("data"))
            if t.ok and k in wanted:
                call_id, first_step, times = out.get(k, (t.call_id, step.step, 0))
                out[k] = (call_id, first_step, times + 1)
    return out


# One turn calls the same tool four times: Guangzhou (an empty forecast, not a fact), Shanghai twice (the same
# answer; the arguments in another key order), Beijing once; then the step limit.
SAME_TOOL_IN_PARALLEL = parse_scenario({
    "name": "weather-three-calls", "title": "Parallel calls to one tool, two of them identical",
    "user": "Weather in Shanghai, Beijing and Guangzhou tomorrow?",
    "checklist": [{"item": "Shanghai weather", "tool": "get_weather", "when": {"city": "Shanghai"}},
                  {"item": "Beijing weather", "tool": "get_weather", "when": {"city": "Beijing"}},
                  {"item": "Guangzhou weather", "tool": "get_weather", "when": {"city": "Guangzhou"}}],
    "limits": {"max_steps": 1},
    "tools": [{"name": "get_weather",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
               "rules": [{"when": {"city": "Shanghai"}, "result": {"data": {"forecast": "light rain"}}},
                         {"when": {"city": "Beijing"}, "result": {"data": {"forecast": "sunny"}}},
                         {"when": {"city": "Guangzhou"}, "result": {"data": {"forecast": ""}}}]}],
    "model": {"script": [{"calls": [{"tool": "get_weather", "args": {"city": "Guangzhou", "days": 1}},
                                    {"tool": "get_weather", "args": {"city": "Shanghai", "days": 1}},
                                    {"tool": "get_weather", "args": {"city": "Beijing", "days": 1}},
                                    {"tool": "get_weather", "args": {"days": 1, "city": "Shanghai"}}]},
                         {"answer": "Shanghai: light rain. Beijing: sunny."}]},
    "expect": {"completable": False, "stop_reason": "max_steps"},
}, "tests/test_ex04 (weather-three-calls)")


def test_obtained_items_carry_the_first_call_id_its_step_and_the_count(degrade):
    for r in (run(degrade, "repeat-exact"), run(degrade, FAILURES), run(degrade, "slow-tools", "budget"),
              run(degrade, SAME_TOOL_IN_PARALLEL)):
        want = first_seen(r.episode)
        got = {k: (o.call_id, o.step, o.times) for k, o in items(r).items()}
        assert got == want, (f"scenario `{r.name}`: obtained items as (call id, step, times) are {list(got.values())}; "
                             f"the ledger says {list(want.values())}: the call that first returned each fact, the "
                             "model request (1-based) that asked for it, and how many calls returned it")
        assert list(got) == list(want), f"scenario `{r.name}`: obtained items keep the order they first came in"


def test_parallel_calls_to_the_same_tool_are_separate_facts(degrade):
    r = run(degrade, SAME_TOOL_IN_PARALLEL)
    got = [(o.arguments["city"], o.times) for o in r.degraded.obtained]
    assert got == [("Shanghai", 2), ("Beijing", 1)], (
        f"scenario `weather-three-calls`: one turn asked get_weather for Guangzhou (empty), Shanghai, Beijing and "
        f"Shanghai again (its "
        f"arguments in another order: the same arguments); "
        f"obtained (city, times) = {got}")
    assert r.degraded.unfinished == ["Guangzhou weather"], (
        f"scenario `weather-three-calls`: Guangzhou's forecast came back empty; unfinished = {r.degraded.unfinished}")


def test_the_detail_carries_the_trip_detail(degrade):
    for reason in (StopReason.MAX_STEPS, StopReason.NO_PROGRESS, StopReason.CIRCUIT_OPEN):
        episode = Episode.from_scenario(FAILURES)
        result = guarded_loop(episode, 3, Parts(degrade=degrade, budget=StopAfterOneStep(reason)))
        detail = f"synthetic {reason.value} stop after one step"
        assert detail in (result.degraded.detail or ""), (
            f"scenario `refund-mixed-results` stopped for {reason.value}: the degraded detail is "
            f"{result.degraded.detail!r}; it should carry the trip's own explanation {detail!r}")


def test_two_runs_in_one_process_share_nothing(degrade, target):
    def outline(r: Run) -> str:
        return json.dumps(r.degraded.to_dict(), default=str, sort_keys=True)
    first = [outline(_run(degrade, s, "", None)) for s in (FAILURES, find("repeat-exact"), FAILURES)]
    fresh = load_exercise(target, "ex04_degraded_output").degrade
    again = [outline(_run(fresh, s, "", None)) for s in (FAILURES, find("repeat-exact"))]
    assert first[0] == first[2] == again[0] and first[1] == again[1], (
        "scenarios `refund-mixed-results`, `repeat-exact` and `refund-mixed-results` again in one process: the "
        "degraded results differ from fresh runs; one run's facts must not leak into the next")
