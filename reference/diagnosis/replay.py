"""Lesson 6: a trace becomes a regression scenario.

A bad run in production is worth a test. `replay_scenario(trace)` writes the scenario that plays the
run again: the model's turns become its script (tool-call ids kept), each tool answers with what it
answered in the run (per distinct arguments, attempt after attempt: faults, retry-afters, timeouts and
latencies included), and everything else the run depended on comes from the trace's header (limits,
intent, checklist, pricing, model latency, wire, seed, clock). Run with the same loop it gives the
same trajectory: the same stop reason, model calls and tool calls.

The `expect` block pins the recorded run, in the bad-case form: the input (the scenario's `user`),
the tools that must be called, the tools whose calls must not start repeating, and the stop reason.
Fix the loop, then edit the expectation: the test fails until the fix holds.

`regression_case(trace)` is the same run with the expectation a fixed loop must meet instead: it
does not run to the step limit, and it spends fewer model calls than the recorded run. The naive loop
fails it (it plays the recorded run again), the guarded loop passes: the case enters the regression set.

Without content capture the trace holds no prompt, only its length: the replay stands in a text of
the same length (the same tokens), and says so. A part that reads the request's words (the airport
guard checks codes against the cities the user named) may then decide differently.
"""
from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import yaml

from ..core.result import StopReason
from ..harness.trace import load
from ..parts.guards.checks import argument_problems
from ..sim.clock import parse_start
from .shapes import calls_of, classify

# the HTTP status of a failed outcome -> the scenario fault that produces it (reference/sim/tools.py)
FAULT_BY_STATUS = {429: "rate_limit", 503: "server_error", 400: "invalid_argument", 403: "permission_denied",
                   404: "not_found", 409: "conflict", 412: "precondition_failed"}
FAULT_BY_EXCEPTION = {"ToolTimeout": "timeout", "ConnectionResetError": "connection_reset"}
NOT_CAPTURED = "[not captured: content capture was off] "


def _stand_in(length: int) -> str:
    return (NOT_CAPTURED + "." * length)[:length] if length else ""


def _result(attempt: dict[str, Any]) -> dict[str, Any]:
    """The scenario result that makes the tool answer this attempt as it did."""
    if attempt["status"] == "raised":
        fault = FAULT_BY_EXCEPTION.get(attempt["exception"], "exception")
        return {"fault": fault, "timeout_seconds": attempt["latency"]} if fault == "timeout" else {"fault": fault}
    outcome = attempt["outcome"]
    if outcome["ok"]:
        return {"data": outcome["data"]}
    result: dict[str, Any] = {"fault": FAULT_BY_STATUS.get(outcome.get("http_status"), "server_error"),
                              "message": outcome.get("message")}
    if outcome.get("retry_after") is not None:
        result["retry_after_seconds"] = outcome["retry_after"]
    return result


def _rules(attempts: list[dict[str, Any]], default_latency: float) -> list[dict[str, Any]]:
    """One rule per distinct argument set, its results in the order they were given; the most specific
    `when` first, because a rule matches any call whose arguments include its `when`."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for a in attempts:
        groups[json.dumps(a["arguments"], sort_keys=True, ensure_ascii=False)].append(a)
    rules = []
    for key, group in sorted(groups.items(), key=lambda kv: -len(kv[1][0]["arguments"])):
        timed = [a["latency"] for a in group if a["status"] != "raised" or a["exception"] not in FAULT_BY_EXCEPTION]
        rule: dict[str, Any] = {"when": group[0]["arguments"], "results": [_result(a) for a in group]}
        if timed and timed[0] != default_latency:
            rule["latency_seconds"] = timed[0]
        rules.append(rule)
    return rules or [{"result": {"fault": "not_found", "message": "not called in the recorded run"}}]


def _call(call: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": call["name"], "id": call["id"]}
    try:
        args = json.loads(call["arguments"])
    except (ValueError, RecursionError):
        args = None
    if isinstance(args, dict) and json.dumps(args, ensure_ascii=False) == call["arguments"]:
        out["args"] = args
    else:
        out["raw_args"] = call["arguments"]
    return out


def _script(steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """The model's turns, and its scripted provider failures (`error` records with a `fault`) in between."""
    script, tool_less = [], None
    for s in steps:
        if s["kind"] == "error":
            if s.get("fault"):
                fault = {"fault": s["fault"], "retry_after_seconds": s.get("retry_after"),
                         "timeout_seconds": s.get("timeout_seconds")}
                script.append({k: v for k, v in fault.items() if v is not None})
        elif s["tool_choice"] == "none":  # a last answer without tools: the model writes it, the plan stays
            tool_less = s["text"] or ""
        elif s["tool_calls"]:
            step: dict[str, Any] = {"calls": [_call(c) for c in s["tool_calls"]]}
            if s["text"]:
                step["text"] = s["text"]
            script.append(step)
        else:
            step = {"answer": s["text"] or ""}
            if s["finish_reason"] in ("length", "refusal"):
                step["finish_reason"] = s["finish_reason"]
            script.append(step)
    return script, tool_less


