"""The kit's loop guard in smolagents: each tool wrapped (before it runs), the model message heard before its
tools run, and a step callback for a stop.

    tools = [guarded_tool(t, guard) for t in tools]
    agent = ToolCallingAgent(tools=tools, model=model, step_callbacks=[kit_step_callback(guard)])
    hear_model_turns(agent, guard)

smolagents has no hook before a tool runs: its step callbacks run after the whole step, tools included.
So the guard wraps each tool's `forward`: a call it will not run returns the guard's feedback as the
tool's output without running the tool, and a result it flags is replaced by its feedback. `forward` gets
no call id, so `hear_model_turns` wraps the agent's `process_tool_calls`, which receives the whole model
message (every call with its id) before any of its tools runs: the calls of one message are one turn, and
each `forward` takes its call's id by name and arguments. A stop cannot end the run from inside a tool
(smolagents turns a tool's exception into an observation and goes on), so the step callback calls
`agent.interrupt()`, smolagents' own way to end a run, which takes effect before the next model request.
"""
from __future__ import annotations

from itertools import count
from typing import Any

from ..kitguard import KitGuard


def guarded_tool(tool: Any, guard: KitGuard) -> Any:
    """The same smolagents Tool, its `forward` asking the guard before and after it runs."""
    original, ids = tool.forward, count(1)

    def forward(*args: Any, **kwargs: Any) -> Any:
        # arguments that are not a JSON object reach a tool as one positional string: the guard sees that text
        arguments = args[0] if args and not kwargs else {k: v for k, v in kwargs.items() if v is not None}
        call_id = guard.claim(tool.name, arguments) or f"{tool.name}-{next(ids)}"
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


def hear_model_turns(agent: Any, guard: KitGuard) -> Any:
    """The agent's `process_tool_calls` tells the guard each model message's calls before running them."""
    original = agent.process_tool_calls

    def process_tool_calls(chat_message: Any, memory_step: Any) -> Any:
        calls = [(c.id, c.function.name, c.function.arguments) for c in chat_message.tool_calls or []]
        if calls:
            guard.model_turn(calls)
        yield from original(chat_message, memory_step)
    agent.process_tool_calls = process_tool_calls
    return agent


def kit_step_callback(guard: KitGuard) -> Any:
    def kit_loop_guard(step: Any, agent: Any = None) -> None:
        if guard.stopping is not None and agent is not None:
            agent.interrupt()
    return kit_loop_guard
