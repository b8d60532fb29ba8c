"""reference/parts/budget.py: four meters, checked before spending; per-intent tiers fill only what the user left unset."""
from __future__ import annotations

import re

import pytest

from reference import Episode, StopReason, find, parse_scenario, to_wire
from reference.parts.budget import KINDS, TIERS, RunBudget, policy_for
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.loops.react import react_loop
from reference.runs.runner import completed, evaluate, run
from reference.sim.scenario.loading import catalogue
from reference.sim.tokens import request_tokens

BUDGET_SCENARIOS = ["token-blowup", "cost-blowup", "slow-tools", "incident-40-step"]


def budgeted(name: str, budget=None, max_steps: int | None = None, **options):
    episode = Episode.from_scenario(find(name))
    budget = budget or RunBudget.for_episode(episode, **options)
    return guarded_loop(episode, max_steps or episode.limits.max_steps, Parts(budget=budget)), budget


def test_every_stop_reason_has_exactly_one_kind_of_exit():
    listed = [r for reasons in KINDS.values() for r in reasons]
    assert sorted(listed) == sorted(StopReason), f"KINDS lists {listed}, the enum has {list(StopReason)}"
    assert set(KINDS) >= {"normal", "resource", "guard", "no_progress"}


def test_the_tier_fills_only_the_limits_the_user_left_unset():
    lookup = RunBudget.for_episode(Episode.from_scenario(find("happy-path")))  # no limits written at all
    assert lookup.describe() == RunBudget.from_policy(policy_for("lookup")).describe(), \
        "a max_steps the file does not write is the format's default, not the user's: the tier fills it"
    assert set(lookup.sources.values()) == {"lookup tier"}
    alternation = RunBudget.for_episode(Episode.from_scenario(find("alternation-cooperative")))  # 10 steps, no budget
    assert (alternation.max_steps, alternation.sources["max_steps"]) == (10, "scenario limits")
    assert alternation.max_run_tokens == policy_for("troubleshoot").max_run_tokens, "the budget left unset is the tier's"
    slow = RunBudget.for_episode(Episode.from_scenario(find("slow-tools")))  # 60 s: the user set the budget
    assert (slow.max_seconds, slow.sources["max_seconds"]) == (60, "scenario limits")
    assert slow.max_run_tokens is slow.max_cost_usd is None, "a tier's tokens or dollars would tighten the user's 60 s"


def test_a_tier_never_cuts_a_run_the_user_allowed_more_steps_than_it_was_fitted_on():
    incident = RunBudget.for_episode(Episode.from_scenario(find("incident-40-step")))
    assert incident.describe() == "max_steps 50" and incident.sources == {"max_steps": "scenario limits"}, \
        "the deployment allowed 50 steps: stopping that loop is the guard's job, not a tier's"
    blowup = RunBudget.for_episode(Episode.from_scenario(find("token-blowup")))
    assert blowup.describe() == "max_steps 12, max_run_tokens 60,000", blowup.sources


def long_task(steps: int, limits: dict, intent: str = "troubleshoot"):
    """A legitimate task of `steps` model calls: one lookup per host, each with its own answer, then the answer."""
    return parse_scenario({
        "name": "long-task", "title": "a long legitimate task", "user": "Check every host of the fleet.",
        "intent": intent, "limits": limits,
        "tools": [{"name": "get_host", "description": "One host's health.",
                   "parameters": {"type": "object", "properties": {"host": {"type": "string"}}, "required": ["host"]},
                   "rules": [{"when": {"host": f"h{i:02d}"}, "result": {"data": {"host": f"h{i:02d}", "load": i}}}
                             for i in range(1, steps)]}],
        "model": {"script": [{"call": {"tool": "get_host", "args": {"host": f"h{i:02d}"}}} for i in range(1, steps)]
                  + [{"answer": f"All {steps - 1} hosts checked; the busiest is h{steps - 1:02d}."}]},
        "expect": {"completable": True, "stop_reason": "completed", "oracle_model_calls": steps,
                   "answer_contains": ["busiest"]}})


@pytest.mark.parametrize("limits", [{"max_steps": 30},
                                    {"max_steps": 30, "max_run_tokens": 200_000, "max_seconds": 300.0}],
                         ids=["steps-only", "steps-and-budget"])
@pytest.mark.parametrize("loop", ["budget", "guarded"])
def test_a_legitimate_25_step_task_within_the_users_own_limits_is_not_cut_by_a_fitted_tier(loop, limits):
    scenario = long_task(25, limits)
    tier = policy_for(scenario.intent)
    if loop == "budget":
        episode = Episode.from_scenario(scenario)
        result = guarded_loop(episode, 30, Parts(budget=RunBudget.for_episode(episode)))
    else:
        result = run(scenario, "guarded")
    assert (result.stop_reason, result.model_calls) == (StopReason.COMPLETED, 25), f"{loop}: {result.detail}"
    assert completed(scenario, result)
    assert tier.max_steps < 25 and result.usage.total_tokens > tier.max_run_tokens and result.cost_usd > \
        tier.max_cost_usd, "the fitted tier, had it applied, would have cut this task (in steps and in budget)"


def test_unknown_intent_gets_the_general_safety_net():
    assert policy_for("no-such-intent") == TIERS["general"]


