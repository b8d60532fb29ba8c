"""Exercise 6, a solution: a run's shape, a fleet's metrics, and a regression case, all from traces."""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from reference.diagnosis.fleet import quantile
from reference.diagnosis.replay import replay_scenario
from reference.diagnosis.shapes import Call, calls_of
from reference.harness.trace import load

ORDER = ("error_storm", "cycle", "repeat")  # the tie-break: a failing call explains the repeats after it


def shape(trace: Any) -> str:
    records = load(trace)
    run = next(r for r in records if r["kind"] == "run")
    volatile = {t["name"] for t in run["tools"] if t.get("volatile")}
    found: dict[str, int] = {}
    earlier: list[Call] = []
    errors = answered = 0
    for call in calls_of(records):
        answered += call.status != "-"
        errors += call.status == "error"
        if errors >= 2 and errors * 2 >= answered:
            found.setdefault("error_storm", call.step)
        same = [c for c in earlier if c.fingerprint == call.fingerprint]
        nothing_new = call.empty or any(c.result == call.result for c in earlier if c.tool == call.tool)
        if same and nothing_new:
            stale = sum(c.result == call.result or call.empty for c in same)
            between = {c.tool for c in earlier[earlier.index(same[-1]) + 1:]} - {call.tool}
            if between:  # other tools' calls came in between: the run goes round
                found.setdefault("cycle", call.step)
            elif call.tool not in volatile or stale >= 2:  # one re-check of a status is fair
                found.setdefault("repeat", call.step)
        earlier.append(call)
    if not found:
        return "healthy"
    return min(found, key=lambda s: (found[s], ORDER.index(s)))


def fleet(traces: Iterable[Any]) -> dict[str, Any]:
    runs = [load(t) for t in traces]
    stops: Counter = Counter()
    steps, calls, duplicates = [], 0, 0
    for records in runs:
        finish = next((r for r in records if r["kind"] == "finish"), {})
        stops[finish.get("stop_reason", "crashed")] += 1
        mine = [r for r in records if r["kind"] == "step"]
        steps.append(len(mine))
        seen: set[str] = set()
        for s in mine:  # the calls the model asked for; a retry in code is an attempt, not a call
            for c in s["tool_calls"]:
                calls += 1
                duplicates += c["fingerprint"] in seen
                seen.add(c["fingerprint"])
    n = len(runs)
    return {"runs": n, "stop_reasons": dict(stops), "max_steps_rate": stops["max_steps"] / n,
            "p99_steps": quantile(steps, 0.99), "duplicate_call_rate": duplicates / calls if calls else 0.0}


def regression_case(trace: Any) -> dict[str, Any]:
    scenario = replay_scenario(trace)  # the run again: script with its call ids, tools, limits
    recorded = scenario["expect"]
    if recorded["stop_reason"] != "max_steps":
        return scenario
    scenario["expect"] = {
        "completable": False,
        "stop_reason": ["token_budget", "time_budget", "cost_budget", "repeated_call", "alternation",
                        "same_result", "no_progress", "circuit_open"],
        "model_calls": {"max": recorded["model_calls"]["max"] - 1},
    }
    return scenario
