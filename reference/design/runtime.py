"""The checklist runtime: the model proposes, code decides, the runtime keeps the record.

An executor that wraps another (lesson 5's, or the plain one) and plugs into the guarded loop:

    offered   the route's tools whose checklist items are still open; none once every tool item is
              done, so the next request can only be the answer (the checklist ends the run, not a fuse)
    execute   a tool outside the route is refused; a slot settled in code replaces the model's value;
              a call whose item is already done is answered from the state, not run again (a lost
              state update cannot happen: the runtime, not the model, records each step); a result
              is validated before it enters the state (HTTP 200 with `success: false` is no success)
    render    once the checklist is complete, code renders the card the route names

The guard of lesson 3 stays in the loop as the last line; with this design it should have nothing to do.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..core.messages import ToolCall, ToolMessage, ToolSpec
from ..core.toolresult import read_body, to_json, tool_error
from ..harness.episode import Episode
from ..loops.hooks import Executor, PlainExecutor, Stop
from .router import Route, route_for
from .state import RunState


# The states of work that has not finished, as the standards for long-running work name them: GitHub's
# check runs and workflow runs (queued, in_progress, pending), Azure's long-running operations (NotStarted,
# Running), MCP's tasks (working, input_required); Google's AIP-151 operations say `done: false`.
PENDING = frozenset({"queued", "pending", "in_progress", "notstarted", "running", "working", "input_required"})


def unfinished(data: dict[str, Any]) -> bool:
    """Does the result say its work is still under way? Then it is a call made, not the outcome in hand."""
    if data.get("done") is False:
        return True
    return any(isinstance(data.get(k), str) and data[k].strip().lower().replace(" ", "_") in PENDING
               for k in ("status", "state"))


def validated(content: str) -> Optional[dict[str, Any]]:
    """The result's data if the call really did the item's job, else None: `ok` true, an object, not
    `success: false` (HTTP 200 with a business failure), not empty (no flights is no answer), not work
    still under way (a build `queued` is not a build that passed)."""
    body = read_body(content)
    if body is None or body.get("ok") is not True or not isinstance(body.get("data"), dict):
        return None
    data = body["data"]
    if data.get("success") is False or unfinished(data):
        return None
    if not any(v not in (None, "", [], {}) for k, v in data.items() if k != "success"):
        return None
    return data


def trend_card(state: RunState) -> dict[str, Any]:
    """The trend card, rendered by code from the recorded trend: no tool call, no model decision."""
    trend = next((i.result for i in state.checklist if i.tool == "get_metric_trend" and i.result), {})
    return {"card_type": "metric_trend", **{k: trend[k] for k in ("period", "trend", "average") if k in trend}}


RENDERERS: dict[str, Callable[[RunState], dict[str, Any]]] = {"trend_card": trend_card}


def without_slots(spec: ToolSpec, slots: dict[str, str]) -> ToolSpec:
    """The tool as offered: the parameters code settles are not the model's to choose."""
    params = copy.deepcopy(spec.parameters)
    props = params.get("properties", {})
    settled = [s for s in slots if s in props]
    if not settled:
        return spec
    for s in settled:
        props.pop(s)
    if "required" in params:
        params["required"] = [r for r in params["required"] if r not in settled]
    return ToolSpec(spec.name, spec.description, params)


@dataclass
class ChecklistRuntime(Executor):
    route: Route
    state: RunState
    inner: Executor = field(default_factory=PlainExecutor)

    @classmethod
    def for_episode(cls, episode: Episode, inner: Optional[Executor] = None) -> "ChecklistRuntime":
        route = route_for(episode.scenario)
        state = RunState.for_checklist(route.intent, episode.scenario.checklist, route.slots)
        return cls(route, state, inner or PlainExecutor())

    def offered(self, episode: Episode) -> list[ToolSpec]:
        specs = self.inner.offered(episode)
        if self.state.open_tools == set() and self._on_checklist_any():
            return []
        open_tools = self.state.open_tools
        keep = [s for s in specs if s.name in self.route.tools and (not open_tools or s.name in open_tools
                                                                    or not self._on_checklist(s.name))]
        return [without_slots(s, self.route.slots) for s in keep]

    def execute(self, episode: Episode, call: ToolCall) -> ToolMessage:
        if call.name in episode.tools.tools and call.name not in self.route.tools:
            episode.trace.event("design", action="refused", tool=call.name, detail="not one of the intent's tools")
            why = ("What the app shows is decided in code." if self.route.routed else
                   "The request's intent is not clear, so only these are offered; if the task needs another, "
                   "answer with what is missing and the user can say more.")
            return tool_error(call.id, "tool_not_offered", f"'{call.name}' is not one of this task's tools "
                              f"({', '.join(self.route.tools)}). {why}")
        try:
            args = call.parsed_arguments()
        except ValueError:
            return self.inner.execute(episode, call)  # the executor's own answer to malformed JSON
        settled = {**args, **{k: v for k, v in self.route.slots.items() if k in self._properties(episode, call.name)}}
        if settled != args:
            episode.trace.event("design", action="slot", tool=call.name, proposed=args, settled=settled)
            call = ToolCall(call.id, call.name, json.dumps(settled, ensure_ascii=False))
        done = next((i for i in self.state.checklist if i.done and i.matches(call.name, settled)), None)
        if done is not None:
            episode.trace.event("design", action="already_done", tool=call.name, item=done.name)
            return ToolMessage(call.id, to_json({"ok": True, "data": done.result,
                                                 "note": f"already done ({done.name}); not run again"}))
        result = self.inner.execute(episode, call)
        data = validated(result.content)
        if data is not None and (item := self.state.record(call.name, settled, call.id, data)) is not None:
            episode.trace.event("design", action="recorded", tool=call.name, item=item.name,
                                open=sorted(self.state.open_tools))
            self._render_if_complete(episode)
        return result

    def after_step(self, episode: Episode) -> Optional[Stop]:
        return self.inner.after_step(episode)

    def after_model_failure(self, episode: Episode, exc: BaseException, attempt: int) -> Optional[Stop]:
        return self.inner.after_model_failure(episode, exc, attempt)

    def _render_if_complete(self, episode: Episode) -> None:
        if self.state.tools_done and self.route.renders and self.state.card is None:
            self.state.card = RENDERERS[self.route.renders](self.state)
            episode.trace.event("design", action="rendered", card=self.state.card)

    def _on_checklist_any(self) -> bool:
        return any(i.tool for i in self.state.checklist)

    def _on_checklist(self, tool: str) -> bool:
        return any(i.tool == tool for i in self.state.checklist)

    @staticmethod
    def _properties(episode: Episode, tool: str) -> dict[str, Any]:
        spec = next((s for s in episode.tools.specs if s.name == tool), None)
        return spec.parameters.get("properties", {}) if spec else {}
