"""The frameworks the bench drives, and the virtual environment each one runs in.

Each framework runs in a child process with its own venv (crewai pins openai<3, the kit needs 3.x), made
by the bench on first use with pip under ~/.cache/loopkit-bench/NAME ($LOOPKIT_BENCH_CACHE moves it).
Its driver is a plain script, reference/bench/drivers/NAME.py, that imports only the framework and the
standard library: the kit is never imported inside a framework's venv.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DRIVERS = Path(__file__).parent / "drivers"


@dataclass(frozen=True)
class Framework:
    name: str
    packages: tuple[str, ...]  # what pip installs in its venv (the versions measured are in docs/bench.md)
    shown: tuple[str, ...]  # the distributions whose versions the table shows
    note: str = ""

    @property
    def driver(self) -> Path:
        return DRIVERS / f"{self.name.replace('-', '_')}.py"


FRAMEWORKS = {f.name: f for f in [
    Framework("openai-agents", ("openai-agents>=0.2",), ("openai-agents",),
              "switched from Responses to Chat Completions (the bench's common wire)"),
    Framework("pydantic-ai", ("pydantic-ai-slim[openai]>=1.0",), ("pydantic-ai-slim",)),
    Framework("langgraph", ("langchain>=1.0", "langgraph>=1.0", "langchain-openai>=1.0"),
              ("langchain", "langgraph", "langchain-openai"),
              "langchain.agents.create_agent; recursion_limit 9,999 graph steps (set by create_agent)"),
    Framework("smolagents", ("smolagents[openai]>=1.20",), ("smolagents",),
              "ToolCallingAgent: answers through its final_answer tool, tool_choice required"),
    Framework("crewai", ("crewai>=1.0",), ("crewai", "openai"),
              "one Agent and Task in a Crew; max_iter 25; ends the run at the 5th identical call with the same result"),
]}


def cache_dir() -> Path:
    return Path(os.environ.get("LOOPKIT_BENCH_CACHE", Path.home() / ".cache" / "loopkit-bench"))


def python_of(framework: Framework) -> Path:
    return cache_dir() / framework.name / "bin" / "python"


def ready(framework: Framework) -> bool:
    return python_of(framework).exists()


def ensure_venv(framework: Framework, log=print) -> Path:
    """The venv's python, made with pip on first use (network: the package index, once)."""
    python = python_of(framework)
    if not python.exists():
        log(f"loopkit bench: making {python.parent.parent} ({' '.join(framework.packages)})")
        subprocess.run([sys.executable, "-m", "venv", str(python.parent.parent)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *framework.packages], check=True)
    return python


def versions(framework: Framework) -> str:
    """'name version, ...' as the framework's venv has them."""
    code = ("import importlib.metadata as m, sys\n"
            "print(', '.join(f'{n} {m.version(n)}' for n in sys.argv[1:]))")
    out = subprocess.run([str(python_of(framework)), "-c", code, *framework.shown], capture_output=True,
                         text=True, timeout=60)
    return out.stdout.strip() or "?"
