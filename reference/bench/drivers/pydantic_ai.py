"""Pydantic AI's default loop (Agent.run_sync, request_limit 50), on Chat Completions.

Run by `loopkit bench` with the framework's own venv: reads the run's spec (JSON) on stdin, prints one
JSON line {"answer", "error"} last. Imports the framework and the standard library only (and the
kit's guard, reference/bench/inside/, for a "+kit-guard" row).
"""
import json
import sys
import urllib.error
import urllib.request

from openai import AsyncOpenAI
from pydantic_ai import Agent, Tool
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

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
    def invoke(**kwargs):
        return call_tool(t["name"], json.dumps(kwargs))
    return Tool.from_schema(invoke, name=t["name"], description=t["description"], json_schema=t["parameters"])


client = AsyncOpenAI(base_url=spec["base_url"], api_key="loopkit", max_retries=0)
model = OpenAIChatModel(spec["model"], provider=OpenAIProvider(openai_client=client))
capabilities = []
if GUARD is not None:
    from reference.bench.inside.pydantic_ai import KitGuardCapability
    capabilities = [KitGuardCapability(GUARD)]
agent = Agent(model, system_prompt=spec["system"], tools=[tool(t) for t in spec["tools"]], capabilities=capabilities)
try:
    result = agent.run_sync(spec["user"])
    report(str(result.output), None)
except Exception as exc:
    report(None, f"{type(exc).__name__}: {exc}")
