"""Lesson 6: a run, one line per step, read from its trace.

    step  tool                   call                      result                          tokens
       1  search_flights       #1f2a3b4c                 ok 352           196
       2  search_flights       #1f2a3b4c  = step 1       ok 352           385
    ...
    stop: max_steps  (stopped after 8 steps without an answer)
    shape: repeat, detectable at step 2; 3,960 tokens spent after it
    fix: fingerprint each call on canonical arguments; ...

A repeated call (the same canonical fingerprint) is marked with the step that made it first; a guard's
word on a call is shown beside it.
"""
from __future__ import annotations

from typing import Any

from ..harness.trace import load
from .shapes import classify

HEADER = f"{'step':>4}  {'tool':<22} {'call':<25} {'result':<28} {'tokens':>9}"


def _result(r: dict[str, Any] | None) -> str:
    if r is None:
        return "-"
    return f"{r['status']} {r['length']}" if r["status"] == "ok" else f"{r['error_type'] or 'error'} {r['length']}"


def timeline(trace: Any) -> str:
    records = load(trace)
    results = {r["call_id"]: r for rec in records if rec["kind"] == "results" for r in rec["results"]}
    verdicts = {rec["call_id"]: rec["action"] for rec in records
                if rec["kind"] == "event" and rec.get("event") == "guard" and rec.get("call_id")}
    first_seen: dict[str, int] = {}
    lines = [HEADER]
    for rec in records:
        if rec["kind"] == "error":
            lines.append(f"{rec['step']:>4}  the model request raised {rec['error_type']}")
        if rec["kind"] != "step":
            continue
        tokens = f"{rec['tokens_so_far']:>9,}"
        if not rec["tool_calls"]:
            what = "(answer, no tools)" if rec["tool_choice"] == "none" else "(answer)"
            lines.append(f"{rec['step']:>4}  {what:<22} {'':<25} {rec['finish_reason']:<28} {tokens}")
        for i, call in enumerate(rec["tool_calls"]):
            mark = f"#{call['digest'][:8]}"
            if call["fingerprint"] in first_seen:
                mark += f"  = step {first_seen[call['fingerprint']]}"
            first_seen.setdefault(call["fingerprint"], rec["step"])
            result = _result(results.get(call["id"]))
            if call["id"] in verdicts:
                result += f" [{verdicts[call['id']]}]"
            step = f"{rec['step']:>4}" if i == 0 else "    "
            lines.append(f"{step}  {call['name'][:22]:<22} {mark:<25} {result:<28} {tokens if i == 0 else ''}")
    finish = next((r for r in records if r["kind"] == "finish"), None)
    if finish is None:
        lines.append("stop: none recorded (the run crashed or was cut off)")
    else:
        lines.append(f"stop: {finish['stop_reason']}" + (f"  ({finish['detail']})" if finish["detail"] else ""))
    diagnosis = classify(records)
    if diagnosis.detected_at is None:
        lines.append(f"shape: {diagnosis.shape}")
    else:
        lines.append(f"shape: {diagnosis.shape}, detectable at step {diagnosis.detected_at}; "
                     f"{diagnosis.tokens_after:,} tokens spent after it")
    lines.append(f"fix: {diagnosis.fix}")
    return "\n".join(lines)
