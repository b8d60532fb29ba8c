"""The one place where diagnosis meets lesson 3's guard, and only through the `Guard` hook protocol of
reference/loops/hooks.py: `before_call`, `after_result`, `after_step`, and the verdicts they return.

Shadow mode (shadow.py) is the guarded loop with the model and the tools replaced by a recording: the
guard is built exactly as the loop's runner builds it (`LoopGuard.for_episode`), from a stand-in episode
that offers the log's tools, keeps one fixed day on its clock and a ledger in which every recorded result
reached its tool; nothing here reaches into the guard's own state. What a verdict means
is read from what the protocol returns: its action, the feedback message the model would have read,
and the stop (its reason and detail).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from types import SimpleNamespace
from typing import Any, Optional, Sequence

from ..core.messages import Message, ToolCall, ToolMessage, ToolSpec
from ..loops.hooks import Guard, not_run
from ..parts.guards import LoopGuard

# A log seldom says what day it was. Relative dates ("tomorrow") only need one fixed day per conversation.
DEFAULT_DAY = date(2000, 1, 1)


@dataclass(frozen=True)
class Said:
    """What the guard said about one call, in the protocol's terms."""

    action: str  # "run" | "intervene" | "stop"
    rule: Optional[str] = None  # the pattern, or the stop reason
    why: str = ""
    feedback: Optional[ToolMessage] = None  # what the model would have read instead of the recorded result


@dataclass
class _Tool:
    """A tool as a scenario defines it (the fields `for_episode` reads), from the log's definition."""

    name: str
    parameters: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    volatile: Optional[bool] = None
    annotations: Optional[dict[str, Any]] = None  # None: the log gives none (MCP's defaults are for a given object)
    metadata: list[str] = field(default_factory=list)


class ShadowGuard:
    """The guard of the guarded loop, fed a recorded conversation."""

    def __init__(self, definitions: list[dict[str, Any]], called: Sequence[str], intent: Optional[str] = None,
                 day: date = DEFAULT_DAY) -> None:
        tools = [_Tool(str(d["name"]), dict(d.get("parameters") or {}), str(d.get("description") or ""),
                       d.get("volatile"), _annotations(d.get("annotations")), list(d.get("metadata") or []))
                 for d in definitions]
        specs = [ToolSpec(t.name, t.description, t.parameters) for t in tools]
        known = {t.name for t in tools}
        specs += [ToolSpec(name) for name in dict.fromkeys(called) if name not in known]  # name only
        scenario = SimpleNamespace(tools=tools, intent=intent or "general")
        # the ledger says which calls reached their tool: in a recording, every call that has a result did
        self._reached: list[SimpleNamespace] = []
        ledger = SimpleNamespace(steps=[SimpleNamespace(tools=self._reached)])
        self.episode = SimpleNamespace(scenario=scenario, tools=SimpleNamespace(specs=specs), ledger=ledger,
                                       clock=SimpleNamespace(today=lambda: day))
        self.guard: Guard = LoopGuard.for_episode(self.episode)  # type: ignore[arg-type]

    def before_call(self, call: ToolCall, messages: Sequence[Message]) -> Said:
        verdict = self.guard.before_call(self.episode, call, messages)  # type: ignore[arg-type]
        if verdict.action == "run":
            return Said("run")
        # the stop a verdict carries: a (reason, detail) pair, or a value with .reason and .detail
        stop = (getattr(verdict, "trip", None) or getattr(verdict, "stop", None)) if verdict.action == "stop" else None
        message = verdict.message or not_run(call, _detail(stop) or "not run")
        return _said(verdict.action, message, stop)

    def after_result(self, call: ToolCall, result: ToolMessage) -> Optional[Said]:
        self._reached.append(SimpleNamespace(call_id=call.id))
        checked = self.guard.after_result(self.episode, call, result)  # type: ignore[arg-type]
        return None if checked is result else _said("intervene", checked, None)

    def after_step(self, messages: Sequence[Message]) -> Optional[Said]:
        stop = self.guard.after_step(self.episode, messages)  # type: ignore[arg-type]
        self._reached.clear()  # the next model step starts with no tool run
        return None if stop is None else Said("stop", _reason(stop), _detail(stop))


def _annotations(value: Any) -> Optional[dict[str, Any]]:
    return dict(value) if isinstance(value, dict) and value else None


def _reason(stop: Any) -> Optional[str]:
    """The stop's reason as text, whether the stop is a (reason, detail) pair or a value with fields."""
    reason = getattr(stop, "reason", None) if not isinstance(stop, tuple) else stop[0]
    return getattr(reason, "value", reason) if reason is not None else None


def _detail(stop: Any) -> Optional[str]:
    if stop is None:
        return None
    return stop[1] if isinstance(stop, tuple) else getattr(stop, "detail", None)


def _said(action: str, message: ToolMessage, stop: Any) -> Said:
    try:
        body = json.loads(message.content)
    except ValueError:
        body = None
    body = body if isinstance(body, dict) else {}
    rule = body.get("pattern") or body.get("error_type") or _reason(stop)
    why = _detail(stop) or body.get("evidence") or body.get("message") or message.content[:300]
    return Said(action, rule, str(why), message)
