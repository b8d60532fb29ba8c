"""Lesson 2: choose max_steps and the budgets from data, not from a default.

"How did you pick max_steps?" has one good answer: run the task family many times, keep the runs
that succeeded, look at how many steps they needed, and take the P95 plus a margin. Then check what
that limit costs: too low and good runs are cut off; too high and the runs that never conclude burn
steps (and ever larger requests) until they hit it.

The kit's fleet is a task family scenario (reference/sim/scenarios/fleet-*.yaml) played hundreds of times
on its seeded stochastic model: `policy.repeat_last_call` makes some runs take extra steps, and
`policy.stuck` makes a few never conclude. One seed is one run, and the same seed always gives the
same run, so every figure here is reproducible.

    fleet = run_fleet("fleet-troubleshoot", runs=300)
    fleet.recommend()          # P95 of the successful runs' steps, tokens, seconds, cost, plus a margin
    fleet.tradeoff()           # completion rate and spend for every max_steps from 1 to the cap
    check_policy(fleet.scenario, fleet.recommend().policy())   # the fleet again, under that tier

The runs use the lesson-1 loop with a high cap (`cap`, the "generous deployment limit"). With that
loop a lower max_steps only cuts a run short, it changes nothing before the cut, so the outcome of
every max_steps is read off the same runs: a run that answered at step s is a completion for any
max_steps >= s, and a run cut at m costs what its first m steps cost.
"""
from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from ..parts.budget import IntentPolicy, RunBudget
from ..harness.episode import Episode
from ..loops.guarded import Parts, guarded_loop
from ..loops.react import react_loop
from .runner import completed
from ..sim.scenario.loading import find
from ..sim.scenario.schema import Scenario

FAMILIES = {"lookup": "fleet-lookup", "troubleshoot": "fleet-troubleshoot"}  # intent -> task family scenario
RUNS = 300  # runs per fleet: enough for a stable P95, a few hundred milliseconds of wall time
CAP = 40  # the observation cap: a generous deployment limit, far above any successful run
QUANTILE = 0.95
MARGIN = 0.2  # +20% on the P95 (at least one step): room for the next-slowest runs without a cliff


def quantile(values: list[float], q: float = QUANTILE) -> float:
    """Nearest-rank quantile: the smallest value with at least q of the values at or below it.

    For step counts (integers) this is a step count that actually occurred, with no interpolation."""
    if not values:
        raise ValueError("quantile of an empty list: the fleet has no successful run")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def round_up(x: float, digits: int = 2) -> float:
    """Round up to `digits` significant digits (10,560 -> 11,000; 0.00587 -> 0.0059): a limit people can read."""
    if x <= 0:
        return 0.0
    scale = 10 ** (math.floor(math.log10(x)) - digits + 1)
    return round(math.ceil(round(x / scale, 9)) * scale, 12)


@dataclass(frozen=True)
class FleetRun:
    """One run of the family, with what it had spent after each of its steps."""

    seed: int
    completed: bool  # answered, with what the answer must say, within the observation cap
    stop_reason: str
    tokens: tuple[int, ...]  # cumulative tokens after step 1, 2, ...
    cost_usd: tuple[float, ...]  # cumulative cost after each step
    seconds: tuple[float, ...]  # simulated seconds at the end of each step, its tool runs included

    @property
    def steps(self) -> int:
        return len(self.tokens)

    def completes_within(self, max_steps: int) -> bool:
        return self.completed and self.steps <= max_steps

    def cost_within(self, max_steps: int) -> float:
        """What the run costs when it is cut at `max_steps` (all of it if it ends before)."""
        return self.cost_usd[min(max_steps, self.steps) - 1] if self.steps else 0.0


@dataclass(frozen=True)
class Recommendation:
    """P95 of the successful runs, and the limits it suggests (P95 plus the margin, rounded up)."""

    scenario: str
    intent: str
    runs: int
    successes: int
    p95_steps: int
    p95_tokens: int
    p95_seconds: float
    p95_cost_usd: float
    max_steps: int
    max_run_tokens: int
    max_seconds: float
    max_cost_usd: float

    def policy(self) -> IntentPolicy:
        return IntentPolicy(self.max_steps, self.max_run_tokens, self.max_seconds, self.max_cost_usd,
                            note=f"fitted on {self.scenario} ({self.runs} runs)")


@dataclass(frozen=True)
class TradeoffPoint:
    """The fleet under one max_steps (steps only, no other budget)."""

    max_steps: int
    completion_rate: float
    spend_usd: float  # the whole fleet's bill
    wasted_usd: float  # the part of it spent on runs that gave the user no answer

    @property
    def wasted_share(self) -> float:
        return self.wasted_usd / self.spend_usd if self.spend_usd else 0.0


