"""LangChain's agent (langchain.agents.create_agent, a LangGraph graph), on Chat Completions.

Its step limit is the graph's `recursion_limit`, which `create_agent` sets to 9,999 super-steps (langchain 1.x
`agents/factory.py`: "Set recursion limit to 9_999", langgraph issue 7313; earlier 1.x releases set 10,000;
LangGraph's own default is 10,007 in 1.2, 25 before 1.0). A model call and a tool call are a super-step each,
so in effect there is no limit before the bench's request cap: a loop ends at the cap, not at the framework.

Run by `loopkit bench` with the framework's own venv: reads the run's spec (JSON) on stdin, prints one
JSON line {"answer", "error"} last. Imports the framework and the standard library only (and the
kit's guard, reference/bench/inside/, for a "+kit-guard" row).
"""
import json
import os
import sys
import urllib.error
import urllib.request

os.environ["LANGCHAIN_TRACING_V2"] = "false"
os.environ["LANGSMITH_TRACING"] = "false"

from langchain.agents import create_agent  # noqa: E402
from langchain_core.tools import StructuredTool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

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
    return StructuredTool.from_function(func=invoke, name=t["name"], description=t["description"],
                                        args_schema=t["parameters"])


model = ChatOpenAI(model=spec["model"], base_url=spec["base_url"], api_key="loopkit", max_retries=0)
middleware = []
if GUARD is not None:
    from reference.bench.inside.langchain import KitGuardMiddleware
    middleware = [KitGuardMiddleware(GUARD)]
agent = create_agent(model, tools=[tool(t) for t in spec["tools"]], system_prompt=spec["system"], middleware=middleware)
try:
    state = agent.invoke({"messages": [{"role": "user", "content": spec["user"]}]})
    report(str(state["messages"][-1].content), None)
except Exception as exc:
    report(None, f"{type(exc).__name__}: {exc}")
