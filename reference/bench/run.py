"""One framework on one scenario: a loopback server, the framework's driver in its venv, the verdict.

The driver gets the run's spec as JSON on stdin (the server's URL, the tool endpoint, the system and
user messages, the scenario's tools as name, description and JSON schema) and prints one JSON line
last: {"answer": text or null, "error": "Type: message" or null}. The figures come from the server's
books (model requests, tokens) and the scenario's pricing, not from the framework's own accounting.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass

from ..sim.clock import parse_start
from ..sim.scenario.schema import Scenario
from ..serve.http import ServeHTTP
from .frameworks import Framework, python_of
from .host import TOOL_PATH, BenchApp

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
    seconds: float | None = None  # the run's wall time: the driver's start-up (imports) and its requests


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


def run_one(framework: Framework, scenario: Scenario, *, timeout: float = 60.0, max_requests: int = 60) -> Outcome:
    app = BenchApp(scenario, max_requests=max_requests)
    with ServeHTTP(app, "127.0.0.1", 0) as server:
        env, started = {**os.environ, **QUIET_ENV}, time.monotonic()
        try:
            # -I: the driver's folder is not on sys.path (drivers/pydantic_ai.py would shadow the framework)
            proc = subprocess.run([str(python_of(framework)), "-I", str(framework.driver)], capture_output=True,
                                  text=True, timeout=timeout, env=env,
                                  input=json.dumps(spec_of(scenario, server.base_url, framework)))
            lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
            said = json.loads(lines[-1]) if lines else {"answer": None,
                                                         "error": f"driver exit {proc.returncode}: {proc.stderr[-300:]}"}
        except subprocess.TimeoutExpired:
            said = {"answer": None, "error": f"wall-time limit ({timeout:g} s)"}
        books, seconds = app.books.figures(), round(time.monotonic() - started, 2)
    return verdict(framework, scenario, app, books, said, seconds)


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
                   said.get("interventions"), seconds)


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
