"""The frameworks the bench drives, and the virtual environment each one runs in.

Each framework runs in a child process with its own venv (crewai pins openai<3, the kit needs 3.x), made
by the bench on first use with pip under ~/.cache/loopkit-bench/NAME ($LOOPKIT_BENCH_CACHE moves it).
Its driver is a plain script, reference/bench/drivers/NAME.py, that imports the framework and the
standard library; a "+ kit guard" row runs the same driver with the kit's guard installed through the
framework's own extension point (reference/bench/inside/NAME.py). For those rows the kit is installed
into the framework's venv with `pip install --no-deps`: the guard's parts import no SDK and no pydantic,
so the framework keeps its own pins. The kit's own loops (drivers/kit.py) run in the kit's interpreter.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DRIVERS = Path(__file__).parent / "drivers"
ROOT = Path(__file__).resolve().parents[2]  # the kit's checkout: pyproject.toml and reference/
GUARDED = "+kit-guard"
# What the guard itself needs besides the standard library (the kit's pins for them, in pyproject.toml):
# dates in any spelling, the airports' names, SQL's tokens (numbers spelled and CLDR's data ship with the kit as
# tables, reference/parts/guards/cldr_*.json). None is an SDK; none depends on openai or pydantic.
GUARD_NEEDS = ("python-dateutil>=2.8", "airportsdata>=20250101", "sqlparse>=0.5,<1")


@dataclass(frozen=True)
class Framework:
    name: str
    packages: tuple[str, ...]  # what pip installs in its venv (the versions measured are in docs/bench.md)
    shown: tuple[str, ...]  # the distributions whose versions the table shows
    note: str = ""
    hook: str = ""  # where the kit's guard goes in: "before the tool: ..." or "after the step: ..."
    venv: str = ""  # the venv it runs in (default: its name); "kit": the kit's own interpreter
    guard: bool = False  # this row runs with the kit's guard inside the framework
    loop: str = ""  # the kit's own loop, for the kit's rows

    @property
    def driver(self) -> Path:
        return DRIVERS / f"{(self.venv or self.name).replace('-', '_')}.py"

    def with_guard(self) -> "Framework":
        return Framework(self.name + GUARDED, self.packages, self.shown, f"with the kit's guard: {self.hook}",
                         self.hook, self.venv or self.name, guard=True)


KIT = [Framework("kit-react", (), ("agent-loop-interview-kit", "openai"), "lesson 1's ReAct loop; the scenario's "
                 "step limit", venv="kit", loop="react"),
       Framework("kit-guarded", (), ("agent-loop-interview-kit", "openai"), "lessons 2-5: budgets, the loop guard, "
                 "degraded outputs, resilient tools; the scenario's step limit", venv="kit", loop="guarded")]
ALONE = [
    Framework("openai-agents", ("openai-agents>=0.2",), ("openai-agents",),
              "Runner.run, max_turns 10; switched from Responses to Chat Completions (the bench's common wire)",
              "before the tool: a tool input guardrail (reject_content; raise_exception to stop) and a tool "
              "output guardrail on each function_tool (its failure_error_function keeps the exception); run hooks' "
              "on_llm_end marks each turn, on_llm_start ends a stopped run"),
    Framework("pydantic-ai", ("pydantic-ai-slim[openai]>=1.0",), ("pydantic-ai-slim",),
              "Agent.run, request_limit 50 (UsageLimits)",
              "before the tool: a capability's wrap_tool_execute (the handler is not called); a stop raises there "
              "or from before_model_request"),
    Framework("langgraph", ("langchain>=1.0", "langgraph>=1.0", "langchain-openai>=1.0"),
              ("langchain", "langgraph", "langchain-openai"),
              "langchain.agents.create_agent; recursion_limit 9,999 graph steps (set by create_agent)",
              "before the tool: AgentMiddleware.wrap_tool_call (the handler is not called); a stop jumps to the "
              "end from before_model"),
    Framework("smolagents", ("smolagents[openai]>=1.20",), ("smolagents",),
              "ToolCallingAgent, max_steps 20: answers through its final_answer tool, tool_choice required; retries a "
              "rate-limited model request itself (3 attempts: it waits 60 s, then 2 to 4 times as long)",
              "before the tool: each Tool's forward wrapped (no hook before a tool exists), the model message "
              "heard from process_tool_calls; a stop through a step callback (agent.interrupt(), after the step)"),
    Framework("crewai", ("crewai>=1.0",), ("crewai", "openai"),
              "one Agent and Task in a Crew; max_iter 25; ends the run at the 5th identical call with the same result",
              "before the tool: a before-tool-call hook blocks, the after-tool-call hook gives the feedback; a stop "
              "aborts the next LLM call (the before-LLM-call hook raises HookAborted)"),
]
FRAMEWORKS = {f.name: f for f in [*KIT, *(g for f in ALONE for g in (f, f.with_guard()))]}
# The rows whose results the kit's guard decides: a change to the guard makes them stale, and only them.
GUARD_ROWS = tuple(f.name for f in FRAMEWORKS.values() if f.guard or f.loop == "guarded")


def cache_dir() -> Path:
    return Path(os.environ.get("LOOPKIT_BENCH_CACHE", Path.home() / ".cache" / "loopkit-bench"))


def python_of(framework: Framework) -> Path:
    if framework.venv == "kit":
        return Path(sys.executable)
    return cache_dir() / (framework.venv or framework.name) / "bin" / "python"


def ready(framework: Framework) -> bool:
    return python_of(framework).exists()


def ensure_venv(framework: Framework, log=print) -> Path:
    """The venv's python, made with pip on first use (network: the package index, once)."""
    python = python_of(framework)
    if framework.venv == "kit":
        return python
    if not python.exists():
        log(f"loopkit bench: making {python.parent.parent} ({' '.join(framework.packages)})")
        subprocess.run([sys.executable, "-m", "venv", str(python.parent.parent)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *framework.packages], check=True)
    if framework.guard:
        ensure_kit(python, log)
    return python


