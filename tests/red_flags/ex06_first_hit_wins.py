"""Red flag (written blind, from the exercise docstring alone): the first call that shows a shape decides, ignoring the tie order on its step."""
from __future__ import annotations

from typing import Any, Iterable

from reference import StopReason
from reference.diagnosis.fleet import quantile  # noqa: F401  (you will need them)
from reference.diagnosis.replay import replay_scenario  # noqa: F401
from reference.diagnosis.shapes import Call, calls_of  # noqa: F401
from reference.harness.trace import load  # noqa: F401


SHAPE_ORDER = ("error_storm", "cycle", "repeat")  # the tie-break on the same step


def shape(trace: Any) -> str:
    records = load(trace)
    run = next((r for r in records if r["kind"] == "run"), {})
    volatile = {t["name"] for t in run.get("tools", []) if t.get("volatile")}
    found: dict[str, int] = {}
    seen: dict[str, list[Call]] = {}  # fingerprint -> its calls so far
    by_tool: dict[str, list[Call]] = {}
    order: list[Call] = []
    errors = answered = 0
    for call in calls_of(records):
        answered += call.status != "-"
        errors += call.status == "error"
        if errors >= 2 and errors * 2 >= answered:
            found.setdefault("error_storm", call.step)
            return "error_storm"
        earlier = seen.get(call.fingerprint, [])
        nothing_new = call.empty or any(call.result == c.result for c in by_tool.get(call.tool, []))
        if earlier and nothing_new:
            last = earlier[-1]
            between = {c.tool for c in order[order.index(last) + 1:]} - {call.tool}
            if between:
                found.setdefault("cycle", call.step)
                return "cycle"  # MISTAKE: the first call that shows a shape decides, ignoring the tie order on its step
            else:
                stale = sum(1 for c in earlier if call.empty or c.result == call.result)
                if call.tool not in volatile or stale >= 2:
                    found.setdefault("repeat", call.step)
                    return "repeat"
        seen.setdefault(call.fingerprint, []).append(call)
        by_tool.setdefault(call.tool, []).append(call)
        order.append(call)
    return "healthy"


def fleet(traces: Iterable[Any]) -> dict[str, Any]:
    runs = [load(t) for t in traces]
    stop_reasons: dict[str, int] = {}
    step_counts: list[int] = []
    calls = duplicates = 0
    for records in runs:
        finish = next((r for r in records if r["kind"] == "finish"), {})
        reason = finish.get("stop_reason", "crashed")
        stop_reasons[reason] = stop_reasons.get(reason, 0) + 1
        steps = [r for r in records if r["kind"] == "step"]
        step_counts.append(len(steps))
        seen: set[str] = set()
        for s in steps:
            for c in s["tool_calls"]:
                calls += 1
                duplicates += c["fingerprint"] in seen
                seen.add(c["fingerprint"])
    n = len(runs)
    return {
        "runs": n,
        "stop_reasons": stop_reasons,
        "max_steps_rate": stop_reasons.get("max_steps", 0) / n if n else 0.0,
        "p99_steps": quantile(step_counts, 0.99),
        "duplicate_call_rate": duplicates / calls if calls else 0.0,
    }


def regression_case(trace: Any) -> dict[str, Any]:
    scenario = replay_scenario(trace)
    recorded = scenario["expect"]
    if recorded["stop_reason"] != "max_steps":
        return scenario
    calls = recorded["model_calls"]["max"]
    scenario["expect"] = {
        "completable": False,
        "stop_reason": [r.value for r in StopReason if r not in (StopReason.MAX_STEPS, StopReason.ERROR)],
        "model_calls": {"max": calls - 1},
    }
    return scenario
