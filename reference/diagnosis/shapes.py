"""Lesson 6: what shape did the run take? A classifier over a trace, with a fix for each shape.

The shapes show on the naive loop (lesson 1), which lets every pattern run its course; a guarded run
is usually cut short before its shape is clear. Each detector names the step at which the pattern
became detectable, and the tokens spent after that step are what a guard there would have saved.

    repeat       the same call (canonical fingerprint) again, and nothing new came back
    cycle        the same, but other tools' calls came in between: the run goes round (A-B-A-B)
    rephrase     the same tool asked in new words (free text), results empty or already seen
    drift        the same question in new identifiers (PEK, PKX, BJS): the calls differ as written but are
                 one call in lesson 3's canonical form (metro areas, dates), and the answer is the same.
                 Different things that share an answer (four SKUs, all in stock) are not drift
    error_storm  tool errors pile up: at least two, and at least half the results so far
    blowup       steps that each add more than twice the first request's tokens to the context
    polling      the same call asked again and the answer changed: legitimate (no `volatile` flag needed)
    healthy      none of the above

The thresholds are the kit's: one identical re-check of a volatile tool is allowed (things change
while you look), a second is a loop; one rewording is a correction, two are a pattern. When several
shapes show, the earliest one is the run's shape (ties: the order above, errors first, because a
failing call explains the repeats that follow it, then the blowup, the costliest: it makes every
other pattern dearer).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from ..harness.trace import load
from ..parts.executor.taxonomy import business_failure
from ..core.canonical import fingerprint
from ..sim.clock import parse_start

PROBLEMS = ("error_storm", "blowup", "cycle", "repeat", "drift", "rephrase")  # tie-break order

FIXES: dict[str, str] = {
    "repeat": "fingerprint each call on canonical arguments; run an identical read once more and intervene "
              "when it answers the same (a write is never sent twice), stop if it comes back (lesson 3)",
    "cycle": "look for A-B-A-B over a window of fingerprints, not only consecutive repeats; intervene "
             "naming the calls, stop if it persists (lesson 3)",
    "rephrase": "track what each result adds; after steps with nothing new say so, then stop with an "
                "honest degraded answer (lessons 3 and 4)",
    "drift": "canonicalise arguments by their schema before fingerprinting (airport metro areas, dates, "
             "case); answer an invalid code with an actionable error (lesson 3)",
    "blowup": "check token and cost budgets before each request, with the next request's size; cap or "
              "summarise large tool results (lesson 2)",
    "error_storm": "validate arguments against the schema, retry retryable errors in code, answer with "
                   "actionable errors, open a circuit on a tool that keeps failing (lesson 5)",
    "polling": "legitimate: mark the tool volatile, compare results as well as calls, bound the wait with "
               "a time budget and backoff",
    "healthy": "nothing to fix: keep the limits as fuses",
}


@dataclass(frozen=True)
class Call:
    step: int
    call_id: str
    tool: str
    fingerprint: str
    arguments: Any  # parsed, or None when they are not a JSON object
    status: str  # "ok" | "error" | "-" (never answered)
    result: str  # what the result says, canonical ("" when never answered)
    empty: bool


@dataclass
class Diagnosis:
    shape: str
    detected_at: Optional[int]  # the step at which the shape became detectable (None: healthy)
    tokens_after: int  # tokens spent after that step
    found: dict[str, int] = field(default_factory=dict)  # every shape that showed -> its detection step
    evidence: dict[str, str] = field(default_factory=dict)

    @property
    def fix(self) -> str:
        return FIXES[self.shape]


def _leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(_leaves(v) for v in value)
    return 0 if value in (None, "") else 1


def _read(content: str) -> tuple[str, bool]:
    """(canonical text of what the result says, is it empty)."""
    try:
        body = json.loads(content)
    except (ValueError, RecursionError):
        return " ".join(content.split()), not content.strip()
    if isinstance(body, dict) and "ok" in body:
        if not body.get("ok"):
            return f"error:{body.get('error_type')}", True
        body = body.get("data")
    failed = business_failure(body)  # HTTP 200 saying it failed, however deep: lesson 5's one rule
    if failed is not None:
        return f"error:{failed.error_type}", True
    return json.dumps(body, sort_keys=True, ensure_ascii=False), _leaves(body) == 0


def calls_of(records: list[dict[str, Any]]) -> list[Call]:
    """Every tool call the model made, in order, with the result it read back."""
    results = {r["call_id"]: r for rec in records if rec["kind"] == "results" for r in rec["results"]}
    out = []
    for rec in records:
        if rec["kind"] != "step":
            continue
        for c in rec["tool_calls"]:
            try:
                args = json.loads(c["arguments"])
            except (ValueError, RecursionError):
                args = None
            r = results.get(c["id"])
            text, empty = _read(r["content"]) if r else ("", True)
            status = "error" if r and text.startswith("error:") else r["status"] if r else "-"
            out.append(Call(rec["step"], c["id"], c["name"], c["fingerprint"], args if isinstance(args, dict) else None,
                            status, text, empty))
    return out


def _changed_words(a: Any, b: Any) -> Optional[bool]:
    """Did a free-text value change (True), only identifiers (False), or nothing comparable (None)?"""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return None
    changed = [v for k, v in b.items() if a.get(k) != v] + [v for k, v in a.items() if k not in b]
    texts = [" ".join(v.split()) for v in changed if isinstance(v, str)]
    if not changed:
        return None
    return any(" " in t for t in texts)


def classify(trace: Any) -> Diagnosis:
    records = load(trace)
    run = next((r for r in records if r["kind"] == "run"), {})
    volatile = {t["name"] for t in run.get("tools", []) if t.get("volatile")}
    schemas = {t["name"]: t.get("parameters") for t in run.get("tools", [])}
    today = parse_start(run["clock"]).date() if run.get("clock") else None

    def question(call: Call) -> str:
        """The call in lesson 3's canonical form: one question however it is spelt."""
        if call.arguments is None:
            return call.fingerprint
        return fingerprint(call.tool, call.arguments, schemas.get(call.tool), today)

    steps = [r for r in records if r["kind"] == "step"]
    found: dict[str, int] = {}
    evidence: dict[str, str] = {}

    def hit(shape: str, step: int, why: str) -> None:
        if shape not in found:
            found[shape], evidence[shape] = step, why

    seen: dict[str, list[Call]] = {}  # fingerprint -> its calls so far
    by_tool: dict[str, list[Call]] = {}
    errors = answered = 0
    reasks = {"drift": 0, "rephrase": 0}
    order: list[Call] = []
    for call in calls_of(records):
        answered += call.status != "-"
        errors += call.status == "error"
        if errors >= 2 and errors * 2 >= answered:
            hit("error_storm", call.step, f"{errors} of {answered} results were errors")
        earlier = seen.get(call.fingerprint, [])
        tool_calls = by_tool.get(call.tool, [])
        nothing_new = call.empty or any(call.result == c.result for c in tool_calls)
        if earlier and nothing_new:
            between = {c.tool for c in order[order.index(earlier[-1]) + 1:]} - {call.tool}
            stale = sum(1 for c in earlier if c.result == call.result or call.empty)
            if between:
                hit("cycle", call.step, f"{call.tool} came back after {', '.join(sorted(between))}")
            elif call.tool not in volatile or stale >= 2:
                hit("repeat", call.step, f"{call.fingerprint} again, nothing new")
        elif earlier and earlier[-1].status == "ok":  # the same call, a new answer: a status being watched
            hit("polling", call.step, f"{call.tool} asked again, and the answer changed")
        elif not earlier and tool_calls and nothing_new:
            words = _changed_words(tool_calls[-1].arguments, call.arguments)
            same_question = any(question(c) == question(call) for c in tool_calls if c.result == call.result)
            if words is not None and (words or same_question):
                kind = "rephrase" if words else "drift"
                reasks[kind] += 1
                if reasks[kind] >= 2:
                    hit(kind, call.step, f"{call.tool} asked in {reasks[kind] + 1} ways, nothing new")
        seen.setdefault(call.fingerprint, []).append(call)
        by_tool.setdefault(call.tool, []).append(call)
        order.append(call)

    if steps:
        base, big = steps[0]["input_tokens"], 0
        for before, step in zip(steps, steps[1:]):
            if step["input_tokens"] - before["input_tokens"] > 2 * base:
                big += 1
                if big >= 2:
                    hit("blowup", step["step"], f"request {step['step']}: {step['input_tokens']} tokens, "
                                                f"the first was {base}")
    problems = sorted((found[s], PROBLEMS.index(s), s) for s in PROBLEMS if s in found)
    shape = problems[0][2] if problems else ("polling" if "polling" in found else "healthy")
    at = found.get(shape) if shape != "healthy" else None
    total = steps[-1]["tokens_so_far"] if steps else 0
    upto = next((s["tokens_so_far"] for s in steps if s["step"] == at), total) if at else total
    return Diagnosis(shape, at, total - upto if shape in PROBLEMS else 0, found, evidence)
