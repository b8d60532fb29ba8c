"""The OpenAI Agents SDK's default loop (Runner.run, max_turns 10: DEFAULT_MAX_TURNS in run_config.py), on
Chat Completions. Tools are made with `function_tool`, as its users make them, so a tool that raises goes
through the SDK's default failure_error_function (the model reads a fixed "An error occurred while running
the tool. Please try again."); a FunctionTool built by hand would let the exception end the run instead.

Run by `loopkit bench` with the framework's own venv: reads the run's spec (JSON) on stdin, prints one
JSON line {"answer", "error"} last. Imports the framework and the standard library only (and the
kit's guard, reference/bench/inside/, for a "+kit-guard" row).
"""
import inspect
import json
import sys
import urllib.error
import urllib.request

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from openai import AsyncOpenAI

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


TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def tool(t):
    """A function with the tool's parameters as its signature, made a tool by `function_tool`."""
    props, required = t["parameters"].get("properties", {}), set(t["parameters"].get("required", []))
    params = [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY,
                                annotation=TYPES.get(schema.get("type"), str) if key in required
                                else TYPES.get(schema.get("type"), str) | None,
                                default=inspect.Parameter.empty if key in required else None)
              for key, schema in props.items()]

    def invoke(**kwargs):
        return call_tool(t["name"], json.dumps({k: v for k, v in kwargs.items() if v is not None}))
    invoke.__signature__ = inspect.Signature(params)
    invoke.__annotations__ = {p.name: p.annotation for p in params}
    options = {}
    if GUARD is not None:
        from reference.bench.inside.openai_agents import kit_tool_options
        options = kit_tool_options(GUARD)
    return function_tool(invoke, name_override=t["name"], description_override=t["description"], strict_mode=False,
                         **options)


set_tracing_disabled(True)
client = AsyncOpenAI(base_url=spec["base_url"], api_key="loopkit", max_retries=0)
agent = Agent(name="bench", instructions=spec["system"], tools=[tool(t) for t in spec["tools"]],
              model=OpenAIChatCompletionsModel(model=spec["model"], openai_client=client))
try:
    hooks = None
    if GUARD is not None:
        from reference.bench.inside.openai_agents import KitGuardHooks
        hooks = KitGuardHooks(GUARD)
    result = Runner.run_sync(agent, spec["user"], hooks=hooks)
    report(str(result.final_output), None)
except Exception as exc:
    report(None, f"{type(exc).__name__}: {exc}")
