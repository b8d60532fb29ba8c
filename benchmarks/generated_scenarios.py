"""Generated scenarios: does the guarded loop keep its promises on runs nobody wrote by hand?

    python benchmarks/generated_scenarios.py            # 2,000 scenarios (seeds 0..1999), about a minute
    python benchmarks/generated_scenarios.py 500 --start 2000

Each scenario is drawn from a seeded generator (`scenario(seed)`): tools that answer, fail (timeouts,
429 with a short or a long Retry-After, 503, errors nested in an HTTP 200 body), return secrets or big
and growing outputs; a model that repeats itself, varies its arguments, calls in parallel, sends
malformed JSON, reacts to interventions or not, answers or never stops; step limits from 1 to 10, and
sometimes token, time or cost budgets. Both loops run it. Two promises are checked (issue 8, behaviour 13):

- a step is one model request, hard: the guarded loop never makes more model requests than the step
  limit, its last tool-less answer included (`overshoots`);
- it never spends more than 1.1 x the naive loop's tokens + 300 on the same scenario (`over_tokens`),
  in at least 99.5% of the scenarios.

Not drawn: a model that gives up when it reads a retryable error (a 429, a 503). The guarded loop
retries those in code and shows the model the success instead, so such a model carries on and does
more work than with the naive loop, which showed it the error: more tokens for a better answer, by
design (lesson 5), not an overspend.

tests/test_generated_scenarios.py runs the first 200 seeds in the suite; the figures of the full 2,000
are in docs/scenarios.md ("Generated scenarios").
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reference import Episode, parse_scenario  # noqa: E402
from reference.runs.registry import run_loop  # noqa: E402

KEYS = ["ok", "other", "slow", "busy", "wait", "down", "nested", "graphql", "secret", "big", "missing", "job"]
TOOLS = [
    {"name": "lookup", "description": "Look a key up.",
     "parameters": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
     "rules": [
         {"when": {"key": "ok"}, "result": {"data": {"value": 42}}},
         {"when": {"key": "other"}, "result": {"data": {"value": 7, "note": "another"}}},
         {"when": {"key": "slow"}, "results": [{"fault": "timeout", "timeout_seconds": 4}, {"data": {"value": 3}}]},
         {"when": {"key": "busy"}, "results": [{"fault": "rate_limit", "retry_after_seconds": 2}, {"data": {"v": 1}}]},
         {"when": {"key": "wait"}, "result": {"fault": "rate_limit", "retry_after_seconds": 400}},
         {"when": {"key": "down"}, "result": {"fault": "server_error"}},
         {"when": {"key": "nested"}, "result": {"data": {"response": {"ok": False, "error": {"code": "DECLINED"}}}}},
         {"when": {"key": "graphql"}, "result": {"data": {"errors": [{"message": "not found"}], "data": None}}},
         {"when": {"key": "secret"}, "result": {"data": {"dsn": "postgres://app:S3cretPw@db.internal:5432/x",
                                                          "key": "sk-live-4eC39HqLyjWDarjtT1zdp7dc"}}},
         {"when": {"key": "big"}, "result": {"size_chars": 6000}},
         {"when": {"key": "job"}, "result": {"data": {"job_id": "j1", "status": "FAILED"}}},
     ]},
    {"name": "tail_log", "description": "The next page of a log.", "volatile": True,
     "rules": [{"result": {"grow_chars": 1500}}]},
]


def _call(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.15:
        return {"tool": "tail_log", "args": {}}
    if rng.random() < 0.05:
        return {"tool": "lookup", "raw_args": rng.choice(['{"key": "ok"', "key=ok", "[1]"])}
    return {"tool": "lookup", "args": {"key": rng.choice(KEYS)}}


def _step(rng: random.Random) -> dict[str, Any]:
    calls = [_call(rng) for _ in range(1 if rng.random() < 0.75 else rng.randint(2, 3))]
    step: dict[str, Any] = {"calls": calls}
    if rng.random() < 0.3:
        step["text"] = "Let me look that up."
    return step


def scenario(seed: int) -> dict[str, Any]:
    """One generated scenario, as the YAML file would hold it."""
    rng = random.Random(f"generated:{seed}")
    script = [_step(rng) for _ in range(rng.randint(0, 7))]
    if rng.random() < 0.3:  # a model that repeats its last turn
        script += [script[-1]] * rng.randint(1, 3) if script else []
    model: dict[str, Any] = {"seed": rng.randint(0, 9), "wire": rng.choice(["openai-chat", "openai-responses"])}
    answers = rng.random() < 0.6
    model["script"] = script + ([{"answer": "Here is what I found: the value is 42."}] if answers else [])
    if not answers or not script:
        model["cycle"] = [_step(rng) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.4:  # cooperative: an intervention or an error both loops show makes it answer
        model["reactions"] = [{"when": {"error_type": ["loop_detected", "not_found", "rejected"]},
                               "then": [{"answer": "I could not get everything; the value is 42."}]}]
    limits: dict[str, Any] = {"max_steps": rng.randint(1, 10)}
    if rng.random() < 0.25:
        limits["max_run_tokens"] = rng.choice([800, 2_000, 6_000, 20_000])
    if rng.random() < 0.2:
        limits["max_seconds"] = rng.choice([5.0, 15.0, 60.0])
    if rng.random() < 0.1:
        limits["max_cost_usd"] = rng.choice([0.002, 0.01])
    return {"name": f"generated-{seed}", "title": "generated", "user": "Find the value of ok.",
            "checklist": [{"item": "look up ok", "tool": "lookup", "when": {"key": "ok"}}],
            "limits": limits, "tools": TOOLS, "model": model,
            "expect": {"completable": False, "stop_reason": [r for r in REASONS]}}


REASONS = ["completed", "max_steps", "token_budget", "time_budget", "cost_budget", "repeated_call", "alternation",
           "same_result", "no_progress", "circuit_open", "error", "cancelled"]


def measure(seed: int) -> dict[str, Any]:
    """Both loops on one generated scenario: the figures the promises are about."""
    data = scenario(seed)
    s = parse_scenario(data, f"generated-{seed}.yaml")
    naive = run_loop("react", Episode.from_scenario(s))
    guarded = run_loop("guarded", Episode.from_scenario(s))
    limit = s.limits.max_steps
    return {"seed": seed, "max_steps": limit, "naive_tokens": naive.usage.total_tokens,
            "guarded_tokens": guarded.usage.total_tokens, "guarded_calls": guarded.model_calls,
            "overshoot": guarded.model_calls > limit,
            "over_tokens": guarded.usage.total_tokens > 1.1 * naive.usage.total_tokens + 300,
            "stop": guarded.stop_reason.value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=2000)
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args()
    rows = [measure(seed) for seed in range(args.start, args.start + args.count)]
    over = [r for r in rows if r["over_tokens"]]
    overshoots = [r for r in rows if r["overshoot"]]
    share = 1 - len(over) / len(rows)
    print(f"{len(rows)} generated scenarios (seeds {args.start}..{args.start + args.count - 1})")
    print(f"step overshoots: {len(overshoots)}")
    print(f"guarded tokens <= 1.1 x naive + 300: {len(rows) - len(over)} ({share:.2%})")
    for r in over[:10]:
        print(f"  over: seed {r['seed']}: guarded {r['guarded_tokens']:,} vs naive {r['naive_tokens']:,} ({r['stop']})")
    sys.exit(0 if not overshoots and share >= 0.995 else 1)


if __name__ == "__main__":
    main()
