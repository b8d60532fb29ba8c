"""`loopkit`: run the scenario catalogue, one scenario, or an exercise's tests, from the shell."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from ..runs.registry import LOOPS
from ..core.errors import ProtocolError, ScenarioError, ScriptExhausted
from .table import cell, format_table
from ..sim.scenario.loading import catalogue, find

ROOT = Path(__file__).resolve().parent.parent.parent
HINTS = Path(__file__).resolve().parent.parent / "hints"
EXERCISES = {  # exercise -> (module in exercises/ and solutions/, its test file in tests/)
    "ex01": ("ex01_react_loop", "test_ex01_react_loop.py"),
    "ex02": ("ex02_budget", "test_ex02_budget.py"),
    "ex03": ("ex03_fingerprint_guard", "test_ex03_fingerprint_guard.py"),
    "ex04": ("ex04_degraded_output", "test_ex04_degraded_output.py"),
    "ex05": ("ex05_tool_errors", "test_ex05_tool_errors.py"),
}


DEMO_COLUMNS = [("scenario", "scenario"), ("stop_reason", "stop reason"), ("model_calls", "model calls"),
                ("oracle_model_calls", "oracle"), ("tool_calls", "tool calls"), ("tokens", "tokens"),
                ("cost_usd", "cost $"), ("sim_seconds", "sim s"), ("completed", "completed"),
                ("meets_expect", "meets expect")]


def _with_totals(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for r in rows:
        r["tokens"] = r["input_tokens"] + r["output_tokens"]
    total = {"scenario": "TOTAL", "stop_reason": "",
             "completed": f"{sum(r['completed'] for r in rows)}/{sum(r['completable'] for r in rows)} completable",
             "meets_expect": f"{sum(r['meets_expect'] for r in rows)}/{len(rows)}"}
    for key in ("model_calls", "oracle_model_calls", "tool_calls", "tokens", "sim_seconds"):
        total[key] = round(sum(r[key] or 0 for r in rows), 3)
    total["cost_usd"] = round(sum(r["cost_usd"] for r in rows), 6)
    return rows + [total]


def _side_by_side(rows: list[dict[str, Any]], loops: list[str]) -> str:
    """One line per scenario, each figure shown for every loop (naive / guarded)."""
    by = {(r["scenario"], r["loop"]): r for r in rows}
    names = list(dict.fromkeys(r["scenario"] for r in rows))
    metrics = [("stop_reason", "stop reason"), ("model_calls", "model calls"), ("tokens", "tokens"),
               ("cost_usd", "cost $"), ("completed", "completed"), ("meets_expect", "meets expect")]
    table = []
    for name in names:
        line = {"scenario": name, "oracle_model_calls": by[(name, loops[0])]["oracle_model_calls"]}
        for key, _ in metrics:
            line[key] = " / ".join(cell(by[(name, loop)][key]) for loop in loops)
        table.append(line)
    total = {"scenario": "TOTAL", "oracle_model_calls": ""}
    for key, _ in metrics:
        parts = []
        for loop in loops:
            mine = [by[(n, loop)] for n in names]
            if key in ("stop_reason",):
                parts.append(f"{sum(r['stop_reason'] == 'completed' for r in mine)} completed")
            elif key in ("completed",):
                parts.append(f"{sum(r['completed'] for r in mine)}/{sum(r['completable'] for r in mine)}")
            elif key == "meets_expect":
                parts.append(f"{sum(r['meets_expect'] for r in mine)}/{len(mine)}")
            else:
                parts.append(cell(round(sum(r[key] for r in mine), 4)))
        total[key] = " / ".join(parts)
    columns = [("scenario", "scenario")] + metrics[:2] + [("oracle_model_calls", "oracle")] + metrics[2:]
    header = f"figures are {' / '.join(loops)}\n\n"
    return header + format_table(table + [total], [(k, t) for k, t in columns])


def cmd_demo(args: argparse.Namespace) -> int:
    from ..runs.runner import run_catalogue

    started = time.perf_counter()
    scenarios = catalogue()
    loops = args.loop or list(LOOPS)
    rows = [r for loop in loops for r in run_catalogue(scenarios, loop)]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False, allow_nan=False))  # JSON has no NaN: fail, never print it
        return 0
    for r in rows:
        r["tokens"] = r["input_tokens"] + r["output_tokens"]
    for loop in loops:
        print(f"{loop}: {LOOPS[loop][1]}")
    print()
    if len(loops) == 1:
        print(format_table(_with_totals([dict(r) for r in rows]), DEMO_COLUMNS))
    else:
        print(_side_by_side(rows, loops))
    print(f"\n{len(scenarios)} scenarios x {len(loops)} loop(s) in {time.perf_counter() - started:.2f} s "
          "(simulated clock, scripted model, no network)")
    return 0


def cmd_scenarios(args: argparse.Namespace) -> int:
    scenarios = catalogue()
    width = max(len(s.name) for s in scenarios)
    for s in scenarios:
        kind = "completable" if s.expect.completable else "not completable"
        print(f"{s.name.ljust(width)}  {s.title}  [{kind}; expect {' or '.join(s.expect.stop_reasons)}]")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from ..runs.runner import evaluate, row, run

    scenario = find(args.scenario)
    result = run(scenario, args.loop, seed=args.seed)
    record = row(scenario, result)
    record["answer"] = result.answer
    checks = evaluate(scenario, result)
    if args.json:
        record["degraded"] = result.degraded if not hasattr(result.degraded, "to_dict") else result.degraded.to_dict()
        record["expect"] = [{"check": c.name, "ok": c.ok, "detail": c.detail} for c in checks]
        print(json.dumps(record, indent=2, ensure_ascii=False, default=str, allow_nan=False))
        return 0
    print(f"{scenario.name}: {scenario.title}\nloop: {args.loop}\n")
    for step in result.steps:
        calls = ", ".join(f"{c['name']}({c['arguments']})" for c in step.tool_calls) or "(answer)"
        print(f"  step {step.step:>2}  in={step.input_tokens:>6} out={step.output_tokens:>4}  {calls[:110]}")
        for t in step.tools:
            status = "ok" if t.ok else (t.exception or (t.outcome or {}).get("error_type"))
            print(f"           -> {t.name}: {status} ({t.seconds:.2f}s)")
    print(f"\nstop reason: {result.stop_reason.value}" + (f" ({result.detail})" if result.detail else ""))
    print(f"answer: {result.answer!r}")
    print(f"model calls {record['model_calls']} (oracle {record['oracle_model_calls']}), tool calls "
          f"{record['tool_calls']}, tokens {record['input_tokens']}+{record['output_tokens']}, "
          f"cost ${record['cost_usd']:.4f}, simulated {record['sim_seconds']:.1f} s")
    print("\nexpect:")
    for c in checks:
        print(f"  {'PASS' if c.ok else 'FAIL'}  {c.detail}")
    return 0


def _hints(exercise: str) -> list[str]:
    path = HINTS / f"{exercise}.md"
    if not path.exists():
        raise SystemExit(f"loopkit: no hints for {exercise!r}; exercises: {', '.join(EXERCISES)}")
    parts = path.read_text(encoding="utf-8").split("\n## Hint ")
    return [p.split("\n", 1)[1].strip() for p in parts[1:]]


def cmd_hint(args: argparse.Namespace) -> int:
    hints = _hints(args.exercise)
    n = max(1, min(args.n, len(hints)))
    print(f"{args.exercise}, hint {n} of {len(hints)}:\n\n{hints[n - 1]}")
    if n < len(hints):
        print(f"\n(more: loopkit hint {args.exercise} {n + 1})")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    import contextlib
    import io

    import pytest

    if args.exercise not in EXERCISES:
        raise SystemExit(f"loopkit: unknown exercise {args.exercise!r}; exercises: {', '.join(EXERCISES)}")
    test_file = ROOT / "tests" / EXERCISES[args.exercise][1]
    if not test_file.exists():
        raise SystemExit(f"loopkit: {test_file} not found; run `loopkit check` from a clone of the kit "
                         "installed with `pip install -e .`")

    class Collector:
        def __init__(self) -> None:
            self.reports: list[Any] = []

        def pytest_runtest_logreport(self, report: Any) -> None:
            if report.when == "call" or report.outcome == "failed":
                self.reports.append(report)

    collector = Collector()
    target = "solutions" if args.solutions else "exercises"
    with contextlib.redirect_stdout(io.StringIO()) as pytest_output:  # the per-test lines below say it all
        code = pytest.main([str(test_file), f"--target={target}", "-q", "-p", "no:cacheprovider", "--no-header",
                            "--tb=no", "-rN", "-W", "ignore", "-p", "no:nbval", "-p", "no:hypothesispytest"],
                           plugins=[collector])
    if code not in (0, 1):  # 0: all passed, 1: some failed; anything else is a usage or collection error
        print(pytest_output.getvalue())
    failed = [r for r in collector.reports if r.failed]
    for r in collector.reports:
        name = r.nodeid.split("::")[-1]
        print(f"  {'PASS' if r.passed else 'FAIL'}  {name}")
        if r.failed:
            message = _failure_message(r)
            print("        " + message.replace("\n", "\n        "))
    passed = len(collector.reports) - len(failed)
    print(f"\n{args.exercise}: {passed} passed, {len(failed)} failed")
    if failed:
        print(f"\nHint 1: {_hints(args.exercise)[0]}\n(more: loopkit hint {args.exercise} 2)")
    return 1 if failed or not collector.reports else 0


def _failure_message(report: Any) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    lines = [line for line in text.splitlines() if line.strip()]
    first = lines[0].removeprefix("Failed: ").removeprefix("AssertionError: ") if lines else "failed"
    return first[:400]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="loopkit", description="Agent Loop Interview Kit: scripted failures for agent loops.")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="run the whole catalogue with the reference loop(s)")
    d.add_argument("--json", action="store_true", help="print a JSON array, one object per scenario and loop")
    d.add_argument("--loop", action="append", choices=list(LOOPS), help="only this loop (repeatable)")
    d.set_defaults(func=cmd_demo)
    s = sub.add_parser("scenarios", help="list the scenario catalogue")
    s.set_defaults(func=cmd_scenarios)
    r = sub.add_parser("run", help="run one scenario (catalogue name or YAML path)")
    r.add_argument("scenario", help="a catalogue name (see `loopkit scenarios`) or a path to a YAML file")
    r.add_argument("--loop", default="react", choices=list(LOOPS))
    r.add_argument("--seed", type=int, default=None, help="seed for the model's stochastic policy")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_run)
    c = sub.add_parser("check", help="run an exercise's tests against your code in exercises/")
    c.add_argument("exercise", choices=list(EXERCISES))
    c.add_argument("--solutions", action="store_true", help="check the reference solution instead")
    c.set_defaults(func=cmd_check)
    h = sub.add_parser("hint", help="print a hint for an exercise (they escalate: 1, 2, 3...)")
    h.add_argument("exercise", choices=list(EXERCISES))
    h.add_argument("n", nargs="?", type=int, default=1)
    h.set_defaults(func=cmd_hint)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ScenarioError as exc:
        print(f"loopkit: invalid scenario\n{exc}", file=sys.stderr)
        return 2
    except (ScriptExhausted, ProtocolError) as exc:
        # the loop is fine; the scenario's script is too short, or a request broke the protocol
        print(f"loopkit: the run could not go on: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
