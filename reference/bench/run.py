"""One framework on one scenario: a loopback server, the framework's driver in its venv, the verdict.

The driver gets the run's spec as JSON on stdin (the server's URL, the tool endpoint, the system and
user messages, the scenario's tools as name, description and JSON schema) and prints one JSON line
last: {"answer": text or null, "error": "Type: message" or null}. The figures come from the server's
books (model requests, tokens) and the scenario's pricing, not from the framework's own accounting.
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import time
from dataclasses import dataclass

from ..sim.clock import parse_start
from ..sim.scenario.schema import Scenario
from ..serve.http import ServeHTTP
from .frameworks import ROOT, Framework, python_of
from .host import TOOL_PATH, BenchApp
from .workers import WorkerDied, Workers

MODEL_NAME = "loopkit-scripted"
QUIET_ENV = {"OPENAI_API_KEY": "loopkit", "OPENAI_AGENTS_DISABLE_TRACING": "1", "LANGCHAIN_TRACING_V2": "false",
             "LANGSMITH_TRACING": "false", "HF_HUB_OFFLINE": "1", "DO_NOT_TRACK": "1", "ANONYMIZED_TELEMETRY": "false",
             "OTEL_SDK_DISABLED": "true", "CREWAI_DISABLE_TELEMETRY": "true"}


@dataclass
class Outcome:
    framework: str
    scenario: str
    model_calls: int  # requests the server answered (refused ones over the cap not counted)
    stop: str  # answered | refused at the cap | wall-time limit | the framework's exception type | the
    # kit's stop reason (its own loops) | "kit guard: PATTERN" (the kit's guard inside a framework)
    done: bool | None  # None: the scenario cannot be completed (an honest stop is the right end)
    input_tokens: int
    output_tokens: int
    cost: float
    tool_calls: int
    detail: str = ""
    interventions: int | None = None  # what the kit's guard did inside the framework (None: no guard in it)
    seconds: float | None = None  # the run's wall time: its requests, plus the imports in a fresh process
    cpu: float | None = None  # the forked run's own CPU seconds (None: a fresh process, imports and all)
    commit: str = ""  # the kit's commit the run was measured at ("+" after it: with uncommitted changes)


def spec_of(scenario: Scenario, base_url: str, framework: Framework | None = None) -> dict:
    """What the driver gets. The tools' declarations (MCP annotations, volatility, metadata keys) are what
    their authors declare, and the kit's guard reads them wherever it runs; the frameworks ignore them."""
    return {"base_url": f"{base_url}/v1", "tool_url": f"{base_url}{TOOL_PATH}", "model": MODEL_NAME,
            "scenario": scenario.source or scenario.name, "system": scenario.system, "user": scenario.user,
            "today": parse_start(scenario.clock).date().isoformat(), "intent": scenario.intent,
            "guard": bool(framework and framework.guard), "loop": framework.loop if framework else "",
            "tools": [{"name": t.name, "description": t.description, "parameters": t.parameters,
                       "annotations": None if t.annotations is None else dict(t.annotations),
                       "volatile": t.volatile, "metadata": list(t.metadata)} for t in scenario.tools]}


def run_one(framework: Framework, scenario: Scenario, *, timeout: float = 60.0, max_requests: int = 60,
            workers: Workers | None = None) -> Outcome:
    """One run against its own fresh server: in a fork of the framework's worker when `workers` is given
    (the framework already imported), else in a fresh process of the framework's venv."""
    app = BenchApp(scenario, max_requests=max_requests)
    with ServeHTTP(app, "127.0.0.1", 0) as server:
        spec, started = spec_of(scenario, server.base_url, framework), time.monotonic()
        said = (forked(workers, framework, spec, timeout) if workers is not None
                else fresh(framework, spec, timeout))
        books, seconds = app.books.figures(), round(time.monotonic() - started, 2)
    return verdict(framework, scenario, app, books, said, said.get("seconds", seconds))


def fresh(framework: Framework, spec: dict, timeout: float) -> dict:
    """The driver in a new process: it imports the framework, runs, and prints its JSON line."""
    try:
        # -I: the driver's folder is not on sys.path (drivers/pydantic_ai.py would shadow the framework)
        proc = subprocess.run([str(python_of(framework)), "-I", str(framework.driver)], capture_output=True,
                              text=True, timeout=timeout, env={**os.environ, **QUIET_ENV}, input=json.dumps(spec))
    except subprocess.TimeoutExpired:
        return {"answer": None, "error": f"wall-time limit ({timeout:g} s)"}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {"answer": None,
                                                "error": f"driver exit {proc.returncode}: {proc.stderr[-300:]}"}


def forked(workers: Workers, framework: Framework, spec: dict, timeout: float) -> dict:
    """The driver in a fork of the framework's worker; a worker that died or hung is said as the run's error."""
    try:
        answer = workers.run(python_of(framework), framework.driver, spec, timeout)
    except WorkerDied as died:
        return {"answer": None, "error": f"WorkerDied: {died}"[:300]}
    measured = {"cpu": answer["cpu"], "seconds": answer["seconds"]}  # the run's own, not the worker's start
    if answer["timed_out"]:
        return {"answer": None, "error": f"wall-time limit ({timeout:g} s)", **measured}
    said = json.loads(answer["stdout"]) if answer["stdout"] else {
        "answer": None, "error": f"driver exit {answer['exit']}: {answer['stderr']}"}
    return {**said, **measured}


def verdict(framework: Framework, scenario: Scenario, app: BenchApp, books: dict, said: dict,
            seconds: float | None = None) -> Outcome:
    answer, error = said.get("answer"), said.get("error") or ""
    if answer is not None:
        stop = "answered"
    elif books["refused_over_cap"]:
        stop = f"cap ({app.max_requests} calls)"
    elif error.startswith("wall-time"):
        stop = error
    elif error.startswith("LoopStopped:"):
        stop = "kit guard: " + error.split(":", 2)[1].strip()
    else:
        stop = error.split(":", 1)[0] or "no answer"
    pricing = scenario.model.pricing
    cost = (books["input_tokens"] * pricing.input_per_mtok + books["output_tokens"] * pricing.output_per_mtok) / 1e6
    return Outcome(framework.name, scenario.name, books["requests"], stop, task_done(scenario, answer, app.results),
                   books["input_tokens"], books["output_tokens"], cost, len(app.results), error[:200],
                   said.get("interventions"), seconds, said.get("cpu"), commit())


@functools.lru_cache(maxsize=1)
def commit() -> str:
    """The kit's commit, "+" if its code (reference/) has uncommitted changes; "" outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=30)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "reference"], cwd=ROOT,
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if head.returncode:
        return ""
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def task_done(scenario: Scenario, answer: str | None, results: list[tuple[str, bool, str]]) -> bool | None:
    """Really done: the expected facts are in the final answer, and every tool the task needs gave a
    successful result (so the facts could come from one, not from the script alone)."""
    if not scenario.expect.completable:
        return None
    if answer is None:
        return False
    facts = all(fact.lower() in answer.lower() for fact in scenario.expect.answer_contains)
    needed = set(scenario.expect.must_call) or {name for name, _, _ in results}
    succeeded = {name for name, ok, _ in results if ok}
    return facts and bool(succeeded) and needed <= succeeded
