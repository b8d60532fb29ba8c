"""`loopkit demo`: every scenario of the catalogue, run by the reference loops, as a table or JSON."""
from __future__ import annotations

import argparse
import json
import time
from typing import Any

from ..runs.registry import LOOPS
from ..runs.runner import run_catalogue
from ..sim.scenario.loading import catalogue
from .table import cell, format_table

# "stop reason" is what the loop reported; "task done" is whether the user got the answer the scenario
# asks for, within its budgets. A loop can report `completed` with a wrong or late answer: the titles and
# the legend say which is which, so no reader has to guess (the JSON keys stay as they are).
LEGEND = """\
loop's stop reason  why the loop says it stopped (`completed`: it gave a final answer)
oracle              the model calls a loop that does the task needs (the scenario's oracle_model_calls);
                    -: the scenario is not completable (the model never gives the answer), so it has none
cost $              US dollars at the scenario's own illustrative prices, four decimals throughout
sim s               simulated seconds (the clock is simulated: nothing sleeps)
task done           the answer has what the scenario asks for, within its budgets: a loop can stop
                    with `completed` and still not have done the task
meets expect        every check of the scenario's expect block passes"""
DEMO_COLUMNS = [("scenario", "scenario"), ("stop_reason", "loop's stop reason"), ("model_calls", "model calls"),
                ("oracle_model_calls", "oracle"), ("tool_calls", "tool calls"), ("tokens", "tokens"),
                ("cost_usd", "cost $"), ("sim_seconds", "sim s"), ("completed", "task done"),
                ("meets_expect", "meets expect")]


# Lesson 7's `designed` loop is not in the default demo: its checklist ends runs that the expect blocks
# describe for loops where the model decides when to stop. `--loop designed` runs it; the README and
# notebook 07 carry its own before/after table.
DEMO_LOOPS = ("react", "guarded")


def dollars(value: float) -> str:
    """Every cost cell alike: four decimals, whatever the size (0.0190 beside 7.0400, never 7.04)."""
    return f"{value:,.4f}"


def oracle(value: Any) -> Any:
    return "-" if value is None else value  # none: not completable (the legend says so)


def _with_totals(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cost = sum(r["cost_usd"] for r in rows)
    for r in rows:
        r["tokens"] = r["input_tokens"] + r["output_tokens"]
        r["oracle_model_calls"], r["cost_usd"] = oracle(r["oracle_model_calls"]), dollars(r["cost_usd"])
    total = {"scenario": "TOTAL", "stop_reason": "",
             "completed": f"{sum(r['completed'] and r['completable'] for r in rows)}/{sum(r['completable'] for r in rows)} "
                          "completable",  # an answer where no loop can finish is not a task done
             "meets_expect": f"{sum(r['meets_expect'] for r in rows)}/{len(rows)}"}
    for key in ("model_calls", "tool_calls", "tokens", "sim_seconds"):
        total[key] = round(sum(r[key] or 0 for r in rows), 3)
    total["oracle_model_calls"] = sum(r["oracle_model_calls"] for r in rows if r["oracle_model_calls"] != "-")
    total["cost_usd"] = dollars(cost)
    return rows + [total]


def _side_by_side(rows: list[dict[str, Any]], loops: list[str]) -> str:
    """One line per scenario, each figure shown for every loop (naive / guarded)."""
    by = {(r["scenario"], r["loop"]): r for r in rows}
    names = list(dict.fromkeys(r["scenario"] for r in rows))
    metrics = [("stop_reason", "loop's stop reason"), ("model_calls", "model calls"), ("tokens", "tokens"),
               ("cost_usd", "cost $"), ("sim_seconds", "sim s"), ("completed", "task done"),
               ("meets_expect", "meets expect")]
    show = {"cost_usd": dollars}
    table = []
    for name in names:
        line = {"scenario": name, "oracle_model_calls": oracle(by[(name, loops[0])]["oracle_model_calls"])}
        for key, _ in metrics:
            line[key] = " / ".join(show.get(key, cell)(by[(name, loop)][key]) for loop in loops)
        table.append(line)
    total = {"scenario": "TOTAL", "oracle_model_calls": sum(by[(n, loops[0])]["oracle_model_calls"] or 0 for n in names)}
    for key, _ in metrics:
        parts = []
        for loop in loops:
            mine = [by[(n, loop)] for n in names]
            if key in ("stop_reason",):
                parts.append(f"{sum(r['stop_reason'] == 'completed' for r in mine)} completed")
            elif key in ("completed",):
                parts.append(f"{sum(r['completed'] and r['completable'] for r in mine)}/{sum(r['completable'] for r in mine)}")
            elif key == "meets_expect":
                parts.append(f"{sum(r['meets_expect'] for r in mine)}/{len(mine)}")
            else:
                parts.append(show.get(key, cell)(round(sum(r[key] for r in mine), 4)))
        total[key] = " / ".join(parts)
    columns = [("scenario", "scenario")] + metrics[:2] + [("oracle_model_calls", "oracle")] + metrics[2:]
    header = f"figures are {' / '.join(loops)}\n\n"
    return header + format_table(table + [total], [(k, t) for k, t in columns])


def cmd_demo(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    scenarios = catalogue()
    loops = args.loop or list(DEMO_LOOPS)
    rows = [r for loop in loops for r in run_catalogue(scenarios, loop, traces=args.traces)]
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
    print(f"\n{LEGEND}")
    print(f"\n{len(scenarios)} scenarios x {len(loops)} loop(s) in {time.perf_counter() - started:.2f} s "
          "(simulated clock, scripted model, no network)")
    return 0
