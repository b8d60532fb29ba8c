"""The OpenAI Agents SDK's default loop (Runner.run, max_turns 10), on Chat Completions.

Run by `loopkit bench` with the framework's own venv: reads the run's spec (JSON) on stdin, prints one
JSON line {"answer", "error"} last. Imports the framework and the standard library only.
"""
import json
import sys
import urllib.error
import urllib.request

from agents import Agent, FunctionTool, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

spec = json.load(sys.stdin)


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
    async def invoke(ctx, args_json):
        return call_tool(t["name"], args_json)
    return FunctionTool(name=t["name"], description=t["description"], params_json_schema=t["parameters"],
                        on_invoke_tool=invoke, strict_json_schema=False)


set_tracing_disabled(True)
client = AsyncOpenAI(base_url=spec["base_url"], api_key="loopkit", max_retries=0)
agent = Agent(name="bench", instructions=spec["system"], tools=[tool(t) for t in spec["tools"]],
              model=OpenAIChatCompletionsModel(model=spec["model"], openai_client=client))
try:
    result = Runner.run_sync(agent, spec["user"])
    print(json.dumps({"answer": str(result.final_output), "error": None}))
except Exception as exc:
    print(json.dumps({"answer": None, "error": f"{type(exc).__name__}: {exc}"[:300]}))
