"""Lesson 6: what many traces say together. One row per run, fleet metrics, and alert rules.

    rows = report(traces)          one row per run: outcome, steps, tools, tokens, cost, shape
    m = fleet_metrics(traces)      completion, stop reasons, tool rounds per intent, duplicates, errors, cost...
    alerts(m)                      the rules that fire, each with its threshold and what it means

The percentiles are nearest-rank (a value that occurred), as lesson 2's fleet computes them.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from ..harness.trace import load
from .shapes import calls_of, classify


def quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _parts(records: list[dict[str, Any]]) -> tuple[dict, dict, list, list]:
    run = next(r for r in records if r["kind"] == "run")
    finish = next((r for r in records if r["kind"] == "finish"), None)
    steps = [r for r in records if r["kind"] == "step"]
    results = [x for r in records if r["kind"] == "results" for x in r["results"]]
    return run, finish or {}, steps, results


def completed(records: list[dict[str, Any]]) -> bool:
    """The run ended with an answer (not cut off, not refused)."""
    _, finish, steps, _ = _parts(records)
    return (finish.get("stop_reason") == "completed" and bool(finish.get("answer"))
            and not (steps and steps[-1]["finish_reason"] in ("length", "refusal")))


def report(traces: Iterable[Any]) -> list[dict[str, Any]]:
    """One row per run, for a table (`loopkit report`)."""
    rows = []
    for trace in traces:
        records = load(trace)
        run, finish, steps, results = _parts(records)
        diagnosis = classify(records)
        rows.append({
            "scenario": run["scenario"], "loop": finish.get("loop", "?"), "seed": run["seed"],
            "stop_reason": finish.get("stop_reason", "crashed"), "completed": completed(records),
            "steps": len(steps), "tool_calls": sum(len(s["tool_calls"]) for s in steps),
            "tool_errors": sum(r["status"] == "error" for r in results),
            "tokens": steps[-1]["tokens_so_far"] if steps else 0,
            "cost_usd": round(steps[-1]["cost_so_far"], 6) if steps else 0.0,
            "shape": diagnosis.shape, "detected_at": diagnosis.detected_at, "tokens_after": diagnosis.tokens_after})
    return rows


def fleet_metrics(traces: Iterable[Any]) -> dict[str, Any]:
    runs = [load(t) for t in traces]
    if not runs:
        raise ValueError("no traces")
    done = [completed(r) for r in runs]
    stops: Counter = Counter()
    rounds: dict[str, list[int]] = defaultdict(list)
    costs, request_costs, step_counts, offered = [], [], [], []
    calls = duplicates = answered = errors = stale_steps = tool_steps = degraded = 0
    heat: dict[str, Counter] = defaultdict(Counter)
    for records in runs:
        run, finish, steps, results = _parts(records)
        stops[finish.get("stop_reason", "crashed")] += 1
        degraded += bool(finish.get("degraded"))
        rounds[run["intent"]].append(sum(1 for s in steps if s["tool_calls"]))
        costs.append(steps[-1]["cost_so_far"] if steps else 0.0)
        step_counts.append(len(steps))
        request_costs += [s["cost_usd"] for s in steps]
        offered += [len(s["offered"]) for s in steps]
        seen_calls: set[tuple[str, str]] = set()
        for s in steps:
            for c in s["tool_calls"]:
                calls += 1
                duplicates += (c["name"], c["fingerprint"]) in seen_calls
                seen_calls.add((c["name"], c["fingerprint"]))
                heat[c["name"]][s["step"]] += 1
        answered += len(results)
        errors += sum(r["status"] == "error" for r in results)
        known: set[str] = set()
        by_step: dict[int, list] = defaultdict(list)
        for call in calls_of(records):
            by_step[call.step].append(call)
        for step, mine in sorted(by_step.items()):
            tool_steps += 1
            news = {c.result for c in mine if not c.empty} - known
            stale_steps += not news
            known |= news
    n = len(runs)
    return {
        "runs": n, "completion_rate": sum(done) / n, "stop_reasons": dict(stops.most_common()),
        "tool_rounds": {intent: {f"p{q}": quantile(v, q / 100) for q in (50, 95, 99)} for intent, v in rounds.items()},
        "duplicate_call_rate": duplicates / calls if calls else 0.0,
        "candidate_tools": {"mean": sum(offered) / len(offered) if offered else 0.0, "max": max(offered, default=0)},
        "fallback_rate": degraded / n, "tool_error_rate": errors / answered if answered else 0.0,
        "p99_steps": quantile(step_counts, 0.99),
        # a user request is a whole run (every model call it took); a model call is one step of it
        "p99_cost_per_user_request": quantile(costs, 0.99), "max_cost_per_user_request": max(costs),
        "p99_cost_per_model_call": quantile(request_costs, 0.99),
        "cost_per_completed_task": sum(costs) / sum(done) if any(done) else math.inf,
        "max_steps_rate": stops.get("max_steps", 0) / n,
        "heat_map": {tool: dict(sorted(c.items())) for tool, c in sorted(heat.items())},
        "stale_step_rate": stale_steps / tool_steps if tool_steps else 0.0,  # steps whose results added nothing new
    }


@dataclass(frozen=True)
class AlertRule:
    name: str
    metric: str
    threshold: float
    meaning: str

    def fires(self, metrics: dict[str, Any]) -> bool:
        return metrics[self.metric] > self.threshold


ALERTS = (
    AlertRule("max_steps trigger rate", "max_steps_rate", 0.02,
              "more than 2% of runs hit the step limit: a loop shape is back (see the shapes of those runs), "
              "or the limit is below what the task family needs (refit it from successful runs, lesson 2)"),
    AlertRule("P99 steps", "p99_steps", 12,
              "the slowest 1% of runs take more steps than any successful run should: runs that never "
              "conclude are burning steps up to the fuse"),
    AlertRule("P99 cost per user request", "p99_cost_per_user_request", 0.10,
              "the costliest 1% of user requests (each a whole run, every model call in it) cost more than a "
              "task of these families needs: runs go on too long, the context is blowing up (large tool "
              "results kept in the history), or a premium model is reading bulk data"),
    AlertRule("costliest user request", "max_cost_per_user_request", 1.00,
              "one user request cost more than a dollar: a single runaway, which no percentile sees while it "
              "is under 1% of the runs; read its trace now, and check that its intent has a cost budget"),
)

def alerts(metrics: dict[str, Any], rules: Sequence[AlertRule] = ALERTS) -> list[dict[str, Any]]:
    """Every rule, with its value and whether it fires."""
    return [{"alert": r.name, "value": metrics[r.metric], "threshold": r.threshold, "fires": r.fires(metrics),
             "meaning": r.meaning} for r in rules]