@dataclass
class Fleet:
    scenario: Scenario
    runs: list[FleetRun]
    cap: int
    wall_seconds: float = 0.0  # real time the fleet took to run

    @property
    def successes(self) -> list[FleetRun]:
        return [r for r in self.runs if r.completed]

    def step_counts(self) -> Counter:
        """Steps of the successful runs: {steps: number of runs}."""
        return Counter(r.steps for r in self.successes)

    def recommend(self, q: float = QUANTILE, margin: float = MARGIN,
                  output_reserve: int = RunBudget.output_reserve) -> Recommendation:
        """P95 (q) of the successful runs, plus the margin, rounded up to two significant digits.

        The token and cost limits also make room for the budget's output reserve: before the last
        request the budget counts `output_reserve` tokens for its answer, so a limit without that room
        would stop the slowest successful runs one request short of their answer."""
        good = self.successes
        p_steps = int(quantile([r.steps for r in good], q))
        p_tokens = int(quantile([r.tokens[-1] for r in good], q))
        p_seconds = quantile([r.seconds[-1] for r in good], q)
        p_cost = quantile([r.cost_usd[-1] for r in good], q)
        pricing = self.scenario.model.pricing
        reserve_cost = output_reserve * pricing.output_per_mtok / 1_000_000
        return Recommendation(
            self.scenario.name, self.scenario.intent, len(self.runs), len(good), p_steps, p_tokens, p_seconds, p_cost,
            max_steps=max(p_steps + 1, math.ceil(p_steps * (1 + margin))),
            max_run_tokens=int(round_up(p_tokens * (1 + margin) + output_reserve)),
            max_seconds=round_up(p_seconds * (1 + margin)),
            max_cost_usd=round_up(p_cost * (1 + margin) + reserve_cost))

    def tradeoff(self, caps: Optional[range] = None) -> list[TradeoffPoint]:
        points = []
        for m in caps or range(1, self.cap + 1):
            done = [r.completes_within(m) for r in self.runs]
            costs = [r.cost_within(m) for r in self.runs]
            points.append(TradeoffPoint(m, sum(done) / len(self.runs), sum(costs),
                                        sum(c for c, ok in zip(costs, done) if not ok)))
        return points


def _record(seed: int, episode: Episode, ok: bool, stop_reason: str) -> FleetRun:
    steps = episode.ledger.steps
    pricing = episode.ledger.pricing
    tokens, costs, seconds, total_tokens, total_cost = [], [], [], 0, 0.0
    for i, s in enumerate(steps):
        total_tokens += s.input_tokens + s.output_tokens
        total_cost += (s.input_tokens * pricing.input_per_mtok + s.output_tokens * pricing.output_per_mtok) / 1e6
        tokens.append(total_tokens)
        costs.append(total_cost)
        seconds.append(steps[i + 1].started if i + 1 < len(steps) else episode.clock.elapsed)
    return FleetRun(seed, ok, stop_reason, tuple(tokens), tuple(costs), tuple(seconds))


def run_fleet(scenario: Scenario | str, runs: int = RUNS, cap: int = CAP, first_seed: int = 1) -> Fleet:
    """`runs` runs of the family with the lesson-1 loop and max_steps=`cap`, seeds first_seed, first_seed+1, ..."""
    if isinstance(scenario, str):
        scenario = find(scenario)
    if runs < 1:
        raise ValueError(f"a fleet needs at least one run, got runs={runs}")
    started = time.perf_counter()
    out = []
    for seed in range(first_seed, first_seed + runs):
        episode = Episode.from_scenario(scenario, seed=seed)
        result = react_loop(episode, max_steps=cap)
        out.append(_record(seed, episode, completed(scenario, result), result.stop_reason.value))
    return Fleet(scenario, out, cap, time.perf_counter() - started)


@dataclass(frozen=True)
class PolicyCheck:
    """The fleet again, under a tier's full budget (steps, tokens, seconds, cost), with the guarded loop."""

    policy: IntentPolicy
    runs: int
    completion_rate: float
    stop_reasons: dict[str, int]
    spend_usd: float
    max_run_cost_usd: float  # the most one run cost
    overshoots: int  # runs that ended above one of the limits (the budget should make this 0)


def check_policy(scenario: Scenario | str, policy: IntentPolicy, runs: int = RUNS, first_seed: int = 1,
                 cap: int = CAP) -> PolicyCheck:
    if isinstance(scenario, str):
        scenario = find(scenario)
    reasons: Counter = Counter()
    done, spend, worst, over = 0, 0.0, 0.0, 0
    for seed in range(first_seed, first_seed + runs):
        episode = Episode.from_scenario(scenario, seed=seed)
        result = guarded_loop(episode, cap, Parts(budget=RunBudget.from_policy(policy)))
        reasons[result.stop_reason.value] += 1
        done += completed(scenario, result)
        spend += result.cost_usd
        worst = max(worst, result.cost_usd)
        over += ((policy.max_run_tokens is not None and result.usage.total_tokens > policy.max_run_tokens)
                 or (policy.max_cost_usd is not None and result.cost_usd > policy.max_cost_usd)
                 or (policy.max_seconds is not None and result.sim_seconds > policy.max_seconds))
    return PolicyCheck(policy, runs, done / runs, dict(reasons.most_common()), spend, worst, over)


@dataclass
class TierReport:
    intent: str
    fleet: Fleet
    recommendation: Recommendation
    check: PolicyCheck = field(repr=False)


def fit_tiers(runs: int = RUNS) -> dict[str, TierReport]:
    """Every task family's fleet, its recommended tier, and that tier checked on the same seeds."""
    reports = {}
    for intent, name in FAMILIES.items():
        fleet = run_fleet(name, runs)
        rec = fleet.recommend()
        reports[intent] = TierReport(intent, fleet, rec, check_policy(fleet.scenario, rec.policy(), runs))
    return reports
