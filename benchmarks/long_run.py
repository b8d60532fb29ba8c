"""Cost per step: does the harness's own work stay flat as the history grows?

    python benchmarks/long_run.py                 # 1,000 and 5,000 steps, each in a fresh process
    python benchmarks/long_run.py 1000 --one      # one size, in this process (prints one line)

A run of N steps: the model pages through a listing (`list_items(page=i)`, every page a new result,
so no guard has a reason to stop it), then answers. Measured for each N in a fresh process:

- wall time of the whole run with the lesson-1 loop (`react`), with the guarded loop and its budget
  only (`budget only`), and with budget and guard switched on (`guarded`): the harness meters, the
  scripted model, the protocol check, the token estimate;
- peak resident memory of the process (ru_maxrss);
- the guard's and the budget's own time per step (median over the run's steps, in microseconds), together
  and each apart (the guard, reference/parts/guards/, and the budget, reference/parts/budget.py, are
  made flat by separate changes).

Figures and the machine they were measured on: docs/benchmarks.md. Not a test: wall time depends on
the machine.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reference import Episode, parse_scenario  # noqa: E402
from reference.loops.guarded import guarded_loop  # noqa: E402
from reference.loops.hooks import Parts  # noqa: E402
from reference.loops.react import react_loop  # noqa: E402
from reference.parts.budget import RunBudget  # noqa: E402
from reference.parts.guards import LoopGuard  # noqa: E402


def paging_scenario(steps: int) -> Any:
    return parse_scenario({
        "name": f"paging-{steps}", "title": f"{steps} pages", "user": "List every item.",
        "limits": {"max_steps": steps + 1, "max_run_tokens": 10**15, "max_seconds": 1e12, "max_cost_usd": 1e12},
        "tools": [{"name": "list_items", "description": "One page of the listing.",
                   "parameters": {"type": "object", "properties": {"page": {"type": "integer"}}, "required": ["page"]},
                   "rules": [{"when": {"page": i}, "result": {"data": {"page": i, "items": [f"item-{i}-a", f"item-{i}-b"]}}}
                             for i in range(1, steps + 1)]}],
        "model": {"script": [{"call": {"tool": "list_items", "args": {"page": i}}} for i in range(1, steps + 1)]
                  + [{"answer": "Done: every page listed."}]},
        "expect": {"completable": True, "stop_reason": "completed"},
    }, "benchmark")


def timed(obj: Any, name: str, into: list[float]) -> None:
    """Wrap obj.name so that each call's duration is appended to `into`."""
    inner: Callable[..., Any] = getattr(obj, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            into.append(time.perf_counter() - started)

    setattr(obj, name, wrapper)


def one(steps: int) -> str:
    scenario = paging_scenario(steps)
    started = time.perf_counter()
    naive = react_loop(Episode.from_scenario(scenario), max_steps=steps + 1)
    naive_seconds = time.perf_counter() - started

    episode = Episode.from_scenario(scenario)  # the guarded loop with its budget only: the harness's share
    started = time.perf_counter()
    guarded_loop(episode, steps + 1, Parts(budget=RunBudget.from_limits(episode.limits)))
    budget_only_seconds = time.perf_counter() - started

    episode = Episode.from_scenario(scenario)
    budget, guard = RunBudget.from_limits(episode.limits), LoopGuard.for_episode(episode)  # every limit checked
    spent: list[float] = []  # every hook call, in order: 5 a paging step
    budget_spent: list[float] = []
    guard_spent: list[float] = []
    for obj, names, mine in ((budget, ("before_request", "before_tool"), budget_spent),
                             (guard, ("before_call", "after_result", "after_step"), guard_spent)):
        for name in names:
            timed(obj, name, spent)
            timed(obj, name, mine)
    started = time.perf_counter()
    guarded = guarded_loop(episode, steps + 1, Parts(budget=budget, guard=guard))
    guarded_seconds = time.perf_counter() - started
    assert naive.model_calls == guarded.model_calls == steps + 1, (naive.model_calls, guarded.model_calls)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (f"{steps:>6} steps  react {naive_seconds:6.2f} s  budget only {budget_only_seconds:6.2f} s  "
            f"guarded {guarded_seconds:6.2f} s  "
            f"peak {peak_mb:6.0f} MB  guard+budget median {median_per_step(spent, 5):6.0f} us/step "
            f"(guard {median_per_step(guard_spent, 3):.0f}, budget {median_per_step(budget_spent, 2):.0f})")


def median_per_step(spent: list[float], calls: int) -> float:
    """The median over the steps of the time of `calls` consecutive hook calls (one step's), in us."""
    per_step = [sum(spent[i:i + calls]) for i in range(0, len(spent) - calls + 1, calls)]
    return statistics.median(per_step) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("steps", nargs="*", type=int, default=[1000, 5000])
    parser.add_argument("--one", action="store_true", help="run one size in this process")
    args = parser.parse_args()
    if args.one:
        print(one(args.steps[0]))
        return
    for steps in args.steps:  # a fresh process each, so that peak memory is that run's own
        subprocess.run([sys.executable, __file__, str(steps), "--one"], check=True)


if __name__ == "__main__":
    main()
