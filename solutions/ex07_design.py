"""Exercise 7 (solution): fix the design, not the fuse, for the metric-trend task.

The router offers only the intent's tools and settles the period in code; a typed state with a
checklist (`metric_recorded`, `trend_loaded`) is updated by the runtime from validated results, never
by the model; once it is complete no tool is offered, so the next request is the answer. A plan is
checked against the intent's template before anything runs.
"""
from __future__ import annotations

import json
import re
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict

from reference.core.messages import ToolCall, ToolMessage, ToolSpec
from reference.core.toolresult import read_body, to_json
from reference.loops.hooks import PlainExecutor

INTENT_TOOLS = {"record_and_trend": ("record_metric", "get_metric_trend")}
TEMPLATE = {"required": ("record_metric", "get_metric_trend"), "allowed": ("record_metric", "get_metric_trend"),
            "order": (("record_metric", "get_metric_trend"),)}


def route(user: str, tools: list[str]) -> list[str]:
    """The tools of the request's intent, in the offered order. Unsure of the intent, never every tool: no
    more than an intent offers, those whose names share a word with the request (all, if no more)."""
    text = user.lower()
    if "record" in text and "trend" in text:
        return [t for t in tools if t in INTENT_TOOLS["record_and_trend"]]
    limit = max(len(names) for names in INTENT_TOOLS.values())
    if len(tools) <= limit:
        return list(tools)
    words = set(re.findall(r"[a-z]+", text))
    return [t for t in tools if words & set(t.lower().split("_"))][:limit]


def settle_period(user: str) -> Optional[str]:
    words = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4}
    m = re.search(r"\b(\d+|one|a|two|three|four)?[\s-]*(day|week|month)s?\b", user, re.IGNORECASE)
    if not m:
        return None
    n = int(m.group(1)) if (m.group(1) or "").isdigit() else words[(m.group(1) or "one").lower()]
    return f"{n * {'day': 1, 'week': 7, 'month': 30}[m.group(2).lower()]}d"


class MetricState(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)

    schema_version: Literal[1] = 1
    period: str
    metric_recorded: bool = False
    trend_loaded: bool = False
    record_id: Optional[str] = None
    trend: Optional[dict[str, Any]] = None

    @property
    def complete(self) -> bool:
        return self.metric_recorded and self.trend_loaded


def validated(content: str) -> Optional[dict[str, Any]]:
    body = read_body(content)
    if not body or body.get("ok") is not True or not isinstance(body.get("data"), dict):
        return None
    return None if body["data"].get("success") is False else body["data"]


class DesignedExecutor:
    """The model proposes, code decides, the runtime keeps the record."""

    def __init__(self, episode: Any, inner: Any = None):
        self.inner = inner or PlainExecutor()
        self.tools = route(episode.scenario.user, episode.tools.names)
        self.state = MetricState(period=settle_period(episode.scenario.user) or "14d")

    def offered(self, episode: Any) -> list[ToolSpec]:
        if self.state.complete:
            return []  # nothing left to do but answer
        done = {"record_metric": self.state.metric_recorded, "get_metric_trend": self.state.trend_loaded}
        return [s for s in self.inner.offered(episode) if s.name in self.tools and not done.get(s.name)]

    def execute(self, episode: Any, call: ToolCall) -> ToolMessage:
        if call.name not in self.tools:
            return ToolMessage(call.id, to_json({"ok": False, "error_type": "tool_not_offered", "retryable": False,
                                                 "message": f"'{call.name}' is not one of this task's tools."}),
                               is_error=True)
        if call.name == "record_metric" and self.state.metric_recorded:  # done: answered from the state
            return ToolMessage(call.id, to_json({"ok": True, "data": {"record_id": self.state.record_id},
                                                 "note": "already recorded; not run again"}))
        if call.name == "get_metric_trend":
            if self.state.trend_loaded:
                return ToolMessage(call.id, to_json({"ok": True, "data": self.state.trend}))
            try:
                args = call.parsed_arguments()
            except ValueError:
                args = {}
            call = ToolCall(call.id, call.name, json.dumps({**args, "period": self.state.period}))  # the slot, in code
        result = self.inner.execute(episode, call)
        data = validated(result.content)
        if data is not None:
            if call.name == "record_metric":
                self.state.record_id, self.state.metric_recorded = str(data.get("record_id")), True
            else:
                self.state.trend, self.state.trend_loaded = data, True
        return result

    def after_step(self, episode: Any) -> None:
        return self.inner.after_step(episode)


def validate_plan(plan: Any) -> list[str]:
    """The plan's tools in order, or ValueError naming every problem."""
    if isinstance(plan, str):
        plan = json.loads(plan)
    if not isinstance(plan, dict) or set(plan) != {"steps"} or not isinstance(plan["steps"], list) or not plan["steps"]:
        raise ValueError('a plan is {"steps": [{"tool": ...}, ...]} with at least one step and no other field')
    tools = []
    for i, step in enumerate(plan["steps"]):
        if not isinstance(step, dict) or not isinstance(step.get("tool"), str):
            raise ValueError(f"steps[{i}] has no tool name")
        tools.append(step["tool"])
    problems = [f"steps[{i}]: {t!r} is not an allowed tool" for i, t in enumerate(tools) if t not in TEMPLATE["allowed"]]
    problems += [f"missing required step {t!r}" for t in TEMPLATE["required"] if t not in tools]
    for before, after in TEMPLATE["order"]:
        if before in tools and after in tools and tools.index(after) < tools.index(before):
            problems.append(f"{after!r} must come after {before!r}")
    if problems:
        raise ValueError("; ".join(problems))
    return tools
