"""`loopkit run`: one scenario (a catalogue name or a YAML path), step by step, checked against its expect block."""
from __future__ import annotations

import argparse
import json
import sys

from ..providers.live import CostCapReached, LiveConnectionError, LiveSetupError, live_model
from ..runs.runner import evaluate, row, run
from ..sim.scenario.loading import find


def cmd_run(args: argparse.Namespace) -> int:
    scenario = find(args.scenario)
    model = None
    if args.live:
        if args.max_cost is None:
            print("loopkit run --live: give a hard cost cap with --max-cost USD", file=sys.stderr)
            return 2
        try:
            model, pricing = live_model(args.live, args.max_cost, max_tokens=args.max_tokens)
        except LiveSetupError as exc:
            print(f"loopkit run --live: {exc}", file=sys.stderr)
            return 2
        # the run's cost at the live model's prices (providers/prices.json), not the scenario's illustrative ones
        prices = scenario.model.pricing.model_copy(update={"input_per_mtok": pricing.input_per_mtok,
                                                           "output_per_mtok": pricing.output_per_mtok})
        scenario = scenario.model_copy(update={"model": scenario.model.model_copy(update={"pricing": prices})})
    try:
        result = run(scenario, args.loop, seed=args.seed, trace=args.trace, model=model)
    except CostCapReached as exc:
        print(f"loopkit run --live: stopped by the cost cap: {exc}", file=sys.stderr)
        return 4
    except LiveConnectionError as exc:
        print(f"loopkit run --live: {exc}", file=sys.stderr)
        return 2
    record = row(scenario, result)
    record["answer"] = result.answer
    checks = evaluate(scenario, result)
    if args.json:
        record["degraded"] = result.degraded if not hasattr(result.degraded, "to_dict") else result.degraded.to_dict()
        record["expect"] = [{"check": c.name, "ok": c.ok, "detail": c.detail} for c in checks]
        print(json.dumps(record, indent=2, ensure_ascii=False, default=str, allow_nan=False))
        return 0
    print(f"{scenario.name}: {scenario.title}\nloop: {args.loop}" + (f"\nlive: {args.live}" if args.live else "") + "\n")
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
    if args.trace:
        print(f"\ntrace: {args.trace} (read it with `loopkit trace {args.trace}`)")
    return 0