GUARD_FILES = ("import json, sys, reference.bench.kitguard\n"
               "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()\n"
               "                        if n.split('.')[0] == 'reference' and getattr(m, '__file__', None))))")


def kit_digest() -> str:
    """A digest of the files the guard runs (kitguard.py and what it imports, and inside/): the kit's copy
    in a framework's venv is replaced when one of them changes, not when the rest of the kit does."""
    found = subprocess.run([sys.executable, "-c", GUARD_FILES], capture_output=True, text=True, timeout=120, check=True)
    files = {*json.loads(found.stdout.splitlines()[-1]), *map(str, (ROOT / "reference" / "bench" / "inside").glob("*.py"))}
    digest = hashlib.sha256()
    for path in sorted(Path(f).resolve() for f in files):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def ensure_kit(python: Path, log=print) -> None:
    """The kit in a framework's venv without its dependencies (`pip install --no-deps`), then the two small
    packages the guard needs (GUARD_NEEDS): the framework keeps its own openai and pydantic."""
    if not (ROOT / "pyproject.toml").exists():
        raise RuntimeError(f"the kit's guard rows install the kit from its source checkout; none at {ROOT}")
    stamp, digest = python.parent.parent / "loopkit-kit.sha256", kit_digest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    log(f"loopkit bench: installing the kit into {python.parent.parent} (--no-deps)")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(ROOT)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-warn-conflicts", *GUARD_NEEDS], check=True)
    stamp.write_text(digest)


def versions(framework: Framework) -> str:
    """'name version, ...' as the framework's venv has them."""
    if not python_of(framework).exists():
        return "?"  # its runs were all kept from a results file, and its venv is not on this machine
    code = ("import importlib.metadata as m, sys\n"
            "print(', '.join(f'{n} {m.version(n)}' for n in sys.argv[1:]))")
    out = subprocess.run([str(python_of(framework)), "-c", code, *framework.shown], capture_output=True,
                         text=True, timeout=60)
    return out.stdout.strip() or "?"
