"""CrewAI: one Agent with one Task in a Crew (Crew.kickoff), its LLM on CrewAI's native OpenAI provider,
on Chat Completions. Its own limits, from its source (crewai 1.15): Agent.max_iter 25 iterations
(agents/agent_builder/base_agent.py), max_execution_time None, max_retry_limit 2 (agent/core.py); and a
repeat guard of its own: the fifth identical call that got the same result ends the run with
ToolExecutionFailedError (utilities/agent_utils.py, MAX_REPEATED_TOOL_CALLS = 5). Its other one, a call
the same as the one just before is not run (tools/tool_usage.py, `_check_tool_repeated_usage`), is on the
ReAct text path only; with function calling, as here, every identical call runs.
A tool that raises is answered with CrewAI's error text.
In its own venv: crewai pins openai below 3.

Run by `loopkit bench` with the framework's own venv: reads the run's spec (JSON) on stdin, prints one
JSON line {"answer", "error"} last. Imports the framework and the standard library only (and the
kit's guard, reference/bench/inside/, for a "+kit-guard" row) (pydantic comes
with CrewAI).
"""
import json
import os
import sys
import urllib.error
import urllib.request

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from crewai import LLM, Agent, Crew, Task  # noqa: E402
from crewai.tools import BaseTool  # noqa: E402
from pydantic import create_model  # noqa: E402

spec = json.load(sys.stdin)

GUARD = None
if spec.get("guard"):  # the kit's guard inside the framework: the kit is installed here with --no-deps
    from reference.bench.kitguard import KitGuard
    GUARD = KitGuard.for_spec(spec)


def report(answer, error):
    """The driver's last line. A run the kit's guard stopped says so, whatever the framework made of it."""
    if GUARD is not None and GUARD.stopping is not None:
        answer, error = None, f"LoopStopped: {GUARD.stopping.pattern}: {GUARD.stopping.detail}"
    print(json.dumps({"answer": answer, "error": error and error[:300],
                      "interventions": None if GUARD is None else len(GUARD.events)}))
TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def call_tool(name, arguments):
    """The kit's fake tool, run by the bench behind POST /loopkit/tool; the answer is the result text.
    A tool that fails raises here, as real tool code does: an HTTP error status as urllib's HTTPError, a
    timeout as TimeoutError, any other failure as RuntimeError; the framework's error path does the rest."""
    body = json.dumps({"name": name, "arguments": arguments}).encode()
    request = urllib.request.Request(spec["tool_url"], body, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.read().decode()
    except urllib.error.HTTPError as failed:
        raised = failed.headers.get("x-loopkit-raised", "HTTPError")
        if raised == "HTTPError":
            raise
        raise (TimeoutError if raised == "TimeoutError" else RuntimeError)(failed.read().decode()) from None


def tool(t):
    props, required = t["parameters"].get("properties", {}), set(t["parameters"].get("required", []))
    fields = {key: (TYPES.get(s.get("type"), str), ...) if key in required
              else (TYPES.get(s.get("type"), str) | None, None) for key, s in props.items()}

    class FakeTool(BaseTool):
        name: str = t["name"]
        description: str = t["description"]
        args_schema: type = create_model(f"{t['name']}_args", **fields)

        def _run(self, **kwargs):
            return call_tool(t["name"], json.dumps({k: v for k, v in kwargs.items() if v is not None}))
    return FakeTool()


if GUARD is not None:
    from reference.bench.inside.crewai import install
    install(GUARD)

llm = LLM(model=f"openai/{spec['model']}", base_url=spec["base_url"], api_key="loopkit", max_retries=0)
agent = Agent(role="assistant", goal="Answer the user's request", backstory=spec["system"], llm=llm,
              tools=[tool(t) for t in spec["tools"]], verbose=False)
task = Task(description=spec["user"], expected_output="The answer to the user's request", agent=agent)
try:
    result = Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
    report(str(result.raw), None)
except Exception as exc:
    report(None, f"{type(exc).__name__}: {exc}")