@pytest.mark.parametrize("name", BUDGET_SCENARIOS)
def test_budget_alone_meets_the_expect_block_of_the_budget_scenarios(name):
    # the incident's deployment allowed 50 steps, and no tier overrides that: containing it is the operator's
    # decision to run the intent under its fitted tier instead (lesson 2, section 8)
    contained = RunBudget.from_policy(policy_for("troubleshoot")) if name == "incident-40-step" else None
    result, budget = budgeted(name, contained)
    failed = [c.detail for c in evaluate(find(name), result) if not c.ok]
    assert not failed, f"scenario `{name}` with {budget.describe()}: {failed} (detail: {result.detail})"
    assert result.stop_reason.kind == "resource"


def completes_without_help(scenario) -> bool:
    """Completable scenarios that the lesson-1 loop completes (the others need a guard or an executor)."""
    return scenario.expect.completable and run(scenario, "react").stop_reason is StopReason.COMPLETED  # run(): a
    # provider failure the naive loop lets escape is an error stop there, not a crash of the test


@pytest.mark.parametrize("name", [s.name for s in catalogue() if completes_without_help(s)])
def test_a_run_that_completes_without_a_budget_is_unchanged_by_its_tier(name):
    plain = react_loop(Episode.from_scenario(find(name)), max_steps=find(name).limits.max_steps)
    result, budget = budgeted(name)
    assert (result.stop_reason, result.model_calls, result.usage) == (plain.stop_reason, plain.model_calls, plain.usage), \
        f"scenario `{name}`: the budget ({budget.describe()}) changed a run that completes: {result.detail}"


def test_detail_says_what_was_used_what_the_next_request_needs_and_the_limit():
    result, _ = budgeted("token-blowup", RunBudget.from_limits(find("token-blowup").limits))
    assert re.fullmatch(r"token budget: [\d,]+ used \+ ~[\d,]+ for the next request > 60,000 \(scenario limits\)",
                        result.detail or ""), result.detail
    assert result.usage.total_tokens <= 60_000


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
def test_estimate_of_the_input_is_exactly_what_the_scripted_model_bills(wire):
    scenario = find("incident-40-step")
    scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"wire": wire})})
    episode = Episode.from_scenario(scenario)
    budget = RunBudget()
    messages = episode.initial_messages()
    for k in range(6):
        estimate = budget.next_request(episode, messages)
        turn = episode.model.complete(messages, episode.tools.specs)
        reserve = max([budget.output_reserve] + [s.output_tokens for s in episode.ledger.steps[:-1]])
        assert estimate.tokens - reserve == turn.usage.input_tokens, f"{wire}, request {k + 1}"
        assert turn.usage.output_tokens <= reserve
        messages.append(turn.message)
        messages.extend(episode.tools.execute(c) for c in turn.tool_calls)
    assert request_tokens(to_wire(messages, episode.tools.specs, wire)) > 0


def test_before_tool_refuses_the_report_that_would_overrun_the_time_budget():
    result, _ = budgeted("slow-tools")
    ran = [t.arguments["region"] for s in result.steps for t in s.tools]
    assert ran == ["north", "south"], f"slow-tools: ran {ran}"
    refused = result.messages[-1]
    assert refused.role == "tool" and "time budget" in refused.content and refused.is_error, refused
    assert result.stop_reason is StopReason.TIME_BUDGET and result.sim_seconds <= 60


def test_a_tool_never_run_before_is_not_refused():
    episode = Episode.from_scenario(find("slow-tools"))
    assert RunBudget(max_seconds=1).tool_seconds(episode, "regional_sales_report") == 0.0


def test_the_final_answer_reserve_never_refuses_a_request_that_fits():
    share = RunBudget.from_limits(find("token-blowup").limits, final_answer_share=0.25)
    plain = RunBudget.from_limits(find("token-blowup").limits)
    reserved, _ = budgeted("token-blowup", share)
    unreserved, _ = budgeted("token-blowup", plain)
    assert reserved.model_calls == unreserved.model_calls and reserved.usage == unreserved.usage
    assert reserved.usage.total_tokens > 45_000 and reserved.usage.total_tokens <= 60_000, reserved.detail
    assert share.headroom(Episode.from_scenario(find("token-blowup")))["tokens"] == 60_000


def test_step_limit_of_the_tier_stops_the_run_with_its_own_detail():
    result, _ = budgeted("repeat-exact", RunBudget(max_steps=3), max_steps=8)
    assert (result.stop_reason, result.model_calls) == (StopReason.MAX_STEPS, 3)
    assert result.detail == "step limit: 3 model requests made, the limit is 3"


@pytest.mark.parametrize("name", [s.name for s in catalogue()])
def test_the_budget_never_preempts_what_a_scenario_expects(name):
    """A budget that trips first, on a reason the scenario does not expect, would take the exit away from the
    guard (lesson 3) or the executor (lesson 5). The budget alone may only stop a run where the scenario expects a
    resource stop, or later than the scenario's bound on model calls (where another part must have stopped it)."""
    scenario = find(name)
    result, budget = budgeted(name)
    if result.stop_reason.kind != "resource" or (result.detail or "").startswith("no answer after"):
        return  # an answer, or the loop's own step limit (the scenario's max_steps): not the budget's doing
    bound = scenario.expect.model_calls.max if scenario.expect.model_calls else None
    assert result.stop_reason.value in scenario.expect.stop_reasons or (bound is not None and result.model_calls > bound), (
        f"scenario `{name}` (intent {scenario.intent}, {budget.describe()}): the budget stops it on "
        f"{result.stop_reason.value} after {result.model_calls} model calls ({result.detail}), but the scenario expects "
        f"{' or '.join(scenario.expect.stop_reasons)} within {bound} model calls")
