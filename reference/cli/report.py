"""`loopkit report`: fleet metrics over traces (files or folders of .jsonl), over the catalogue, or over
a seeded fleet of one task family; one row per run, the metrics, and the alert rules. Given the JSON Lines
of `loopkit diagnose --json` (one shard or many, told apart by content), the fleet of those verdicts."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..diagnosis.fleet import alerts, fleet_metrics, report
from ..diagnosis.fleetlog import FleetSummary, fleet_lines
from ..harness.episode import Episode
from ..harness.trace import Trace
from ..runs.registry import run_loop
from ..sim.scenario.loading import catalogue, find
from .table import cell, format_table

COLUMNS = [("scenario", "scenario"), ("loop", "loop"), ("seed", "seed"), ("stop_reason", "stop reason"),
           ("steps", "steps"), ("tool_calls", "tool calls"), ("tool_errors", "errors"), ("tokens", "tokens"),
           ("cost_usd", "cost $"), ("shape", "shape"), ("detected_at", "at step")]


def _files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        out += sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
    return out


def _traces(args: argparse.Namespace) -> list[Any]:
    """What to report on: the given trace files, else fresh runs (a fleet, or the catalogue) in memory."""
    if args.traces:
        return [str(p) for p in _files(args.traces)]
    if args.fleet:
        scenario = find(args.fleet)
        seeds = range(1, args.runs + 1)
        episodes = [Episode.from_scenario(scenario, seed=s, trace=Trace()) for s in seeds]
    else:
        episodes = [Episode.from_scenario(s, trace=Trace()) for s in catalogue()]
    for episode in episodes:
        run_loop(args.loop, episode)
    return [e.trace for e in episodes]


def _is_verdicts(path: Path) -> bool:
    """A `loopkit diagnose --json` shard: its first line is a judged conversation."""
    try:
        with open(path, encoding="utf-8") as f:
            first = json.loads(f.readline() or "null")
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and {"source", "conversation", "calls", "shape"} <= set(first)


def _verdict_report(files: list[Path], as_json: bool) -> int:
    fleet = FleetSummary()
    for path in files:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                try:
                    fleet.add(json.loads(line))
                except (ValueError, TypeError, AttributeError) as exc:
                    print(f"loopkit report: {path}: line {number}: not a diagnose verdict ({exc}) (skipped)",
                          file=sys.stderr)
    summary = fleet.to_dict()
    print(json.dumps(summary, indent=2) if as_json else "\n".join(fleet_lines(summary)))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    files = _files(args.traces) if args.traces else []
    if files and all(_is_verdicts(p) for p in files):
        return _verdict_report(files, args.json)
    traces = _traces(args)
    if not traces:
        print("loopkit report: no traces found")
        return 2
    metrics = fleet_metrics(traces)
    fired = alerts(metrics)
    if args.json:
        print(json.dumps({"runs": report(traces), "metrics": metrics, "alerts": fired}, indent=2, default=str))
        return 0
    print(format_table(report(traces), COLUMNS))
    print(f"\nruns {metrics['runs']}, completed {metrics['completion_rate']:.0%}, "
          f"fallback (degraded) {metrics['fallback_rate']:.0%}")
    print("stop reasons: " + ", ".join(f"{k} {v}" for k, v in metrics["stop_reasons"].items()))
    print("tool rounds per intent: " + "; ".join(
        f"{intent} p50 {q['p50']} p95 {q['p95']} p99 {q['p99']}" for intent, q in metrics["tool_rounds"].items()))
    print(f"duplicate tool calls {metrics['duplicate_call_rate']:.1%}, tool errors {metrics['tool_error_rate']:.1%}, "
          f"steps with nothing new {metrics['stale_step_rate']:.1%}, candidate tools per request "
          f"{metrics['candidate_tools']['mean']:.1f} (max {metrics['candidate_tools']['max']})")
    print(f"P99 steps {metrics['p99_steps']}, P99 cost per user request (a run) "
          f"${metrics['p99_cost_per_user_request']:.4f}, costliest ${metrics['max_cost_per_user_request']:.4f}, "
          f"P99 cost per model call ${metrics['p99_cost_per_model_call']:.4f}, "
          f"cost per completed task ${metrics['cost_per_completed_task']:.4f}\n")
    print(format_table([{**a, "fires": "FIRES" if a["fires"] else "ok", "value": cell(a["value"])} for a in fired],
                       [("alert", "alert"), ("value", "value"), ("threshold", "threshold"), ("fires", "")]))
    for a in fired:
        if a["fires"]:
            print(f"  {a['alert']}: {a['meaning']}")
    return 0
