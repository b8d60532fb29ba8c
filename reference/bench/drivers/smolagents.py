"""smolagents' ToolCallingAgent (max_steps 20): it answers only through its final_answer tool and
sends tool_choice "required". On Chat Completions.

Run by `loopkit bench` with the framework's own venv: reads the run's spec (JSON) on stdin, prints one
JSON line {"answer", "error"} last. Imports the framework and the standard library only (and the
kit's guard, reference/bench/inside/, for a "+kit-guard" row).
"""
import json
import os
import sys
import urllib.error
import urllib.request

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from smolagents import OpenAIServerModel, Tool, ToolCallingAgent  # noqa: E402

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
TYPES = {"string", "boolean", "integer", "number", "array", "object", "any", "null"}


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
    inputs = {}
    for key, schema in props.items():
        kind = schema.get("type", "any")
        inputs[key] = {"type": kind if kind in TYPES else "any", "description": schema.get("description", key)}
        if key not in required:
            inputs[key]["nullable"] = True

    class FakeTool(Tool):
        name, description, output_type = t["name"], t["description"], "string"
        skip_forward_signature_validation = True

        def forward(self, **kwargs):
            return call_tool(t["name"], json.dumps({k: v for k, v in kwargs.items() if v is not None}))
    FakeTool.inputs = inputs
    return FakeTool()


model = OpenAIServerModel(model_id=spec["model"], api_base=spec["base_url"], api_key="loopkit",
                          client_kwargs={"max_retries": 0})
tools, callbacks = [tool(t) for t in spec["tools"]], []
if GUARD is not None:
    from reference.bench.inside.smolagents import guarded_tool, hear_model_turns, kit_step_callback
    tools, callbacks = [guarded_tool(t, GUARD) for t in tools], [kit_step_callback(GUARD)]
agent = ToolCallingAgent(tools=tools, model=model, verbosity_level=0, step_callbacks=callbacks)
if GUARD is not None:
    hear_model_turns(agent, GUARD)
try:
    result = agent.run(spec["user"], return_full_result=True)
    if result.state == "success":
        report(str(result.output), None)
    else:  # max_steps reached: smolagents then asks the model for a last answer without tools
        report(None, f"MaxSteps: {result.state}; last answer {str(result.output)[:200]}")
except Exception as exc:
    report(None, f"{type(exc).__name__}: {exc}")
