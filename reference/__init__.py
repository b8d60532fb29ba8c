"""Agent Loop Interview Kit: the harness that exercises plug into, and the reference loops.

The names below are imported on first use (PEP 562), not when the package is: a part imported on its
own (the loop guard inside another framework's venv, reference/bench/kitguard.py) must not pull in pydantic or
an SDK through this file.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {
    "SimClock": ".sim.clock", "Episode": ".harness.episode",
    "AssistantMessage": ".core.messages", "Message": ".core.messages", "SystemMessage": ".core.messages",
    "ToolCall": ".core.messages", "ToolMessage": ".core.messages", "ToolSpec": ".core.messages",
    "UserMessage": ".core.messages",
    "Model": ".core.model", "Pricing": ".core.model", "Turn": ".core.model", "Usage": ".core.model",
    "ProtocolError": ".wire.protocol", "check_request": ".wire.protocol", "to_wire": ".wire.protocol",
    "RunResult": ".core.result", "StepRecord": ".core.result", "StopReason": ".core.result",
    "ScenarioError": ".core.errors",
    "catalogue": ".sim.scenario.loading", "find": ".sim.scenario.loading", "load_scenario": ".sim.scenario.loading",
    "parse_scenario": ".sim.scenario.loading", "Scenario": ".sim.scenario.schema",
    "ScriptedModel": ".sim.scripted", "ScriptExhausted": ".sim.scripted",
    "ToolOutcome": ".sim.tools", "Toolbox": ".sim.tools", "ToolTimeout": ".sim.tools",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'reference' has no attribute {name!r}")
    value = getattr(import_module(_WHERE[name], __name__), name)
    globals()[name] = value  # once imported, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
