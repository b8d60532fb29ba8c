"""The bench's loopback server: the scenario's model (`loopkit serve`'s app) plus its tools.

A framework runs its own tools; the bench's drivers make each one a POST to /loopkit/tool, which runs
the scenario's fake tool in this process (reference/sim/tools.py, through the episode's Toolbox, as the
kit's own loops do) and answers with the result text the model then reads. The tool results are kept,
to tell later whether a fact in the final answer came from a successful tool result.
"""
from __future__ import annotations

import json
import threading
from http import HTTPStatus
from itertools import count

from ..core.messages import ToolCall
from ..harness.episode import Episode
from ..serve.app import ServeApp
from ..serve.scenario_model import ScenarioModel

TOOL_PATH = "/loopkit/tool"
RAISED = "x-loopkit-raised"  # what the driver raises for a failed tool
TEXT = {"content-type": "text/plain; charset=utf-8"}


class BenchApp(ServeApp):
    def __init__(self, scenario, *, max_requests: int | None = None, seed: int | None = None):
        super().__init__(scenario, seed=seed, max_requests=max_requests)
        self.episode = Episode.from_scenario(scenario, seed=seed)  # its toolbox: fake tools on a simulated clock
        self.tool_lock = threading.Lock()  # frameworks may run tool calls in parallel threads
        self.ids = count(1)
        self.results: list[tuple[str, bool, str]] = []  # (tool, ok, result text) per tool call
        for server in self.servers.values():  # the model tells the tools' own output from an intervention
            if isinstance(getattr(server, "model", None), ScenarioModel):
                server.model.outputs = self.episode.tools.outputs

    def respond(self, method: str, path: str, headers: dict[str, str],
                content: bytes) -> tuple[int, dict[str, str], bytes]:
        if method == "POST" and path == TOOL_PATH:
            status, extra, text = self.run_tool(content)
            return status, {**TEXT, **extra}, text.encode("utf-8")
        return super().respond(method, path, headers, content)

    def run_tool(self, content: bytes) -> tuple[int, dict[str, str], str]:
        """(HTTP status, extra headers, body) for one tool call the driver forwards."""
        try:
            asked = json.loads(content)
            name, arguments = str(asked["name"]), asked.get("arguments", "{}")
        except (ValueError, KeyError, TypeError):
            return 400, {}, "bad tool request: a JSON object with name and arguments"
        arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call, tools = ToolCall(f"bench_{next(self.ids)}", name, arguments), self.episode.tools
        with self.tool_lock:
            try:
                args = call.parsed_arguments() if name in tools.tools else None
            except ValueError:
                args = None
            if args is None:  # an unknown tool or unparsable arguments: the toolbox's own answer, as a result
                answer = tools.execute(call)
                self.results.append((name, not answer.is_error, answer.content))
                return 200, {}, answer.content
            try:
                outcome = tools.invoke(name, args, call.id)
            except Exception as exc:  # the tool's code raised: the framework's tool function raises too
                raised = "TimeoutError" if isinstance(exc, TimeoutError) else "RuntimeError"
                message = str(exc) or f"{name} failed: {type(exc).__name__}"
                tools.outputs.record_raised(name, args, message)
                self.results.append((name, False, f"raised {raised}: {message}"))
                return 500, {RAISED: raised}, message
            text = outcome.to_content()
            self.results.append((name, outcome.ok, text))
            if not outcome.ok and outcome.http_status >= 400:  # the service's error status: the client raises
                phrase = HTTPStatus(outcome.http_status).phrase if outcome.http_status in HTTPStatus._value2member_map_ else ""
                tools.outputs.record_raised(name, args, f"HTTP Error {outcome.http_status}: {phrase}", returned=True)
                return outcome.http_status, {RAISED: "HTTPError"}, text
            return 200, {}, text
