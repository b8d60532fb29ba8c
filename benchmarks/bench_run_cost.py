"""Where one `loopkit bench` run's CPU goes, a fresh process per run against a fork of a worker per framework.

    python benchmarks/bench_run_cost.py langgraph repeat-exact [crewai happy-path ...]

CPU seconds, not wall time (the machine is shared, and CPU time does not grow with other people's load).
Each pair runs twice, as `loopkit bench --fresh` runs it and as `loopkit bench` runs it:
- fresh: the driver child's CPU (getrusage of children) for one run in a new process, and the CPU of a
  child that only imports what the driver imports;
- forked: the run's own CPU in a fork of the framework's worker (as the fork server measured it with
  wait4), and the worker's CPU for its imports, paid once per venv however many runs follow.
The server's side (the loopback server, scripted model and fake tools, threads of this process) is the
same either way and is shown once, from the fresh run. Wall time is shown beside them.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

from reference.bench.frameworks import FRAMEWORKS, ensure_venv, python_of
from reference.bench.run import QUIET_ENV, run_one
from reference.bench.workers import Workers
from reference.sim.scenario.loading import find

IMPORTS = {"openai-agents": "import agents, openai", "pydantic-ai": "import pydantic_ai.models.openai, openai",
           "langgraph": "import langchain.agents, langchain_core.tools, langchain_openai",
           "smolagents": "import smolagents", "crewai": "import crewai, crewai.tools",
           "kit": "import openai, reference.runs.registry, reference.providers.adapters, reference.harness.episode"}


def cpu(who: int) -> float:
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


def main(pairs: list[str]) -> None:
    print("| row | scenario | model calls | fresh: wall s | fresh: driver CPU s | of which imports | "
          "forked: wall s | forked: run CPU s | worker's imports CPU s (once per venv) | server CPU s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    fresh_total = forked_total = 0.0
    with Workers({**os.environ, **QUIET_ENV}) as workers:
        for name, scenario in zip(pairs[::2], pairs[1::2]):
            framework = FRAMEWORKS[name]
            ensure_venv(framework)
            before = cpu(resource.RUSAGE_CHILDREN)
            subprocess.run([str(python_of(framework)), "-I", "-c", IMPORTS[framework.venv or framework.name]],
                           check=True, env={**os.environ, **QUIET_ENV})
            imports = cpu(resource.RUSAGE_CHILDREN) - before
            child, server, began = cpu(resource.RUSAGE_CHILDREN), cpu(resource.RUSAGE_SELF), time.monotonic()
            outcome = run_one(framework, find(scenario), timeout=600)
            fresh_wall, fresh_cpu = time.monotonic() - began, cpu(resource.RUSAGE_CHILDREN) - child
            server = cpu(resource.RUSAGE_SELF) - server
            had = {id(w) for w in workers.started}
            forked = run_one(framework, find(scenario), timeout=600, workers=workers)
            new = [w for w in workers.started if id(w) not in had]
            worker_imports = f"{new[0].imports_cpu:.1f}" if new else "(started before)"
            fresh_total += fresh_cpu
            forked_total += (forked.cpu or 0.0) + (new[0].imports_cpu if new else 0.0)
            assert (forked.stop, forked.model_calls) == (outcome.stop, outcome.model_calls), (outcome, forked)
            print(f"| {name} | {scenario} | {outcome.model_calls} | {fresh_wall:.1f} | {fresh_cpu:.1f} | {imports:.1f} | "
                  f"{forked.seconds:.1f} | {forked.cpu:.1f} | {worker_imports} | {server:.1f} |", flush=True)
    print(f"\nthese {len(pairs) // 2} runs' driver CPU: fresh {fresh_total:.1f} s; forked {forked_total:.1f} s "
          "(runs plus each worker's imports once)")


if __name__ == "__main__":
    main(sys.argv[1:])
