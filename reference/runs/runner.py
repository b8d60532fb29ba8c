"""Run scenarios with a loop, and judge the result against the scenario's `expect` block."""
from __future__ import annotations

import json
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable

from ..harness.episode import Episode
from ..harness.trace import Trace
from ..core.model import Model
from .registry import run_loop
from ..core.messages import ToolMessage
from ..core.result import RunResult, StopReason
from ..core.toolresult import read_body
from ..sim.scenario.schema import Bound, Scenario


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def run(scenario: Scenario, loop: str = "react", *, seed: int | None = None,
        trace: str | Path | Trace | None = None, model: Model | None = None) -> RunResult:
    """One run; with `trace` (a path, or a Trace of your own), its JSONL trace is written there (lesson 6);
    with `model`, that model answers instead of the scenario's script (live mode)."""
    own = trace if isinstance(trace, Trace) else Trace(trace) if trace is not None else None
    episode = Episode.from_scenario(scenario, seed=seed, trace=own, model=model)
    try:
        return run_loop(loop, episode)  # a provider failure the loop let escape ends the run as `error`
    finally:
        if own is not None and own is not trace:
            own.close()


def within_budget(scenario: Scenario, result: RunResult) -> bool:
    """An answer that arrives after the user's budget ran out is not a completion."""
    limits = scenario.limits
    return ((limits.max_run_tokens is None or result.usage.total_tokens <= limits.max_run_tokens)
            and (limits.max_seconds is None or result.sim_seconds <= limits.max_seconds)
            and (limits.max_cost_usd is None or result.cost_usd <= limits.max_cost_usd))


def completed(scenario: Scenario, result: RunResult) -> bool:
    """The user got a real answer, in budget: the run ended normally and the answer says what it must."""
    if result.stop_reason is not StopReason.COMPLETED or not result.answer:
        return False
    if result.steps and result.steps[-1].finish_reason in ("length", "refusal"):  # cut off or refused
        return False
    if not within_budget(scenario, result):
        return False
    return (all(s.lower() in result.answer.lower() for s in scenario.expect.answer_contains)
            and not any(s.lower() in result.answer.lower() for s in scenario.expect.answer_not_contains))


def _bound(name: str, value: float, bound: Bound | None) -> Check | None:
    if bound is None:
        return None
    ok = (bound.min is None or value >= bound.min) and (bound.max is None or value <= bound.max)
    rng = f"{'' if bound.min is None else f'{bound.min:g} ≤ '}{name}{'' if bound.max is None else f' ≤ {bound.max:g}'}"
    return Check(name, ok, f"{name} = {value:g} (expected {rng})")


def executed_calls(result: RunResult) -> list[tuple[str, str]]:
    """(tool, canonical arguments) of every tool call that actually ran (retries of one call count once)."""
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for step in result.steps:
        for t in step.tools:
            key = (t.call_id, t.name) if t.call_id else (f"#{len(seen)}", t.name)
            seen.setdefault(key, (t.name, json.dumps(t.arguments, sort_keys=True, ensure_ascii=False)))
    return list(seen.values())


def evaluate(scenario: Scenario, result: RunResult) -> list[Check]:
    e = scenario.expect
    checks: list[Check | None] = [
        Check("stop_reason", result.stop_reason.value in e.stop_reasons,
              f"stop reason {result.stop_reason.value} (expected {' or '.join(e.stop_reasons)})"),
        Check("completed", completed(scenario, result) == e.completable,
              f"completed = {completed(scenario, result)} (the task is {'' if e.completable else 'not '}completable)"),
        _bound("model_calls", result.model_calls, e.model_calls),
        _bound("tool_calls", result.tool_calls, e.tool_calls),
        _bound("tokens", result.usage.total_tokens, e.tokens),
        _bound("seconds", result.sim_seconds, e.seconds),
        _bound("cost_usd", result.cost_usd, e.cost_usd),
    ]
    ran = executed_calls(result)
    for tool in e.must_call:
        checks.append(Check(f"must_call:{tool}", any(name == tool for name, _ in ran), f"{tool} was called"
                            if any(name == tool for name, _ in ran) else f"{tool} was never called"))
    for tool in e.must_not_repeat:
        mine = [call for call in ran if call[0] == tool]
        repeats = len(mine) - len(set(mine))
        checks.append(Check(f"must_not_repeat:{tool}", repeats == 0,
                            f"{tool} ran {repeats} repeated call(s) with identical arguments"))
    for tool in e.answered_once:
        again = answered_again(result, tool)
        checks.append(Check(f"answered_once:{tool}", again == 0,
                            f"the model read {again} answer(s) of {tool} it had already read for the same call"))
    checks += _visibility_checks(e, result) + _degraded_checks(e, result, len(ran))
    return [c for c in checks if c is not None]


