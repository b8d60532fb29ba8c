"""Exercise 6, a solution: a run's shape, a fleet's metrics, and a regression case, all from traces."""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from reference.core.result import StopReason
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


# The kinds of stop (reference/core/result.py) that end each shape: a loop is stopped by a guard or for
# want of progress; an error storm also by a budget its retries spend; a run that hit the limit with no
# loop in it ran out of room, so a budget must stop it first.
FIX_KINDS = {"repeat": ("guard", "no_progress"), "cycle": ("guard", "no_progress"),
             "error_storm": ("guard", "resource", "no_progress"), "healthy": ("resource",)}


def regression_case(trace: Any) -> dict[str, Any]:
    records = load(trace)
    scenario = replay_scenario(records)  # the run again: script with its call ids, tools, limits
    recorded = scenario["expect"]
    if recorded["stop_reason"] != "max_steps":
        return scenario
    kinds = FIX_KINDS[shape(records)]
    calls = calls_of(records)
    failed, resent = set(), set()
    for c in calls:
        if c.status != "ok" and (c.tool, c.fingerprint) in failed:
            resent.add(c.tool)
        if c.status != "ok":
            failed.add((c.tool, c.fingerprint))
    reasons = [r.value for r in StopReason if r.kind in kinds and r is not StopReason.MAX_STEPS]
    if scenario.get("cancel"):
        reasons.append(StopReason.CANCELLED.value)  # the user may press stop first: that stop is theirs
    scenario["expect"] = {
        "completable": False,
        "stop_reason": reasons,
        "model_calls": {"max": recorded["model_calls"]["max"] - 1},
        "must_call": sorted({c.tool for c in calls if c.status == "ok"}),
        "must_not_repeat": sorted(resent),
    }
    return scenario
