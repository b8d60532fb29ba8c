"""The kit's loop guard in CrewAI, as its tool-call hooks and a before-LLM-call hook (crewai.hooks).

    install(KitGuard(tool_specs, user=...))   # before Crew(...).kickoff()

Before the tool runs: the before-tool-call hook asks the guard; a call it will not run is blocked (the
hook returns False, so CrewAI never runs the tool) and the after-tool-call hook, which CrewAI runs on a
blocked call too, puts the guard's feedback in place of CrewAI's "blocked by hook" text. A result the
guard flags is replaced the same way. A stop blocks the next model request (the before-LLM-call hook
returns False), which ends the run with CrewAI's LLMCallBlockedError. CrewAI's hooks get no call id, so
each call is a turn of its own here (lapses are counted per call, not per model message). The hooks are
global (CrewAI's registry): one guard per process.
"""
from __future__ import annotations

import threading
from itertools import count
from typing import Any

from crewai.hooks import (register_after_tool_call_hook, register_before_llm_call_hook,
                          register_before_tool_call_hook)

from ..kitguard import Decision, KitGuard


def install(guard: KitGuard) -> None:
    ids, lock = count(1), threading.Lock()
    pending: dict[int, tuple[str, Decision]] = {}  # CrewAI hands both hooks the same tool_input dict

    def before_tool(ctx: Any) -> bool | None:
        call_id = f"{ctx.tool_name}-{next(ids)}"
        said = guard.before(call_id, ctx.tool_name, dict(ctx.tool_input))
        with lock:
            pending[id(ctx.tool_input)] = (call_id, said)
        return False if said.action != "run" else None

    def after_tool(ctx: Any) -> str | None:
        with lock:
            call_id, said = pending.pop(id(ctx.tool_input), ("", Decision("run")))
        if said.action != "run":
            return said.text
        if not call_id:
            return None
        after = guard.after(call_id, ctx.tool_name, str(ctx.tool_result))
        return after.text if after.action == "intervene" else None

    def before_llm(ctx: Any) -> bool | None:
        return False if guard.stopping is not None else None

    register_before_tool_call_hook(before_tool)
    register_after_tool_call_hook(after_tool)
    register_before_llm_call_hook(before_llm)