def answered_again(result: RunResult, tool: str) -> int:
    """How many tool results of `tool` the model read a second time: the same content for a call with the same
    arguments (a loop guard's intervention in its place is not the tool's answer)."""
    calls = {c.id: json.dumps(c.parsed_arguments(), sort_keys=True) if _is_object(c) else c.arguments
             for m in result.messages for c in (getattr(m, "tool_calls", None) or ()) if c.name == tool}
    read, again = set(), 0
    for m in result.messages:
        if not isinstance(m, ToolMessage) or m.call_id not in calls:
            continue
        body = read_body(m.content)
        if body and body.get("error_type") == "loop_detected":
            continue
        key = (calls[m.call_id], m.content)
        again += key in read
        read.add(key)
    return again


def _is_object(call: Any) -> bool:
    try:
        return isinstance(call.parsed_arguments(), dict)
    except ValueError:
        return False


def model_visible(result: RunResult) -> str:
    """Every text the model was sent or wrote in this run (tool results, interventions, the final note)."""
    return "\n".join(getattr(m, "content", None) or getattr(m, "text", None) or "" for m in result.messages)


def interventions(result: RunResult) -> list[str]:
    """The loop guard's interventions, by pattern, in order (each a `loop_detected` tool result)."""
    out = []
    for m in result.messages:
        body = read_body(m.content) if isinstance(m, ToolMessage) else None
        if body and body.get("error_type") == "loop_detected":
            out.append(str(body.get("pattern")))
    return out


def _visibility_checks(e: Any, result: RunResult) -> list[Check | None]:
    seen, answer = model_visible(result), (result.answer or "").lower()
    checks: list[Check | None] = [
        Check(f"never_visible:{text}", text not in seen, f"{text!r} {'reached' if text in seen else 'never reached'}"
              " the model") for text in e.never_visible]
    checks += [Check(f"answer_contains:{t}", t.lower() in answer, f"the answer {'says' if t.lower() in answer else 'lacks'}"
                     f" {t!r}") for t in e.answer_contains]
    checks += [Check(f"answer_not_contains:{t}", t.lower() not in answer, f"the answer "
                     f"{'says' if t.lower() in answer else 'does not say'} {t!r}") for t in e.answer_not_contains]
    fired = interventions(result)
    checks.append(_bound("interventions", len(fired), e.interventions))
    for pattern in e.detectors_fired:
        checks.append(Check(f"detectors_fired:{pattern}", pattern in fired or result.stop_reason.value == pattern,
                            f"{pattern} fired" if pattern in fired else f"{pattern} never fired (fired: {fired})"))
    return checks


def _degraded_checks(e: Any, result: RunResult, executed: int) -> list[Check | None]:
    checks: list[Check | None] = [_bound("tool_calls_executed", executed, e.tool_calls_executed)]
    want = e.degraded
    if want is None:
        return checks
    d = result.degraded
    if d is None:
        return checks + [Check("degraded", False, "the run has no degraded output")]
    advice = [s.action for s in d.next_steps]
    if want.advice is not None:
        checks.append(Check("degraded.advice", advice[:1] == [want.advice], f"first advice {advice[:1]} "
                            f"(expected {want.advice})"))
    checks += [Check(f"degraded.not_advised:{a}", a not in advice, f"advice {advice}") for a in want.not_advised]
    checks += [Check(f"degraded.unfinished:{item}", item in d.unfinished, f"unfinished {d.unfinished}")
               for item in want.unfinished]
    facts = json.dumps([[o.arguments, o.data] for o in d.obtained], ensure_ascii=False, default=str)
    checks += [Check(f"degraded.not_obtained:{t}", t not in facts, f"{t!r} {'is' if t in facts else 'is not'} listed "
                     "as an obtained fact") for t in want.not_obtained]
    return checks


def row(scenario: Scenario, result: RunResult) -> dict[str, Any]:
    """The JSON record of one run, as `loopkit demo --json` and `loopkit run --json` print it."""
    s = result.summary()
    return {
        "scenario": scenario.name, "loop": result.loop, "stop_reason": s["stop_reason"],
        "completed": completed(scenario, result), "completable": scenario.expect.completable,
        "model_calls": s["model_calls"], "oracle_model_calls": scenario.expect.oracle_model_calls,
        "tool_calls": s["tool_calls"], "input_tokens": s["input_tokens"], "output_tokens": s["output_tokens"],
        "cost_usd": s["cost_usd"], "sim_seconds": s["sim_seconds"],
        "meets_expect": all(c.ok for c in evaluate(scenario, result)),
    }


def trace_path(folder: str | Path, scenario: Scenario, loop: str) -> Path:
    """Where `run_catalogue(..., traces=folder)` writes a run's trace: <folder>/<scenario>.<loop>.jsonl."""
    return Path(folder) / f"{scenario.name}.{loop}.jsonl"


def run_catalogue(scenarios: list[Scenario], loop: str = "react",
                  on_result: Callable[[Scenario, RunResult], None] | None = None,
                  traces: str | Path | None = None) -> list[dict[str, Any]]:
    """One row per scenario; with `traces` (a folder, made if missing), each run's trace is written there."""
    if traces is not None:
        Path(traces).mkdir(parents=True, exist_ok=True)
    rows = []
    for scenario in scenarios:
        result = run(scenario, loop, trace=trace_path(traces, scenario, loop) if traces is not None else None)
        if on_result:
            on_result(scenario, result)
        rows.append(row(scenario, result))
    return rows
