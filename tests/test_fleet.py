"""reference/runs/fleet.py: max_steps and the budgets chosen from the fleet's successful runs."""
from __future__ import annotations

import pytest

from reference.parts.budget import TIERS
from reference.runs.fleet import FAMILIES, RUNS, fit_tiers, quantile, round_up, run_fleet


@pytest.fixture(scope="module")
def tiers():
    return fit_tiers()


def test_quantile_is_nearest_rank():
    assert quantile([3] * 95 + [9] * 5, 0.95) == 3
    assert quantile([3] * 94 + [9] * 6, 0.95) == 9
    assert quantile([7], 0.95) == 7
    with pytest.raises(ValueError, match="no successful run"):
        quantile([], 0.95)


def test_round_up_keeps_two_significant_digits_and_never_rounds_down():
    assert [round_up(x) for x in (10_560, 1_428, 0.00587, 6.03, 19.0)] == [11_000, 1_500, 0.0059, 6.1, 19]


def test_same_seeds_give_the_same_fleet():
    a, b = run_fleet("fleet-troubleshoot", runs=40), run_fleet("fleet-troubleshoot", runs=40)
    assert a.runs == b.runs


def test_fleet_has_slow_runs_and_runs_that_never_conclude(tiers):
    for intent, report in tiers.items():
        steps = report.fleet.step_counts()
        failures = len(report.fleet.runs) - len(report.fleet.successes)
        assert len(steps) >= 3, f"{intent}: the successful runs all took the same steps {dict(steps)}: no distribution"
        assert failures > 0, f"{intent}: no run failed to conclude, so no max_steps would ever cost anything"


@pytest.mark.parametrize("intent", list(FAMILIES))
def test_intent_tier_is_what_its_fleet_recommends(tiers, intent):
    rec = tiers[intent].recommendation
    tier = TIERS[intent]
    fitted = (rec.max_steps, rec.max_run_tokens, rec.max_seconds, rec.max_cost_usd)
    assert (tier.max_steps, tier.max_run_tokens, tier.max_seconds, tier.max_cost_usd) == fitted, (
        f"TIERS[{intent!r}] in reference/parts/budget.py says {tier}, but the fleet of {FAMILIES[intent]} ({RUNS} runs) now "
        f"recommends max_steps={rec.max_steps}, max_run_tokens={rec.max_run_tokens}, max_seconds={rec.max_seconds}, "
        f"max_cost_usd={rec.max_cost_usd} (P95 {rec.p95_steps} steps): re-fit the tier")


def test_p95_is_single_digit_and_a_lookup_needs_fewer_steps_than_troubleshooting(tiers):
    lookup, trouble = tiers["lookup"].recommendation, tiers["troubleshoot"].recommendation
    assert lookup.p95_steps < trouble.p95_steps < 10
    assert lookup.max_steps < trouble.max_steps < TIERS["general"].max_steps


@pytest.mark.parametrize("intent", list(FAMILIES))
def test_a_higher_max_steps_past_the_recommendation_buys_no_completions_only_spend(tiers, intent):
    report = tiers[intent]
    curve = {p.max_steps: p for p in report.fleet.tradeoff()}
    rates = [curve[m].completion_rate for m in sorted(curve)]
    assert rates == sorted(rates), "completion can only grow with max_steps"
    at, top = curve[report.recommendation.max_steps], curve[report.fleet.cap]
    assert top.completion_rate - at.completion_rate <= 0.02, (at, top)
    assert top.spend_usd > 1.25 * at.spend_usd, f"{intent}: the stuck runs should make a cap of {top.max_steps} dear"
    assert top.wasted_usd > 3 * at.wasted_usd


@pytest.mark.parametrize("intent", list(FAMILIES))
def test_the_tier_never_lets_a_fleet_run_overshoot_and_keeps_most_completions(tiers, intent):
    check = tiers[intent].check
    assert check.overshoots == 0, f"{intent}: {check.overshoots} runs ended over a limit of {check.policy}"
    assert check.completion_rate >= 0.95, f"{intent}: only {check.completion_rate:.1%} completed under {check.policy}"
    assert check.max_run_cost_usd <= check.policy.max_cost_usd