def _completed(run: dict[str, Any], finish: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    limits = run["limits"]
    return (finish["stop_reason"] == "completed" and bool(finish["answer"])
            and not (steps and steps[-1]["finish_reason"] in ("length", "refusal"))
            and (limits.get("max_run_tokens") is None
                 or finish["input_tokens"] + finish["output_tokens"] <= limits["max_run_tokens"])
            and (limits.get("max_seconds") is None or finish["sim_seconds"] <= limits["max_seconds"])
            and (limits.get("max_cost_usd") is None or finish["cost_usd"] <= limits["max_cost_usd"]))


def _expect(run: dict[str, Any], finish: dict[str, Any], steps: list[dict[str, Any]],
            attempts: list[dict[str, Any]]) -> dict[str, Any]:
    ran: dict[str, tuple[str, str]] = {}
    for a in attempts:  # one per call (retries of a call count once), as the runner's checks count them
        ran.setdefault(a["call_id"] or f"#{len(ran)}", (a["name"], json.dumps(a["arguments"], sort_keys=True)))
    names = sorted({name for name, _ in ran.values()})
    repeated = {name for name in names if len([c for c in ran.values() if c[0] == name])
                > len({c for c in ran.values() if c[0] == name})}
    model_calls = finish["model_calls"]
    return {"completable": _completed(run, finish, steps), "stop_reason": finish["stop_reason"],
            "model_calls": {"min": model_calls, "max": model_calls},
            "tool_calls": {"min": finish["tool_calls"], "max": finish["tool_calls"]},
            "must_call": names, "must_not_repeat": [n for n in names if n not in repeated]}


def replay_scenario(trace: Any, name: str | None = None) -> dict[str, Any]:
    """The scenario (a dict, as the YAML file holds it) that plays the traced run again. It keeps the
    recorded scenario's name unless told otherwise: parts seed their randomness with it (lesson 5's
    backoff jitter), so another name may wait other times."""
    records = load(trace)
    run = next(r for r in records if r["kind"] == "run")
    finish = next((r for r in records if r["kind"] == "finish"), None)
    if finish is None:
        raise ValueError(f"the trace of {run['scenario']} has no finish record: the run crashed or was cut off, "
                         "so there is no outcome to pin (its steps are in the trace: read them with timeline())")
    steps = [r for r in records if r["kind"] == "step"]
    attempts = [r for r in records if r["kind"] == "tool"]
    script, tool_less = _script([r for r in records if r["kind"] in ("step", "error")])
    tools = []
    for t in run["tools"]:
        mine = [a for a in attempts if a["name"] == t["name"]]
        tools.append({**t, "rules": _rules(mine, t["latency_seconds"])})
    captured = run["capture_content"]
    model: dict[str, Any] = {"name": run["model"], "wire": run["wire"], "pricing": run["pricing"],
                             "latency": run["latency"], "seed": run["model_seed"], "script": script}
    if tool_less is not None:
        model["answer_without_tools"] = tool_less
    if any(c["name"] not in {t["name"] for t in run["tools"]} for s in steps for c in s["tool_calls"]):
        model["allow_unknown_tools"] = True
    scenario = {
        "name": name or run["scenario"],
        "title": f"Replay of a {finish['loop']} run of {run['scenario']}: {finish['stop_reason']} "
                 f"after {finish['model_calls']} model calls",
        "description": f"Written by replay() from a trace (seed {run['seed']}). "
                       + ("" if captured else "The prompts were not captured: system and user are stand-ins "
                          "of the same length."),
        "tags": ["replay", "regression"],
        "shape": run.get("shape"),
        "intent": run["intent"], "clock": run["clock"],
        "system": run["system"] if captured else _stand_in(run["prompt_chars"]["system"]),
        "user": run["user"] if captured else _stand_in(run["prompt_chars"]["user"]),
        "user_turns": [r["text"] if captured else _stand_in(r["chars"]) for r in records if r["kind"] == "user"]
        or None,  # what the user said later in the conversation, as it was said
        "checklist": run["checklist"], "limits": run["limits"], "cancel": run.get("cancel"), "tools": tools,
        "model": model,
        "expect": _expect(run, finish, steps, attempts),
    }
    return {k: v for k, v in scenario.items() if v is not None}


def replay(trace: Any, name: str | None = None, *, regression: bool = False) -> str:
    """The replayed scenario as YAML text, ready to save under a name and run with `loopkit run`; with
    `regression`, the regression case (`regression_case`)."""
    data = regression_case(trace, name) if regression else replay_scenario(trace, name)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


# The kinds of stop (core/result.py) that end each loop shape well: a loop is seen and stopped by a guard
# or for want of progress; a blow-up by a budget before the request that would exceed it; an error storm
# by a breaker, a guard, a budget the retries spend, or for want of progress.
FIX_KINDS = {"blowup": ("resource",), "error_storm": ("guard", "resource", "no_progress")}
LOOP_KINDS = ("guard", "no_progress")


def _fix_expectations(records: list[dict[str, Any]]) -> tuple[list[str], list[str], list[str]]:
    """What the fixed run must do, from the recorded one: the kinds of stop that end its shape; the tools
    that answered before the loop showed (work that worked, the fix must not lose it), unless the call
    sent arguments a careful loop refuses (an ambiguous date, an airport code the request rules out); and
    the tools whose failed call was sent again unchanged as a new call (the same arguments fail the same
    way; a retry in code of one call counts once). A read that succeeded may be re-checked: its answer may
    have moved, so it is not forbidden to repeat."""
    run = next(r for r in records if r["kind"] == "run")
    found = classify(records)
    kinds = FIX_KINDS.get(found.shape, LOOP_KINDS)
    reasons = [r.value for r in StopReason if r.kind in kinds and r is not StopReason.MAX_STEPS]
    if run.get("cancel"):
        reasons.append(StopReason.CANCELLED.value)  # the user may press stop first: that stop is theirs
    params = {t["name"]: t.get("parameters") for t in run["tools"]}
    today = parse_start(run["clock"]).date()
    request = run.get("user") or ""
    calls = calls_of(records)
    detected = found.detected_at if found.detected_at is not None else max((c.step for c in calls), default=0)
    must_call = sorted({c.tool for c in calls if c.status == "ok" and c.step <= detected
                        and not argument_problems(c.arguments, params.get(c.tool), request, today)})
    sent, again = set(), set()
    for c in calls:
        if (c.tool, c.fingerprint) in sent and c.status != "ok":
            again.add(c.tool)
        if c.status != "ok":
            sent.add((c.tool, c.fingerprint))
    return reasons, must_call, sorted(again)


def regression_case(trace: Any, name: str | None = None) -> dict[str, Any]:
    """The traced bad run as a regression case: the same scenario, and an `expect` block a fixed loop
    meets and the recorded run does not. A run that reached the step limit must now stop the way its
    shape is stopped (a guard's stop for a loop, a budget's for a blow-up; never the limit, never an
    error), in fewer model calls, still calling the tools that answered before the loop showed
    (`must_call`), and not sending a failed call again unchanged (`must_not_repeat`): see
    `_fix_expectations`. A run that ended well is pinned as it is (stop reason and call bounds): the case
    guards against a regression, not for a fix."""
    records = load(trace)
    scenario = replay_scenario(records, name)
    recorded = scenario["expect"]
    if recorded["stop_reason"] != "max_steps":
        return scenario
    reasons, must_call, must_not_repeat = _fix_expectations(records)
    scenario["tags"] = ["replay", "regression", "fix-required"]
    scenario["expect"] = {
        "completable": False,  # the replayed model does not react: no loop can finish the task from it
        "stop_reason": reasons,
        "model_calls": {"max": recorded["model_calls"]["max"] - 1},
        "must_call": must_call,
        "must_not_repeat": must_not_repeat,
    }
    return scenario
