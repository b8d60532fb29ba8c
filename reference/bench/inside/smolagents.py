"""The kit's loop guard in smolagents: each tool wrapped (before it runs), and a step callback for a stop.

    tools = [guarded_tool(t, guard) for t in tools]
    agent = ToolCallingAgent(tools=tools, model=model, step_callbacks=[kit_step_callback(guard)])

smolagents has no hook before a tool runs: its step callbacks run after the whole step, tools included.
So the guard wraps each tool's `forward`: a call it will not run returns the guard's feedback as the
tool's output without running the tool, and a result it flags is replaced by its feedback. A stop cannot
end the run from inside a tool (smolagents turns a tool's exception into an observation and goes on), so
the step callback calls `agent.interrupt()`, smolagents' own way to end a run, which takes effect before
the next model request. A tool's forward gets no call id, so each call is a turn of its own here (lapses
are counted per call, not per model message).
"""
from __future__ import annotations

from itertools import count
from typing import Any

from ..kitguard import KitGuard


def guarded_tool(tool: Any, guard: KitGuard) -> Any:
    """The same smolagents Tool, its `forward` asking the guard before and after it runs."""
    original, ids = tool.forward, count(1)

    def forward(*args: Any, **kwargs: Any) -> Any:
        call_id = f"{tool.name}-{next(ids)}"
        arguments = {k: v for k, v in kwargs.items() if v is not None}
        said = guard.before(call_id, tool.name, arguments)
        if said.action != "run":
            return said.text
        try:
            result = original(*args, **kwargs)
        except Exception as exc:
            guard.after(call_id, tool.name, "", raised=exc)
            raise
        after = guard.after(call_id, tool.name, str(result))
        return after.text if after.action == "intervene" else result
    tool.forward = forward
    return tool


def kit_step_callback(guard: KitGuard) -> Any:
    def kit_loop_guard(step: Any, agent: Any = None) -> None:
        if guard.stopping is not None and agent is not None:
            agent.interrupt()
    return kit_loop_guard
