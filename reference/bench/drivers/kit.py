"""The kit's own loops (`react`: lesson 1; `guarded`: lessons 2-5) on the bench's HTTP path, beside the
frameworks: the model over Chat Completions through the official `openai` SDK (the kit's
providers/adapters.py), each tool a POST to the bench's tool endpoint, exactly as the frameworks' tools.
The step limit is the scenario's (`limits.max_steps`), as `loopkit run` uses it.

Run by `loopkit bench` with the kit's own interpreter: reads the run's spec (JSON) on stdin, prints one
JSON line {"answer", "error"} last.
"""
import json
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass

import openai

from reference.core.result import StopReason
from reference.harness.episode import Episode
from reference.providers.adapters import OpenAIChatModel
from reference.runs.registry import run_loop
from reference.sim.scenario.loading import find
from reference.sim.tools import ToolOutcome, ToolTimeout

spec = json.load(sys.stdin)


@dataclass(frozen=True)
class Forwarded(ToolOutcome):
    """A result the bench's tool host returned: the text the model reads, as it came."""

    text: str = ""

    def to_content(self) -> str:
        return self.text


def call_tool(name, arguments):
    """The kit's fake tool, run by the bench behind POST /loopkit/tool; the answer is the result text.
    A tool that fails raises here, as real tool code does: an HTTP error status as urllib's HTTPError, a
    timeout as TimeoutError, any other failure as RuntimeError (the same function as the frameworks')."""
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


def outcome_of(text, status=200):
    """The host's result text as the ToolOutcome it was made from (the guarded loop's parts read its fields,
    the model reads `text` as it came)."""
    try:
        said = json.loads(text)
    except ValueError:
        said = None
    if not isinstance(said, dict):
        return Forwarded(status < 400, data=said, http_status=status, text=text)
    if said.get("ok") is False:
        return Forwarded(False, error_type=said.get("error_type"), retryable=bool(said.get("retryable")),
                         message=said.get("message"), http_status=status, retry_after=said.get("retry_after"),
                         text=text)
    return Forwarded(True, data=said.get("data", said), http_status=status, text=text)


def forwarding(name):
    """The kit's tool function: call_tool, its failures as the kit's toolbox expects them (a timeout as
    ToolTimeout, an HTTP error status as a failed outcome with that status; anything else raises)."""
    def call(args):
        try:
            text = call_tool(name, json.dumps(args))
        except urllib.error.HTTPError as failed:
            return outcome_of(failed.read().decode(), failed.code)
        except TimeoutError as exc:
            raise ToolTimeout(str(exc)) from None
        return outcome_of(text)
    return call


client = openai.OpenAI(base_url=spec["base_url"], api_key="loopkit", max_retries=0)
episode = Episode.from_scenario(find(spec["scenario"]), model=OpenAIChatModel(client, model=spec["model"]))
for tool_name in list(episode.tools.tools):
    episode.tools.tools[tool_name] = forwarding(tool_name)
try:
    result = run_loop(spec["loop"], episode)
    if result.stop_reason is StopReason.COMPLETED:
        print(json.dumps({"answer": result.answer or "", "error": None}))
    else:
        print(json.dumps({"answer": None, "error": f"{result.stop_reason.value}: {result.detail or ''}"[:300]}))
except Exception as exc:
    print(json.dumps({"answer": None, "error": f"{type(exc).__name__}: {exc}"[:300]}))
