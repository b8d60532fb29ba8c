"""Where one `loopkit bench` run's time goes: the driver's imports, the driver's own work, the server's work.

    python benchmarks/bench_run_cost.py langgraph repeat-exact [crewai happy-path ...]

CPU seconds, not wall time (the machine is shared, and CPU time does not grow with other people's load):
the driver child's CPU (getrusage of children) for one run (`reference.bench.run.run_one`), the CPU of a
child that only imports what the driver imports, and this process's own CPU during the run (the loopback
server, the scenario's model and fake tools, in threads of this process). Wall time is shown beside them.
"""
from __future__ import annotations

import resource
import subprocess
import sys
import time

from reference.bench.frameworks import FRAMEWORKS, ensure_venv, python_of
from reference.bench.run import run_one
from reference.sim.scenario.loading import find

IMPORTS = {"openai-agents": "import agents, openai", "pydantic-ai": "import pydantic_ai.models.openai, openai",
           "langgraph": "import langchain.agents, langchain_core.tools, langchain_openai",
           "smolagents": "import smolagents", "crewai": "import crewai, crewai.tools",
           "kit": "import openai, reference.runs.registry, reference.providers.adapters, reference.harness.episode"}


def cpu(who: int) -> float:
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


def main(pairs: list[str]) -> None:
    print("| row | scenario | model calls | wall s | driver CPU s | of which imports | server CPU s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, scenario in zip(pairs[::2], pairs[1::2]):
        framework = FRAMEWORKS[name]
        ensure_venv(framework)
        before = cpu(resource.RUSAGE_CHILDREN)
        subprocess.run([str(python_of(framework)), "-I", "-c", IMPORTS[framework.venv or framework.name]], check=True)
        imports = cpu(resource.RUSAGE_CHILDREN) - before
        child, server, began = cpu(resource.RUSAGE_CHILDREN), cpu(resource.RUSAGE_SELF), time.monotonic()
        outcome = run_one(framework, find(scenario), timeout=600)
        print(f"| {name} | {scenario} | {outcome.model_calls} | {time.monotonic() - began:.1f} | "
              f"{cpu(resource.RUSAGE_CHILDREN) - child:.1f} | {imports:.1f} | {cpu(resource.RUSAGE_SELF) - server:.1f} |",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
