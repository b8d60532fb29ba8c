"""The bench's loopback server: the scenario's model (`loopkit serve`'s app) plus its tools.

A framework runs its own tools; the bench's drivers make each one a POST to /loopkit/tool, which runs
the scenario's fake tool in this process (reference/sim/tools.py, through the episode's Toolbox, as the
kit's own loops do) and answers with the result text the model then reads. The tool results are kept,
to tell later whether a fact in the final answer came from a successful tool result.
"""
from __future__ import annotations

import json
import threading
from itertools import count

from ..core.messages import ToolCall
from ..harness.episode import Episode
from ..serve.app import ServeApp
from ..serve.scenario_model import ScenarioModel

TOOL_PATH = "/loopkit/tool"


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
            return 200, {"content-type": "text/plain; charset=utf-8"}, self.run_tool(content).encode("utf-8")
        return super().respond(method, path, headers, content)

    def run_tool(self, content: bytes) -> str:
        try:
            asked = json.loads(content)
            name, arguments = str(asked["name"]), asked.get("arguments", "{}")
        except (ValueError, KeyError, TypeError):
            return json.dumps({"ok": False, "error_type": "invalid_request", "message": "bad tool request"})
        arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
        with self.tool_lock:
            answer = self.episode.tools.execute(ToolCall(f"bench_{next(self.ids)}", name, arguments))
            self.results.append((name, not answer.is_error, answer.content))
        return answer.content
