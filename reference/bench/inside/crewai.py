"""The kit's loop guard in CrewAI, as its tool-call hooks and a before-LLM-call hook (crewai.hooks).

    install(KitGuard(tool_specs, user=...))   # before Crew(...).kickoff()

Before the tool runs: the before-tool-call hook asks the guard; a call it will not run is blocked (the
hook returns False, so CrewAI never runs the tool) and the after-tool-call hook, which CrewAI runs on a
blocked call too, puts the guard's feedback in place of CrewAI's "blocked by hook" text. A result the
guard flags is replaced the same way. CrewAI's hooks get no call id, but the agent's executor has put the
whole model message (every call with its id) in its messages before any of its tools runs: the calls of
one message are one turn, and each hook takes its call's id by name and arguments. CrewAI hands the
after-hook only its own error text for a tool that raised, so `install` also wraps `BaseTool.run` to keep
the exception for the hook (per thread: CrewAI runs a call's hooks and its tool on one thread). A stop
ends the run at the next model request: the before-LLM-call hook raises HookAborted, CrewAI's own
deliberate stop (not retried as an error would be). The hooks are global (CrewAI's registry): one guard
per process.
"""
from __future__ import annotations

import functools
import threading
from itertools import count
from typing import Any

from crewai.hooks import (register_after_tool_call_hook, register_before_llm_call_hook,
                          register_before_tool_call_hook)
from crewai.hooks.dispatch import HookAborted
from crewai.tools.base_tool import BaseTool

from ..kitguard import Decision, KitGuard

_raised = threading.local()  # the exception the tool running on this thread raised, for the after-hook


def _keep_exceptions() -> None:
    """BaseTool.run, once per process: an exception is kept for this thread's after-hook, then re-raised."""
    if getattr(BaseTool.run, "_kit_keeps_exceptions", False):
        return
    original = BaseTool.run

    @functools.wraps(original)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        _raised.exc = None
        try:
            return original(self, *args, **kwargs)
        except Exception as exc:
            _raised.exc = exc
            raise
    run._kit_keeps_exceptions = True  # type: ignore[attr-defined]
    BaseTool.run = run  # type: ignore[method-assign]


def model_message_calls(ctx: Any) -> list[tuple[str, str, Any]]:
    """The calls (id, name, arguments) of the last model message the agent's executor holds, if it shows one."""
    executor = getattr(getattr(ctx, "agent", None), "agent_executor", None)
    messages = getattr(getattr(executor, "state", None), "messages", None) or getattr(executor, "messages", None) or []
    last = next((m for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "assistant"), None)
    return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in (last or {}).get("tool_calls") or []
            if isinstance(c, dict) and c.get("id") and isinstance(c.get("function"), dict)]


def install(guard: KitGuard) -> None:
    ids, lock = count(1), threading.Lock()
    pending: dict[int, tuple[dict, str, Decision]] = {}  # CrewAI hands both hooks the same tool_input dict
    _keep_exceptions()

    def before_tool(ctx: Any) -> bool | None:
        calls = model_message_calls(ctx)
        if calls:
            guard.model_turn(calls)
        call_id = guard.claim(ctx.tool_name, ctx.tool_input) or f"{ctx.tool_name}-{next(ids)}"
        said = guard.before(call_id, ctx.tool_name, dict(ctx.tool_input))
        with lock:
            pending[id(ctx.tool_input)] = (ctx.tool_input, call_id, said)
        return False if said.action != "run" else None

    def after_tool(ctx: Any) -> str | None:
        raised, _raised.exc = getattr(_raised, "exc", None), None
        with lock:
            kept = pending.get(id(ctx.tool_input))
            if kept is None or kept[0] is not ctx.tool_input:  # not this call's: a dict since freed at that address
                return None
            _, call_id, said = pending.pop(id(ctx.tool_input))
        if said.action != "run":
            return said.text
        after = guard.after(call_id, ctx.tool_name, str(ctx.tool_result), raised=raised)
        return after.text if after.action == "intervene" else None

    def before_llm(ctx: Any) -> bool | None:
        if guard.stopping is not None:
            raise HookAborted(reason=f"kit guard: {guard.stopping.pattern}")
        return None

    register_before_tool_call_hook(before_tool)
    register_after_tool_call_hook(after_tool)
    register_before_llm_call_hook(before_llm)
